package jsonapi

import (
	"cmp"

	"github.com/boxwatch/boxwatch"
)

// ContainerAttributes is the wire form of a container.
type ContainerAttributes struct {
	Number             string   `json:"number"`
	SealNumber         *string  `json:"seal_number"`
	RefNumbers         []string `json:"ref_numbers"`
	EquipmentType      *string  `json:"equipment_type" enum:"dry,reefer,open top,flat rack,bulk,tank"`
	EquipmentLength    *int     `json:"equipment_length"`
	EquipmentHeight    *string  `json:"equipment_height" enum:"standard,high_cube"`
	WeightInLbs        *float64 `json:"weight_in_lbs"`
	CurrentStatus      string   `json:"current_status" enum:"new,on_ship,available,not_available,grounded,on_rail,picked_up,off_dock,delivered,dropped,loaded,empty_returned,awaiting_inland_transfer" doc:"Derived by the reference's rules from what is known (docs/api.md lists when each value is reached)."`
	AvailabilityKnown  bool     `json:"availability_known"`
	AvailableForPickup *bool    `json:"available_for_pickup"`
	PickupLFD          *string  `json:"pickup_lfd" format:"date-time"`
	EmptyOutAt         *string  `json:"empty_out_at" format:"date-time"`
	POLFullInAt        *string  `json:"pol_full_in_at" format:"date-time"`
	POLVesselLoadedAt  *string  `json:"pol_vessel_loaded_at" format:"date-time"`
	POLVesselDeparted  *string  `json:"pol_vessel_departed_at" format:"date-time"`
	PODArrivedAt       *string  `json:"pod_arrived_at" format:"date-time"`
	PODDischargedAt    *string  `json:"pod_discharged_at" format:"date-time"`
	PODFullOutAt       *string  `json:"pod_full_out_at" format:"date-time"`
	EmptyTerminatedAt  *string  `json:"empty_terminated_at" format:"date-time"`
	DeliveredAt        *string  `json:"delivered_at" format:"date-time" doc:"The box's first laden arrival at the consignee's door after its pickup, as the line reports it (the reference's production API sets it by hand)."`
	PODTimezone        *string  `json:"pod_timezone"`
	// Terminal, rail and inland attributes of the reference: null (or empty) while unknown.
	PickupAppointmentAt           *string         `json:"pickup_appointment_at" format:"date-time"`
	TerminalCheckedAt             *string         `json:"terminal_checked_at" format:"date-time"`
	PODFullOutChassisNumber       *string         `json:"pod_full_out_chassis_number"`
	LocationAtPODTerminal         *string         `json:"location_at_pod_terminal"`
	FinalDestinationFullOutAt     *string         `json:"final_destination_full_out_at" format:"date-time"`
	HoldsAtPODTerminal            []TerminalHold  `json:"holds_at_pod_terminal"`
	FeesAtPODTerminal             []TerminalFee   `json:"fees_at_pod_terminal"`
	FinalDestinationTimezone      *string         `json:"final_destination_timezone"`
	EmptyTerminatedTimezone       *string         `json:"empty_terminated_timezone"`
	PODRailCarrierSCAC            *string         `json:"pod_rail_carrier_scac"`
	IndRailCarrierSCAC            *string         `json:"ind_rail_carrier_scac"`
	PODLastTrackingRequestAt      *string         `json:"pod_last_tracking_request_at" format:"date-time"`
	ShipmentLastTrackingRequestAt *string         `json:"shipment_last_tracking_request_at" format:"date-time"`
	PODRailLoadedAt               *string         `json:"pod_rail_loaded_at" format:"date-time"`
	PODRailDepartedAt             *string         `json:"pod_rail_departed_at" format:"date-time"`
	IndETAAt                      *string         `json:"ind_eta_at" format:"date-time"`
	IndATAAt                      *string         `json:"ind_ata_at" format:"date-time"`
	IndRailUnloadedAt             *string         `json:"ind_rail_unloaded_at" format:"date-time"`
	IndFacilityLFDOn              *string         `json:"ind_facility_lfd_on" format:"date-time"`
	ImportDeadlines               ImportDeadlines `json:"import_deadlines"`
	CreatedAt                     string          `json:"created_at" format:"date-time"`
	UpdatedAt                     string          `json:"updated_at" format:"date-time"`
}

