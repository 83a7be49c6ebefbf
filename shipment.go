package boxwatch

import (
	"encoding/json"
	"time"
)

// Shipment is what a successful tracking request tracks: a bill of lading (or booking) with its
// route and containers, refreshed from the carrier until the journey ends.
type Shipment struct {
	ID                string
	AccountID         string
	TrackingRequestID string
	SCAC              string
	// BillOfLading is the number as the carrier knows it; NormalizedNumber drops the carrier's
	// prefix (OOLU2148468620 → 2148468620).
	BillOfLading     string
	NormalizedNumber string
	Booking          string
	RefNumbers       []string
	Tags             []string
	// CustomerID is the party named by the tracking request, empty when none; CustomerName is
	// that party's company name, kept current by the store.
	CustomerID   string
	CustomerName string
	// Route lists the ports of the ocean journey in order: the port of lading first, the port
	// of discharge last, transshipment ports between.
	Route []RouteStop
	// Reference is what refreshes look up: the request's own type and number.
	Reference CarrierReference
	// Destination is where the journey ends past the port of discharge, reached by rail, truck
	// or barge; nil when the carrier reports no inland leg (the journey ends at the quay).
	Destination *Destination `json:",omitempty"`

	// LastAttemptedAt is the last lookup with the carrier, LastSucceededAt the last one it
	// answered.
	LastAttemptedAt time.Time
	LastSucceededAt time.Time
	// StoppedAt is set once tracking stopped, with StoppedReason saying why.
	StoppedAt     time.Time
	StoppedReason string
	// NextRefreshAt is when the shipment is next looked up; zero once tracking stopped.
	NextRefreshAt time.Time
	// Snapshot is the carrier's picture as of the last successful lookup: the base of the next diff.
	// ShipmentStore's reads leave it empty and give VesselNames instead.
	Snapshot CarrierShipment
	// VesselNames are the names Snapshot gives the vessels of its calls, by IMO number (the first
	// name given to each): what a shipment's document shows of the snapshot. The store keeps them
	// with the snapshot, so that lists need not read the whole of it.
	VesselNames map[string]string `json:",omitempty"`
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// VesselNamesOf returns the first name cs gives each vessel of its calls, by IMO number; nil when
// it names none.
func VesselNamesOf(cs CarrierShipment) map[string]string {
	var names map[string]string
	for _, c := range cs.Calls {
		if v := c.Vessel; v != nil && v.Name != "" {
			if _, ok := names[v.IMO]; !ok {
				if names == nil {
					names = map[string]string{}
				}
				names[v.IMO] = v.Name
			}
		}
	}
	return names
}

// VesselName returns the name the carrier gives the vessel with IMO number imo, "" when it names
// none: from Snapshot when it holds calls, else from VesselNames.
func (s Shipment) VesselName(imo string) string {
	if len(s.Snapshot.Calls) == 0 {
		return s.VesselNames[imo]
	}
	for _, c := range s.Snapshot.Calls {
		if c.Vessel != nil && c.Vessel.IMO == imo && c.Vessel.Name != "" {
			return c.Vessel.Name
		}
	}
	return ""
}

// Reasons tracking stops (line_tracking_stopped_reason).
const (
	StopAllContainersTerminated = "all_containers_terminated"
	StopPastArrivalWindow       = "past_arrival_window"
	StopPastFullOutWindow       = "past_full_out_window"
	StopNoUpdatesAtLine         = "no_updates_at_line"
	StopCancelledByUser         = "cancelled_by_user"
	StopBookingCancelled        = "booking_cancelled"
)

// Route roles of a stop.
const (
	RolePOL = "POL"
	RoleTS  = "TS"
	RolePOD = "POD"
)

// RouteStop is one port of a route with the times of the vessel calls there, and the vessel and
// voyage arriving at and leaving it: the legs of the journey, which the map draws.
type RouteStop struct {
	Sequence int
	LOCODE   string
	Role     string
	// Inbound times are zero at the port of lading, outbound times at the port of discharge.
	ETA, OriginalETA, ATA time.Time
	ETD, OriginalETD, ATD time.Time
	InboundVesselIMO      string
	InboundVoyage         string
	OutboundVesselIMO     string
	OutboundVoyage        string
	// TerminalCode is the SMDG code of the terminal the vessel calls at, TerminalName its name;
	// empty when the carrier does not say.
	TerminalCode string `json:",omitempty"`
	TerminalName string `json:",omitempty"`
}

// Destination is the inland place a journey ends at after the port of discharge, as the carrier
// reports it: the last place its rail, truck or barge calls reach.
type Destination struct {
	LOCODE string
	// Name is the carrier's name for the place or its facility, "" when it gives none.
	Name string `json:",omitempty"`
	// FacilityCode is the carrier's code of the facility there (a rail terminal, an inland
	// depot), with the list it is from (SMDG, BIC) and DCSA's facility type (INTE, RAMP, DEPO, …).
	FacilityCode     string `json:",omitempty"`
	FacilityCodeList string `json:",omitempty"`
	FacilityType     string `json:",omitempty"`
	// Mode is how the box reaches it: RAIL, TRUCK or BARGE.
	Mode string
	// ETA is the carrier's latest expectation of the arrival there, OriginalETA the first it
	// gave, ATA the actual arrival; zero while unknown.
	ETA, OriginalETA, ATA time.Time
}

// TerminalID is the id of the stop's terminal, "" when the carrier named none.
func (s RouteStop) TerminalID() string {
	if s.TerminalCode == "" {
		return ""
	}
	return TerminalID(s.LOCODE, s.TerminalCode)
}

// Terminal is a container terminal at a port, known by its SMDG code as carriers report it, by
// its FIRMS code as US Customs and terminal systems do, or both. Listed terminals come from
// boxwatch's terminal list (data/terminals) with their names and address; the others are the
// codes carriers reported.
type Terminal struct {
	ID        string
	LOCODE    string
	SMDGCode  string
	FIRMSCode string
	// Name is the list's name, else the carrier's, when one gave it.
	Name, Nickname                      string
	Street, City, State, StateAbbr, Zip string
	Country                             string
	Listed                              bool
	CreatedAt                           time.Time
	UpdatedAt                           time.Time
}

// TerminalID is the id of the terminal with an SMDG code at a port: the same on every installation.
func TerminalID(locode, smdg string) string {
	return NameUUID("boxwatch/terminal/" + locode + "/" + smdg)
}

// POL returns the port of lading, POD the port of discharge; ok is false for an empty route.
func (s Shipment) POL() (RouteStop, bool) {
	if len(s.Route) == 0 {
		return RouteStop{}, false
	}
	return s.Route[0], true
}

func (s Shipment) POD() (RouteStop, bool) {
	if len(s.Route) == 0 {
		return RouteStop{}, false
	}
	return s.Route[len(s.Route)-1], true
}

// VesselArrival is a vessel's arrival at a port as a shipment's route records it: the carrier's
// actual time of arrival (ATA) at the port, and the departure (ATD) of the leg that ends there
// from the port before, zero when the route does not say.
type VesselArrival struct {
	VesselIMO, LOCODE string
	Departed, Arrived time.Time
}

// Arrivals are the arrivals the shipment's route records: each leg with an ATA at its end and a
// vessel, the one leaving the port before or, when the carrier names none, the one arriving.
func (s Shipment) Arrivals() []VesselArrival {
	var out []VesselArrival
	for i := 1; i < len(s.Route); i++ {
		from, to := s.Route[i-1], s.Route[i]
		imo := from.OutboundVesselIMO
		if imo == "" {
			imo = to.InboundVesselIMO
		}
		if imo == "" || to.ATA.IsZero() || to.LOCODE == "" {
			continue
		}
		out = append(out, VesselArrival{VesselIMO: imo, LOCODE: to.LOCODE, Departed: from.ATD, Arrived: to.ATA})
	}
	return out
}

// Container is one container of a shipment.
type Container struct {
	ID         string
	AccountID  string
	ShipmentID string
	Number     string
	SealNumber string
	// RefNumbers are the account's own references for the box, set through the API; a carrier's
	// refresh never changes them.
	RefNumbers []string
	// ISOCode is the ISO 6346 size-type code; the equipment fields are derived from it.
	ISOCode         string
	EquipmentType   string // dry, reefer, open top, flat rack, tank, bulk; "" when unknown
	EquipmentLength int    // feet; 0 when unknown
	EquipmentHeight string // standard or high_cube; "" when unknown
	CurrentStatus   string
	// Milestone times; zero when not (yet) reached.
	EmptyOutAt, FullInAt, LoadedAt, DepartedAt  time.Time
	PODArrivedAt, PODDischargedAt, PODFullOutAt time.Time
	EmptyTerminatedAt                           time.Time
	AvailableForPickup                          *bool
	// What the terminal at the port of discharge last said: the last free day, holds, fees,
	// where the box stands, and when it said so. Zero or empty while unknown.
	PickupLFD          time.Time
	Holds              []TerminalHold
	Fees               []TerminalFee
	LocationAtTerminal string
	TerminalCheckedAt  time.Time
	// PickupLFD is the last free day in force: the terminal's, else the line's. PickupLFDTerminal
	// and PickupLFDLine are each as its source gave it.
	PickupLFDTerminal, PickupLFDLine time.Time
	PickupAppointmentAt              time.Time
	// PODTerminalID is the terminal the box is actually at, when its terminal said it is not the
	// one the carrier named for the port of discharge; "" otherwise.
	PODTerminalID string
	// TerminalFullOutAt and TerminalEmptyInAt are the gate-out and empty return as the terminal
	// recorded them, which stand until the carrier reports its own.
	TerminalFullOutAt, TerminalEmptyInAt time.Time
	// TerminalNextCheckAt is when the terminal is next asked about the box; zero while it is not
	// asked (before arrival, once the box is done with, or without a terminal to ask).
	// TerminalFailedReason is why the last check failed, "" when it succeeded.
	TerminalNextCheckAt  time.Time
	TerminalFailedReason string
	// Inland is what happened to the box past the port of discharge: its inland leg, when its
	// journey goes on inland, its moves to an off-dock yard and at the consignee's door.
	Inland ContainerInland
	// ShipmentLastTrackingRequestAt is the last lookup of the container's shipment with the
	// carrier, answered or not; PODLastTrackingRequestAt the last of those that asked for its
	// data at the port of discharge (from a day before the vessel's arrival until the box left).
	// Zero until the first such lookup.
	ShipmentLastTrackingRequestAt time.Time
	PODLastTrackingRequestAt      time.Time
	CreatedAt, UpdatedAt          time.Time
}

// ContainerInland is a container's journey past the port of discharge: the rail (or truck, or
// barge) leg to its inland destination, as the carrier reports it. Zero fields are unknown.
type ContainerInland struct {
	// DestinationLOCODE is the inland place the box goes on to, "" when it ends at the port of
	// discharge.
	DestinationLOCODE string `json:",omitempty"`
	// PODRailCarrierSCAC is the railway that carries the box from the port of discharge,
	// IndRailCarrierSCAC the one that brings it to the inland destination (the same railway
	// unless the train changes hands); "" when the carrier does not name it.
	PODRailCarrierSCAC string `json:",omitempty"`
	IndRailCarrierSCAC string `json:",omitempty"`
	// PODRailLoadedAt is when the box was loaded onto the train at the port of discharge,
	// PODRailDepartedAt when that train left.
	PODRailLoadedAt   time.Time `json:",omitzero"`
	PODRailDepartedAt time.Time `json:",omitzero"`
	// IndETAAt is the carrier's latest expected arrival at the inland destination, IndATAAt the
	// actual one; IndRailUnloadedAt is when the box came off the train there.
	IndETAAt          time.Time `json:",omitzero"`
	IndATAAt          time.Time `json:",omitzero"`
	IndRailUnloadedAt time.Time `json:",omitzero"`
	// FinalDestinationFullOutAt is when the full box left the inland destination.
	FinalDestinationFullOutAt time.Time `json:",omitzero"`
	// RailTerminalLFD is the inland rail terminal's last free day (pickup_lfd_rail), as that
	// terminal reports it; RailTerminalCheckedAt when it last answered.
	RailTerminalLFD       time.Time `json:",omitzero"`
	RailTerminalCheckedAt time.Time `json:",omitzero"`

	// The box past the port's gate, whether or not its journey goes on inland. OffDockAt is when
	// it moved from the terminal of discharge to an off-dock yard, full (the carrier's laden
	// gate-in at an OFFD facility, else TerminalOffDockAt, the terminal's record of the move,
	// which stands until the carrier reports its own). At the consignee's door (DCSA facility
	// CLOC), after the pickup: DeliveredAt is its first laden arrival there (a gate-in, the live
	// unload, or a drop), DroppedAt when it was left there on its chassis, ReloadedAt when it
	// was hooked again after a drop.
	OffDockAt         time.Time `json:",omitzero"`
	TerminalOffDockAt time.Time `json:",omitzero"`
	DeliveredAt       time.Time `json:",omitzero"`
	DroppedAt         time.Time `json:",omitzero"`
	ReloadedAt        time.Time `json:",omitzero"`
}

// TransportEvent is a milestone of a container (container.transport.*), as shown by
// GET /v2/containers/{id}/transport_events.
type TransportEvent struct {
	ID          string
	AccountID   string
	ShipmentID  string
	ContainerID string
	// Event is the milestone name, such as container.transport.vessel_departed.
	Event        string
	Timestamp    time.Time
	LOCODE       string
	VoyageNumber string
	VesselIMO    string
	// DataSource is shipping_line for what carriers report, terminal for what terminals do.
	DataSource string
	// Value is the new value an event announces (container.pickup_lfd.changed: the day), "" for milestones.
	Value     string
	CreatedAt time.Time
}

// Event is an entry of the durable event log: one change an account's webhooks hear about.
// Each has a key that makes it unique per account, so the same change is never logged twice.
type Event struct {
	ID        string
	AccountID string
	// Name is the webhook event name: tracking_request.succeeded, container.transport.full_out, …
	Name string
	// ObjectType and ObjectID are the reference object: tracking_request, transport_event,
	// estimated_event, container_created_event, container_updated_event.
	ObjectType string
	ObjectID   string
	// The resources the event concerns; empty when not applicable.
	TrackingRequestID string
	ShipmentID        string
	ContainerID       string
	// Data holds what the reference object needs beyond the stored resources (an estimate, a
	// changeset), as JSON.
	Data      json.RawMessage
	Key       string
	CreatedAt time.Time
}

// Subject is what the event is about, for ordering: its container, else its shipment, else its
// tracking request, else its reference object. A webhook receives the notifications of one
// subject in event order.
func (e Event) Subject() string {
	for _, id := range []string{e.ContainerID, e.ShipmentID, e.TrackingRequestID} {
		if id != "" {
			return id
		}
	}
	return e.ObjectID
}

// ShipmentFilter narrows a shipment listing; zero fields do not filter.
type ShipmentFilter struct {
	// TrackingStopped, when set, keeps only shipments whose tracking has (true) or has not
	// (false) stopped.
	TrackingStopped *bool
	// Number matches the bill of lading, booking or original request number.
	Number string
	// Query keeps shipments where it is part of the bill of lading, booking, normalized or
	// request number, of a reference number, or of a container's number (case-insensitive).
	Query string
}

// ContainerFilter narrows a container listing; zero fields do not filter.
type ContainerFilter struct {
	// Number is a container number, compared after NormalizeContainerNumber.
	Number string
}

// DescribeEquipment fills a container's equipment type, length and height from its ISO 6346
// size-type code (22G1: 20 ft, standard height, general purpose).
func DescribeEquipment(c *Container) {
	c.EquipmentType, c.EquipmentLength, c.EquipmentHeight = "", 0, ""
	code := c.ISOCode
	if len(code) != 4 {
		return
	}
	switch code[0] {
	case '2':
		c.EquipmentLength = 20
	case '4':
		c.EquipmentLength = 40
	case 'L':
		c.EquipmentLength = 45
	case '1':
		c.EquipmentLength = 10
	}
	// 45G1 is the common code of a 40 ft high cube: length 4, height 5.
	switch code[1] {
	case '0', '2':
		c.EquipmentHeight = "standard"
	case '5':
		c.EquipmentHeight = "high_cube"
	}
	switch code[2] {
	case 'G', 'V':
		c.EquipmentType = "dry"
	case 'R', 'H':
		c.EquipmentType = "reefer"
	case 'U':
		c.EquipmentType = "open top"
	case 'P':
		c.EquipmentType = "flat rack"
	case 'T':
		c.EquipmentType = "tank"
	case 'B':
		c.EquipmentType = "bulk"
	}
}
