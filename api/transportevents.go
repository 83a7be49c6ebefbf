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
	CreatedAt      string  `json:"created_at" format:"date-time"`
}

type transportEventRelationships struct {
	Shipment  toOne `json:"shipment"`
	Container toOne `json:"container"`
	Vessel    toOne `json:"vessel"`
	Location  toOne `json:"location"`
}

type transportEventResource struct {
	ID            string                      `json:"id" format:"uuid"`
	Type          string                      `json:"type" enum:"transport_event"`
	Attributes    transportEventAttributes    `json:"attributes"`
	Relationships transportEventRelationships `json:"relationships"`
}

type transportEventListDocument = document[[]transportEventResource]

func (p portRenderer) transportEventOut(e boxwatch.TransportEvent) transportEventResource {
	res := transportEventResource{ID: e.ID, Type: "transport_event", Attributes: transportEventAttributes{
		Event: e.Event, Timestamp: optTime(e.Timestamp), Timezone: p.tz(e.LOCODE), LocationLOCODE: optString(e.LOCODE),
		VoyageNumber: optString(e.VoyageNumber), DataSource: e.DataSource, CreatedAt: e.CreatedAt.UTC().Format(boxwatch.TimeFormat),
	}, Relationships: transportEventRelationships{
		Shipment: linkTo(e.ShipmentID, "shipment"), Container: linkTo(e.ContainerID, "container"), Location: linkTo(p.id(e.LOCODE), "port"),
	}}
	if e.VesselIMO != "" {
		res.Relationships.Vessel = linkTo(boxwatch.VesselID(e.VesselIMO), "vessel")
	}
	return res
}

func handleTransportEvents(st boxwatch.Store, p portRenderer, pageLinks pageLinker) handlerFunc {
	return handleList(pageLinks, func(r *http.Request, page boxwatch.Page) (listPage[transportEventResource], error) {
		var lp listPage[transportEventResource]
		inc, err := includes(r.URL.Query(), "location", "vessel")
		if err != nil {
			return lp, err
		}
		list, total, err := st.TransportEvents(r.Context(), account(r).ID, r.PathValue("id"), page)
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
		seen := map[string]bool{}
		for i, e := range list {
			lp.data[i] = p.transportEventOut(e)
			if pt, ok := p.port(e.LOCODE); ok && inc["location"] && !seen[pt.ID] {
				seen[pt.ID] = true
				lp.included = append(lp.included, portOut(pt))
			}
			if v, ok := vessels[e.VesselIMO]; ok && !seen[e.VesselIMO] {
				seen[e.VesselIMO] = true
				lp.included = append(lp.included, vesselOut(v))
			}
		}
		return lp, nil
	})
}
