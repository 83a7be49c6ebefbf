package sim

import (
	"fmt"
	"strings"
	"time"
)

// schedule lays out the journey's timeline: the plan, and what actually happens (vessels run
// late or early, sea passages take longer in bad weather, boxes wait at the hub).
func (j *journey) schedule(d dice) {
	conf := d.between("confirmed", 2*hour, 30*hour)
	j.confirmed = conf
	j.ship("RECE", "BKG", j.booking, 0)
	j.ship("CONF", "BKG", j.booking, conf)

	pol, pod, hub := 1, j.pod(), j.hub()

	// Port of lading: the vessel arrives, stays a day or two, and leaves.
	plannedArrival := d.between("pol/planned-arrival", 9*day, 15*day)
	arrival := plannedArrival + d.between("pol/delay", -4*hour, 24*hour)
	plannedDeparture := plannedArrival + d.between("pol/planned-stay", 24*hour, 40*hour)
	stay := d.between("pol/stay", 24*hour, 48*hour)
	departure := arrival + stay
	polArrival := arrival
	j.transport(d, "ARRI", pol, plannedArrival, arrival)
	j.transport(d, "DEPA", pol, plannedDeparture, departure)
	j.ship("ISSU", "TRD", j.bill, departure+d.between("issued", 6*hour, 48*hour))

	plannedSea, sea := j.passage(d, 0)
	plannedArrival, arrival = plannedDeparture+plannedSea, departure+sea
	var hubArrival, hubDeparture time.Duration
	if hub {
		j.transport(d, "ARRI", pol+1, plannedArrival, arrival)
		hubArrival = arrival
		plannedDeparture = plannedArrival + d.between("hub/planned-dwell", 2*day, 5*day)
		hubDeparture = max(plannedDeparture+d.between("hub/delay", -6*hour, 36*hour), hubArrival+2*day)
		j.transport(d, "DEPA", pol+2, plannedDeparture, hubDeparture)
		plannedSea, sea = j.passage(d, 1)
		plannedArrival, arrival = plannedDeparture+plannedSea, hubDeparture+sea
	}
	j.transport(d, "ARRI", pod, plannedArrival, arrival)

	for i := range j.equipment {
		e := func(label string) string { return fmt.Sprint(label, "/", i) }
		stagger := time.Duration(i)
		emptyOut := conf + d.between(e("empty-out"), 24*hour, 72*hour) + stagger*90*time.Minute
		gateIn := polArrival - d.between(e("gate-in"), 24*hour, 72*hour) + stagger*45*time.Minute
		j.equip(d, "GTOT", 0, i, true, emptyOut)
		j.equip(d, "GTIN", pol, i, false, gateIn)
		j.equip(d, "LOAD", pol, i, false, polArrival+4*hour+stagger*25*time.Minute+d.between(e("load"), 0, stay/2-3*hour))
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

// passage is the planned and actual time at sea of an ocean leg: its distance at a service speed
// of 17 to 19 knots, and 4 % faster to 10 % slower in practice.
func (j *journey) passage(d dice, leg int) (planned, actual time.Duration) {
	knots := 17 + 2*d.frac(fmt.Sprint("knots/", leg))
	planned = time.Duration(j.seaNM[leg] / knots * float64(time.Hour)).Truncate(time.Minute)
	actual = time.Duration(float64(planned) * (0.96 + 0.14*d.frac(fmt.Sprint("weather/", leg)))).Truncate(time.Minute)
	return planned, actual
}

// hub reports whether the journey changes vessel at a hub: its calls are then the empty depot,
// the port of lading, the hub twice, the port of discharge and the return depot.
func (j *journey) hub() bool { return len(j.calls) == 6 }

// pod is the index of the call at the port of discharge.
func (j *journey) pod() int { return len(j.calls) - 2 }

func (j *journey) ship(code, docType, docID string, at time.Duration) {
	if docID == "" {
		return
	}
	j.moves = append(j.moves, move{family: "SHIPMENT", code: code, call: -1, equipment: -1, actual: at, docType: docType, docID: docID})
}

func (j *journey) transport(d dice, code string, c int, planned, actual time.Duration) {
	m := move{family: "TRANSPORT", code: code, call: c, equipment: -1, planned: planned, actual: actual,
		lag: d.between(fmt.Sprint("lag/", code, "/", c), 2*time.Minute, 25*time.Minute)}
	if actual-planned > 2*hour {
		m.reason = delayReasons[d.intn(fmt.Sprint("reason/", c), len(delayReasons))]
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
// or 5030 only marks how the carrier answers, so the digit before it counts: the retry example
// of the demo stays a live journey.
func stageDigit(number string) int {
	for _, marker := range []string{retryMarker, silentMarker} {
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
		return at(discharged+margin, pickedUp-margin, 0.5)
	}
	_, returned := j.bounds("EQUIPMENT", "GTIN", pod+1)
	return returned + d.between("after-return", 1*day, 3*day)
}
