package sim

import (
	"fmt"
	"strings"
	"time"
)

// schedule lays out the journey's timeline: the plan, and what actually happens (see sea.go:
// arrivals on schedule or disrupted by congestion, canals, weather or a slipped call; a box that
// misses its connection at the hub, or is rolled at the port of lading, goes on the next vessel of
// the service a week later). start is the journey's start in absolute time, for the seasons and
// the ports' queues.
func (j *journey) schedule(w *world, d dice, scac string, start time.Time) {
	conf := d.between("confirmed", 2*hour, 30*hour)
	j.confirmed = conf
	j.ship("RECE", "BKG", j.booking, 0)
	j.ship("CONF", "BKG", j.booking, conf)
	abs := func(off time.Duration) time.Time { return start.Add(off) }

	pol, pod, hub := 1, j.pod(), j.hub()

	// Port of lading: the vessel arrives, stays a day or two, and leaves. A rolled box leaves on
	// the service's next vessel, a week after the one it was booked on.
	plannedArrival := d.between("pol/planned-arrival", 9*day, 15*day)
	var slot time.Duration
	if d.frac("pol/rolled") < rolledShare {
		slot = week
		// Half of these boxes are shut out of a full vessel; for the other half the vessel they
		// were booked on omits the call (a blank sailing).
		j.omitted = d.frac("pol/omitted") < 0.5
	}
	polDraw := drawArrival(d, "pol", scac, j.calls[pol].place, abs(plannedArrival+slot), nil, false, 0)
	if polDraw.cause == canalQueue {
		polDraw.cause = slipped // no canal before the first call the journey sees
	}
	arrival := plannedArrival + slot + polDraw.delay
	plannedDeparture := plannedArrival + d.between("pol/planned-stay", 24*hour, 40*hour)
	// A late vessel shortens its stay to keep its departure: to 14 to 20 hours at the least.
	stay := d.between("pol/stay", 14*hour, 20*hour)
	departure := max(arrival+stay, plannedDeparture+slot-d.between("pol/early-departure", 0, 6*hour))
	polArrival := arrival
	j.vesselTransport(d, "ARRI", pol, plannedArrival, arrival, slot, polDraw.cause)

	// Ocean legs.
	next := pol + 1
	sea := j.plannedSea(w, d, pol, next)
	plannedBerth := plannedDeparture + sea
	// The next arrival is late whatever happens at sea when the vessel came to the port of lading
	// later than its stay and the passage can make up: how often that is, is counted in the line's
	// late arrivals.
	slack := plannedDeparture - plannedArrival - 14*hour + sea - j.fastestSea(w, pol, next) + day
	forced := disruptedShare(scac) * forcedLate(causes(j.calls[pol].place, abs(plannedArrival+slot), nil, false), slack)
	draw := drawArrival(d, "leg/0", scac, j.calls[next].place, abs(plannedBerth+slot), j.canalOf(w, pol, next), j.large(pol), forced)
	first := j.sail(w, d, "leg/0", pol, next, departure, plannedBerth+slot, draw)
	j.passages = append(j.passages, first)
	departure = first.depart
	j.vesselTransport(d, "DEPA", pol, plannedDeparture, departure, slot, departing(draw.cause))
	j.ship("ISSU", "TRD", j.bill, departure+d.between("issued", 6*hour, 48*hour))
	j.vesselTransport(d, "ARRI", next, plannedBerth, first.berth, slot, draw.cause)
	arrival = first.berth
	var hubArrival, hubDeparture time.Duration
	if hub {
		hubArrival = arrival
		// The connecting vessel keeps its own schedule; a box not discharged and moved in time for
		// it waits for the service's next vessel.
		plannedDeparture = plannedBerth + d.between("hub/planned-dwell", 2*day, 5*day)
		var hubSlot time.Duration
		own := d.between("hub/delay", -6*hour, 30*hour)
		if hubArrival+connection > plannedDeparture+own {
			hubSlot = week * (1 + (hubArrival+connection-plannedDeparture-own)/week)
		}
		plannedBerth = plannedDeparture + j.plannedSea(w, d, pol+2, pod)
		draw = drawArrival(d, "leg/1", scac, j.calls[pod].place, abs(plannedBerth+hubSlot), j.canalOf(w, pol+2, pod), j.large(pol+2), 0)
		last := j.sail(w, d, "leg/1", pol+2, pod, plannedDeparture+hubSlot+own, plannedBerth+hubSlot, draw)
		j.passages = append(j.passages, last)
		hubDeparture = last.depart
		j.vesselTransport(d, "DEPA", pol+2, plannedDeparture, hubDeparture, hubSlot, departing(draw.cause))
		j.vesselTransport(d, "ARRI", pod, plannedBerth, last.berth, hubSlot, draw.cause)
		arrival = last.berth
	}

	for i := range j.equipment {
		e := func(label string) string { return fmt.Sprint(label, "/", i) }
		stagger := time.Duration(i)
		emptyOut := conf + d.between(e("empty-out"), 24*hour, 72*hour) + stagger*90*time.Minute
		gateIn := min(polArrival, plannedArrival) - d.between(e("gate-in"), 24*hour, 72*hour) + stagger*45*time.Minute
		j.equip(d, "GTOT", 0, i, true, emptyOut)
		j.equip(d, "GTIN", pol, i, false, gateIn)
		j.equip(d, "LOAD", pol, i, false, polArrival+4*hour+stagger*25*time.Minute+d.between(e("load"), 0, (departure-polArrival)/2-3*hour))
		if hub {
			j.equip(d, "DISC", pol+1, i, false, hubArrival+3*hour+stagger*20*time.Minute+d.between(e("hub/disc"), 0, 6*hour))
			j.equip(d, "LOAD", pol+2, i, false, hubDeparture-3*hour-stagger*20*time.Minute-d.between(e("hub/load"), 0, 8*hour))
		}
		disc := arrival + 3*hour + stagger*20*time.Minute + d.between(e("pod/disc"), 0, 10*hour)
		fullOut := disc + d.between(e("full-out"), 1*day, 4*day)
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

// plannedSea is the planned time at sea from call from to call to: the sea distance at a
// service speed of 17 to 19 knots, and the planned transit of a canal on the way.
func (j *journey) plannedSea(w *world, d dice, from, to int) time.Duration {
	path, cum := w.seaPath(j.calls[from].place, j.calls[to].place)
	knots := minServiceKnots + (maxServiceKnots-minServiceKnots)*d.frac(fmt.Sprint("knots/", from))
	planned := time.Duration(j.legNM(from) / knots * float64(time.Hour))
	if c, _, ok := canalOn(path, cum); ok {
		planned += c.planned
	}
	return planned.Truncate(time.Minute)
}

// fastestSea is the time at sea from call from to call to at the fastest speed, with the canal's
// planned transit.
func (j *journey) fastestSea(w *world, from, to int) time.Duration {
	path, cum := w.seaPath(j.calls[from].place, j.calls[to].place)
	fastest := time.Duration(j.legNM(from) / maxKnots * float64(time.Hour))
	if c, _, ok := canalOn(path, cum); ok {
		fastest += c.planned
	}
	return fastest
}

// legNM is the sea distance of the ocean leg departing from call from: the router's, or the
// great circle times the lane's detour without a router.
func (j *journey) legNM(from int) float64 {
	if from == 1 {
		return j.seaNM[0]
	}
	return j.seaNM[len(j.seaNM)-1]
}

// canalOf is the canal between two calls, nil when there is none.
func (j *journey) canalOf(w *world, from, to int) *canal {
	path, cum := w.seaPath(j.calls[from].place, j.calls[to].place)
	if c, _, ok := canalOn(path, cum); ok {
		return &c
	}
	return nil
}

// large reports whether the vessel calling at call c is of the size Panama's draft limits
// delay most. The fleet data gives no dimensions, so the IMO number stands for the age: ships
// numbered from 9700000 (built from about 2014) are mostly neo-Panamax.
func (j *journey) large(c int) bool {
	v := j.calls[c].vessel
	return v != nil && v.IMO >= "9700000"
}

// hub reports whether the journey changes vessel at a hub: its calls are then the empty depot,
// the port of lading, the hub twice, the port of discharge and the return depot (and the rail
// calls of an inland leg).
func (j *journey) hub() bool { return len(j.calls)-j.inland == 6 }

// pod is the index of the call at the port of discharge.
func (j *journey) pod() int { return len(j.calls) - 2 - j.inland }

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

// stage returns the offset of the first lookup for a stage digit:
//
//	0 booked, the empty not yet picked up
//	1 full at the port of lading, the vessel leaves within 12 hours
//	2–4 at sea on the first ocean leg (early, midway, late)
//	5 at the hub, discharged and waiting for the next vessel (at sea on a direct lane)
//	6 at sea on the last ocean leg
//	7 the vessel arrives at the port of discharge within 12 hours
//	8 discharged and available for pickup
//	9 delivered and the empty returned
func (j *journey) stage(digit int) time.Duration {
	pol, pod, hub := 1, j.pod(), j.hub()
	departed := j.find("TRANSPORT", "DEPA", pol, -1).actual
	arrived := j.find("TRANSPORT", "ARRI", pod, -1).actual
	firstLegEnd := arrived
	lastLegStart := departed
	if hub {
		firstLegEnd = j.find("TRANSPORT", "ARRI", pol+1, -1).actual
		lastLegStart = j.find("TRANSPORT", "DEPA", pol+2, -1).actual
	}
	// at returns the point a fraction f into the stretch from lo to hi.
	at := func(lo, hi time.Duration, f float64) time.Duration {
		if hi < lo {
			return lo + (hi-lo)/2
		}
		return lo + time.Duration(f*float64(hi-lo))
	}
	d := dice("stage/" + j.key)
	switch digit {
	case 0:
		firstOut, _ := j.bounds("EQUIPMENT", "GTOT", 0)
		return at(j.confirmed+margin, firstOut-margin, 0.5)
	case 1:
		return departed - d.between("before-departure", 2*hour, window-margin)
	case 2, 3, 4, 5, 6:
		if !hub {
			return at(departed+margin, arrived-window, []float64{0.1, 0.3, 0.5, 0.7, 0.9}[digit-2])
		}
		switch digit {
		case 5:
			_, discharged := j.bounds("EQUIPMENT", "DISC", pol+1)
			loaded, _ := j.bounds("EQUIPMENT", "LOAD", pol+2)
			return at(discharged+margin, loaded-margin, 0.5)
		case 6:
			return at(lastLegStart+margin, arrived-window, 0.5)
		}
		return at(departed+margin, firstLegEnd-margin, []float64{0.2, 0.5, 0.8}[digit-2])
	case 7:
		return arrived - d.between("before-arrival", 2*hour, window-margin)
	case 8:
		_, discharged := j.bounds("EQUIPMENT", "DISC", pod)
		pickedUp, _ := j.bounds("EQUIPMENT", "GTOT", pod)
		if j.inland > 0 {
			// Discharged and waiting for the train.
			pickedUp, _ = j.bounds("EQUIPMENT", "LOAD", len(j.calls)-2)
		}
		return at(discharged+margin, pickedUp-margin, 0.5)
	}
	_, returned := j.bounds("EQUIPMENT", "GTIN", pod+1)
	return returned + d.between("after-return", 1*day, 3*day)
}
