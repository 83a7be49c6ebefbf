package dcsa

import (
	"cmp"
	"slices"
	"time"

	"github.com/boxwatch/boxwatch"
)

// shipment maps the events of a lookup for ref. Where events disagree, the one the carrier
// created last wins: for an event repeated under the same eventID, for a planned, estimated or
// actual time of a call, and for the details of a call, a container or a document reference.
func shipment(ref boxwatch.CarrierReference, events []event) boxwatch.CarrierShipment {
	events = latest(events)
	var s boxwatch.CarrierShipment
	calls := map[string]*call{}
	equipment := map[string]*boxwatch.CarrierEquipment{}
	for _, e := range events {
		s.Events = append(s.Events, normalise(e))
		for _, d := range e.DocumentReferences {
			setDocument(&s, d.DocumentReferenceType, d.DocumentReferenceValue)
		}
		switch e.EventType {
		case boxwatch.EventShipment:
			setDocument(&s, e.DocumentTypeCode, e.DocumentID)
		case boxwatch.EventEquipment:
			addEquipment(equipment, e)
		}
		if tc := e.TransportCall; tc != nil {
			c := calls[tc.TransportCallID]
			if c == nil {
				c = &call{first: e.at}
				calls[tc.TransportCallID] = c
			}
			c.add(e)
		}
	}

	switch ref.Type {
	case boxwatch.RequestBillOfLading:
		s.BillOfLading = ref.Number
	case boxwatch.RequestBookingNumber:
		s.Booking = ref.Number
	case boxwatch.RequestContainer:
		if equipment[ref.Number] == nil {
			equipment[ref.Number] = &boxwatch.CarrierEquipment{Reference: ref.Number}
		}
	}

	s.Calls = sortedCalls(calls)
	for _, eq := range equipment {
		s.Equipment = append(s.Equipment, *eq)
	}
	slices.SortFunc(s.Equipment, func(a, b boxwatch.CarrierEquipment) int { return cmp.Compare(a.Reference, b.Reference) })
	slices.SortStableFunc(s.Events, func(a, b boxwatch.CarrierEvent) int {
		return cmp.Or(a.Time.Compare(b.Time), a.Created.Compare(b.Created), cmp.Compare(a.ID, b.ID))
	})
	return s
}

// latest keeps one event per eventID, the one created last (of equals, the one read last), and
// orders them by creation, oldest first, so that later records overwrite earlier ones.
func latest(events []event) []event {
	index := map[string]int{}
	var kept []event
	for _, e := range events {
		i, seen := index[e.EventID]
		switch {
		case !seen:
			index[e.EventID] = len(kept)
			kept = append(kept, e)
		case !kept[i].created.After(e.created):
			kept[i] = e
		}
	}
	slices.SortStableFunc(kept, func(a, b event) int { return a.created.Compare(b.created) })
	return kept
}

func normalise(e event) boxwatch.CarrierEvent {
	n := boxwatch.CarrierEvent{
		ID:         e.EventID,
		Type:       e.EventType,
		Classifier: e.EventClassifierCode,
		Time:       e.at,
		Created:    e.created,
		Empty:      e.empty,
	}
	switch e.EventType {
	case boxwatch.EventTransport:
		n.Code = e.TransportEventTypeCode
		n.DelayReason, n.ChangeRemark = e.DelayReasonCode, e.ChangeRemark
	case boxwatch.EventEquipment:
		n.Code = e.EquipmentEventTypeCode
		n.EquipmentReference = e.EquipmentReference
	case boxwatch.EventShipment:
		n.Code = e.ShipmentEventTypeCode
		n.DocumentType, n.DocumentID = e.DocumentTypeCode, e.DocumentID
	}
	if l := e.EventLocation; l != nil {
		n.LOCODE = l.UNLocationCode
	}
	if tc := e.TransportCall; tc != nil {
		n.TransportCallID = tc.TransportCallID
		if n.LOCODE == "" {
			n.LOCODE = callLOCODE(tc)
		}
	}
	return n
}

