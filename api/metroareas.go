package api

import (
	"net/http"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
)

// handleMetroAreaGet finds a metro area by its id or its UN/LOCODE.
func handleMetroAreaGet(p portRenderer, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id := r.PathValue("id")
		pt, ok := p.lookup(id)
		if !ok {
			return boxwatch.ErrNotFound
		}
		res := jsonapi.MetroArea(pt)
		writeResource(w, http.StatusOK, base(r)+res.Links.Self, res, nil)
		return nil
	}
}
