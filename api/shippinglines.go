package api

import (
	"net/http"
	"strings"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
)

func handleShippingLineList(carriers *boxwatch.Carriers, base func(*http.Request) string) handlerFunc {
	all := carriers.All()
	return func(w http.ResponseWriter, r *http.Request) error {
		search := strings.TrimSpace(r.URL.Query().Get("search"))
		if len(search) > 100 {
			return boxwatch.BadParameter("search", "search is at most 100 characters.")
		}
		data := []jsonapi.ShippingLineResource{}
		for _, l := range all {
			if search == "" || l.Matches(search) {
				data = append(data, jsonapi.ShippingLine(l))
			}
		}
		writeJSON(w, http.StatusOK, jsonapi.ShippingLineListDocument{Data: data, Links: &jsonapi.Links{Self: base(r) + r.URL.RequestURI()}})
		return nil
	}
}

func handleShippingLineGet(carriers *boxwatch.Carriers, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id := r.PathValue("id")
		line, ok := carriers.ByID(boxwatch.LowerASCII(id))
		if !ok {
			line, ok = carriers.BySCAC(boxwatch.UpperASCII(id))
		}
		if !ok {
			return boxwatch.ErrNotFound
		}
		res := jsonapi.ShippingLine(line)
		writeResource(w, http.StatusOK, base(r)+res.Links.Self, res, nil)
		return nil
	}
}
