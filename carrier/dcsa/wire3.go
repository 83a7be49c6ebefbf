package dcsa

// Wire types of DCSA Track & Trace 3.0 (GET /v3/events). Two layouts are in use: the released
// 3.0, whose answer is {"events": [...]} with the type-specific members grouped under
// eventClassification, transportDetails, equipmentDetails and shipmentDetails (EventV3), and the
// 3.0 beta's metadata/payload records (RecordV3Beta). Both are read into Event, so that every
// version yields the same shipment.

// AnswerV3 is the body of a Track & Trace 3.0 answer.
type AnswerV3 struct {
	Events []EventV3 `json:"events"`
}

// EventV3 is one event of Track & Trace 3.0.
type EventV3 struct {
	EventID              string              `json:"eventID"`
	EventDateTime        string              `json:"eventDateTime"`
	EventUpdatedDateTime string              `json:"eventUpdatedDateTime,omitempty"`
	EventClassification  *ClassificationV3   `json:"eventClassification"`
	EventLocation        *LocationV3         `json:"eventLocation,omitempty"`
	ShipmentDetails      *ShipmentDetailsV3  `json:"shipmentDetails,omitempty"`
	TransportDetails     *TransportDetailsV3 `json:"transportDetails,omitempty"`
	EquipmentDetails     *EquipmentDetailsV3 `json:"equipmentDetails,omitempty"`
}

// ClassificationV3 says what kind of event an EventV3 is.
type ClassificationV3 struct {
	EventTypeCode          string `json:"eventTypeCode"`
	EventClassifierCode    string `json:"eventClassifierCode"`
	TransportEventTypeCode string `json:"transportEventTypeCode,omitempty"`
	EquipmentEventTypeCode string `json:"equipmentEventTypeCode,omitempty"`
	ShipmentEventTypeCode  string `json:"shipmentEventTypeCode,omitempty"`
}

// LocationV3 is a place in Track & Trace 3.0.
type LocationV3 struct {
	LocationName             string `json:"locationName,omitempty"`
	UNLocationCode           string `json:"UNLocationCode,omitempty"`
	FacilityCode             string `json:"facilityCode,omitempty"`
	FacilityCodeListProvider string `json:"facilityCodeListProvider,omitempty"`
	FacilityTypeCode         string `json:"facilityTypeCode,omitempty"`
}

// ShipmentDetailsV3 names the document an event is about and the others it relates to.
type ShipmentDetailsV3 struct {
	DocumentReference            *DocumentReferenceV3  `json:"documentReference,omitempty"`
	AdditionalDocumentReferences []DocumentReferenceV3 `json:"additionalDocumentReferences,omitempty"`
}

// DocumentReferenceV3 is a booking (BKG) or transport document (TRD) reference.
type DocumentReferenceV3 struct {
	TypeCode  string `json:"typeCode"`
	Reference string `json:"reference"`
}

// TransportDetailsV3 is the transport call of an event.
type TransportDetailsV3 struct {
	TransportCall   *TransportCallV3 `json:"transportCall,omitempty"`
	DelayReasonCode string           `json:"delayReasonCode,omitempty"`
	ChangeRemark    string           `json:"changeRemark,omitempty"`
}

// TransportCallV3 is a call in Track & Trace 3.0; its place is the event's location.
type TransportCallV3 struct {
	TransportCallReference        string             `json:"transportCallReference,omitempty"`
	TransportCallSequenceNumber   *int               `json:"transportCallSequenceNumber,omitempty"`
	ModeOfTransport               string             `json:"modeOfTransport,omitempty"`
	ServiceCodeOrReference        *ServiceV3         `json:"serviceCodeOrReference,omitempty"`
	ExportVoyageNumberOrReference *VoyageV3          `json:"exportVoyageNumberOrReference,omitempty"`
	ImportVoyageNumberOrReference *VoyageV3          `json:"importVoyageNumberOrReference,omitempty"`
	VesselTransport               *VesselTransportV3 `json:"vesselTransport,omitempty"`
}

