package sim

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/geo"
)

// journey is one simulated shipment: its references, equipment, route and timeline. Its times
// are offsets from the start of the journey (the booking request); lookup is the offset of the
// first lookup, which the number's last digit chooses, so the absolute start is that lookup's
// time minus lookup.
type journey struct {
	key       string // "<SCAC>/<NUMBER>": the State key and the seed of every choice
	booking   string // "" when the journey was looked up by container
	bill      string // "" when the number is too long for a bill
	equipment []equipment
	calls     []call
	seaNM     []float64 // sea distance of each ocean leg
	moves     []move
	passages  []passage // what the vessel of each ocean leg does, in order
	// omitted: the vessel the box was booked on omitted the port of lading; it sails on the next.
	omitted bool
	// confirmed is when the booking was confirmed: the plan is published then.
	confirmed time.Duration
	// inland is the number of rail or barge calls after the return depot (the train's or barge's
	// at the port of discharge and at the inland terminal), 0 when the journey ends at the port.
	inland int
	lookup time.Duration
}

type equipment struct {
	ref     string // ISO 6346 container number
	isoCode string // ISO 6346 size-type code
	seal    string
}

// call is a transport call: a vessel's call at a port terminal, or a truck's at a depot.
type call struct {
	id       string
	seq      int
	place    place
	facility string // DCSA facility type code: POTE or DEPO
	mode     string // VESSEL or TRUCK
	name     string // of the terminal or depot
	terminal string // the terminal's SMDG-shaped code; "" at a depot
	vessel   *boxwatch.Vessel
	operator string // SCAC of the vessel's operator, when known
	service  string
	voyage   string
}

// move is something that happens on the journey, as the carrier reports it.
type move struct {
	family    string // TRANSPORT, EQUIPMENT or SHIPMENT
	code      string // ARRI, DEPA; GTOT, GTIN, LOAD, DISC; RECE, CONF, ISSU
	call      int    // index into calls, -1 for shipment moves
	equipment int    // index into equipment, -1 unless an equipment move
	empty     bool
	planned   time.Duration // transport moves only
	actual    time.Duration
	lag       time.Duration // from the actual time to the carrier's record of it
	docType   string        // shipment moves
	docID     string
	reason    delayReason // transport moves that run late
	// slot is how much later than the box's plan the vessel that carries it was itself
	// scheduled (a week when the box was rolled to the next vessel); cause what made it late.
	slot  time.Duration
	cause cause
}

type delayReason struct{ code, remark string }

// delayReasons explain late transport moves; the code is SMDG's where there is one.
var delayReasons = []delayReason{
	{"WEA", "Adverse weather"},
	{"", "Port congestion"},
	{"", "Berth window changed by the terminal"},
	{"", "Delay on the previous port call"},
}

// isoTypes are the ISO 6346 size-type codes of the simulated equipment, weighted by how often
// they are chosen: 40-foot high cubes most, then 20-foot and 40-foot standard boxes, and reefers.
var isoTypes = []weighted[string]{{"45G1", 45}, {"22G1", 30}, {"42G1", 15}, {"45R1", 10}}

// containerCounts weighs how many containers a booking covers.
var containerCounts = []weighted[int]{{1, 50}, {2, 25}, {3, 15}, {4, 10}}

const (
	hour = time.Hour
	day  = 24 * time.Hour
	// window is the horizon of stages 1 and 7: the vessel leaves or arrives within it.
	window = 12 * time.Hour
	// margin keeps the first lookup clear of the moves around it (longer than any report lag).
	margin = time.Hour
)

// newJourney builds the journey of number (upper case) with the line of primary SCAC scac,
// first looked up at anchor. The seasons and the ports' queues it meets depend on when it sails:
// it is laid out once as if it started at anchor, then again from the start that puts its first
// lookup at anchor.
func (w *world) newJourney(line boxwatch.ShippingLine, number string, anchor time.Time) *journey {
	j := w.layJourney(line, number, anchor)
	return w.layJourney(line, number, anchor.Add(-j.lookup))
}

