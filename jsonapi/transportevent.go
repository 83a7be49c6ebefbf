package jsonapi

import "github.com/boxwatch/boxwatch"

// TransportEventAttributes is the wire form of a container's milestone.
type TransportEventAttributes struct {
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

// TransportEventRelationships link a milestone to its shipment, container, vessel and place.
type TransportEventRelationships struct {
	Shipment  ToOne `json:"shipment"`
	Container ToOne `json:"container"`
	Vessel    ToOne `json:"vessel"`
	Location  ToOne `json:"location"`
	Terminal  ToOne `json:"terminal"`
}

// TransportEventRelationshipNames are the transport event relationships the reference API
// defines, every one of which include accepts.
var TransportEventRelationshipNames = []string{"shipment", "container", "vessel", "location", "terminal"}

// TransportEventResource is a milestone as a JSON:API resource.
type TransportEventResource struct {
	ID            string                      `json:"id" format:"uuid"`
	Type          string                      `json:"type" enum:"transport_event"`
	Attributes    TransportEventAttributes    `json:"attributes"`
	Relationships TransportEventRelationships `json:"relationships"`
}

// TransportEventListDocument answers a page of a container's milestones.
type TransportEventListDocument = Document[[]TransportEventResource]

// TransportEvent renders a milestone; route is its shipment's, which names the terminals.
func (rd Renderer) TransportEvent(e boxwatch.TransportEvent, route []boxwatch.RouteStop) TransportEventResource {
	res := TransportEventResource{ID: e.ID, Type: "transport_event", Attributes: TransportEventAttributes{
		Event: e.Event, Timestamp: optTime(e.Timestamp), Timezone: rd.timeZone(e.LOCODE), LocationLOCODE: optString(e.LOCODE),
		VoyageNumber: optString(e.VoyageNumber), DataSource: e.DataSource, Value: optString(e.Value), CreatedAt: timestamp(e.CreatedAt),
	}, Relationships: TransportEventRelationships{
		Shipment: linkTo(e.ShipmentID, "shipment"), Container: linkTo(e.ContainerID, "container"), Location: linkTo(portID(e.LOCODE), "port"),
		Terminal: linkTo(stopAt(route, e.LOCODE).TerminalID(), "terminal"),
	}}
	if e.VesselIMO != "" {
		res.Relationships.Vessel = linkTo(boxwatch.VesselID(e.VesselIMO), "vessel")
	}
	return res
}

// TransportEventIncludes adds to out the terminal and the port of a milestone that include (inc)
// asks for; route is its shipment's. seen holds the ids of the terminals and ports out already
// has; each is added once.
func (rd Renderer) TransportEventIncludes(inc map[string]bool, e boxwatch.TransportEvent, route []boxwatch.RouteStop, seen map[string]bool, out []any) []any {
	if t, ok := stopTerminal(stopAt(route, e.LOCODE)); ok && inc["terminal"] && !seen[t.ID] {
		seen[t.ID] = true
		out = append(out, rd.Terminal(t))
	}
	if pt, ok := rd.port(e.LOCODE); ok && inc["location"] && !seen[pt.ID] {
		seen[pt.ID] = true
		out = append(out, Port(pt))
	}
	return out
}
