package sim

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// boarding is which voyages a journey's boxes are booked on and which they sail on, per ocean
// leg: a box shut out of a full vessel or booked on a voyage that omits the call at the port of
// lading goes on the loop's next voyage, as does one that misses its connection at the hub.
type boarding struct {
	legs     []leg
	booked   []int // voyage per leg
	sailings []*sailing
	slots    []time.Duration // how much later than booked the voyage sailed on was scheduled
	// omitted: the voyage booked at the port of lading omitted the call.
	omitted bool
}

// board chooses the voyages of f and sets the journey's start: f.lead before the planned arrival
// of the voyage booked at the port of lading.
func (j *journey) board(w *world, d dice, f fit) boarding {
	b := boarding{legs: j.legs()}
	first := b.legs[0]
	arrival, _, berth := first.loop.planned(f.voyage, first.dir)
	j.start = arrival - f.lead
	k := f.voyage
	b.omitted = w.sailing(first.loop, k, first.dir).omits
	if b.omitted || d.frac("pol/rolled") < rolledShare/2 {
		k++
	}
	for w.sailing(first.loop, k, first.dir).omits && k < f.voyage+4 {
		k++
	}
	s := w.sailing(first.loop, k, first.dir)
	b.booked, b.sailings = []int{f.voyage}, []*sailing{s}
	b.slots = []time.Duration{time.Duration(k-f.voyage) * first.loop.headway}
	if len(b.legs) == 2 {
		next := b.legs[1]
		// The connecting vessel is booked two days after the planned arrival at the hub at the
		// earliest; a box not discharged and moved in time for it waits for the loop's next voyage.
		_, departure0, _ := next.loop.planned(0, next.dir)
		v := int(math.Ceil(float64(berth+2*day-departure0) / float64(next.loop.headway)))
		for k := v; f.connect != nil && k < v+40; k++ {
			if c := w.sailing(next.loop, k, next.dir); f.connect(c) && !c.omits && s.passage.berth+connection <= c.passage.depart {
				v = k
				break
			}
		}
		k := v
		for c := w.sailing(next.loop, k, next.dir); k < v+20 && (c.omits || s.passage.berth+connection > c.passage.depart); c = w.sailing(next.loop, k, next.dir) {
			k++
		}
		b.booked = append(b.booked, v)
		b.sailings = append(b.sailings, w.sailing(next.loop, k, next.dir))
		b.slots = append(b.slots, time.Duration(k-v)*next.loop.headway)
	}
	j.sailings = b.sailings
	return b
}

