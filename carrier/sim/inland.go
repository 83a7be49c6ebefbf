package sim

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/geo"
)

// Inland legs: imports discharged at North American gateways may go on by rail to an inland ramp
// (IPI service), as carriers book them: the journeys of numbers ending in inlandMarker do, when
// their port of discharge has rail service. The gateways, the ramps their railways serve and the
// railways are facts (each railway's published intermodal network); the times are the
// simulator's. Imports discharged at North European ports go on by barge up the Rhine or by rail
// to Central Europe: the journeys of numbers ending in euInlandMarker do. The barges sail the
// waterways of data/waterways; the inland terminals are the simulator's, named as such.

// ramp is an inland rail terminal served from a gateway, and the railway that runs the train.
type ramp struct {
	locode  string
	name    string
	railway string // the railway's common name: BNSF, UP, CSX, NS, CN, CPKC
}

// euTerminal is an inland terminal served from a North European port, by barge or rail: one of
// the simulator's, named after its place (European rail operators have no SCAC to name).
type euTerminal struct {
	locode string
	mode   string // BARGE or RAIL
}

// euInland lists, by North European port of discharge, the inland terminals its barges (up the
// Rhine) and trains reach: places of the port list, so that the map can draw them.
var euInland = map[string][]euTerminal{
	"NLRTM": {{"DEDUS", modeBarge}, {"DECGN", modeBarge}, {"DEMHG", modeBarge}, {"DEMHG", modeRail}},
	"BEANR": {{"DECGN", modeBarge}, {"DEMHG", modeBarge}, {"DEDUS", modeRail}},
	"DEHAM": {{"HUBUD", modeRail}, {"SKBTS", modeRail}, {"DEMHG", modeRail}},
	"DEBRV": {{"DEMHG", modeRail}, {"HUBUD", modeRail}},
}

const (
	modeRail  = "RAIL"
	modeBarge = "BARGE"
)

// ipiRamps lists, by port of discharge, the inland ramps its rail service reaches.
var ipiRamps = map[string][]ramp{
	"USLAX": westCoastSouth, "USLGB": westCoastSouth,
	"USSEA": westCoastNorth, "USTIW": westCoastNorth,
	"CAVAN": {{"CATOR", "CN Brampton Intermodal Terminal", "CN"}, {"CAMTR", "CN Montreal Intermodal Terminal", "CN"},
		{"CATOR", "CPKC Vaughan Intermodal Terminal", "CPKC"}, {"USCHI", "CN Chicago Intermodal Terminal", "CN"}},
	"CAPRR": {{"CATOR", "CN Brampton Intermodal Terminal", "CN"}, {"USCHI", "CN Chicago Intermodal Terminal", "CN"},
		{"USMEM", "CN Memphis Intermodal Terminal", "CN"}},
	"USNYC": {{"USCHI", "CSX Bedford Park Intermodal Terminal", "CSX"}, {"USCMH", "NS Rickenbacker Intermodal Terminal", "NS"},
		{"USDET", "CSX Detroit Intermodal Terminal", "CSX"}},
	"USSAV": {{"USATL", "CSX Fairburn Intermodal Terminal", "CSX"}, {"USATL", "NS Austell Intermodal Terminal", "NS"},
		{"USMEM", "NS Memphis Regional Intermodal Facility", "NS"}},
	"USORF": {{"USCMH", "NS Rickenbacker Intermodal Terminal", "NS"}, {"USCHI", "NS 47th Street Intermodal Terminal", "NS"}},
}

var (
	westCoastSouth = []ramp{{"USCHI", "BNSF Logistics Park Chicago", "BNSF"}, {"USCHI", "UP Global IV Intermodal Terminal", "UP"},
		{"USMEM", "BNSF Memphis Intermodal Facility", "BNSF"}, {"USDAL", "UP Dallas Intermodal Terminal", "UP"},
		{"USKCK", "BNSF Logistics Park Kansas City", "BNSF"}}
	westCoastNorth = []ramp{{"USCHI", "BNSF Logistics Park Chicago", "BNSF"}, {"USMEM", "BNSF Memphis Intermodal Facility", "BNSF"},
		{"USCHI", "UP Global II Intermodal Terminal", "UP"}}
)