// ServiceV3 is a carrier's service code.
type ServiceV3 struct {
	CarrierServiceCode string `json:"carrierServiceCode,omitempty"`
}

// VoyageV3 is a carrier's voyage number.
type VoyageV3 struct {
	CarrierVoyageNumber string `json:"carrierVoyageNumber,omitempty"`
}

// VesselTransportV3 identifies the vessel of a call.
type VesselTransportV3 struct {
	VesselIMONumber string `json:"vesselIMONumber,omitempty"`
	VesselName      string `json:"vesselName,omitempty"`
	VesselFlag      string `json:"vesselFlag,omitempty"`
	VesselCallSign  string `json:"vesselCallSign,omitempty"`
}

// EquipmentDetailsV3 is the container of an equipment event.
type EquipmentDetailsV3 struct {
	EquipmentReference string   `json:"equipmentReference,omitempty"`
	ISOEquipmentCode   string   `json:"ISOEquipmentCode,omitempty"`
	EmptyIndicatorCode string   `json:"emptyIndicatorCode,omitempty"`
	Seals              []SealV3 `json:"seals,omitempty"`
}

// SealV3 is a seal in Track & Trace 3.0.
type SealV3 struct {
	Number string `json:"number"`
	Source string `json:"source,omitempty"`
	Type   string `json:"type,omitempty"`
}

// RecordV3Beta is one record of the Track & Trace 3.0 beta: the event's metadata and its
// payload. A record without a payload only retracts the event named by RetractedEventID.
type RecordV3Beta struct {
	Metadata *MetadataV3Beta `json:"metadata"`
	Payload  *PayloadV3Beta  `json:"payload,omitempty"`
}

// MetadataV3Beta identifies a beta record.
type MetadataV3Beta struct {
	EventID              string `json:"eventID"`
	EventCreatedDateTime string `json:"eventCreatedDateTime"`
	EventType            string `json:"eventType"`
	RetractedEventID     string `json:"retractedEventID,omitempty"`
}

// PayloadV3Beta is the event of a beta record.
type PayloadV3Beta struct {
	EventType                 string               `json:"eventType"`
	EventClassifierCode       string               `json:"eventClassifierCode"`
	EventDateTime             string               `json:"eventDateTime"`
	TransportEventTypeCode    string               `json:"transportEventTypeCode,omitempty"`
	EquipmentEventTypeCode    string               `json:"equipmentEventTypeCode,omitempty"`
	ShipmentEventTypeCode     string               `json:"shipmentEventTypeCode,omitempty"`
	DocumentTypeCode          string               `json:"documentTypeCode,omitempty"`
	DocumentReference         string               `json:"documentReference,omitempty"`
	EquipmentReference        string               `json:"equipmentReference,omitempty"`
	ISOEquipmentCode          string               `json:"ISOEquipmentCode,omitempty"`
	EmptyIndicatorCode        string               `json:"emptyIndicatorCode,omitempty"`
	DelayReasonCode           string               `json:"delayReasonCode,omitempty"`
	ChangeRemark              string               `json:"changeRemark,omitempty"`
	Reason                    string               `json:"reason,omitempty"`
	Location                  *LocationV3          `json:"location,omitempty"`
	FacilityTypeCode          string               `json:"facilityTypeCode,omitempty"`
	Seals                     []SealV3             `json:"seals,omitempty"`
	TransportCall             *TransportCallV3Beta `json:"transportCall,omitempty"`
	RelatedDocumentReferences []TypeValueV3        `json:"relatedDocumentReferences,omitempty"`
	References                []TypeValueV3        `json:"references,omitempty"`
}

