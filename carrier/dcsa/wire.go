package dcsa

// Wire types of DCSA Track & Trace 2.2 (GET /v2/events), as the carrier sends them. Only the members
// boxwatch reads or the simulator writes are declared; encoding/json ignores the others.

// Event is one element of the array GET /v2/events answers. Its members depend on EventType.
type Event struct {
	EventID              string `json:"eventID"`
	EventCreatedDateTime string `json:"eventCreatedDateTime"`
	EventType            string `json:"eventType"`
	EventClassifierCode  string `json:"eventClassifierCode"`
	EventDateTime        string `json:"eventDateTime"`

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
}

// TransportCall is a call of a vessel (or other means) at a place.
type TransportCall struct {
	TransportCallID             string    `json:"transportCallID"`
	CarrierServiceCode          string    `json:"carrierServiceCode,omitempty"`
	ExportVoyageNumber          string    `json:"exportVoyageNumber,omitempty"`
	ImportVoyageNumber          string    `json:"importVoyageNumber,omitempty"`
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
)
