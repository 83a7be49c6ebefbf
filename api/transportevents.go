package api

import (
	"net/http"

	"github.com/boxwatch/boxwatch"
)

type transportEventAttributes struct {
	Event          string  `json:"event"`
	Timestamp      *string `json:"timestamp" format:"date-time"`
	Timezone       *string `json:"timezone"`
	LocationLOCODE *string `json:"location_locode"`
	VoyageNumber   *string `json:"voyage_number"`
	DataSource     string  `json:"data_source" enum:"shipping_line,terminal,ais"`
	InvalidatedAt  *string `json:"invalidated_at" format:"date-time" doc:"Null: boxwatch keeps a milestone once reported."`
	Value          *string `json:"value" doc:"The new value a terminal event announces (container.pickup_lfd.changed: the day); null for milestones."`
	CreatedAt      string  `json:"created_at" format:"date-time"`
}

type transportEventRelationships struct {
	Shipment  toOne `json:"shipment"`
	Container toOne `json:"container"`
	Vessel    toOne `json:"vessel"`
	Location  toOne `json:"location"`
	Terminal  toOne `json:"terminal"`
}

// transportEventRelationshipNames are the transport event relationships the reference API
// defines, every one of which include accepts.
var transportEventRelationshipNames = []string{"shipment", "container", "vessel", "location", "terminal"}

type transportEventResource struct {
	ID            string                      `json:"id" format:"uuid"`
	Type          string                      `json:"type" enum:"transport_event"`
	Attributes    transportEventAttributes    `json:"attributes"`
	Relationships transportEventRelationships `json:"relationships"`
}

type transportEventListDocument = document[[]transportEventResource]

// transportEventOut renders a milestone; route is its shipment's, which names the terminals.
func (p portRenderer) transportEventOut(e boxwatch.TransportEvent, route []boxwatch.RouteStop) transportEventResource {
	res := transportEventResource{ID: e.ID, Type: "transport_event", Attributes: transportEventAttributes{
		Event: e.Event, Timestamp: optTime(e.Timestamp), Timezone: p.tz(e.LOCODE), LocationLOCODE: optString(e.LOCODE),
		VoyageNumber: optString(e.VoyageNumber), DataSource: e.DataSource, Value: optString(e.Value), CreatedAt: e.CreatedAt.UTC().Format(boxwatch.TimeFormat),
	}, Relationships: transportEventRelationships{
		Shipment: linkTo(e.ShipmentID, "shipment"), Container: linkTo(e.ContainerID, "container"), Location: linkTo(p.id(e.LOCODE), "port"),
		Terminal: linkTo(terminalAt(route, e.LOCODE), "terminal"),
	}}
	if e.VesselIMO != "" {
		res.Relationships.Vessel = linkTo(boxwatch.VesselID(e.VesselIMO), "vessel")
	}
	return res
}

func handleTransportEvents(st boxwatch.Store, carriers *boxwatch.Carriers, p portRenderer, pageLinks pageLinker) handlerFunc {
	return handleList(pageLinks, func(r *http.Request, page boxwatch.Page) (listPage[transportEventResource], error) {
		var lp listPage[transportEventResource]
		inc, err := includes(r.URL.Query(), transportEventRelationshipNames...)
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
		lp.data, lp.included, lp.total = make([]transportEventResource, len(list)), []any{}, total
		// Every event of the page belongs to the one container of the path, and its shipment.
		var s boxwatch.Shipment
		if len(list) > 0 {
			if s, err = st.Shipment(r.Context(), acct, list[0].ShipmentID); err != nil {
				return lp, err
			}
			if inc["container"] || inc["shipment"] {
				if lp.included, err = eventOwners(r, st, carriers, p, inc, list[0].ContainerID); err != nil {
					return lp, err
				}
			}
		}
		seen := map[string]bool{}
		for i, e := range list {
			lp.data[i] = p.transportEventOut(e, s.Route)
			if t, ok := stopTerminal(stopAt(s.Route, e.LOCODE)); ok && inc["terminal"] && !seen[t.ID] {
				seen[t.ID] = true
				lp.included = append(lp.included, p.terminalOut(t))
			}
			if pt, ok := p.port(e.LOCODE); ok && inc["location"] && !seen[pt.ID] {
				seen[pt.ID] = true
				lp.included = append(lp.included, portOut(pt))
			}
			if v, ok := vessels[e.VesselIMO]; ok && !seen[e.VesselIMO] {
				seen[e.VesselIMO] = true
				lp.included = append(lp.included, vesselOut(v))
			}
		}
		lp.included, err = withTerminals(r.Context(), st, lp.included)
		return lp, err
	})
}

// eventOwners renders the container and shipment of a container's events, as include asks.
func eventOwners(r *http.Request, st boxwatch.Store, carriers *boxwatch.Carriers, p portRenderer, inc map[string]bool, containerID string) ([]any, error) {
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
		out = append(out, p.containerOut(c, pod, byContainer[c.ID]))
	}
	if inc["shipment"] {
		siblings, err := st.ShipmentContainers(r.Context(), acct, s.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, p.shipmentOut(s, carriers, siblings))
	}
	return out, nil
}
