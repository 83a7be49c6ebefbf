package dcsa

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch"
)

// shipment maps the events of a lookup for ref, leaving out the retracted ones. Where events
// disagree, the newer wins (see newer): for an event repeated under the same eventID and type,
// for a planned, estimated or actual time of a call, and for the details of a call, a container
// or a document reference. A container lookup keeps only the box's current cycle (see
// currentCycle). The booking is cancelled when the carrier's latest word on it is a cancellation
// (see bookingCancelled).
func shipment(ref boxwatch.CarrierReference, events []event, retracted []string) boxwatch.CarrierShipment {
	events = latest(events, retracted)
	if ref.Type == boxwatch.RequestContainer {
		events = currentCycle(strings.ToUpper(ref.Number), events)
	}
	var s boxwatch.CarrierShipment
	s.BookingCancelledAt = bookingCancelled(events)
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
			if e.EquipmentReference != "" {
				addEquipment(equipment, e)
			}
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

// newer reports whether a supersedes b. A trusted creation time (see check) outranks an
// untrusted one; of two trusted ones the later wins; otherwise the record the carrier listed
// later is the newer.
func newer(a, b event) bool {
	switch {
	case a.trusted != b.trusted:
		return a.trusted
	case a.trusted && !a.created.Equal(b.created):
		return a.created.After(b.created)
	}
	return a.order > b.order
}

// latest keeps one event per eventID and type, the newest, drops the retracted ones, and orders
// the rest oldest first, so that later records overwrite earlier ones. Two families may share an
// eventID (DCSA's own samples do), so the id alone does not make a duplicate.
func latest(events []event, retracted []string) []event {
	type key struct{ id, family string }
	index := map[key]int{}
	var kept []event
	for _, e := range events {
		if slices.Contains(retracted, e.EventID) {
			continue
		}
		k := key{e.EventID, e.EventType}
		i, seen := index[k]
		switch {
		case !seen:
			index[k] = len(kept)
			kept = append(kept, e)
		case newer(e, kept[i]):
			kept[i] = e
		}
	}
	slices.SortStableFunc(kept, func(a, b event) int {
		switch {
		case newer(a, b):
			return 1
		case newer(b, a):
			return -1
		}
		return 0
	})
	return kept
}

// currentCycle keeps the events of the container's current cycle: carriers answer a container
// number with every journey the box made. The cycle begins with the box's latest empty
// pick-up (an actual GTOT, EMPTY) and belongs to that event's booking, or, when it names none,
// to the booking of the latest event that names one. An event naming a booking is kept when it
// is that booking; an event naming none when it happened at or after the empty pick-up.
func currentCycle(container string, events []event) []event {
	var start event
	found := false
	latestBooked := event{}
	for _, e := range events {
		if e.EventType == boxwatch.EventEquipment && e.EventClassifierCode == boxwatch.ClassifierActual &&
			e.EquipmentEventTypeCode == "GTOT" && e.empty != nil && *e.empty &&
			strings.EqualFold(e.EquipmentReference, container) && (!found || e.at.After(start.at)) {
			start, found = e, true
		}
		if len(bookings(e)) > 0 && (latestBooked.at.IsZero() || e.at.After(latestBooked.at)) {
			latestBooked = e
		}
	}
	current := ""
	if b := bookings(start); found && len(b) > 0 {
		current = b[0]
	} else if b := bookings(latestBooked); len(b) > 0 {
		current = b[0]
	}
	kept := events[:0:0]
	for _, e := range events {
		if b := bookings(e); len(b) > 0 {
			if current == "" || slices.Contains(b, current) {
				kept = append(kept, e)
			}
		} else if !found || !e.at.Before(start.at) {
			kept = append(kept, e)
		}
	}
	return kept
}

// codeCancelled is the shipment event of a cancelled booking: not in Track & Trace 2.2's list,
// but in DCSA's reference implementation of 2.2 (cancelled by the shipper) and back in 3.0.
const codeCancelled = "CANC"

// bookingCancelled returns when the booking was cancelled: the time of the latest actual shipment
// event about the booking (BKG, or the booking request CBR) when that is a cancellation, zero
// otherwise. A later word on the booking (confirmed again) reinstates it.
func bookingCancelled(events []event) time.Time {
	var last *event
	for i, e := range events {
		if e.EventType == boxwatch.EventShipment && e.EventClassifierCode == boxwatch.ClassifierActual &&
			(e.DocumentTypeCode == "BKG" || e.DocumentTypeCode == "CBR") && (last == nil || !e.at.Before(last.at)) {
			last = &events[i]
		}
	}
	if last == nil || last.ShipmentEventTypeCode != codeCancelled {
		return time.Time{}
	}
	return last.at
}

// bookings are the carrier booking references an event names.
func bookings(e event) []string {
	var out []string
	for _, d := range e.DocumentReferences {
		if upper(d.DocumentReferenceType) == "BKG" && d.DocumentReferenceValue != "" {
			out = append(out, d.DocumentReferenceValue)
		}
	}
	if e.EventType == boxwatch.EventShipment && e.DocumentTypeCode == "BKG" {
		out = append(out, e.DocumentID)
	}
	return out
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
		n.LOCODE, n.FacilityType = l.UNLocationCode, upper(l.FacilityTypeCode)
	}
	if tc := e.TransportCall; tc != nil {
		n.TransportCallID = tc.TransportCallID
		if n.LOCODE == "" {
			n.LOCODE = callLOCODE(tc)
		}
		if n.FacilityType == "" {
			n.FacilityType = tc.FacilityTypeCode
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
	// first is the earliest time of an event at the call.
	first time.Time
}

func (c *call) add(e event) {
	tc := e.TransportCall
	c.ID = tc.TransportCallID
	if tc.TransportCallSequenceNumber != nil {
		c.Sequence = *tc.TransportCallSequenceNumber
	}
	set(&c.LOCODE, callLOCODE(tc))
	set(&c.FacilityCode, tc.FacilityCode)
	set(&c.FacilityCodeList, tc.FacilityCodeListProvider)
	if l := tc.Location; l != nil {
		// DCSA 2.2 may put the facility in the call's location instead.
		set(&c.FacilityName, l.LocationName)
		set(&c.FacilityCode, l.FacilityCode)
		set(&c.FacilityCodeList, l.FacilityCodeListProvider)
	}
	set(&c.FacilityType, tc.FacilityTypeCode)
	set(&c.Mode, tc.ModeOfTransport)
	set(&c.ServiceCode, tc.CarrierServiceCode)
	if d := e.CarrierSpecificData; d != nil {
		set(&c.Role, carrierRole(d))
	}
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

// carrierRole is the role a carrier's own data gives the place of an event, empty when it
// gives none.
func carrierRole(d *CarrierSpecificData) string {
	switch upper(d.ShipmentLocationType) {
	case "POL":
		return boxwatch.RolePOL
	case "POD":
		return boxwatch.RolePOD
	case "PTS", "TS", "POT":
		return boxwatch.RoleTS
	}
	if upper(d.TransportationPhase) == "TRANSSHIPMENT" {
		return boxwatch.RoleTS
	}
	return ""
}

// sortedCalls lists the calls by their earliest event, then ID, so that an answer always maps
// to the same list. The order of the journey is the engine's to derive, from the calls' times.
func sortedCalls(calls map[string]*call) []boxwatch.TransportCall {
	if len(calls) == 0 {
		return nil
	}
	list := make([]*call, 0, len(calls))
	for _, c := range calls {
		list = append(list, c)
	}
	slices.SortFunc(list, func(a, b *call) int { return cmp.Or(a.first.Compare(b.first), cmp.Compare(a.ID, b.ID)) })
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