const (
	// railKnots is a double-stack train's average speed over the route, terminal dwell included
	// (a land-bridge train from Los Angeles reaches Chicago in four to five days).
	railKnots = 14.0
	// railDetour is how much longer the track is than the great circle.
	railDetour = 1.25
	// bargeKnots is a Rhine barge's average speed upstream, its calls and locks included
	// (Rotterdam to Mannheim in three to four days), and riverDetour how much longer the river is
	// than the straight lines between its ports.
	bargeKnots  = 3.6
	riverDetour = 1.2
)

// addInlandPlaces adds the ramps' cities, and the ports along the waterways, to the world's places.
func (w *world) addInlandPlaces(ports *boxwatch.Ports) error {
	w.waterways = data.Waterways()
	var codes []string
	for _, ramps := range ipiRamps {
		for _, r := range ramps {
			codes = append(codes, r.locode)
		}
	}
	for _, terminals := range euInland {
		for _, t := range terminals {
			codes = append(codes, t.locode)
		}
	}
	for _, ww := range w.waterways.All() {
		codes = append(codes, ww.Ports...)
	}
	for _, code := range codes {
		if _, done := w.places[code]; done {
			continue
		}
		p, ok := ports.ByLOCODE(code)
		if !ok || !p.HasCoordinates {
			return fmt.Errorf("sim: an inland leg needs place %s with coordinates", code)
		}
		loc, err := time.LoadLocation(p.TimeZone)
		if err != nil || p.TimeZone == "" {
			loc = time.UTC
		}
		w.places[code] = place{Port: p, point: geo.Point{Lat: p.Latitude, Lon: p.Longitude}, loc: loc}
	}
	return nil
}

// goesInland reports whether the journey of number goes on inland from its port of discharge,
// to which terminal and by which mode: when the number ends in inlandMarker and its port has
// rail service, or in euInlandMarker and its port has barge or rail service inland (to a terminal
// of the simulator's, r naming only its place).
func (j *journey) goesInland(d dice, number string) (r ramp, mode string, ok bool) {
	pod := j.calls[j.pod()].place.LOCODE
	switch {
	case strings.HasSuffix(number, inlandMarker) && len(ipiRamps[pod]) > 0:
		return ipiRamps[pod][d.intn("inland/ramp", len(ipiRamps[pod]))], modeRail, true
	case strings.HasSuffix(number, euInlandMarker) && len(euInland[pod]) > 0:
		t := euInland[pod][d.intn("inland/ramp", len(euInland[pod]))]
		return ramp{locode: t.locode}, t.mode, true
	}
	return ramp{}, "", false
}

// routeInland adds the inland leg to the journey's calls: the train's or barge's call at the port
// of discharge (its on-dock ramp, or the terminal's barge berth) and at the inland terminal,
// after the return depot, which moves to the terminal's city: the empty goes back there.
func (j *journey) routeInland(w *world, r ramp, mode string) {
	pod := j.pod()
	dest := w.places[r.locode]
	depot := &j.calls[pod+1]
	depot.place, depot.name = dest, dest.Name+" inland depot"
	add := func(c call) {
		c.seq, c.mode = len(j.calls)+1, mode
		c.id = boxwatch.NameUUID(fmt.Sprintf("boxwatch/sim/call/%s/%d", j.key, c.seq))
		j.calls = append(j.calls, c)
	}
	j.inland = 2
	port := j.calls[pod]
	switch {
	case mode == modeBarge:
		// Barges load at the sea terminal's quay; the carrier names the inland terminal only.
		add(call{place: port.place, facility: "POTE"})
		add(call{place: dest, facility: "INTE", name: cmp.Or(r.name, dest.Name+" barge terminal (simulated)")})
	case r.railway == "":
		add(call{place: port.place, facility: "RAMP", name: port.name + " on-dock rail"})
		add(call{place: dest, facility: "RAMP", name: cmp.Or(r.name, dest.Name+" rail terminal (simulated)")})
	default:
		add(call{place: port.place, facility: "RAMP", name: port.name + " on-dock rail (" + r.railway + ")"})
		// The ramp runs a terminal system of its own, which the line names by its code.
		add(call{place: dest, facility: "RAMP", name: r.name, terminal: rampCode(r)})
	}
}

