package sim

import (
	"fmt"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/carrier/dcsa"
)

// event is a DCSA event with its times parsed, for filtering and sorting.
type event struct {
	dcsa.Event
	at, created time.Time
}

// Estimates of a transport move are revised as it comes closer: at these fractions of the time
// between the plan's publication and the actual move (a revision carries that fraction of the
// plan's error plus noise), and a last time shortly before the move, exactly.
var revisions = []float64{0.7, 0.4, 0.15}

const (
	revisionNoise = 12 * time.Hour // at most, scaled by the revision's fraction
	lastRevision  = 24 * time.Hour // before the move, or a tenth of the time to it when shorter
)

// events returns what the carrier reports at simulated time now about a journey whose first
// lookup was at anchor: the plan, the latest estimate of every transport move still to come, and
// every move already made, each once its record exists.
func (j *journey) events(anchor, now time.Time) []event {
	start := anchor.Add(-j.lookup)
	abs := func(off time.Duration) time.Time { return start.Add(off).Truncate(time.Minute) }
	refs := j.documentReferences()
	calls := make([]*dcsa.TransportCall, len(j.calls))
	for i := range j.calls {
		calls[i] = j.calls[i].wire()
	}
	d := dice("estimates/" + j.key)
	out := make([]event, 0, len(j.moves)+8)
	add := func(m move, classifier string, at, created time.Time, reason delayReason) {
		e := event{at: at, created: created}
		e.EventType = m.family
		e.EventClassifierCode = classifier
		e.EventCreatedDateTime = created.UTC().Format(time.RFC3339)
		switch m.family {
		case "SHIPMENT":
			e.ShipmentEventTypeCode = m.code
			e.DocumentTypeCode = m.docType
			e.DocumentID = m.docID
			e.EventDateTime = e.EventCreatedDateTime
		case "TRANSPORT":
			e.TransportEventTypeCode = m.code
			e.TransportCall = calls[m.call]
			e.DelayReasonCode, e.ChangeRemark = reason.code, reason.remark
			e.DocumentReferences = refs
			e.EventDateTime = at.In(j.calls[m.call].place.loc).Format(time.RFC3339)
		case "EQUIPMENT":
			c, q := j.calls[m.call], j.equipment[m.equipment]
			e.EquipmentEventTypeCode = m.code
			e.EquipmentReference = q.ref
			e.ISOEquipmentCode = q.isoCode
			e.EmptyIndicatorCode = "LADEN"
			if m.empty {
				e.EmptyIndicatorCode = "EMPTY"
			} else {
				e.Seals = []dcsa.Seal{{SealNumber: q.seal, SealSource: "CAR", SealType: "BLT"}}
			}
			e.EventLocation = &dcsa.Location{LocationName: c.name, UNLocationCode: c.place.LOCODE}
			e.TransportCall = calls[m.call]
			e.DocumentReferences = refs
			e.EventDateTime = at.In(c.place.loc).Format(time.RFC3339)
		}
		e.EventID = boxwatch.NameUUID(fmt.Sprintf("boxwatch/sim/event/%s/%s/%s/%s/%d/%d/%d/%d",
			j.key, m.family, m.code, classifier, m.call, m.equipment, at.Unix(), created.Unix()))
		out = append(out, e)
	}
	published := abs(j.confirmed)
	for i, m := range j.moves {
		actual := abs(m.actual)
		recorded := abs(m.actual + m.lag)
		if m.family == "TRANSPORT" && !published.After(now) {
			add(m, boxwatch.ClassifierPlanned, abs(m.planned), published, delayReason{})
		}
		if !recorded.After(now) {
			add(m, boxwatch.ClassifierActual, actual, recorded, m.reason)
			continue
		}
		if m.family != "TRANSPORT" {
			continue
		}
		if est, revised, ok := j.estimate(d, i, now.Sub(start)); ok {
			reason := delayReason{}
			switch {
			case est-m.planned > 2*hour:
				reason = m.reason
				if reason == (delayReason{}) {
					reason = delayReasons[0]
				}
			case m.planned-est > 2*hour:
				reason = delayReason{remark: "Ahead of schedule"}
			}
			add(m, boxwatch.ClassifierEstimated, abs(est), abs(revised), reason)
		}
	}
	return out
}

// estimate returns the latest estimate of transport move i that was made by offset now, and when
// it was made; ok is false before the plan's publication. A vessel's arrival from sea is
// estimated as lines do (see arrivalEstimate); every other move converges on its time.
func (j *journey) estimate(d dice, i int, now time.Duration) (est, revised time.Duration, ok bool) {
	m := j.moves[i]
	if now < j.confirmed {
		return 0, 0, false
	}
	if m.code == "ARRI" {
		for _, p := range j.passages {
			if p.to == m.call {
				est, revised = j.arrivalEstimate(d, i, p, now)
				return est, revised, true
			}
		}
	}
	est, revised = m.planned, j.confirmed
	span := m.actual - j.confirmed
	for k, f := range revisions {
		at := m.actual - time.Duration(f*float64(span))
		if at > now {
			return est, revised, true
		}
		noise := time.Duration(f * (2*d.frac(fmt.Sprint(i, "/", k)) - 1) * float64(revisionNoise))
		est, revised = m.actual+time.Duration(f*float64(m.planned-m.actual))+noise, at
	}
	if at := m.actual - min(lastRevision, span/10); at <= now {
		est, revised = m.actual, at
	}
	return est, revised, true
}

