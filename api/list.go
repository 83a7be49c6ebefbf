package api

import (
	"net/http"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
)

// pageLinker describes one page of a listing as links and meta (server.listLinks).
type pageLinker func(r *http.Request, p boxwatch.Page, total boxwatch.Total) (*jsonapi.Links, *jsonapi.Meta)

// listPage is one page of a listing as its loader returns it: the resources, what include added,
// and how many records match on every page.
type listPage[R any] struct {
	data     []R
	included []any
	total    boxwatch.Total
}

// handleList is the skeleton every listing shares: read the page parameters, load the page, and
// answer it with its links and meta. load reads the listing's own filters and includes, and
// reads related rows in batches so that a page costs the same number of queries whatever its size.
func handleList[R any](pageLinks pageLinker, load func(r *http.Request, page boxwatch.Page) (listPage[R], error)) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		page, err := pageParams(r.URL.Query())
		if err != nil {
			return err
		}
		lp, err := load(r, page)
		if err != nil {
			return err
		}
		if lp.data == nil {
			lp.data = []R{}
		}
		l, m := pageLinks(r, page, lp.total)
		m.Size = len(lp.data)
		writeJSON(w, http.StatusOK, jsonapi.Document[[]R]{Data: lp.data, Included: lp.included, Links: l, Meta: m})
		return nil
	}
}

// idsOf returns the non-empty ids of list, in order, each once: the keys of a batch read.
func idsOf[T any](list []T, id func(T) string) []string {
	seen := make(map[string]bool, len(list))
	ids := make([]string, 0, len(list))
	for _, v := range list {
		if k := id(v); k != "" && !seen[k] {
			seen[k] = true
			ids = append(ids, k)
		}
	}
	return ids
}
