package sim

import (
	"encoding/json"
	"fmt"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/carrier/dcsa"
)

// Dialect is how the network writes its answers: the Track & Trace version, and the departures
// from the spec real carriers make, each a switch, so that a client can be tested against them.
// The zero Dialect is Track & Trace 2.2 exactly as the spec has it.
type Dialect struct {
	// Version is dcsa.Version22 (the default; GET /{SCAC}/v2/events) or dcsa.Version30
	// (GET /{SCAC}/v3/events, the released 3.0 layout, wrapped; pages linked by
	// Next-Page-Cursor). The switches below shape 2.2 answers only, except GarbledRecord.
	Version string
	// Wrapped puts the events in an object, {"events": [...]}, as Maersk does.
	Wrapped bool
	// OmitOptional leaves out what carriers omit though the spec requires it: eventID and
	// transportCallID; and writes the deprecated members instead of their successors: the
	// eventTypeCode alias for the type-specific code, carrierVoyageNumber for the export and
	// import voyage numbers.
	OmitOptional bool
	// SequencePerVoyage numbers the calls of each voyage from 1, as DCSA defines
	// transportCallSequenceNumber, instead of across the journey.
	SequencePerVoyage bool
	// SharedEventIDs gives events of different families the same eventID, as DCSA's own
	// sample does; within a family ids stay distinct.
	SharedEventIDs bool
	// GarbledRecord adds to the first page of every answer that has events a record no reader
	// can use (an equipment code where the event type belongs), as in a captured MSC answer.
	GarbledRecord bool
}

// validate reports an unknown Version.
func (d Dialect) validate() error {
	switch d.Version {
	case "", dcsa.Version22, dcsa.Version30:
		return nil
	}
	return fmt.Errorf("sim: DCSA version %q is not %q or %q", d.Version, dcsa.Version22, dcsa.Version30)
}

// v3 reports whether the network speaks Track & Trace 3.0.
func (d Dialect) v3() bool { return d.Version == dcsa.Version30 }

// shape applies the switches that concern a whole answer to all, its events in the order the
// journey made them: the sequence numbers of the calls and the events' ids.
func (d Dialect) shape(journeyKey string, all []event) {
	if d.SequencePerVoyage {
		numberPerVoyage(all)
	}
	if d.SharedEventIDs {
		// The n-th event of a family and classifier gets the same id in every family.
		seen := map[string]int{}
		for i := range all {
			e := &all[i]
			k := e.EventType + "/" + e.EventClassifierCode
			e.EventID = boxwatch.NameUUID(fmt.Sprintf("boxwatch/sim/shared-event/%s/%s/%d", journeyKey, e.EventClassifierCode, seen[k]))
			seen[k]++
		}
	}
}

// numberPerVoyage renumbers the calls of all from 1 whenever the voyage changes, in the order of
// their journey-wide sequence numbers.
func numberPerVoyage(all []event) {
	calls := map[int]*dcsa.TransportCall{}
	maxSeq := 0
	for _, e := range all {
		if tc := e.TransportCall; tc != nil && tc.TransportCallSequenceNumber != nil {
			calls[*tc.TransportCallSequenceNumber] = tc
			maxSeq = max(maxSeq, *tc.TransportCallSequenceNumber)
		}
	}
	voyage, n := "\x00", 0
	renumbered := map[*dcsa.TransportCall]bool{}
	for seq := 0; seq <= maxSeq; seq++ {
		tc := calls[seq]
		if tc == nil || renumbered[tc] {
			continue
		}
		if v := tc.ImportVoyageNumber + "/" + tc.ExportVoyageNumber; v != voyage {
			voyage, n = v, 0
		}
		n++
		renumbered[tc] = true
		number := n
		tc.TransportCallSequenceNumber = &number
	}
}

// garbled is the record GarbledRecord adds.
var garbled = json.RawMessage(`{"eventID": "garbled-record", "eventType": "GTOT", "eventClassifierCode": "ACT", "eventCreatedDateTime": "2022-10-28T01:38:00Z", "eventDateTime": "2022-10-28T01:38:00Z", "equipmentEventTypeCode": "EMPTY"}`)

// render writes one page of events as the dialect answers it; first says whether it is the
// answer's first page.
func (d Dialect) render(page []dcsa.Event, first bool) ([]byte, error) {
	records := make([]any, 0, len(page)+1)
	if d.GarbledRecord && first && len(page) > 0 {
		records = append(records, garbled)
	}
	for _, e := range page {
		switch {
		case d.v3():
			records = append(records, asV3(e))
		case d.OmitOptional:
			records = append(records, withoutOptional(e))
		default:
			records = append(records, e)
		}
	}
	if d.v3() || d.Wrapped {
		return json.Marshal(struct {
			Events []any `json:"events"`
		}{records})
	}
	return json.Marshal(records)
}