// schedule lays out the journey's timeline from the voyages its boxes sail on (see sea.go and
// rotation.go: arrivals on schedule or disrupted by congestion, canals, weather or a slipped call)
// and its boxes' own moves.
func (j *journey) schedule(w *world, d dice, b boarding, f fit) {
	conf := d.between("confirmed", 2*hour, 30*hour)
	j.confirmed = conf
	j.ship("RECE", "BKG", j.booking, 0)
	j.ship("CONF", "BKG", j.booking, conf)
	j.omitted = b.omitted
	off := func(t time.Duration) time.Duration { return t - j.start }

	pol, pod, hub := 1, j.pod(), j.hub()
	first := b.sailings[0]
	plannedArrival, plannedDeparture, plannedBerth := b.legs[0].loop.planned(b.booked[0], b.legs[0].dir)
	plannedArrival, plannedDeparture, plannedBerth = off(plannedArrival), off(plannedDeparture), off(plannedBerth)
	slot := b.slots[0]
	polArrival, departure := off(first.arrival), off(first.passage.depart)
	j.vesselTransport(d, "ARRI", pol, plannedArrival, polArrival, slot, first.arrivalCause)
	j.passages = append(j.passages, first.passage.shifted(-j.start, pol, pol+1))
	j.vesselTransport(d, "DEPA", pol, plannedDeparture, departure, slot, departing(first.cause))
	j.ship("ISSU", "TRD", j.bill, departure+d.between("issued", 6*hour, 48*hour))
	j.vesselTransport(d, "ARRI", pol+1, plannedBerth, off(first.passage.berth), slot, first.cause)
	arrival := off(first.passage.berth)
	var hubArrival, hubDeparture time.Duration
	if hub {
		hubArrival = arrival
		last := b.sailings[1]
		_, plannedDeparture, plannedBerth = b.legs[1].loop.planned(b.booked[1], b.legs[1].dir)
		plannedDeparture, plannedBerth = off(plannedDeparture), off(plannedBerth)
		j.passages = append(j.passages, last.passage.shifted(-j.start, pol+2, pod))
		hubDeparture = off(last.passage.depart)
		j.vesselTransport(d, "DEPA", pol+2, plannedDeparture, hubDeparture, b.slots[1], departing(last.cause))
		j.vesselTransport(d, "ARRI", pod, plannedBerth, off(last.passage.berth), b.slots[1], last.cause)
		arrival = off(last.passage.berth)
	}
	if !f.holdUntil.IsZero() {
		j.hold = f.holdUntil.Sub(rotationEpoch) - j.start
	}
	for i := range j.equipment {
		e := func(label string) string { return fmt.Sprint(label, "/", i) }
		stagger := time.Duration(i)
		emptyOut := conf + d.between(e("empty-out"), 24*hour, 72*hour) + stagger*90*time.Minute
		gateIn := min(polArrival, plannedArrival) - d.between(e("gate-in"), 24*hour, 72*hour) + stagger*45*time.Minute
		if !f.gateInBefore.IsZero() {
			gateIn = min(gateIn, f.gateInBefore.Sub(rotationEpoch)-j.start-stagger*45*time.Minute)
		}
		j.equip(d, "GTOT", 0, i, true, emptyOut)
		j.equip(d, "GTIN", pol, i, false, gateIn)
		j.equip(d, "LOAD", pol, i, false, polArrival+4*hour+stagger*25*time.Minute+d.between(e("load"), 0, (departure-polArrival)/2-3*hour))
		if hub {
			j.equip(d, "DISC", pol+1, i, false, hubArrival+3*hour+stagger*20*time.Minute+d.between(e("hub/disc"), 0, 6*hour))
			j.equip(d, "LOAD", pol+2, i, false, hubDeparture-3*hour-stagger*20*time.Minute-d.between(e("hub/load"), 0, 8*hour))
		}
		disc := arrival + 3*hour + stagger*20*time.Minute + d.between(e("pod/disc"), 0, 10*hour)
		fullOut := max(disc+d.between(e("full-out"), 1*day, 4*day), j.hold+stagger*time.Hour)
		j.equip(d, "DISC", pod, i, false, disc)
		j.equip(d, "GTOT", pod, i, false, fullOut)
		j.equip(d, "GTIN", pod+1, i, true, fullOut+d.between(e("empty-in"), 2*day, 6*day))
	}
}

const (
	week = 7 * day
	// rolledShare is how often a box misses the vessel it was booked on at the port of lading
	// (shut out, or the vessel omits the call).
	rolledShare = 0.04
	// connection is the least time from a vessel's berthing at the hub to the departure of the
	// one a box connects to.
	connection = 30 * hour
)

// departing is the cause of a late departure given the cause of the next arrival: only a slipped
// call leaves late for it.
func departing(c cause) cause {
	if c == slipped {
		return slipped
	}
	return onSchedule
}

// hub reports whether the journey changes vessel at a hub: its calls are then the empty depot,
// the port of lading, the hub twice, the port of discharge and the return depot (and the rail
// calls of an inland leg).
func (j *journey) hub() bool { return len(j.calls)-j.inland-j.doors == 6 }

// pod is the index of the call at the port of discharge.
func (j *journey) pod() int { return len(j.calls) - 2 - j.inland - j.doors }

func (j *journey) ship(code, docType, docID string, at time.Duration) {
	if docID == "" {
		return
	}
	j.moves = append(j.moves, move{family: "SHIPMENT", code: code, call: -1, equipment: -1, actual: at, docType: docType, docID: docID})
}

