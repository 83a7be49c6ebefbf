package api

import (
	"net/http"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
)

func handlePortGet(st boxwatch.Store, p portRenderer, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		pt, ok := p.lookup(r.PathValue("id"))
		if !ok {
			return boxwatch.ErrNotFound
		}
		withPort, err := jsonapi.WithTerminals(r.Context(), st, []any{jsonapi.Port(pt)})
		if err != nil {
			return err
		}
		res := withPort[0].(jsonapi.PortResource)
		writeResource(w, http.StatusOK, base(r)+res.Links.Self, res, nil)
		return nil
	}
}
