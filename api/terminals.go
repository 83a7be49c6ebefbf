package api

import (
	"net/http"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
)

func handleTerminalGet(st boxwatch.Store, rd jsonapi.Renderer, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := st.Terminal(r.Context(), r.PathValue("id"))
		if err != nil {
			return err
		}
		res := rd.Terminal(t)
		writeResource(w, http.StatusOK, base(r)+res.Links.Self, res, nil)
		return nil
	}
}