// vesselTransport adds a vessel's arrival or departure at call c: planned for the box at
// planned, by a vessel itself scheduled slot later, made at actual, late for a cause.
func (j *journey) vesselTransport(d dice, code string, c int, planned, actual, slot time.Duration, why cause) {
	m := move{family: "TRANSPORT", code: code, call: c, equipment: -1, planned: planned, actual: actual,
		lag: d.between(fmt.Sprint("lag/", code, "/", c), 2*time.Minute, 25*time.Minute), slot: slot, cause: why}
	switch {
	case actual-planned <= 2*hour:
	case slot > 0 && actual-planned-slot <= 2*hour && c == 1 && j.omitted:
		m.reason = delayReason{remark: "Call omitted by the vessel booked; booked on the next vessel"}
	case slot > 0 && actual-planned-slot <= 2*hour:
		m.reason = delayReason{remark: "Booked on the next vessel"}
	case why != onSchedule:
		m.reason = causeReasons[why]
	default:
		m.reason = delayReasons[2+d.intn(fmt.Sprint("reason/", c), 2)]
	}
	j.moves = append(j.moves, m)
}

func (j *journey) equip(d dice, code string, c, e int, empty bool, at time.Duration) {
	j.moves = append(j.moves, move{family: "EQUIPMENT", code: code, call: c, equipment: e, empty: empty, actual: at,
		lag: d.between(fmt.Sprint("lag/", code, "/", c, "/", e), 2*time.Minute, 25*time.Minute)})
}

// find returns the first move of a family and code at call c (and equipment e unless -1).
func (j *journey) find(family, code string, c, e int) move {
	for _, m := range j.moves {
		if m.family == family && m.code == code && m.call == c && (e < 0 || m.equipment == e) {
			return m
		}
	}
	return move{}
}

// bounds returns the earliest and latest actual time of the moves of a family and code at call c.
func (j *journey) bounds(family, code string, c int) (first, last time.Duration) {
	first, last = 1<<62, -1<<62
	for _, m := range j.moves {
		if m.family == family && m.code == code && m.call == c {
			first, last = min(first, m.actual), max(last, m.actual)
		}
	}
	return first, last
}

// firstSeenDischarged reports whether the journey's number places its first lookup at stage 8,
// discharged at the port of discharge (not one of the numbers whose markers place it otherwise).
func (j *journey) firstSeenDischarged() bool {
	_, number, _ := strings.Cut(j.key, "/")
	for _, marker := range []string{cancelledMarker, cancelsMarker, unreturnedMarker, abandonedMarker} {
		if strings.HasSuffix(number, marker) {
			return false
		}
	}
	return stageDigit(number) == 8
}

// stageDigit is the digit that places a number's first lookup: its last character when that is
// a digit, else the last digit in it; a number without digits is at sea, as 3. A trailing 9999
// or 5030 only marks how the carrier answers, and 7750 or 7790 that the journey goes inland, so the digit
// before it counts: the retry example of the demo stays a live journey.
func stageDigit(number string) int {
	for _, marker := range []string{retryMarker, silentMarker, inlandMarker, euInlandMarker} {
		if len(number) > len(marker) {
			number = strings.TrimSuffix(number, marker)
		}
	}
	for i := len(number) - 1; i >= 0; i-- {
		if c := number[i]; c >= '0' && c <= '9' {
			return int(c - '0')
		}
	}
	return 3
}