func (w *world) layJourney(line boxwatch.ShippingLine, number string, start time.Time) *journey {
	key := line.SCAC + "/" + number
	d := dice("journey/" + key)
	j := &journey{key: key}
	byContainer := boxwatch.ContainerNumberProblem(number) == ""
	if byContainer {
		// A container looked up alone still travels on a bill of lading, which the carrier reports.
		j.equipment = []equipment{{ref: number}}
		prefix := line.SCAC
		if len(line.BillOfLadingPrefixes) > 0 {
			prefix = line.BillOfLadingPrefixes[0]
		}
		j.bill = prefix + d.digits("bill", 9)
	} else {
		j.booking = number
		if len(number) <= 20 {
			j.bill = number
		}
		n := pick(d, "containers", containerCounts)
		prefixes := w.ownerPrefixes(line)
		for i := range n {
			prefix := prefixes[d.intn(fmt.Sprint("prefix/", i), len(prefixes))]
			j.equipment = append(j.equipment, equipment{ref: containerNumber(prefix, d.digits(fmt.Sprint("serial/", i), 6))})
		}
	}
	isoCode := pick(d, "iso", isoTypes)
	for i := range j.equipment {
		j.equipment[i].isoCode = isoCode
		j.equipment[i].seal = line.SCAC[:2] + d.digits(fmt.Sprint("seal/", i), 7)
	}

	services := w.services[line.SCAC]
	s := services[d.intn("service", len(services))]
	j.route(w, d, s)
	r, mode, inland := j.goesInland(d, number)
	if inland {
		j.routeInland(w, r, mode)
	}
	j.schedule(w, d, line.SCAC, start)
	if inland {
		j.scheduleInland(w, d)
	}
	j.lookup = j.stage(stageDigit(number))
	j.depart(number)
	return j
}

// Offsets of the first lookup of the journeys that never end: past the windows after which a
// tracker gives them up (28 days after the last pickup, 56 after arrival).
const (
	unreturnedFor = 30 * day
	abandonedFor  = 60 * day
)

// depart reshapes the journey of a number with a marker of a journey that does not end with its
// empties returned, and places its first lookup: a booking cancelled (between its confirmation
// and its first empty pickup; the vessel sails without its boxes), empties never returned, or
// boxes never picked up.
func (j *journey) depart(number string) {
	pod := j.pod()
	switch {
	case j.booking != "" && (strings.HasSuffix(number, cancelledMarker) || strings.HasSuffix(number, cancelsMarker)):
		firstOut, _ := j.bounds("EQUIPMENT", "GTOT", 0)
		cancel := j.confirmed + (firstOut-j.confirmed)/2
		j.drop(func(m move) bool { return m.family != "TRANSPORT" && m.actual >= cancel })
		j.ship("CANC", "BKG", j.booking, cancel)
		if strings.HasSuffix(number, cancelledMarker) {
			j.lookup = cancel + margin
		} else {
			j.lookup = j.confirmed + margin + (cancel-j.confirmed-2*margin)/2
		}
	case strings.HasSuffix(number, unreturnedMarker):
		_, pickedUp := j.bounds("EQUIPMENT", "GTOT", pod)
		j.drop(func(m move) bool { return m.family == "EQUIPMENT" && m.code == "GTIN" && m.call == pod+1 })
		j.lookup = pickedUp + unreturnedFor
	case strings.HasSuffix(number, abandonedMarker):
		j.drop(func(m move) bool {
			return m.family == "EQUIPMENT" && (m.call == pod && m.code == "GTOT" || m.call == pod+1)
		})
		j.lookup = j.find("TRANSPORT", "ARRI", pod, -1).actual + abandonedFor
	}
}

// drop removes the moves gone says never happen.
func (j *journey) drop(gone func(move) bool) {
	j.moves = slices.DeleteFunc(j.moves, gone)
}

