package assistant

import (
	"sync"
	"time"
	_ "time/tzdata" // local times are the same on every machine, whatever zone files it has

	"github.com/boxwatch/boxwatch/client"
)

// The shapes the tools answer with. Members follow the API's attribute names where there is one,
// so an answer reads against the REST document it came from. A time at a place is a Time: the
// place's local time with its zone named; a time of the system (created, updated, checked) is
// UTC, ISO 8601 with a Z.

// Time is a moment at a place.
type Time struct {
	Local    string `json:"local" jsonschema:"ISO 8601 in the place's local time, with its UTC offset"`
	TimeZone string `json:"time_zone" jsonschema:"the IANA time zone of the place, or UTC when the place's zone is unknown"`
	UTC      string `json:"utc" jsonschema:"the same moment in UTC, ISO 8601"`
}

// zones caches the time zones loaded, by name. Only zones that load are kept, so it holds at most
// the IANA database's few hundred zones whatever names the API answers with.
var zones sync.Map

func zone(name string) *time.Location {
	if v, ok := zones.Load(name); ok {
		return v.(*time.Location)
	}
	if name == "" || name == "Local" {
		return nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil
	}
	zones.Store(name, loc)
	return loc
}

// placeTime is t at a place in time zone tz (an IANA name); nil when t is. An unknown zone gives
// the time in UTC and names UTC.
func placeTime(t *time.Time, tz *string) *Time {
	if t == nil {
		return nil
	}
	loc, name := time.UTC, "UTC"
	if tz != nil {
		if l := zone(*tz); l != nil {
			loc, name = l, *tz
		}
	}
	return &Time{Local: t.In(loc).Format(time.RFC3339), TimeZone: name, UTC: t.UTC().Format(time.RFC3339)}
}

