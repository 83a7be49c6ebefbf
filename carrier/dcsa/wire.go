package dcsa

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Wire types of DCSA Track & Trace 2.2 (GET /v2/events), as the carrier sends them. Only the members
// boxwatch reads or the simulator writes are declared; encoding/json ignores the others. The
// Track & Trace 3.0 layouts are in wire3.go; both are read into Event.

// Event is one element of the array GET /v2/events answers. Its members depend on EventType.
type Event struct {
	EventID              string `json:"eventID"`
	EventCreatedDateTime string `json:"eventCreatedDateTime"`
	EventType            string `json:"eventType"`
	EventClassifierCode  string `json:"eventClassifierCode"`
	EventDateTime        string `json:"eventDateTime"`
	// EventTypeCode is the deprecated alias of the type-specific code (transportEventTypeCode,
	// equipmentEventTypeCode or shipmentEventTypeCode), read when that code is missing.
	EventTypeCode string `json:"eventTypeCode,omitempty"`

	// TRANSPORT
	TransportEventTypeCode string `json:"transportEventTypeCode,omitempty"`
	DelayReasonCode        string `json:"delayReasonCode,omitempty"`
	ChangeRemark           string `json:"changeRemark,omitempty"`

	// EQUIPMENT
	EquipmentEventTypeCode string    `json:"equipmentEventTypeCode,omitempty"`
	EquipmentReference     string    `json:"equipmentReference,omitempty"`
	ISOEquipmentCode       string    `json:"ISOEquipmentCode,omitempty"`
	EmptyIndicatorCode     string    `json:"emptyIndicatorCode,omitempty"`
	EventLocation          *Location `json:"eventLocation,omitempty"`
	Seals                  []Seal    `json:"seals,omitempty"`

	// SHIPMENT
	ShipmentEventTypeCode string `json:"shipmentEventTypeCode,omitempty"`
	DocumentTypeCode      string `json:"documentTypeCode,omitempty"`
	DocumentID            string `json:"documentID,omitempty"`
	Reason                string `json:"reason,omitempty"`

	// TRANSPORT and EQUIPMENT
	TransportCall      *TransportCall      `json:"transportCall,omitempty"`
	DocumentReferences []DocumentReference `json:"documentReferences,omitempty"`
	References         []Reference         `json:"references,omitempty"`

	// CarrierSpecificData is a carrier's own extension (CMA CGM's), read for the role a call
	// plays in the shipment.
	CarrierSpecificData *CarrierSpecificData `json:"carrierSpecificData,omitempty"`
}

// CarrierSpecificData holds the members of a carrier's extension that boxwatch reads.
type CarrierSpecificData struct {
	// ShipmentLocationType is the role of the event's place in the shipment: POL, POD, or PTS
	// (a transshipment port).
	ShipmentLocationType string `json:"shipmentLocationType,omitempty"`
	// TransportationPhase is Export, Transshipment or Import.
	TransportationPhase string `json:"transportationPhase,omitempty"`
}

// TransportCall is a call of a vessel (or other means) at a place.
type TransportCall struct {
	TransportCallID    string `json:"transportCallID,omitempty"`
	CarrierServiceCode string `json:"carrierServiceCode,omitempty"`
	ExportVoyageNumber string `json:"exportVoyageNumber,omitempty"`
	ImportVoyageNumber string `json:"importVoyageNumber,omitempty"`
	// CarrierVoyageNumber is the deprecated single voyage number, read for both directions
	// when neither of the two above is given.
	CarrierVoyageNumber         string    `json:"carrierVoyageNumber,omitempty"`
	TransportCallSequenceNumber *int      `json:"transportCallSequenceNumber,omitempty"`
	UNLocationCode              string    `json:"UNLocationCode,omitempty"`
	FacilityCode                string    `json:"facilityCode,omitempty"`
	FacilityCodeListProvider    string    `json:"facilityCodeListProvider,omitempty"`
	FacilityTypeCode            string    `json:"facilityTypeCode,omitempty"`
	OtherFacility               string    `json:"otherFacility,omitempty"`
	ModeOfTransport             string    `json:"modeOfTransport"`
	Location                    *Location `json:"location,omitempty"`
	Vessel                      *Vessel   `json:"vessel,omitempty"`
}