// withoutOptional is e as a carrier that omits optional members writes it.
func withoutOptional(e dcsa.Event) dcsa.Event {
	e.EventID = ""
	for _, code := range []*string{&e.TransportEventTypeCode, &e.EquipmentEventTypeCode, &e.ShipmentEventTypeCode} {
		if *code != "" {
			e.EventTypeCode, *code = *code, ""
		}
	}
	if e.TransportCall != nil {
		tc := *e.TransportCall
		tc.TransportCallID = ""
		tc.CarrierVoyageNumber = tc.ExportVoyageNumber
		if tc.CarrierVoyageNumber == "" {
			tc.CarrierVoyageNumber = tc.ImportVoyageNumber
		}
		tc.ExportVoyageNumber, tc.ImportVoyageNumber = "", ""
		e.TransportCall = &tc
	}
	return e
}

// asV3 is e in the released Track & Trace 3.0 layout. A call is placed by the event's location,
// which for a transport event is the call's port.
func asV3(e dcsa.Event) dcsa.EventV3 {
	v := dcsa.EventV3{EventID: e.EventID, EventDateTime: e.EventDateTime, EventUpdatedDateTime: e.EventCreatedDateTime,
		EventClassification: &dcsa.ClassificationV3{EventTypeCode: e.EventType, EventClassifierCode: e.EventClassifierCode,
			TransportEventTypeCode: e.TransportEventTypeCode, EquipmentEventTypeCode: e.EquipmentEventTypeCode, ShipmentEventTypeCode: e.ShipmentEventTypeCode}}
	if l := e.EventLocation; l != nil {
		v.EventLocation = &dcsa.LocationV3{LocationName: l.LocationName, UNLocationCode: l.UNLocationCode, FacilityCode: l.FacilityCode, FacilityCodeListProvider: l.FacilityCodeListProvider}
	}
	var refs []dcsa.DocumentReferenceV3
	if e.EventType == boxwatch.EventShipment {
		refs = append(refs, dcsa.DocumentReferenceV3{TypeCode: e.DocumentTypeCode, Reference: e.DocumentID})
	}
	for _, r := range e.DocumentReferences {
		refs = append(refs, dcsa.DocumentReferenceV3{TypeCode: r.DocumentReferenceType, Reference: r.DocumentReferenceValue})
	}
	if len(refs) > 0 {
		v.ShipmentDetails = &dcsa.ShipmentDetailsV3{DocumentReference: &refs[0], AdditionalDocumentReferences: refs[1:]}
	}
	if e.EventType == boxwatch.EventEquipment {
		d := &dcsa.EquipmentDetailsV3{EquipmentReference: e.EquipmentReference, ISOEquipmentCode: e.ISOEquipmentCode, EmptyIndicatorCode: e.EmptyIndicatorCode}
		for _, s := range e.Seals {
			d.Seals = append(d.Seals, dcsa.SealV3{Number: s.SealNumber, Source: s.SealSource, Type: s.SealType})
		}
		v.EquipmentDetails = d
	}
	if tc := e.TransportCall; tc != nil {
		call := &dcsa.TransportCallV3{TransportCallReference: tc.TransportCallID, TransportCallSequenceNumber: tc.TransportCallSequenceNumber,
			ModeOfTransport: tc.ModeOfTransport}
		if tc.CarrierServiceCode != "" {
			call.ServiceCodeOrReference = &dcsa.ServiceV3{CarrierServiceCode: tc.CarrierServiceCode}
		}
		if tc.ExportVoyageNumber != "" {
			call.ExportVoyageNumberOrReference = &dcsa.VoyageV3{CarrierVoyageNumber: tc.ExportVoyageNumber}
		}
		if tc.ImportVoyageNumber != "" {
			call.ImportVoyageNumberOrReference = &dcsa.VoyageV3{CarrierVoyageNumber: tc.ImportVoyageNumber}
		}
		if vs := tc.Vessel; vs != nil {
			call.VesselTransport = &dcsa.VesselTransportV3{VesselIMONumber: vs.VesselIMONumber, VesselName: vs.VesselName, VesselFlag: vs.VesselFlag, VesselCallSign: vs.VesselCallSignNumber}
		}
		v.TransportDetails = &dcsa.TransportDetailsV3{TransportCall: call, DelayReasonCode: e.DelayReasonCode, ChangeRemark: e.ChangeRemark}
		if e.EventType == boxwatch.EventEquipment && v.EventLocation != nil {
			v.EventLocation.FacilityTypeCode = tc.FacilityTypeCode
		}
		if e.EventType == boxwatch.EventTransport {
			v.EventLocation = &dcsa.LocationV3{UNLocationCode: tc.UNLocationCode, FacilityCode: tc.FacilityCode,
				FacilityCodeListProvider: tc.FacilityCodeListProvider, FacilityTypeCode: tc.FacilityTypeCode}
			if l := tc.Location; l != nil {
				v.EventLocation.LocationName = l.LocationName
			}
		}
	}
	return v
}