// TerminalHold is a hold at the port of discharge's terminal (customs, freight, USDA, …).
type TerminalHold struct {
	Name        string  `json:"name"`
	Status      string  `json:"status" enum:"pending,hold"`
	Description *string `json:"description"`
}

// TerminalFee is a fee owed at the port of discharge's terminal, in local currency.
type TerminalFee struct {
	Type         string  `json:"type" enum:"demurrage,exam,extended_dwell_time,other,total"`
	Amount       float64 `json:"amount"`
	CurrencyCode string  `json:"currency_code"`
}

// ImportDeadlines are the last free days by who reported them.
type ImportDeadlines struct {
	PickupLFDTerminal *string `json:"pickup_lfd_terminal" format:"date-time"`
	PickupLFDRail     *string `json:"pickup_lfd_rail" format:"date-time"`
	PickupLFDLine     *string `json:"pickup_lfd_line" format:"date-time"`
}

// ContainerRelationships link a container to its shipment, terminals and milestones.
type ContainerRelationships struct {
	Shipment        ToOne  `json:"shipment"`
	PickupFacility  ToOne  `json:"pickup_facility"`
	PODTerminal     ToOne  `json:"pod_terminal"`
	TransportEvents ToMany `json:"transport_events"`
	RawEvents       ToMany `json:"raw_events" doc:"Empty: the carrier's events are listed by GET /v2/containers/{id}/raw_events."`
}

// ContainerRelationshipNames are the container relationships the reference API defines, every
// one of which include accepts.
var ContainerRelationshipNames = []string{"shipment", "pickup_facility", "pod_terminal", "transport_events", "raw_events"}

// ContainerResource is a container as a JSON:API resource.
type ContainerResource struct {
	ID            string                 `json:"id" format:"uuid"`
	Type          string                 `json:"type" enum:"container"`
	Attributes    ContainerAttributes    `json:"attributes"`
	Relationships ContainerRelationships `json:"relationships"`
	Links         ResourceLinks          `json:"links"`
}

// ContainerDocument and ContainerListDocument answer one container and a page of them.
type ContainerDocument = Document[ContainerResource]
type ContainerListDocument = Document[[]ContainerResource]

