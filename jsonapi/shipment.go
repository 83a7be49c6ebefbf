package jsonapi

import "github.com/boxwatch/boxwatch"

// ShipmentAttributes is the wire form of a shipment.
type ShipmentAttributes struct {
	BillOfLadingNumber          *string  `json:"bill_of_lading_number"`
	NormalizedNumber            *string  `json:"normalized_number"`
	BookingNumber               *string  `json:"booking_number"`
	RefNumbers                  []string `json:"ref_numbers"`
	Tags                        []string `json:"tags"`
	ShippingLineSCAC            string   `json:"shipping_line_scac"`
	ShippingLineName            string   `json:"shipping_line_name"`
	ShippingLineShortName       string   `json:"shipping_line_short_name"`
	PortOfLadingLOCODE          *string  `json:"port_of_lading_locode"`
	PortOfLadingName            *string  `json:"port_of_lading_name"`
	PortOfDischargeLOCODE       *string  `json:"port_of_discharge_locode"`
	PortOfDischargeName         *string  `json:"port_of_discharge_name"`
	DestinationLOCODE           *string  `json:"destination_locode"`
	DestinationName             *string  `json:"destination_name"`
	PODVesselName               *string  `json:"pod_vessel_name"`
	PODVesselIMO                *string  `json:"pod_vessel_imo"`
	PODVoyageNumber             *string  `json:"pod_voyage_number"`
	POLETDAt                    *string  `json:"pol_etd_at" format:"date-time"`
	POLATDAt                    *string  `json:"pol_atd_at" format:"date-time"`
	PODETAAt                    *string  `json:"pod_eta_at" format:"date-time"`
	PODOriginalETAAt            *string  `json:"pod_original_eta_at" format:"date-time"`
	PODATAAt                    *string  `json:"pod_ata_at" format:"date-time"`
	DestinationETAAt            *string  `json:"destination_eta_at" format:"date-time"`
	DestinationATAAt            *string  `json:"destination_ata_at" format:"date-time"`
	POLTimezone                 *string  `json:"pol_timezone"`
	PODTimezone                 *string  `json:"pod_timezone"`
	DestinationTimezone         *string  `json:"destination_timezone"`
	LineTrackingLastAttemptedAt *string  `json:"line_tracking_last_attempted_at" format:"date-time"`
	LineTrackingLastSucceededAt *string  `json:"line_tracking_last_succeeded_at" format:"date-time"`
	LineTrackingStoppedAt       *string  `json:"line_tracking_stopped_at" format:"date-time"`
	LineTrackingStoppedReason   *string  `json:"line_tracking_stopped_reason" enum:"all_containers_terminated,past_arrival_window,cancelled_by_user"`
	CustomerName                *string  `json:"customer_name" doc:"The company name of the party the tracking request named as customer; null when none."`
	POLOriginalETDAt            *string  `json:"pol_original_etd_at" format:"date-time"`
	DestinationOriginalETAAt    *string  `json:"destination_original_eta_at" format:"date-time"`
	CreatedAt                   string   `json:"created_at" format:"date-time"`
	UpdatedAt                   string   `json:"updated_at" format:"date-time"`

	// PODPredictedArrivalAt is boxwatch's predicted arrival at the port of discharge while the
	// vessel sails the last leg (see the map's current_vessel); only GET /v2/shipments/{id}
	// gives it, to accounts with the map feature.
	PODPredictedArrivalAt *string `json:"pod_predicted_arrival_at,omitempty" format:"date-time"`
}

// ShipmentRelationships link a shipment to its ports, terminals and containers.
type ShipmentRelationships struct {
	PortOfLading              ToOne  `json:"port_of_lading"`
	PortOfDischarge           ToOne  `json:"port_of_discharge"`
	Destination               ToOne  `json:"destination" doc:"The metro area of the inland destination the carrier reports past the port of discharge; null when the journey ends at the port, or the place is not in boxwatch's port list."`
	PODTerminal               ToOne  `json:"pod_terminal" doc:"The terminal the carrier names at the port of discharge; null when it names none."`
	DestinationTerminal       ToOne  `json:"destination_terminal" doc:"The terminal at the inland destination, when the carrier names it by an SMDG code; null otherwise."`
	LineTrackingStoppedByUser ToOne  `json:"line_tracking_stopped_by_user" doc:"Null: API keys belong to accounts, not users."`
	Containers                ToMany `json:"containers"`
}

// ShipmentRelationshipNames are the shipment relationships the reference API defines, every one
// of which include accepts; those boxwatch holds no resource for include nothing.
var ShipmentRelationshipNames = []string{"containers", "port_of_lading", "port_of_discharge", "destination",
	"pod_terminal", "destination_terminal", "line_tracking_stopped_by_user"}

// ShipmentResource is a shipment as a JSON:API resource.
type ShipmentResource struct {
	ID            string                `json:"id" format:"uuid"`
	Type          string                `json:"type" enum:"shipment"`
	Attributes    ShipmentAttributes    `json:"attributes"`
	Relationships ShipmentRelationships `json:"relationships"`
	Links         ResourceLinks         `json:"links"`
}

// ShipmentDocument and ShipmentListDocument answer one shipment and a page of them.
type ShipmentDocument = Document[ShipmentResource]
type ShipmentListDocument = Document[[]ShipmentResource]