// window returns where the first lookup of a journey may fall for a stage digit (offsets from
// its start: lo to hi, best at target). The journey's voyages are chosen so that it falls there
// (see newJourney):
//
//	0 booked, the empty not yet picked up
//	1 full at the port of lading, awaiting the next sailing
//	2–4 at sea on the first ocean leg (early, midway, late)
//	5 at the hub, discharged and waiting for the next vessel (at sea on a direct lane)
//	6 at sea on the last ocean leg
//	7 the vessel is at sea and arrives next at the port of discharge
//	8 discharged and available for pickup
//	9 delivered and the empty returned
//
// and for the markers of journeys that do not end: a booking cancelled before the lookup, or
// looked up while booked; boxes picked up 30 days before (within a week or two more) and their
// empties never returned; boxes never picked up since an arrival 60 days before (or a little
// more).
func (j *journey) window(digit int, number string) (lo, hi, target time.Duration) {
	pol, pod, hub := 1, j.pod(), j.hub()
	departed := j.find("TRANSPORT", "DEPA", pol, -1).actual
	arrived := j.find("TRANSPORT", "ARRI", pod, -1).actual
	firstLegEnd := arrived
	lastLegStart := departed
	if hub {
		firstLegEnd = j.find("TRANSPORT", "ARRI", pol+1, -1).actual
		lastLegStart = j.find("TRANSPORT", "DEPA", pol+2, -1).actual
	}
	// span is the stretch from a to b, best a fraction f into it.
	span := func(a, b time.Duration, f float64) (time.Duration, time.Duration, time.Duration) {
		return a, b, a + time.Duration(f*float64(b-a))
	}
	d := dice("stage/" + j.key)
	slack := 2*j.sailings[len(j.sailings)-1].loop.headway + 3*day
	switch {
	case j.booking != "" && strings.HasSuffix(number, cancelledMarker):
		c := j.cancel + margin
		return c, c, c
	case j.booking != "" && strings.HasSuffix(number, cancelsMarker):
		return span(j.confirmed+margin, j.cancel-margin, 0.5)
	case strings.HasSuffix(number, unreturnedMarker):
		_, pickedUp := j.bounds("EQUIPMENT", "GTOT", pod)
		return pickedUp + unreturnedFor, pickedUp + unreturnedFor + slack, pickedUp + unreturnedFor
	case strings.HasSuffix(number, abandonedMarker):
		return arrived + abandonedFor, arrived + abandonedFor + slack, arrived + abandonedFor
	}
	switch digit {
	case 0:
		firstOut, _ := j.bounds("EQUIPMENT", "GTOT", 0)
		return span(j.confirmed+margin, firstOut-margin, 0.5)
	case 1:
		_, gatedIn := j.bounds("EQUIPMENT", "GTIN", pol)
		return gatedIn + margin, departed - margin, departed - d.between("before-departure", 2*hour, window-margin)
	case 2, 3, 4, 5, 6:
		if !hub {
			return span(departed+margin, arrived-window, []float64{0.1, 0.3, 0.5, 0.7, 0.9}[digit-2])
		}
		switch digit {
		case 5:
			_, discharged := j.bounds("EQUIPMENT", "DISC", pol+1)
			loaded, _ := j.bounds("EQUIPMENT", "LOAD", pol+2)
			return discharged + margin, loaded - margin, discharged + margin + 12*hour
		case 6:
			return span(lastLegStart+margin, arrived-window, 0.5)
		}
		return span(departed+margin, firstLegEnd-margin, []float64{0.2, 0.5, 0.8}[digit-2])
	case 7:
		return lastLegStart + margin, arrived - margin, arrived - d.between("before-arrival", 2*hour, window-margin)
	case 8:
		_, discharged := j.bounds("EQUIPMENT", "DISC", pod)
		pickedUp, _ := j.bounds("EQUIPMENT", "GTOT", pod)
		if j.inland > 0 {
			// Discharged and waiting for the train.
			pickedUp, _ = j.bounds("EQUIPMENT", "LOAD", len(j.calls)-2-j.doors)
		}
		return discharged + margin, pickedUp - margin, discharged + margin + 12*hour
	}
	_, returned := j.bounds("EQUIPMENT", "GTIN", pod+1)
	return returned + day, returned + day + slack, returned + d.between("after-return", 1*day, 3*day)
}

// plannedMoment is, on the plan of the voyages of a journey booked on voyage v of its first leg
// (loop lp, direction dir), when the stage of a digit falls, as an offset from rotationEpoch: a
// first guess of the voyage to book before the voyages around it are laid out as they sail.
func (j *journey) plannedMoment(w *world, lp *loop, dir, v, digit int, number string) time.Duration {
	arrival, departure, berth := lp.planned(v, dir)
	last, lastDeparture := berth, departure
	if j.hub() {
		next := j.legs()[1]
		_, d0, _ := next.loop.planned(0, next.dir)
		k := int(math.Ceil(float64(berth+2*day-d0) / float64(next.loop.headway)))
		_, lastDeparture, last = next.loop.planned(k, next.dir)
	}
	switch {
	case strings.HasSuffix(number, unreturnedMarker):
		return last + 3*day + unreturnedFor
	case strings.HasSuffix(number, abandonedMarker):
		return last + abandonedFor
	}
	switch digit {
	case 1:
		return departure - 6*hour
	case 2, 3, 4:
		return departure + (berth-departure)*time.Duration(digit-1)/4
	case 5:
		return berth + day
	case 6:
		return lastDeparture + (last-lastDeparture)/2
	case 7:
		return last - 6*hour
	case 8:
		return last + 36*hour
	case 9:
		return last + 7*day
	}
	return arrival - 10*day
}