// inlandNM is the distance of the inland leg from call from to call to: along the waterway's
// ports for a barge, else the great circle times the track's detour.
func (j *journey) inlandNM(w *world, from, to int) float64 {
	a, b := j.calls[from].place, j.calls[to].place
	if j.calls[to].mode != modeBarge {
		return railDetour * geo.DistanceNM(a.point, b.point)
	}
	ports, ok := w.waterways.Between(a.LOCODE, b.LOCODE)
	if !ok {
		return riverDetour * geo.DistanceNM(a.point, b.point)
	}
	nm := 0.0
	for i := 1; i < len(ports); i++ {
		nm += geo.DistanceNM(w.places[ports[i-1]].point, w.places[ports[i]].point)
	}
	return riverDetour * nm
}

// scheduleInland lays out the inland leg once the boxes are discharged: each box is loaded onto
// the train or barge at the port, which leaves after the last, arrives at the inland terminal
// after the run the distance takes, and each box is taken off, leaves the terminal full and
// comes back empty to the city's depot. It replaces the full out at the port.
func (j *journey) scheduleInland(w *world, d dice) {
	pod := j.pod()
	railPOD, railDest, depot := len(j.calls)-2, len(j.calls)-1, pod+1
	j.drop(func(m move) bool {
		return m.family == "EQUIPMENT" && (m.code == "GTOT" && m.call == pod || m.code == "GTIN" && m.call == depot)
	})
	_, lastDisc := j.bounds("EQUIPMENT", "DISC", pod)
	plannedDeparture := max(lastDisc, j.hold) + d.between("rail/planned-dwell", 36*hour, 60*hour)
	var lastLoad time.Duration
	for i := range j.equipment {
		load := max(lastDisc+d.between(fmt.Sprint("rail/load/", i), 12*hour, 36*hour), j.hold+time.Duration(i)*hour)
		j.equip(d, "LOAD", railPOD, i, false, load)
		lastLoad = max(lastLoad, load)
	}
	departure := max(plannedDeparture+d.between("rail/late-departure", -4*hour, 20*hour), lastLoad+2*hour)
	knots := railKnots
	if j.calls[railDest].mode == modeBarge {
		knots = bargeKnots
	}
	run := time.Duration(j.inlandNM(w, railPOD, railDest) / knots * float64(time.Hour)).Truncate(time.Minute)
	plannedArrival := plannedDeparture + run
	arrival := departure + run + d.between("rail/late-arrival", -6*hour, 30*hour)
	j.inlandTransport(d, "DEPA", railPOD, plannedDeparture, departure)
	j.inlandTransport(d, "ARRI", railDest, plannedArrival, arrival)
	for i := range j.equipment {
		e := func(label string) string { return fmt.Sprint(label, "/", i) }
		unload := arrival + d.between(e("rail/unload"), 3*hour, 14*hour)
		out := unload + d.between(e("rail/full-out"), 1*day, 4*day)
		j.equip(d, "DISC", railDest, i, false, unload)
		j.equip(d, "GTOT", railDest, i, false, out)
		j.equip(d, "GTIN", depot, i, true, out+d.between(e("rail/empty-in"), 2*day, 6*day))
	}
}

// inlandTransport adds a train's or barge's departure or arrival at call c, planned at planned,
// made at actual.
func (j *journey) inlandTransport(d dice, code string, c int, planned, actual time.Duration) {
	m := move{family: "TRANSPORT", code: code, call: c, equipment: -1, planned: planned, actual: actual,
		lag: d.between(fmt.Sprint("lag/", code, "/", c), 2*time.Minute, 25*time.Minute)}
	if actual-planned > 2*hour {
		m.reason = delayReason{remark: "Rail network congestion"}
		if j.calls[c].mode == modeBarge {
			m.reason = delayReason{remark: "Low water on the river"}
		}
	}
	j.moves = append(j.moves, m)
}
