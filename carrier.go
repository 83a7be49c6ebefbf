package boxwatch

import (
	"context"
	"fmt"
	"time"
)

// CarrierReference names what to look up with a shipping line.
type CarrierReference struct {
	Type   RequestType
	Number string
	SCAC   string
}

// Carrier looks shipments up with one shipping line (or a simulation of one). A refresh is a
// Lookup by the number the customer gave, of the type they gave it as: carriers' tracking APIs
// answer the whole current picture to every query, but a line need not answer a number of one
// type by another (a container's bill of lading may fit none of the line's formats).
//
// Lookup returns a *CarrierError for every failure the carrier causes: not knowing the number
// (Reason "not_found"), being unreachable or overloaded (Temporary), or answering something that
// cannot be read ("unrecognized_response"). Any other error is boxwatch's own.
type Carrier interface {
	Lookup(ctx context.Context, ref CarrierReference) (CarrierShipment, error)
}

// Failure reasons of tracking requests (the failed_reason attribute).
const (
	ReasonNotFound                = "not_found"
	ReasonInvalidNumber           = "invalid_number"
	ReasonRetriesExhausted        = "retries_exhausted"
	ReasonUnreachable             = "shipping_line_unreachable"
	ReasonUnrecognizedResponse    = "unrecognized_response"
	ReasonDataUnavailable         = "data_unavailable"
	ReasonDuplicate               = "duplicate"
	ReasonExpired                 = "expired"
	ReasonInternalProcessingError = "internal_processing_error"
	ReasonBookingCancelled        = "booking_cancelled"
	ReasonSCACAutoDetectFailed    = "scac_auto_detect_failed"
)

// LineRanker ranks the shipping lines likely to know a number, by primary SCAC, the most likely
// first; a number no line is likely to know has none. The tracking engine asks the lines in that
// order when a request leaves its line to be detected.
type LineRanker interface {
	Lines(number string) []string
}

// CarrierError is a failure caused by the carrier, with the failed_reason it leads to.
type CarrierError struct {
	Reason string
	// Temporary failures (timeouts, 5xx, 429) are retried; the others end the lookup.
	Temporary bool
	// RetryAfter is the carrier's own hint (a Retry-After header); zero when it gave none.
	RetryAfter time.Duration
	// Err is the cause, for logs; it never reaches API clients.
	Err error
}

func (e *CarrierError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("carrier: %s: %v", e.Reason, e.Err)
	}
	return "carrier: " + e.Reason
}

func (e *CarrierError) Unwrap() error { return e.Err }

// CarrierShipment is what a carrier reports for one bill of lading, booking or container: the
// transport calls of the route, the equipment, and every event, normalised from the carrier's
// format (DCSA Track & Trace 2.2 names and codes). The calls come in no promised order: the order
// of the journey is derived from their times.
type CarrierShipment struct {
	// BillOfLading is the transport document reference, when the carrier gave one.
	BillOfLading string
	// Booking is the carrier booking reference, when the carrier gave one.
	Booking   string
	Calls     []TransportCall
	Equipment []CarrierEquipment
	// BookingCancelledAt is when the carrier cancelled the booking, as its latest word on the
	// booking says; zero while the booking stands.
	BookingCancelledAt time.Time `json:",omitzero"`
	// Events are every event the carrier reported, oldest eventDateTime first.
	Events []CarrierEvent
	// Unreadable are the records of the answer that could not be read and were left out; the
	// rest of the answer stands without them.
	Unreadable []UnreadableEvent `json:",omitempty"`
}

// UnreadableEvent is a record of a carrier's answer that was skipped: where it was, its id when
// one could be read, and why, quoting what the carrier sent.
type UnreadableEvent struct {
	// Index is the record's position in its page, from 0; Page counts pages from 1.
	Page, Index int
	ID          string
	Reason      string
}