// Container renders a container with its milestones; pod is its shipment's port of discharge.
func (rd Renderer) Container(c boxwatch.Container, pod boxwatch.RouteStop, events []boxwatch.TransportEvent) ContainerResource {
	a := ContainerAttributes{
		Number: c.Number, SealNumber: optString(c.SealNumber), RefNumbers: nonNil(c.RefNumbers),
		EquipmentType: optString(c.EquipmentType), EquipmentHeight: optString(c.EquipmentHeight),
		HoldsAtPODTerminal: []TerminalHold{}, FeesAtPODTerminal: []TerminalFee{}, PickupLFD: optTime(c.PickupLFD),
		LocationAtPODTerminal: optString(c.LocationAtTerminal), TerminalCheckedAt: optTime(c.TerminalCheckedAt),
		ImportDeadlines: ImportDeadlines{PickupLFDTerminal: optTime(c.PickupLFDTerminal), PickupLFDLine: optTime(c.PickupLFDLine),
			PickupLFDRail: optTime(c.Inland.RailTerminalLFD)},
		IndFacilityLFDOn: optTime(c.Inland.RailTerminalLFD), DeliveredAt: optTime(c.Inland.DeliveredAt),
		PickupAppointmentAt: optTime(c.PickupAppointmentAt),
		CurrentStatus:       c.CurrentStatus, AvailabilityKnown: c.AvailableForPickup != nil, AvailableForPickup: c.AvailableForPickup,
		EmptyOutAt: optTime(c.EmptyOutAt), POLFullInAt: optTime(c.FullInAt), POLVesselLoadedAt: optTime(c.LoadedAt),
		POLVesselDeparted: optTime(c.DepartedAt), PODArrivedAt: optTime(c.PODArrivedAt), PODDischargedAt: optTime(c.PODDischargedAt),
		PODFullOutAt: optTime(c.PODFullOutAt), EmptyTerminatedAt: optTime(c.EmptyTerminatedAt), PODTimezone: rd.timeZone(pod.LOCODE),
		ShipmentLastTrackingRequestAt: optTime(c.ShipmentLastTrackingRequestAt), PODLastTrackingRequestAt: optTime(c.PODLastTrackingRequestAt),
		CreatedAt: timestamp(c.CreatedAt), UpdatedAt: timestamp(c.UpdatedAt),
	}
	for _, h := range c.Holds {
		a.HoldsAtPODTerminal = append(a.HoldsAtPODTerminal, TerminalHold{Name: h.Name, Status: h.Status, Description: optString(h.Description)})
	}
	for _, f := range c.Fees {
		a.FeesAtPODTerminal = append(a.FeesAtPODTerminal, TerminalFee{Type: f.Type, Amount: f.Amount, CurrencyCode: f.Currency})
	}
	if in := c.Inland; in.DestinationLOCODE != "" {
		a.PODRailCarrierSCAC, a.IndRailCarrierSCAC = optString(in.PODRailCarrierSCAC), optString(in.IndRailCarrierSCAC)
		a.PODRailLoadedAt, a.PODRailDepartedAt = optTime(in.PODRailLoadedAt), optTime(in.PODRailDepartedAt)
		a.IndETAAt, a.IndATAAt, a.IndRailUnloadedAt = optTime(in.IndETAAt), optTime(in.IndATAAt), optTime(in.IndRailUnloadedAt)
		a.FinalDestinationFullOutAt, a.FinalDestinationTimezone = optTime(in.FinalDestinationFullOutAt), rd.timeZone(in.DestinationLOCODE)
	}
	if c.EquipmentLength > 0 {
		n := c.EquipmentLength
		a.EquipmentLength = &n
	}
	// Without rail or inland data, a container is picked up where the vessel left it.
	terminal := linkTo(cmp.Or(c.PODTerminalID, pod.TerminalID()), "terminal")
	rel := ContainerRelationships{Shipment: linkTo(c.ShipmentID, "shipment"), PODTerminal: terminal, PickupFacility: terminal,
		TransportEvents: ToMany{Data: []ResourceIdentifier{}}, RawEvents: ToMany{Data: []ResourceIdentifier{}}}
	for _, e := range events {
		rel.TransportEvents.Data = append(rel.TransportEvents.Data, ResourceIdentifier{ID: e.ID, Type: "transport_event"})
	}
	return ContainerResource{ID: c.ID, Type: "container", Attributes: a, Relationships: rel, Links: ResourceLinks{Self: "/v2/containers/" + c.ID}}
}

// ContainerIncludes adds to out the resources include (inc) asks for of a container of shipment s
// (the zero shipment when it is not known): the shipment with its containers (siblings), the
// terminal the container is at (at, as the store holds it; else the port of discharge's as the
// route names it), and the container's milestones (events). seen holds the shipments and
// terminals out already has; each is added once.
func (rd Renderer) ContainerIncludes(inc map[string]bool, s boxwatch.Shipment, siblings []boxwatch.Container, events []boxwatch.TransportEvent,
	at boxwatch.Terminal, seen map[string]bool, out []any) []any {
	if inc["shipment"] && s.ID != "" && !seen["shipment:"+s.ID] {
		seen["shipment:"+s.ID] = true
		out = append(out, rd.Shipment(s, siblings))
	}
	pod, _ := s.POD()
	t, ok := stopTerminal(pod)
	if at.ID != "" {
		t, ok = at, true
	}
	if ok && (inc["pod_terminal"] || inc["pickup_facility"]) && !seen["terminal:"+t.ID] {
		seen["terminal:"+t.ID] = true
		out = append(out, rd.Terminal(t))
	}
	if inc["transport_events"] {
		for _, e := range events {
			out = append(out, rd.TransportEvent(e, s.Route))
		}
	}
	return out
}