// TransportCallV3Beta is a call in the 3.0 beta.
type TransportCallV3Beta struct {
	TransportCallReference      string        `json:"transportCallReference,omitempty"`
	TransportCallSequenceNumber *int          `json:"transportCallSequenceNumber,omitempty"`
	ModeOfTransport             string        `json:"modeOfTransport,omitempty"`
	Location                    *LocationV3   `json:"location,omitempty"`
	CarrierServiceCode          string        `json:"carrierServiceCode,omitempty"`
	CarrierExportVoyageNumber   string        `json:"carrierExportVoyageNumber,omitempty"`
	CarrierImportVoyageNumber   string        `json:"carrierImportVoyageNumber,omitempty"`
	FacilityTypeCode            string        `json:"facilityTypeCode,omitempty"`
	Vessel                      *VesselV3Beta `json:"vessel,omitempty"`
}

// VesselV3Beta identifies the vessel of a beta call.
type VesselV3Beta struct {
	VesselIMONumber string `json:"vesselIMONumber,omitempty"`
	Name            string `json:"name,omitempty"`
	Flag            string `json:"flag,omitempty"`
	CallSign        string `json:"callSign,omitempty"`
}

// TypeValueV3 is a typed reference of the beta (BKG, TRD, EQ, …).
type TypeValueV3 struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

// asEvent is e in Track & Trace 2.2's terms. The released 3.0 has no creation time; the time of
// the event's last update stands in for it.
func (e EventV3) asEvent() Event {
	w := Event{EventID: e.EventID, EventDateTime: e.EventDateTime, EventCreatedDateTime: e.EventUpdatedDateTime}
	if c := e.EventClassification; c != nil {
		w.EventType, w.EventClassifierCode = c.EventTypeCode, c.EventClassifierCode
		w.TransportEventTypeCode, w.EquipmentEventTypeCode, w.ShipmentEventTypeCode = c.TransportEventTypeCode, c.EquipmentEventTypeCode, c.ShipmentEventTypeCode
	}
	if l := e.EventLocation; l != nil {
		w.EventLocation = l.asLocation()
	}
	if d := e.ShipmentDetails; d != nil {
		refs := d.AdditionalDocumentReferences
		if d.DocumentReference != nil {
			w.DocumentTypeCode, w.DocumentID = d.DocumentReference.TypeCode, d.DocumentReference.Reference
			refs = append([]DocumentReferenceV3{*d.DocumentReference}, refs...)
		}
		for _, r := range refs {
			w.DocumentReferences = append(w.DocumentReferences, DocumentReference{DocumentReferenceType: r.TypeCode, DocumentReferenceValue: r.Reference})
		}
	}
	if d := e.EquipmentDetails; d != nil {
		w.EquipmentReference, w.ISOEquipmentCode, w.EmptyIndicatorCode = d.EquipmentReference, d.ISOEquipmentCode, d.EmptyIndicatorCode
		w.Seals = seals(d.Seals)
	}
	if d := e.TransportDetails; d != nil {
		w.DelayReasonCode, w.ChangeRemark = d.DelayReasonCode, d.ChangeRemark
		if tc := d.TransportCall; tc != nil {
			call := &TransportCall{TransportCallID: tc.TransportCallReference, TransportCallSequenceNumber: tc.TransportCallSequenceNumber, ModeOfTransport: tc.ModeOfTransport}
			if s := tc.ServiceCodeOrReference; s != nil {
				call.CarrierServiceCode = s.CarrierServiceCode
			}
			if v := tc.ExportVoyageNumberOrReference; v != nil {
				call.ExportVoyageNumber = v.CarrierVoyageNumber
			}
			if v := tc.ImportVoyageNumberOrReference; v != nil {
				call.ImportVoyageNumber = v.CarrierVoyageNumber
			}
			if v := tc.VesselTransport; v != nil {
				call.Vessel = &Vessel{VesselIMONumber: v.VesselIMONumber, VesselName: v.VesselName, VesselFlag: v.VesselFlag, VesselCallSignNumber: v.VesselCallSign}
			}
			// The released 3.0 places a call by the event's location.
			if l := e.EventLocation; l != nil {
				call.UNLocationCode, call.FacilityCode, call.FacilityCodeListProvider, call.FacilityTypeCode = l.UNLocationCode, l.FacilityCode, l.FacilityCodeListProvider, l.FacilityTypeCode
				if l.LocationName != "" {
					call.Location = l.asLocation()
				}
			}
			w.TransportCall = call
		}
	}
	return w
}