// arrivalEstimate is a line's ETA for a vessel's arrival from sea, revised late and in steps as
// its schedule desk learns of the delay, and sometimes wrong:
//   - from publication, the schedule (the next vessel's, for a rolled box);
//   - once the vessel has left the previous call, the schedule plus the departure's delay,
//     to the half day, one time in six off by a day or two;
//   - three days before the vessel reaches the anchorage (the pre-arrival notice), when it does,
//     to six hours, not counting any wait there;
//   - once it waits at the anchorage, when the terminal expects to berth it, to six hours, give
//     or take a third of the wait;
//   - the day before it berths, 18 to 30 hours before (or a tenth of the time to it, when
//     shorter), to the hour.
func (j *journey) arrivalEstimate(d dice, i int, p passage, now time.Duration) (est, revised time.Duration) {
	m := j.moves[i]
	label := fmt.Sprint("eta/", i)
	est, revised = m.planned+m.slot, j.confirmed
	dep, _ := j.transportAt("DEPA", p.from)
	step := func(at, e, to time.Duration) {
		if at <= now && at >= revised {
			est, revised = e.Round(to), at
		}
	}
	after := p.depart + d.between(label+"/departed", 6*hour, 36*hour)
	e := m.planned + m.slot + max(0, p.depart-dep.planned-dep.slot)
	if d.frac(label+"/wrong") < 1.0/6 {
		off := d.between(label+"/off", day, 2*day)
		if d.frac(label+"/off-sign") < 0.5 {
			off = -off
		}
		e += off
	}
	step(after, e, 12*hour)
	notice := p.anchor - 3*day + d.between(label+"/notice", 0, 8*hour)
	step(max(notice, after), p.anchor+d.between(label+"/notice-error", -6*hour, 6*hour), 6*hour)
	if wait := p.berth - p.anchor; wait > 12*hour {
		guess := time.Duration(float64(wait) * (0.67 + 0.66*d.frac(label+"/wait")))
		step(p.anchor+d.between(label+"/anchored", 4*hour, 20*hour), p.anchor+guess, 6*hour)
	}
	span := m.actual - j.confirmed
	if at := m.actual - min(d.between(label+"/last", 18*hour, 30*hour), span/10); at <= now {
		est, revised = m.actual.Round(hour), at
	}
	return est, revised
}

// documentReferences ties the journey's events to its booking and bill of lading, when known.
func (j *journey) documentReferences() []dcsa.DocumentReference {
	var refs []dcsa.DocumentReference
	if j.booking != "" {
		refs = append(refs, dcsa.DocumentReference{DocumentReferenceType: "BKG", DocumentReferenceValue: j.booking})
	}
	if j.bill != "" {
		refs = append(refs, dcsa.DocumentReference{DocumentReferenceType: "TRD", DocumentReferenceValue: j.bill})
	}
	return refs
}

// wire is the call as DCSA describes it.
func (c call) wire() *dcsa.TransportCall {
	seq := c.seq
	tc := &dcsa.TransportCall{
		TransportCallID:             c.id,
		TransportCallSequenceNumber: &seq,
		UNLocationCode:              c.place.LOCODE,
		FacilityTypeCode:            c.facility,
		ModeOfTransport:             c.mode,
		CarrierServiceCode:          c.service,
		ExportVoyageNumber:          c.voyage,
		ImportVoyageNumber:          c.voyage,
	}
	switch c.facility {
	case "DEPO":
		tc.OtherFacility = c.name
	case "RAMP", "INTE":
		// A rail or inland terminal has no SMDG code: the carrier names it in the call's location.
		tc.Location = &dcsa.Location{LocationName: c.name, UNLocationCode: c.place.LOCODE}
	}
	if c.terminal != "" {
		tc.FacilityCode, tc.FacilityCodeListProvider = c.terminal, "SMDG"
		tc.Location = &dcsa.Location{LocationName: c.name, UNLocationCode: c.place.LOCODE, FacilityCode: c.terminal, FacilityCodeListProvider: "SMDG"}
	}
	if v := c.vessel; v != nil {
		tc.Vessel = &dcsa.Vessel{VesselIMONumber: v.IMO, VesselName: v.Name, VesselFlag: v.Flag, VesselCallSignNumber: v.CallSign}
		if c.operator != "" {
			tc.Vessel.VesselOperatorCarrierCode = c.operator
			tc.Vessel.VesselOperatorCarrierCodeListProvider = "NMFTA"
		}
	}
	return tc
}