func callLOCODE(tc *TransportCall) string {
	if tc.UNLocationCode == "" && tc.Location != nil {
		return tc.Location.UNLocationCode
	}
	return tc.UNLocationCode
}

// setDocument records a transport document (TRD) or booking (BKG) reference.
func setDocument(s *boxwatch.CarrierShipment, kind, value string) {
	if value == "" {
		return
	}
	switch kind {
	case "TRD":
		s.BillOfLading = value
	case "BKG":
		s.Booking = value
	}
}

func addEquipment(equipment map[string]*boxwatch.CarrierEquipment, e event) {
	eq := equipment[e.EquipmentReference]
	if eq == nil {
		eq = &boxwatch.CarrierEquipment{Reference: e.EquipmentReference}
		equipment[e.EquipmentReference] = eq
	}
	set(&eq.ISOCode, e.ISOEquipmentCode)
	var seals []string
	seen := map[string]bool{}
	for _, seal := range e.Seals {
		if seal.SealNumber != "" && !seen[seal.SealNumber] {
			seen[seal.SealNumber] = true
			seals = append(seals, seal.SealNumber)
		}
	}
	if len(seals) > 0 {
		eq.Seals = seals
	}
}

// call gathers what the events say of one transport call.
type call struct {
	boxwatch.TransportCall
	numbered bool
	// first is the earliest time of an event at the call, to order calls without a sequence number.
	first time.Time
}

func (c *call) add(e event) {
	tc := e.TransportCall
	c.ID = tc.TransportCallID
	if tc.TransportCallSequenceNumber != nil {
		c.Sequence, c.numbered = *tc.TransportCallSequenceNumber, true
	}
	set(&c.LOCODE, callLOCODE(tc))
	set(&c.FacilityCode, tc.FacilityCode)
	set(&c.FacilityType, tc.FacilityTypeCode)
	set(&c.Mode, tc.ModeOfTransport)
	set(&c.ServiceCode, tc.CarrierServiceCode)
	set(&c.ExportVoyage, tc.ExportVoyageNumber)
	set(&c.ImportVoyage, tc.ImportVoyageNumber)
	if v := tc.Vessel; v != nil && (v.VesselIMONumber != "" || v.VesselName != "") {
		c.Vessel = &boxwatch.VesselRef{IMO: v.VesselIMONumber, Name: v.VesselName, Flag: v.VesselFlag, CallSign: v.VesselCallSignNumber}
	}
	if e.at.Before(c.first) {
		c.first = e.at
	}

	if e.EventType != boxwatch.EventTransport {
		return
	}
	var times *boxwatch.CallTimes
	switch e.TransportEventTypeCode {
	case "ARRI":
		times = &c.Arrival
	case "DEPA":
		times = &c.Departure
	default:
		return
	}
	switch e.EventClassifierCode {
	case boxwatch.ClassifierPlanned:
		times.Planned = e.at
	case boxwatch.ClassifierEstimated:
		times.Estimated = e.at
	case boxwatch.ClassifierActual:
		times.Actual = e.at
	}
}

// sortedCalls orders the calls by transportCallSequenceNumber, then time, when every call has a
// sequence number, and by time, then sequence number, when some lack one.
func sortedCalls(calls map[string]*call) []boxwatch.TransportCall {
	if len(calls) == 0 {
		return nil
	}
	list := make([]*call, 0, len(calls))
	numbered := true
	for _, c := range calls {
		list = append(list, c)
		numbered = numbered && c.numbered
	}
	slices.SortFunc(list, func(a, b *call) int {
		bySequence, byTime := cmp.Compare(a.Sequence, b.Sequence), a.first.Compare(b.first)
		if numbered {
			return cmp.Or(bySequence, byTime, cmp.Compare(a.ID, b.ID))
		}
		return cmp.Or(byTime, bySequence, cmp.Compare(a.ID, b.ID))
	})
	out := make([]boxwatch.TransportCall, len(list))
	for i, c := range list {
		out[i] = c.TransportCall
	}
	return out
}

// set overwrites *dst with v unless v is empty.
func set(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}
