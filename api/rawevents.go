package api

import (
	"net/http"

	"github.com/boxwatch/boxwatch/jsonapi"
)

// rawEventRoutes are the endpoint listing a container's raw events.
func (s *server) rawEventRoutes(rd jsonapi.Renderer) []route {
	st := s.cfg.Store
	return []route{
		{
			method: "GET", path: "/v2/containers/{id}/raw_events", tag: "Containers",
			summary: "List a container's raw events",
			doc: "Returns the carrier's own records for the container as its last answer gave them, estimated and planned ones " +
				"included (estimated: true), each with the milestone it stands for (event) and the carrier's code spelled out (original_event).",
			auth: true, bucket: bucketDefault,
			status: http.StatusOK, resp: jsonapi.RawEventListDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handleRawEvents(st, rd, s.baseURL),
		},
	}
}

func handleRawEvents(st containerStores, rd jsonapi.Renderer, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		acct := account(r).ID
		c, err := st.Container(r.Context(), acct, r.PathValue("id"))
		if err != nil {
			return err
		}
		s, err := st.ShipmentWithSnapshot(r.Context(), acct, c.ShipmentID)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, jsonapi.RawEventListDocument{Data: rd.RawEvents(s, c), Links: &jsonapi.Links{Self: base(r) + r.URL.Path}})
		return nil
	}
}
