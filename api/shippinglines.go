package api

import (
	"net/http"
	"strings"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
)

// shippingLineRoutes are the shipping line endpoints.
func (s *server) shippingLineRoutes() []route {
	carriers := s.cfg.Carriers
	return []route{
		{
			method: "GET", path: "/v2/shipping_lines", tag: "Shipping Lines",
			summary: "List shipping lines",
			doc: "Returns every shipping line boxwatch knows and which number types each can be tracked by. Not paginated. " +
				"search keeps the lines whose name or short name contains it, or that use it as a SCAC.",
			auth: true, bucket: bucketDefault, params: []param{{name: "search", typ: "string", doc: "Part of a line's name, or one of its SCACs; at most 100 characters."}},
			status: http.StatusOK, resp: jsonapi.ShippingLineListDocument{},
			errors:  []int{400, 401, 429},
			handler: handleShippingLineList(carriers, s.baseURL),
		},
		{
			method: "GET", path: "/v2/shipping_lines/{id}", tag: "Shipping Lines",
			summary: "Get a shipping line",
			doc:     "Returns one shipping line by its id or by any of its SCACs.",
			auth:    true, bucket: bucketDefault,
			status: http.StatusOK, resp: jsonapi.ShippingLineDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handleShippingLineGet(carriers, s.baseURL),
		},
	}
}

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