// utc is a system time in UTC; "" for the zero time.
func utc(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func utcOf(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := utc(*t)
	return &s
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Place is a port.
type Place struct {
	LOCODE   *string `json:"locode" jsonschema:"the UN/LOCODE"`
	Name     *string `json:"name"`
	TimeZone *string `json:"time_zone" jsonschema:"the IANA time zone"`
}

// Vessel is a ship named by a carrier, with the voyage it sails.
type Vessel struct {
	Name   *string `json:"name"`
	IMO    *string `json:"imo"`
	Voyage *string `json:"voyage_number"`
}

// Line is a shipping line.
type Line struct {
	SCAC string `json:"scac"`
	Name string `json:"name"`
}

// Shipment is a bill of lading or booking tracked with its carrier.
type Shipment struct {
	ID                 string   `json:"id"`
	BillOfLadingNumber *string  `json:"bill_of_lading_number"`
	BookingNumber      *string  `json:"booking_number"`
	RefNumbers         []string `json:"ref_numbers"`
	Tags               []string `json:"tags"`
	ShippingLine       Line     `json:"shipping_line"`
	CustomerName       *string  `json:"customer_name"`
	PortOfLading       Place    `json:"port_of_lading"`
	PortOfDischarge    Place    `json:"port_of_discharge"`
	// PODVessel is the vessel arriving at the port of discharge.
	PODVessel        Vessel   `json:"pod_vessel" jsonschema:"the vessel and voyage arriving at the port of discharge"`
	POLETD           *Time    `json:"pol_etd" jsonschema:"the carrier's estimated departure from the port of lading"`
	POLATD           *Time    `json:"pol_atd" jsonschema:"the actual departure from the port of lading"`
	PODETA           *Time    `json:"pod_eta" jsonschema:"the carrier's estimated arrival at the port of discharge"`
	PODOriginalETA   *Time    `json:"pod_original_eta" jsonschema:"the carrier's first estimate of the arrival"`
	PODATA           *Time    `json:"pod_ata" jsonschema:"the actual arrival at the port of discharge"`
	PODPredictedETA  *Time    `json:"pod_predicted_arrival" jsonschema:"boxwatch's own prediction of the arrival from the vessel's position, its speed and the waits recently seen on the way and at the port, while it sails the last leg (accounts with the map feature)"`
	TrackingStopped  bool     `json:"tracking_stopped"`
	StoppedReason    *string  `json:"tracking_stopped_reason"`
	LastSucceededAt  *string  `json:"line_tracking_last_succeeded_at" jsonschema:"when the carrier last answered, UTC"`
	CreatedAt        string   `json:"created_at"`
	ContainerCount   int      `json:"container_count"`
	ContainerNumbers []string `json:"container_numbers" jsonschema:"the numbers of the shipment's containers; empty in a container's shipment, whose containers are not read"`
}

// ShipmentDetails is a shipment with its containers in full, when the tool was asked for them.
type ShipmentDetails struct {
	Shipment
	Containers []Container `json:"containers,omitempty"`
}

func shipmentDetails(s client.Shipment, withContainers bool) ShipmentDetails {
	d := ShipmentDetails{Shipment: shipmentView(s)}
	if withContainers {
		for _, c := range s.Containers {
			d.Containers = append(d.Containers, containerView(c, &s))
		}
	}
	return d
}

func shipmentView(s client.Shipment) Shipment {
	v := Shipment{
		ID: s.ID, BillOfLadingNumber: s.BillOfLadingNumber, BookingNumber: s.BookingNumber,
		RefNumbers: nonNil(s.RefNumbers), Tags: nonNil(s.Tags),
		ShippingLine: Line{SCAC: s.ShippingLineSCAC, Name: s.ShippingLineName}, CustomerName: s.CustomerName,
		PortOfLading:    Place{LOCODE: s.PortOfLadingLOCODE, Name: s.PortOfLadingName, TimeZone: s.POLTimezone},
		PortOfDischarge: Place{LOCODE: s.PortOfDischargeLOCODE, Name: s.PortOfDischargeName, TimeZone: s.PODTimezone},
		PODVessel:       Vessel{Name: s.PODVesselName, IMO: s.PODVesselIMO, Voyage: s.PODVoyageNumber},
		POLETD:          placeTime(s.POLETDAt, s.POLTimezone), POLATD: placeTime(s.POLATDAt, s.POLTimezone),
		PODETA: placeTime(s.PODETAAt, s.PODTimezone), PODOriginalETA: placeTime(s.PODOriginalETAAt, s.PODTimezone),
		PODATA: placeTime(s.PODATAAt, s.PODTimezone), PODPredictedETA: placeTime(s.PODPredictedArrivalAt, s.PODTimezone),
		TrackingStopped: s.LineTrackingStoppedAt != nil, StoppedReason: s.LineTrackingStoppedReason,
		LastSucceededAt: utcOf(s.LineTrackingLastSucceededAt), CreatedAt: utc(s.CreatedAt),
		ContainerCount: len(s.ContainerIDs), ContainerNumbers: []string{},
	}
	for _, c := range s.Containers {
		v.ContainerNumbers = append(v.ContainerNumbers, c.Number)
	}
	return v
}

// Container is one container of a shipment: its equipment, where it is in its journey, and what
// the terminal at the port of discharge says of it.
type Container struct {
	ID              string     `json:"id"`
	Number          string     `json:"number"`
	ShipmentID      string     `json:"shipment_id"`
	CurrentStatus   string     `json:"current_status" jsonschema:"new, on_ship, grounded, available, not_available, picked_up or empty_returned (the reference's other values, such as on_rail, are not reached yet)"`
	Status          string     `json:"status_description" jsonschema:"current_status in words"`
	EquipmentType   *string    `json:"equipment_type"`
	EquipmentLength *int       `json:"equipment_length" jsonschema:"in feet"`
	EquipmentHeight *string    `json:"equipment_height"`
	SealNumber      *string    `json:"seal_number"`
	RefNumbers      []string   `json:"ref_numbers"`
	Milestones      Milestones `json:"milestones"`
	Terminal        AtTerminal `json:"at_pod_terminal" jsonschema:"what the terminal at the port of discharge says of the container"`
	CreatedAt       string     `json:"created_at"`
	UpdatedAt       string     `json:"updated_at"`
	// Shipment, PODTerminal and TransportEvents are there when the tool was asked to include them.
	Shipment        *Shipment `json:"shipment,omitempty"`
	PODTerminal     *Terminal `json:"pod_terminal,omitempty"`
	TransportEvents []Event   `json:"transport_events,omitempty"`
}

// Milestones are the times a container reached each step of its journey; null while not reached.
// Times at the port of lading are in its zone when the shipment is known, otherwise in UTC.
type Milestones struct {
	EmptyOut       *Time `json:"empty_out" jsonschema:"the empty container was picked up for loading"`
	FullIn         *Time `json:"pol_full_in" jsonschema:"the loaded container entered the port of lading"`
	VesselLoaded   *Time `json:"pol_vessel_loaded"`
	VesselDeparted *Time `json:"pol_vessel_departed"`
	Arrived        *Time `json:"pod_arrived" jsonschema:"the vessel arrived at the port of discharge"`
	Discharged     *Time `json:"pod_discharged"`
	FullOut        *Time `json:"pod_full_out" jsonschema:"the container left the terminal at the port of discharge (picked up)"`
	EmptyReturned  *Time `json:"empty_returned" jsonschema:"the empty container was returned (in UTC: where is not known)"`
}

// AtTerminal is what the terminal at the port of discharge says of a container.
type AtTerminal struct {
	AvailableForPickup *bool   `json:"available_for_pickup" jsonschema:"null while the terminal has not said"`
	PickupLFD          *Time   `json:"pickup_lfd" jsonschema:"the last free day: demurrage is charged after it"`
	Holds              []Hold  `json:"holds"`
	Fees               []Fee   `json:"fees"`
	Location           *string `json:"location" jsonschema:"where the container stands in the terminal"`
	CheckedAt          *string `json:"checked_at" jsonschema:"when the terminal last reported, UTC"`
}

// Hold keeps a container at its terminal until released.
type Hold struct {
	Name        string  `json:"name" jsonschema:"customs, freight, line, USDA, TMF, other…"`
	Status      string  `json:"status" jsonschema:"hold or pending"`
	Description *string `json:"description"`
}

// Fee is owed at the terminal.
type Fee struct {
	Type         string  `json:"type" jsonschema:"demurrage, exam, extended_dwell_time, other or total"`
	Amount       float64 `json:"amount"`
	CurrencyCode string  `json:"currency_code"`
}

// Terminal is a container terminal.
type Terminal struct {
	ID       string  `json:"id"`
	Name     string  `json:"name"`
	SMDGCode *string `json:"smdg_code"`
	City     *string `json:"city"`
	Country  *string `json:"country"`
}

// statusWords say what each current_status means.
var statusWords = map[string]string{
	"new":            "booked: not yet loaded on a vessel",
	"on_ship":        "on a vessel",
	"grounded":       "discharged at the port of discharge; the terminal has not said whether it can be picked up",
	"available":      "discharged at the port of discharge and available for pickup",
	"not_available":  "discharged at the port of discharge but not available for pickup: held, or the terminal says so",
	"picked_up":      "picked up at the port of discharge",
	"empty_returned": "returned empty: the journey is over",
}

// containerView renders a container; s, when known, places the times at the port of lading.
func containerView(c client.Container, s *client.Shipment) Container {
	var polTZ *string
	if s != nil {
		polTZ = s.POLTimezone
	} else if c.Shipment != nil {
		polTZ = c.Shipment.POLTimezone
	}
	status := statusWords[c.CurrentStatus]
	if status == "" {
		status = c.CurrentStatus
	}
	v := Container{
		ID: c.ID, Number: c.Number, ShipmentID: c.ShipmentID, CurrentStatus: c.CurrentStatus, Status: status,
		EquipmentType: c.EquipmentType, EquipmentLength: c.EquipmentLength, EquipmentHeight: c.EquipmentHeight,
		SealNumber: c.SealNumber, RefNumbers: nonNil(c.RefNumbers),
		Milestones: Milestones{
			EmptyOut: placeTime(c.EmptyOutAt, polTZ), FullIn: placeTime(c.POLFullInAt, polTZ),
			VesselLoaded: placeTime(c.POLVesselLoadedAt, polTZ), VesselDeparted: placeTime(c.POLVesselDeparted, polTZ),
			Arrived: placeTime(c.PODArrivedAt, c.PODTimezone), Discharged: placeTime(c.PODDischargedAt, c.PODTimezone),
			FullOut: placeTime(c.PODFullOutAt, c.PODTimezone), EmptyReturned: placeTime(c.EmptyTerminatedAt, nil),
		},
		Terminal: AtTerminal{AvailableForPickup: c.AvailableForPickup, PickupLFD: placeTime(c.PickupLFD, c.PODTimezone),
			Holds: []Hold{}, Fees: []Fee{}, Location: c.LocationAtPODTerminal, CheckedAt: utcOf(c.TerminalCheckedAt)},
		CreatedAt: utc(c.CreatedAt), UpdatedAt: utc(c.UpdatedAt),
	}
	for _, h := range c.HoldsAtPODTerminal {
		v.Terminal.Holds = append(v.Terminal.Holds, Hold(h))
	}
	for _, f := range c.FeesAtPODTerminal {
		v.Terminal.Fees = append(v.Terminal.Fees, Fee(f))
	}
	if c.Shipment != nil {
		sv := shipmentView(*c.Shipment)
		v.Shipment = &sv
	}
	if c.PODTerminal != nil {
		t := Terminal(*c.PODTerminal)
		v.PODTerminal = &t
	}
	for _, e := range c.TransportEvents {
		v.TransportEvents = append(v.TransportEvents, eventView(e))
	}
	return v
}

// Event is a milestone of a container.
type Event struct {
	ID         string  `json:"id"`
	Event      string  `json:"event" jsonschema:"the milestone, such as container.transport.vessel_departed (see the milestone-glossary resource)"`
	At         *Time   `json:"at" jsonschema:"when it happened, at its place"`
	Location   Place   `json:"location"`
	Vessel     *Vessel `json:"vessel" jsonschema:"the vessel, for vessel milestones"`
	DataSource string  `json:"data_source" jsonschema:"shipping_line or terminal"`
}

func eventView(e client.TransportEvent) Event {
	v := Event{ID: e.ID, Event: e.Event, At: placeTime(e.Timestamp, e.Timezone),
		Location: Place{LOCODE: e.LocationLOCODE, TimeZone: e.Timezone}, DataSource: e.DataSource}
	if e.LocationName != "" {
		v.Location.Name = &e.LocationName
	}
	if e.VesselName != "" || e.VesselIMO != "" || e.VoyageNumber != nil {
		v.Vessel = &Vessel{Voyage: e.VoyageNumber}
		if e.VesselName != "" {
			v.Vessel.Name = &e.VesselName
		}
		if e.VesselIMO != "" {
			v.Vessel.IMO = &e.VesselIMO
		}
	}
	return v
}

// TrackingRequest is a number submitted for tracking with a shipping line.
type TrackingRequest struct {
	ID            string   `json:"id"`
	RequestNumber string   `json:"request_number"`
	RequestType   string   `json:"request_type" jsonschema:"bill_of_lading, booking_number or container"`
	SCAC          string   `json:"scac"`
	Status        string   `json:"status" jsonschema:"pending, awaiting_manifest, created (tracked: shipment_id is set), failed or tracking_stopped"`
	FailedReason  *string  `json:"failed_reason"`
	IsRetrying    bool     `json:"is_retrying"`
	RetryCount    *int     `json:"retry_count"`
	RefNumbers    []string `json:"ref_numbers"`
	ShipmentID    *string  `json:"shipment_id" jsonschema:"the shipment the lookup created"`
	CreatedAt     string   `json:"created_at"`
	UpdatedAt     string   `json:"updated_at"`
}

func trackingRequestView(tr client.TrackingRequest) TrackingRequest {
	v := TrackingRequest{ID: tr.ID, RequestNumber: tr.RequestNumber, RequestType: tr.RequestType, SCAC: tr.SCAC,
		Status: tr.Status, FailedReason: tr.FailedReason, IsRetrying: tr.IsRetrying, RetryCount: tr.RetryCount,
		RefNumbers: nonNil(tr.RefNumbers), CreatedAt: utc(tr.CreatedAt), UpdatedAt: utc(tr.UpdatedAt)}
	if tr.ShipmentID != "" {
		v.ShipmentID = &tr.ShipmentID
	}
	return v
}

// Paging says which page of a list an answer is, of how many.
type Paging struct {
	Page     int  `json:"page"`
	LastPage int  `json:"last_page"`
	Total    int  `json:"total" jsonschema:"how many records match, on every page"`
	HasMore  bool `json:"has_more" jsonschema:"whether later pages hold more: ask for page+1 with the same arguments"`
}

func pageOf[T any](l client.List[T]) Paging {
	return Paging{Page: l.Page, LastPage: l.LastPage, Total: l.Total, HasMore: l.Page < l.LastPage}
}