// TransportCall is one call of the route at a place (a port, a depot, a terminal), with the
// vessel and voyage that arrive and leave there.
type TransportCall struct {
	// ID is the carrier's transportCallID, or a name made of the call's place, voyage and vessel
	// when the carrier gives none.
	ID string
	// Sequence is the carrier's transportCallSequenceNumber, which DCSA counts per voyage: it
	// tells calls at one place apart, not where a call stands in the journey.
	Sequence int
	// LOCODE is the UN/LOCODE of the place.
	LOCODE       string
	FacilityCode string
	// FacilityCodeList is the list FacilityCode is from: SMDG (terminal codes) or BIC (depots).
	FacilityCodeList string `json:",omitempty"`
	// FacilityName is the facility's name as the carrier gives it, when it does.
	FacilityName string `json:",omitempty"`
	// FacilityType is DCSA's facilityTypeCode: POTE (port terminal), DEPO, CLOC, …
	FacilityType string
	// Mode is VESSEL, RAIL, TRUCK or BARGE.
	Mode         string
	Vessel       *VesselRef
	ServiceCode  string
	ExportVoyage string
	ImportVoyage string
	Arrival      CallTimes
	Departure    CallTimes
	// Role is the part the carrier itself says the call plays in this shipment (RolePOL, RoleTS,
	// RolePOD), empty when it does not say.
	Role string `json:",omitempty"`
}

// CallTimes are the planned, latest estimated and actual times of an arrival or a departure; a
// zero time is unknown.
type CallTimes struct {
	Planned   time.Time
	Estimated time.Time
	Actual    time.Time
}

// VesselRef identifies a vessel as carriers report it.
type VesselRef struct {
	IMO      string
	Name     string
	Flag     string
	CallSign string
	// MMSI is rarely reported by carriers; empty when unknown.
	MMSI string
}

// CarrierEquipment is one container of the shipment.
type CarrierEquipment struct {
	// Reference is the container number.
	Reference string
	// ISOCode is the ISO 6346 size-type code (22G1, 45G1, …), when reported.
	ISOCode string
	Seals   []string
}

// DCSA event families (CarrierEvent.Type) used by boxwatch.
const (
	EventTransport = "TRANSPORT"
	EventEquipment = "EQUIPMENT"
	EventShipment  = "SHIPMENT"
)

// DCSA event classifiers (CarrierEvent.Classifier): whether an event is planned, estimated or
// has happened.
const (
	ClassifierPlanned   = "PLN"
	ClassifierEstimated = "EST"
	ClassifierActual    = "ACT"
)

// CarrierEvent is one event as the carrier reported it.
type CarrierEvent struct {
	// ID is the carrier's eventID; with the SCAC it identifies the event.
	ID string
	// Type is TRANSPORT, EQUIPMENT or SHIPMENT.
	Type string
	// Classifier is PLN, EST or ACT.
	Classifier string
	// Code is the transport (ARRI, DEPA), equipment (GTOT, GTIN, LOAD, DISC, …) or shipment
	// (RECE, DRFT, ISSU, …) event type code.
	Code string
	// Time is when the event happens or happened, with the offset the carrier gave.
	Time time.Time
	// Created is when the carrier recorded it; later records supersede earlier ones.
	Created time.Time
	// LOCODE is where it happens, from the event location or its transport call.
	LOCODE string
	// TransportCallID links the event to a call of the route, when it has one.
	TransportCallID string
	// EquipmentReference is the container, for equipment events.
	EquipmentReference string
	// Empty is true for EMPTY, false for LADEN, nil when not given.
	Empty *bool
	// DocumentType and DocumentID are set on shipment events.
	DocumentType string
	DocumentID   string
	// DelayReason (an SMDG code) and ChangeRemark explain a changed time, when given.
	DelayReason  string
	ChangeRemark string
	// FacilityType is DCSA's facilityTypeCode of where the event happened (POTE, DEPO, OFFD,
	// CLOC, …): the event's own (3.0), else its transport call's; "" when neither says.
	FacilityType string `json:",omitempty"`
}