// Vessel identifies a vessel.
type Vessel struct {
	VesselIMONumber                       string `json:"vesselIMONumber"`
	VesselName                            string `json:"vesselName,omitempty"`
	VesselFlag                            string `json:"vesselFlag,omitempty"`
	VesselCallSignNumber                  string `json:"vesselCallSignNumber,omitempty"`
	VesselOperatorCarrierCode             string `json:"vesselOperatorCarrierCode,omitempty"`
	VesselOperatorCarrierCodeListProvider string `json:"vesselOperatorCarrierCodeListProvider,omitempty"`
}

// Location is a place: a UN/LOCODE, a facility, coordinates or an address.
type Location struct {
	LocationName             string `json:"locationName,omitempty"`
	Latitude                 string `json:"latitude,omitempty"`
	Longitude                string `json:"longitude,omitempty"`
	UNLocationCode           string `json:"UNLocationCode,omitempty"`
	FacilityCode             string `json:"facilityCode,omitempty"`
	FacilityCodeListProvider string `json:"facilityCodeListProvider,omitempty"`
	// FacilityTypeCode is where a 3.0 event happened (POTE, DEPO, OFFD, CLOC, …); 2.2 gives it
	// on the transport call only.
	FacilityTypeCode string `json:"facilityTypeCode,omitempty"`
}

// Seal is a seal on a container.
type Seal struct {
	SealNumber string `json:"sealNumber"`
	SealSource string `json:"sealSource,omitempty"`
	SealType   string `json:"sealType,omitempty"`
}

// DocumentReference ties an event to a booking (BKG) or transport document (TRD).
type DocumentReference struct {
	DocumentReferenceType  string `json:"documentReferenceType"`
	DocumentReferenceValue string `json:"documentReferenceValue"`
}

// Reference is another reference of an event (FF, SI, BR, BL, EQ, …).
type Reference struct {
	ReferenceType  string `json:"referenceType"`
	ReferenceValue string `json:"referenceValue"`
}

// Query parameters and headers of GET /v2/events that boxwatch uses.
const (
	ParamTransportDocumentReference = "transportDocumentReference"
	ParamCarrierBookingReference    = "carrierBookingReference"
	ParamEquipmentReference         = "equipmentReference"
	ParamLimit                      = "limit"
	ParamCursor                     = "cursor"

	HeaderAPIVersion  = "API-Version"
	HeaderNextPage    = "Next-Page"
	HeaderCurrentPage = "Current-Page"
	// HeaderNextPageCursor is Track & Trace 3.0's Next-Page: a cursor to send back as ParamCursor.
	HeaderNextPageCursor = "Next-Page-Cursor"
)

// UnmarshalJSON reads a vessel whose IMO number is written as a JSON number, as Maersk's
// published schema types it, as well as a string.
func (v *Vessel) UnmarshalJSON(b []byte) error {
	type plain Vessel
	var w struct {
		plain
		VesselIMONumber json.RawMessage `json:"vesselIMONumber"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*v = Vessel(w.plain)
	imo := bytes.TrimSpace(w.VesselIMONumber)
	switch {
	case len(imo) == 0 || string(imo) == "null":
	case imo[0] == '"':
		return json.Unmarshal(imo, &v.VesselIMONumber)
	default:
		var n json.Number
		if err := json.Unmarshal(imo, &n); err != nil {
			return fmt.Errorf("vesselIMONumber %.20q is neither a string nor a number", imo)
		}
		v.VesselIMONumber = n.String()
	}
	return nil
}