// Shipment renders a shipment with its containers.
func (rd Renderer) Shipment(s boxwatch.Shipment, containers []boxwatch.Container) ShipmentResource {
	a := ShipmentAttributes{
		BillOfLadingNumber: optString(s.BillOfLading), NormalizedNumber: optString(s.NormalizedNumber),
		BookingNumber: optString(s.Booking), RefNumbers: nonNil(s.RefNumbers), Tags: nonNil(s.Tags),
		ShippingLineSCAC: s.SCAC, CustomerName: optString(s.CustomerName),
		LineTrackingLastAttemptedAt: optTime(s.LastAttemptedAt), LineTrackingLastSucceededAt: optTime(s.LastSucceededAt),
		LineTrackingStoppedAt: optTime(s.StoppedAt), LineTrackingStoppedReason: optString(s.StoppedReason),
		CreatedAt: timestamp(s.CreatedAt), UpdatedAt: timestamp(s.UpdatedAt),
	}
	if line, ok := rd.Carriers.BySCAC(s.SCAC); ok {
		a.ShippingLineName, a.ShippingLineShortName = line.Name, line.ShortName
	}
	rel := ShipmentRelationships{Containers: ToMany{Data: []ResourceIdentifier{}}}
	if pol, ok := s.POL(); ok {
		a.PortOfLadingLOCODE, a.PortOfLadingName, a.POLTimezone = &pol.LOCODE, rd.portName(pol.LOCODE), rd.timeZone(pol.LOCODE)
		a.POLETDAt, a.POLATDAt, a.POLOriginalETDAt = optTime(pol.ETD), optTime(pol.ATD), optTime(pol.OriginalETD)
		rel.PortOfLading = linkTo(portID(pol.LOCODE), "port")
	}
	if pod, ok := s.POD(); ok && len(s.Route) > 1 {
		a.PortOfDischargeLOCODE, a.PortOfDischargeName, a.PODTimezone = &pod.LOCODE, rd.portName(pod.LOCODE), rd.timeZone(pod.LOCODE)
		a.PODETAAt, a.PODATAAt, a.PODOriginalETAAt = optTime(pod.ETA), optTime(pod.ATA), optTime(pod.OriginalETA)
		a.PODVesselIMO, a.PODVoyageNumber = optString(pod.InboundVesselIMO), optString(pod.InboundVoyage)
		a.PODVesselName = optString(s.VesselName(pod.InboundVesselIMO))
		rel.PortOfDischarge = linkTo(portID(pod.LOCODE), "port")
		rel.PODTerminal = linkTo(pod.TerminalID(), "terminal")
	}
	if d := s.Destination; d != nil {
		a.DestinationLOCODE, a.DestinationTimezone = &d.LOCODE, rd.timeZone(d.LOCODE)
		a.DestinationName = rd.portName(d.LOCODE)
		if a.DestinationName == nil {
			a.DestinationName = optString(d.Name)
		}
		a.DestinationETAAt, a.DestinationATAAt, a.DestinationOriginalETAAt = optTime(d.ETA), optTime(d.ATA), optTime(d.OriginalETA)
		if _, ok := rd.port(d.LOCODE); ok {
			rel.Destination = linkTo(portID(d.LOCODE), "metro_area")
		}
		rel.DestinationTerminal = linkTo(DestinationTerminalID(*d), "terminal")
	}
	for _, c := range containers {
		rel.Containers.Data = append(rel.Containers.Data, ResourceIdentifier{ID: c.ID, Type: "container"})
	}
	return ShipmentResource{ID: s.ID, Type: "shipment", Attributes: a, Relationships: rel, Links: ResourceLinks{Self: "/v2/shipments/" + s.ID}}
}

// DestinationTerminalID is the id of the terminal at an inland destination, "" unless the carrier
// names it by an SMDG code (the list boxwatch's terminals are keyed by).
func DestinationTerminalID(d boxwatch.Destination) string {
	if d.FacilityCode == "" || d.FacilityCodeList != "SMDG" {
		return ""
	}
	return boxwatch.TerminalID(d.LOCODE, d.FacilityCode)
}

// ShipmentIncludes adds to out the resources include (inc) asks for of a shipment: its containers
// (each listing its milestones from events), its port of discharge terminal, its ports. seen holds
// the resources out already has; each is added once.
func (rd Renderer) ShipmentIncludes(inc map[string]bool, s boxwatch.Shipment, containers []boxwatch.Container, events map[string][]boxwatch.TransportEvent, seen map[string]bool, out []any) []any {
	add := func(key string, v any) {
		if !seen[key] {
			seen[key] = true
			out = append(out, v)
		}
	}
	pod, _ := s.POD()
	if inc["containers"] {
		for _, c := range containers {
			add("container:"+c.ID, rd.Container(c, pod, events[c.ID]))
		}
	}
	if t, ok := stopTerminal(pod); ok && inc["pod_terminal"] && len(s.Route) > 1 {
		add("terminal:"+t.ID, rd.Terminal(t))
	}
	if d := s.Destination; d != nil && inc["destination"] {
		if pt, ok := rd.port(d.LOCODE); ok {
			add("metro_area:"+pt.ID, MetroArea(pt))
		}
	}
	for name, stop := range map[string]func() (boxwatch.RouteStop, bool){"port_of_lading": s.POL, "port_of_discharge": s.POD} {
		if st, ok := stop(); ok && inc[name] {
			if pt, ok := rd.port(st.LOCODE); ok {
				add("port:"+pt.ID, Port(pt))
			}
		}
	}
	return out
}
