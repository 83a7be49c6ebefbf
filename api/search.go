package api

import (
	"net/http"
	"strings"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
)

// searchRoutes are the search endpoint.
func (s *server) searchRoutes(rd jsonapi.Renderer) []route {
	st := s.cfg.Store
	return []route{
		{
			method: "GET", path: "/v2/search", tag: "Search",
			summary: "Search shipments, containers and tracking requests",
			doc: "Finds the account's shipments, containers (type cargo) and tracking requests whose bill of lading, booking, container, " +
				"request or reference number contains query (case-insensitive; spaces and dashes in container numbers are ignored). " +
				"At most 25 of each kind, newest first.",
			auth: true, bucket: bucketDefault, params: []param{{name: "query", typ: "string", doc: "Required: a number or part of one; at most 100 characters."}},
			status: http.StatusOK, resp: jsonapi.SearchDocument{},
			errors:  []int{400, 401, 429},
			handler: handleSearch(st, rd),
		},
	}
}

// searchLimit is how many matches of each kind one search returns, newest first.
const searchLimit = 25

func handleSearch(st trackedStores, rd jsonapi.Renderer) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		query := strings.TrimSpace(r.URL.Query().Get("query"))
		switch {
		case query == "":
			return boxwatch.BadParameter("query", "query is required: a bill of lading, booking, container or reference number, or part of one.")
		case len(query) > 100:
			return boxwatch.BadParameter("query", "query is at most 100 characters.")
		}
		acct, page := account(r).ID, boxwatch.Page{Number: 1, Size: searchLimit}
		shipments, _, err := st.Shipments(r.Context(), acct, boxwatch.ShipmentFilter{Query: query}, page)
		if err != nil {
			return err
		}
		containers, err := st.ContainersOfShipments(r.Context(), acct, idsOf(shipments, func(s boxwatch.Shipment) string { return s.ID }))
		if err != nil {
			return err
		}
		requests, _, err := st.TrackingRequests(r.Context(), acct, boxwatch.TrackingRequestFilter{Query: query}, page)
		if err != nil {
			return err
		}
		doc := jsonapi.SearchDocument{Data: []jsonapi.SearchResult{}}
		boxQuery := boxwatch.NormalizeContainerNumber(query)
		var cargo []jsonapi.SearchResult
		for _, s := range shipments {
			doc.Data = append(doc.Data, rd.ShipmentMatch(s, len(containers[s.ID])))
			for _, c := range containers[s.ID] {
				if strings.Contains(c.Number, boxQuery) && len(cargo) < searchLimit {
					cargo = append(cargo, jsonapi.ContainerMatch(c, s))
				}
			}
		}
		doc.Data = append(doc.Data, cargo...)
		for _, tr := range requests {
			doc.Data = append(doc.Data, jsonapi.RequestMatch(tr))
		}
		writeJSON(w, http.StatusOK, doc)
		return nil
	}
}