// route chooses the ports, vessels and voyages, and lays out the transport calls: the empty
// depot, the port of lading, the hub (one call for the arriving vessel, one for the departing
// one), the port of discharge and the return depot.
func (j *journey) route(w *world, d dice, s service) {
	l := s.lane
	from, to := l.origins[d.intn("from", len(l.origins))], l.destinations[d.intn("to", len(l.destinations))]
	laneLegs := []int{0}
	ports := []string{from, to}
	if l.hub != "" {
		laneLegs = []int{0, 1}
		ports = []string{from, l.hub, to}
	}
	if d.intn("direction", 2) == 1 {
		for i, k := 0, len(ports)-1; i < k; i, k = i+1, k-1 {
			ports[i], ports[k] = ports[k], ports[i]
		}
		for i := range laneLegs {
			laneLegs[i] = len(laneLegs) - 1 - i
		}
	}
	var prev *boxwatch.Vessel
	vessels := make([]*boxwatch.Vessel, len(laneLegs))
	voyages := make([]string, len(laneLegs))
	for leg, ll := range laneLegs {
		choices := s.vessels[ll]
		k := d.intn(fmt.Sprint("vessel/", leg), len(choices))
		if prev != nil && choices[k].IMO == prev.IMO {
			k = (k + 1) % len(choices)
		}
		vessels[leg], prev = &choices[k], &choices[k]
		voyages[leg] = fmt.Sprintf("%03d%s", 100+d.intn(fmt.Sprint("voyage/", leg), 900),
			heading(w.places[ports[leg]].point, w.places[ports[leg+1]].point))
	}
	// addCall adds a call at a port: at its depot when leg is -1, else at its terminal by the
	// vessel of that ocean leg.
	addCall := func(port string, leg int) {
		c := call{seq: len(j.calls) + 1, place: w.places[port]}
		if leg < 0 {
			c.facility, c.mode, c.name = "DEPO", "TRUCK", c.place.Name+" inland depot"
		} else {
			c.facility, c.mode = "POTE", "VESSEL"
			berths := w.berths(port)
			t := berths[d.intn("terminal/"+port, len(berths))]
			c.terminal, c.name = t.SMDGCode, t.Name
			c.vessel, c.voyage, c.service = vessels[leg], voyages[leg], s.codes[laneLegs[leg]]
			c.operator = operatorOf(c.vessel.Name)
		}
		c.id = boxwatch.NameUUID(fmt.Sprintf("boxwatch/sim/call/%s/%d", j.key, c.seq))
		j.calls = append(j.calls, c)
	}
	first, last := ports[0], ports[len(ports)-1]
	addCall(first, -1)
	addCall(first, 0)
	if len(laneLegs) == 2 {
		addCall(ports[1], 0)
		addCall(ports[1], 1)
	}
	addCall(last, len(laneLegs)-1)
	addCall(last, -1)

	for leg := range laneLegs {
		from, to := w.places[ports[leg]], w.places[ports[leg+1]]
		if w.router != nil {
			_, nm := w.route(from, to)
			j.seaNM = append(j.seaNM, nm)
			continue
		}
		j.seaNM = append(j.seaNM, l.detour[laneLegs[leg]]*geo.DistanceNM(from.point, to.point))
	}
}

// heading is the direction letter of a voyage number: E or W, or N or S when the leg runs more
// north–south than east–west.
func heading(from, to geo.Point) string {
	dLon := math.Mod(to.Lon-from.Lon+540, 360) - 180
	dLat := to.Lat - from.Lat
	switch {
	case math.Abs(dLat) > math.Abs(dLon) && dLat > 0:
		return "N"
	case math.Abs(dLat) > math.Abs(dLon):
		return "S"
	case dLon > 0:
		return "E"
	}
	return "W"
}

// ownerPrefixes are the owner prefixes of the line's equipment: its own, its parent's, or one
// made of its SCAC when the registry lists none.
func (w *world) ownerPrefixes(line boxwatch.ShippingLine) []string {
	if len(line.ContainerPrefixes) > 0 {
		return line.ContainerPrefixes
	}
	if p, ok := w.carriers.BySCAC(parentSCAC(line)); ok && len(p.ContainerPrefixes) > 0 {
		return p.ContainerPrefixes
	}
	return []string{line.SCAC[:3] + "U"}
}

// containerNumber completes an owner prefix and serial with the ISO 6346 check digit.
func containerNumber(prefix, serial string) string {
	digit, _ := boxwatch.ContainerCheckDigit(prefix + serial)
	return prefix + serial + string('0'+digit)
}

// simulatedTerminals is how many terminals the simulator gives each port.
const simulatedTerminals = 2

// simulatedTerminal is the n-th (from 0) terminal of a port: a code shaped as SMDG's (SX, the
// port's three letters, a digit) and a name that says it is simulated.
func simulatedTerminal(p place, n int) (code, name string) {
	loc := p.LOCODE
	if len(loc) == 5 {
		loc = loc[2:]
	}
	return fmt.Sprintf("SX%s%d", loc, n+1), fmt.Sprintf("%s Terminal %d (simulated)", p.Name, n+1)
}