// asEvent is r in Track & Trace 2.2's terms.
func (r RecordV3Beta) asEvent() Event {
	var w Event
	if m := r.Metadata; m != nil {
		w.EventID, w.EventCreatedDateTime, w.EventType = m.EventID, m.EventCreatedDateTime, m.EventType
	}
	p := r.Payload
	if p == nil {
		return w
	}
	if p.EventType != "" {
		w.EventType = p.EventType
	}
	w.EventClassifierCode, w.EventDateTime = p.EventClassifierCode, p.EventDateTime
	w.TransportEventTypeCode, w.EquipmentEventTypeCode, w.ShipmentEventTypeCode = p.TransportEventTypeCode, p.EquipmentEventTypeCode, p.ShipmentEventTypeCode
	w.DocumentTypeCode, w.DocumentID, w.Reason = p.DocumentTypeCode, p.DocumentReference, p.Reason
	w.EquipmentReference, w.ISOEquipmentCode, w.EmptyIndicatorCode = p.EquipmentReference, p.ISOEquipmentCode, p.EmptyIndicatorCode
	w.DelayReasonCode, w.ChangeRemark = p.DelayReasonCode, p.ChangeRemark
	w.Seals = seals(p.Seals)
	if p.Location != nil {
		w.EventLocation = p.Location.asLocation()
	}
	if p.FacilityTypeCode != "" {
		if w.EventLocation == nil {
			w.EventLocation = &Location{}
		}
		w.EventLocation.FacilityTypeCode = p.FacilityTypeCode
	}
	for _, d := range p.RelatedDocumentReferences {
		w.DocumentReferences = append(w.DocumentReferences, DocumentReference{DocumentReferenceType: d.Type, DocumentReferenceValue: d.Value})
	}
	for _, d := range p.References {
		w.References = append(w.References, Reference{ReferenceType: d.Type, ReferenceValue: d.Value})
	}
	if tc := p.TransportCall; tc != nil {
		call := &TransportCall{TransportCallID: tc.TransportCallReference, TransportCallSequenceNumber: tc.TransportCallSequenceNumber,
			ModeOfTransport: tc.ModeOfTransport, CarrierServiceCode: tc.CarrierServiceCode, FacilityTypeCode: tc.FacilityTypeCode,
			ExportVoyageNumber: tc.CarrierExportVoyageNumber, ImportVoyageNumber: tc.CarrierImportVoyageNumber}
		if l := tc.Location; l != nil {
			call.UNLocationCode, call.FacilityCode, call.FacilityCodeListProvider = l.UNLocationCode, l.FacilityCode, l.FacilityCodeListProvider
		}
		if v := tc.Vessel; v != nil {
			call.Vessel = &Vessel{VesselIMONumber: v.VesselIMONumber, VesselName: v.Name, VesselFlag: v.Flag, VesselCallSignNumber: v.CallSign}
		}
		w.TransportCall = call
	}
	return w
}

func (l LocationV3) asLocation() *Location {
	return &Location{LocationName: l.LocationName, UNLocationCode: l.UNLocationCode, FacilityCode: l.FacilityCode,
		FacilityCodeListProvider: l.FacilityCodeListProvider, FacilityTypeCode: l.FacilityTypeCode}
}

func seals(in []SealV3) []Seal {
	var out []Seal
	for _, s := range in {
		out = append(out, Seal{SealNumber: s.Number, SealSource: s.Source, SealType: s.Type})
	}
	return out
}
