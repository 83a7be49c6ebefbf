package sim

import (
	"fmt"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/geo"
)

// Inland legs: imports discharged at North American gateways may go on by rail to an inland ramp
// (IPI service), as carriers book them: the journeys of numbers ending in inlandMarker do, when
// their port of discharge has rail service. The gateways, the ramps their railways serve and the
// railways are facts (each railway's published intermodal network); the times are the
// simulator's.

// ramp is an inland rail terminal served from a gateway, and the railway that runs the train.
type ramp struct {
	locode  string
	name    string
	railway string // the railway's common name: BNSF, UP, CSX, NS, CN, CPKC
}

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
)

// addInlandPlaces adds the ramps' cities to the world's places.
func (w *world) addInlandPlaces(ports *boxwatch.Ports) error {
	for _, ramps := range ipiRamps {
		for _, r := range ramps {
			if _, done := w.places[r.locode]; done {
				continue
			}
			p, ok := ports.ByLOCODE(r.locode)
			if !ok || !p.HasCoordinates {
				return fmt.Errorf("sim: ramp %s needs place %s with coordinates", r.name, r.locode)
			}
			loc, err := time.LoadLocation(p.TimeZone)
			if err != nil || p.TimeZone == "" {
				loc = time.UTC
			}
			w.places[r.locode] = place{Port: p, point: geo.Point{Lat: p.Latitude, Lon: p.Longitude}, loc: loc}
		}
	}
	return nil
}

// goesInland reports whether the journey of number goes on by rail from its port of discharge,
// and to which ramp: when the number ends in inlandMarker and its port has rail service.
func (j *journey) goesInland(d dice, number string) (ramp, bool) {
	ramps := ipiRamps[j.calls[j.pod()].place.LOCODE]
	if len(ramps) == 0 || !strings.HasSuffix(number, inlandMarker) {
		return ramp{}, false
	}
	return ramps[d.intn("inland/ramp", len(ramps))], true
}

// routeInland adds the rail leg to the journey's calls: the train's call at the port of
// discharge (its on-dock ramp) and at the inland ramp, after the return depot, which moves to the
// ramp's city: the empty goes back there.
func (j *journey) routeInland(w *world, r ramp) {
	pod := j.pod()
	dest := w.places[r.locode]
	depot := &j.calls[pod+1]
	depot.place, depot.name = dest, dest.Name+" inland depot"
	add := func(p place, name string) {
		c := call{seq: len(j.calls) + 1, place: p, facility: "RAMP", mode: "RAIL", name: name}
		c.id = boxwatch.NameUUID(fmt.Sprintf("boxwatch/sim/call/%s/%d", j.key, c.seq))
		j.calls = append(j.calls, c)
	}
	j.inland = 2
	add(j.calls[pod].place, j.calls[pod].name+" on-dock rail ("+r.railway+")")
	add(dest, r.name)
	j.calls[len(j.calls)-1].terminal = rampCode(r)
}

// scheduleInland lays out the rail leg once the boxes are discharged: each box is loaded onto
// the train at the port, the train leaves after the last, arrives at the ramp after the run the
// distance takes, and each box is taken off the train, leaves the ramp full and comes back empty
// to the city's depot. It replaces the full out at the port.
func (j *journey) scheduleInland(d dice) {
	pod := j.pod()
	railPOD, railDest, depot := len(j.calls)-2, len(j.calls)-1, pod+1
	j.drop(func(m move) bool {
		return m.family == "EQUIPMENT" && (m.code == "GTOT" && m.call == pod || m.code == "GTIN" && m.call == depot)
	})
	_, lastDisc := j.bounds("EQUIPMENT", "DISC", pod)
	plannedDeparture := lastDisc + d.between("rail/planned-dwell", 36*hour, 60*hour)
	var lastLoad time.Duration
	for i := range j.equipment {
		load := lastDisc + d.between(fmt.Sprint("rail/load/", i), 12*hour, 36*hour)
		j.equip(d, "LOAD", railPOD, i, false, load)
		lastLoad = max(lastLoad, load)
	}
	departure := max(plannedDeparture+d.between("rail/late-departure", -4*hour, 20*hour), lastLoad+2*hour)
	nm := railDetour * geo.DistanceNM(j.calls[railPOD].place.point, j.calls[railDest].place.point)
	run := time.Duration(nm / railKnots * float64(time.Hour)).Truncate(time.Minute)
	plannedArrival := plannedDeparture + run
	arrival := departure + run + d.between("rail/late-arrival", -6*hour, 30*hour)
	j.railTransport(d, "DEPA", railPOD, plannedDeparture, departure)
	j.railTransport(d, "ARRI", railDest, plannedArrival, arrival)
	for i := range j.equipment {
		e := func(label string) string { return fmt.Sprint(label, "/", i) }
		unload := arrival + d.between(e("rail/unload"), 3*hour, 14*hour)
		out := unload + d.between(e("rail/full-out"), 1*day, 4*day)
		j.equip(d, "DISC", railDest, i, false, unload)
		j.equip(d, "GTOT", railDest, i, false, out)
		j.equip(d, "GTIN", depot, i, true, out+d.between(e("rail/empty-in"), 2*day, 6*day))
	}
}

// railTransport adds a train's departure or arrival at call c, planned at planned, made at actual.
func (j *journey) railTransport(d dice, code string, c int, planned, actual time.Duration) {
	m := move{family: "TRANSPORT", code: code, call: c, equipment: -1, planned: planned, actual: actual,
		lag: d.between(fmt.Sprint("lag/", code, "/", c), 2*time.Minute, 25*time.Minute)}
	if actual-planned > 2*hour {
		m.reason = delayReason{remark: "Rail network congestion"}
	}
	j.moves = append(j.moves, m)
}
