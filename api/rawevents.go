package api

import (
	"net/http"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
)

func handleRawEvents(st boxwatch.Store, rd jsonapi.Renderer, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		acct := account(r).ID
		c, err := st.Container(r.Context(), acct, r.PathValue("id"))
		if err != nil {
			return err
		}
		s, err := st.Shipment(r.Context(), acct, c.ShipmentID)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, jsonapi.RawEventListDocument{Data: rd.RawEvents(s, c), Links: &jsonapi.Links{Self: base(r) + r.URL.Path}})
		return nil
	}
}
