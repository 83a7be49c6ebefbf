package api

import (
	"net/http"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
)

// transportEventRoutes are the endpoint listing a container's milestones.
func (s *server) transportEventRoutes(rd jsonapi.Renderer) []route {
	st := s.cfg.Store
	return []route{
		{
			method: "GET", path: "/v2/containers/{id}/transport_events", tag: "Containers",
			summary: "List a container's transport events",
			doc:     "Returns the container's milestones (container.transport.*), oldest first.",
			auth:    true, bucket: bucketDefault, params: []param{paramPageNumber, paramPageSize, paramInclude(jsonapi.TransportEventRelationshipNames...)},
			status: http.StatusOK, resp: jsonapi.TransportEventListDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handleTransportEvents(st, rd, s.listLinks),
		},
	}
}

// transportEventStores reads a container's milestones with what they include: the container and
// its shipment, vessels, and the terminals of ports.
type transportEventStores interface {
	containerStores
	boxwatch.VesselStore
	boxwatch.TerminalStore
}

func handleTransportEvents(st transportEventStores, rd jsonapi.Renderer, pageLinks pageLinker) handlerFunc {
	return handleList(pageLinks, func(r *http.Request, page boxwatch.Page) (listPage[jsonapi.TransportEventResource], error) {
		var lp listPage[jsonapi.TransportEventResource]
		inc, err := includes(r.URL.Query(), jsonapi.TransportEventRelationshipNames...)
		if err != nil {
			return lp, err
		}
		acct := account(r).ID
		list, total, err := st.TransportEvents(r.Context(), acct, r.PathValue("id"), page)
		if err != nil {
			return lp, err
		}
		vessels := map[string]boxwatch.Vessel{}
		if inc["vessel"] {
			if vessels, err = st.VesselsByIMO(r.Context(), idsOf(list, func(e boxwatch.TransportEvent) string { return e.VesselIMO })); err != nil {
				return lp, err
			}
		}
		lp.data, lp.included, lp.total = make([]jsonapi.TransportEventResource, len(list)), []any{}, boxwatch.Total{N: total}
		// Every event of the page belongs to the one container of the path, and its shipment.
		var s boxwatch.Shipment
		if len(list) > 0 {
			if s, err = st.Shipment(r.Context(), acct, list[0].ShipmentID); err != nil {
				return lp, err
			}
			if inc["container"] || inc["shipment"] {
				if lp.included, err = eventOwners(r, st, rd, inc, list[0].ContainerID); err != nil {
					return lp, err
				}
			}
		}
		seen := map[string]bool{}
		for i, e := range list {
			lp.data[i] = rd.TransportEvent(e, s.Route)
			lp.included = rd.TransportEventIncludes(inc, e, s.Route, seen, lp.included)
			if v, ok := vessels[e.VesselIMO]; ok && !seen[e.VesselIMO] {
				seen[e.VesselIMO] = true
				lp.included = append(lp.included, jsonapi.Vessel(v))
			}
		}
		lp.included, err = jsonapi.WithTerminals(r.Context(), st, lp.included)
		return lp, err
	})
}

// eventOwners renders the container and shipment of a container's events, as include asks.
func eventOwners(r *http.Request, st containerStores, rd jsonapi.Renderer, inc map[string]bool, containerID string) ([]any, error) {
	acct := account(r).ID
	c, err := st.Container(r.Context(), acct, containerID)
	if err != nil {
		return nil, err
	}
	s, err := st.Shipment(r.Context(), acct, c.ShipmentID)
	if err != nil {
		return nil, err
	}
	out := []any{}
	if inc["container"] {
		byContainer, err := st.TransportEventsOfContainers(r.Context(), acct, []string{c.ID})
		if err != nil {
			return nil, err
		}
		pod, _ := s.POD()
		out = append(out, rd.Container(c, pod, byContainer[c.ID]))
	}
	if inc["shipment"] {
		siblings, err := st.ShipmentContainers(r.Context(), acct, s.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, rd.Shipment(s, siblings))
	}
	return out, nil
}
