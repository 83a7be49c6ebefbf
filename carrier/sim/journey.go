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
	// doors is the number of calls at the consignee's door after everything else (see
	// scheduleDoor): 0 or 1.
	doors  int
	lookup time.Duration
	// service is the line's service the journey is booked on; reversed when it runs the lane
	// from its destinations to its origins. start is the booking, as an offset from rotationEpoch.
	service  service
	reversed bool
	start    time.Duration
	// sailings are the voyages the boxes sail on, one per ocean leg; hold is the offset before
	// which no box leaves the port of discharge (0: none; see fit).
	sailings []*sailing
	hold     time.Duration
	alt      int           // see fit
	cancel   time.Duration // when a cancelled booking is cancelled
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
	// window is the stretch before a departure or an arrival a stage 1 or 7 lookup aims at.
	window = 12 * time.Hour
	// margin keeps the first lookup clear of the moves around it (longer than any report lag).
	margin = time.Hour
)

// leg is an ocean leg of a journey: the loop that sails it and the direction.
type leg struct {
	loop *loop
	dir  int
}

// fit is what places a journey in the loops' grid: the voyage of its first leg it is booked on
// and how long before that voyage's planned arrival it was booked (0: drawn), and what stretches
// a box's own times so that its first lookup falls where its stage says (zero times: nothing).
type fit struct {
	voyage       int
	lead         time.Duration
	gateInBefore time.Time           // every box is gated in full at the port of lading before it
	connect      func(*sailing) bool // the box is booked on the first connecting voyage it accepts
	holdUntil    time.Time           // no box leaves the port of discharge before it
	// alt: each leg sails on the loop alt after the one the journey draws, when delays leave no
	// voyage of that one where the stage falls.
	alt int
}

// journeyKey names a journey: its line and number, and its first lookup.
type journeyKey struct {
	scac, number string
	anchor       int64 // Unix nanoseconds
}

// journeyBytes is what a built journey weighs in the world's cache, roughly: its calls, moves,
// equipment and passages (whose paths are the world's, shared).
func journeyBytes(k journeyKey, j *journey) int64 {
	return int64(len(k.scac)+len(k.number)+len(j.key)) + 256 + 192*int64(len(j.calls)) + 160*int64(len(j.moves)) +
		96*int64(len(j.equipment)) + 192*int64(len(j.passages)) + 8*int64(len(j.sailings))
}

// DefaultJourneyCacheBytes bounds the journeys the world keeps built: a lookup of a number, its
// terminals' and the AIS feed's all build the same journey, which takes milliseconds.
const DefaultJourneyCacheBytes = 16 << 20

// newJourney returns the journey of number (upper case) with the line of primary SCAC scac,
// first looked up at anchor, from the world's cache or built (see buildJourney). A journey is not
// changed once built, so callers share it.
func (w *world) newJourney(line boxwatch.ShippingLine, number string, anchor time.Time) *journey {
	k := journeyKey{line.SCAC, number, anchor.UnixNano()}
	if j, ok := w.journeys.Get(k); ok {
		return j
	}
	j := w.buildJourney(line, number, anchor)
	w.journeys.Add(k, j)
	return j
}

// buildJourney builds the journey of number first looked up at anchor: of the voyages its loops
// sail around anchor, the one that puts the first lookup where the number's stage says (see window).
func (w *world) buildJourney(line boxwatch.ShippingLine, number string, anchor time.Time) *journey {
	digit := stageDigit(number)
	probe := w.layJourney(line, number, fit{})
	lp, dir := probe.sailings[0].loop, probe.sailings[0].dir
	if startFitted(number, digit, probe.booking != "") {
		// The window is the box's own, from its booking: book it that long before anchor.
		lo, hi, target := probe.window(digit, number)
		if hi < lo {
			target = lo
		}
		start := anchor.Add(-target).Sub(rotationEpoch)
		arrival0, _, _ := lp.planned(0, dir)
		v := int(math.Ceil(float64(start+minLead-arrival0) / float64(lp.headway)))
		arrival, _, _ := lp.planned(v, dir)
		return w.place(w.layJourney(line, number, fit{voyage: v, lead: arrival - start}), anchor)
	}
	f := fit{}
	switch {
	case digit == 1:
		f.gateInBefore = anchor.Add(-margin - dice("stage/"+probe.key).between("gate-in", 0, 6*hour))
	case digit == 5 && probe.hub():
		f.connect = func(s *sailing) bool { return rotationEpoch.Add(s.passage.depart).After(anchor.Add(day)) }
	case digit == 6 && probe.hub():
		// The connecting vessel is at sea at anchor (and arrives next, for 7).
		f.connect = func(s *sailing) bool {
			return rotationEpoch.Add(s.passage.depart).Before(anchor.Add(-2*margin)) && rotationEpoch.Add(s.passage.berth).After(anchor.Add(window))
		}
	case digit == 7 && probe.hub():
		f.connect = func(s *sailing) bool {
			return rotationEpoch.Add(s.passage.depart).Before(anchor.Add(-2*margin)) && rotationEpoch.Add(s.passage.berth).After(anchor.Add(2*margin))
		}
	case digit == 8:
		f.holdUntil = anchor.Add(margin + dice("stage/"+probe.key).between("hold", 12*hour, 2*day))
	}
	// The voyage whose plan puts the stage's moment nearest anchor, then the voyages around it
	// as they really sail.
	at := anchor.Sub(rotationEpoch)
	base := lp.voyageIndex(anchor)
	best, bestGap := 0, time.Duration(math.MaxInt64)
	for v := base - int(200*day/lp.headway); v <= base+int(21*day/lp.headway)+1; v++ {
		if gap := (probe.plannedMoment(w, lp, dir, v, digit, number) - at).Abs(); gap < bestGap {
			best, bestGap = v, gap
		}
	}
	chosen, score := w.search(line, number, anchor, digit, f, lp, dir, best)
	// When delays leave no voyage of the loop where the stage falls, the leg's other loops.
	for alt := 1; score >= 1<<60 && alt < 6; alt++ {
		f.alt = alt
		j := w.layJourney(line, number, f)
		lp := j.sailings[0].loop
		base := lp.voyageIndex(anchor)
		best, bestGap := 0, time.Duration(math.MaxInt64)
		for v := base - int(200*day/lp.headway); v <= base+int(21*day/lp.headway)+1; v++ {
			if gap := (j.plannedMoment(w, lp, dir, v, digit, number) - at).Abs(); gap < bestGap {
				best, bestGap = v, gap
			}
		}
		if j, s := w.search(line, number, anchor, digit, f, lp, dir, best); s < score {
			chosen, score = j, s
		}
	}
	return w.place(chosen, anchor)
}

// search lays out the journey booked on the voyages of loop lp around voyage best, and returns
// the one whose first lookup at anchor falls nearest the target of its stage's window, with how
// far from it (1<<60 more when outside the window).
func (w *world) search(line boxwatch.ShippingLine, number string, anchor time.Time, digit int, f fit, lp *loop, dir, best int) (*journey, time.Duration) {
	at := anchor.Sub(rotationEpoch)
	// Delays move a voyage by days, and a late connection moves the rest by its loop's headway.
	reach := 10 * day
	if j := w.layJourney(line, number, f); len(j.sailings) == 2 {
		reach += 2 * j.sailings[1].loop.headway
	}
	spread := max(3, int(reach/lp.headway))
	var chosen *journey
	var chosenScore time.Duration
	for v := best - spread; v <= best+spread; v++ {
		g := f
		g.voyage = v
		if digit == 1 {
			// Booked long enough before the gate-in for the empty to be picked up first.
			arrival, _, _ := lp.planned(v, dir)
			g.lead = max(maxLead, arrival-(at-6*day))
		}
		j := w.layJourney(line, number, g)
		start := rotationEpoch.Add(j.start)
		lo, hi, target := j.window(digit, number)
		off := anchor.Sub(start)
		score := (off - target).Abs()
		if off < lo || off > hi {
			score = 1<<60 + max(lo-off, off-hi)
		}
		if chosen == nil || score < chosenScore {
			chosen, chosenScore = j, score
		}
	}
	return chosen, chosenScore
}

// place sets a journey's first lookup at anchor.
func (w *world) place(j *journey, anchor time.Time) *journey {
	j.lookup = anchor.Sub(rotationEpoch.Add(j.start))
	return j
}

// Bounds of the time from a booking to its vessel's planned arrival at the port of lading.
const (
	minLead = 9 * day
	maxLead = 15 * day
)

// startFitted reports whether the stage of a number is placed by its booking alone (booked and
// not yet picked up, or cancelled), so that the journey is booked to put anchor there.
func startFitted(number string, digit int, booking bool) bool {
	if booking && (strings.HasSuffix(number, cancelledMarker) || strings.HasSuffix(number, cancelsMarker)) {
		return true
	}
	return digit == 0 && !strings.HasSuffix(number, unreturnedMarker) && !strings.HasSuffix(number, abandonedMarker)
}

// layJourney lays out the journey of number booked as f says.
func (w *world) layJourney(line boxwatch.ShippingLine, number string, f fit) *journey {
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
	j.service = services[d.intn("service", len(services))]
	j.reversed = d.intn("direction", 2) == 1
	j.alt = f.alt
	if f.lead == 0 {
		f.lead = d.between("pol/planned-arrival", minLead, maxLead)
	}
	b := j.board(w, d, f)
	j.route(w, d, b)
	r, mode, inland := j.goesInland(d, number)
	if inland {
		j.routeInland(w, r, mode)
	}
	j.schedule(w, d, b, f)
	if inland {
		j.scheduleInland(w, d)
	}
	j.depart(number)
	j.scheduleDoor()
	return j
}

// Offsets of the first lookup of the journeys that never end: past the windows after which a
// tracker gives them up (28 days after the last pickup, 56 after arrival).
const (
	unreturnedFor = 30 * day
	abandonedFor  = 60 * day
)

// depart reshapes the journey of a number with a marker of a journey that does not end with its
// empties returned (see window for where its first lookup falls): a booking cancelled (between
// its confirmation and its first empty pickup; the vessel sails without its boxes), empties
// never returned, or boxes never picked up.
func (j *journey) depart(number string) {
	pod := j.pod()
	switch {
	case j.booking != "" && (strings.HasSuffix(number, cancelledMarker) || strings.HasSuffix(number, cancelsMarker)):
		cancel := j.cancelled()
		j.cancel = cancel
		j.drop(func(m move) bool { return m.family != "TRANSPORT" && m.actual >= cancel })
		j.ship("CANC", "BKG", j.booking, cancel)
	case strings.HasSuffix(number, unreturnedMarker):
		j.drop(func(m move) bool { return m.family == "EQUIPMENT" && m.code == "GTIN" && m.call == pod+1 })
	case strings.HasSuffix(number, abandonedMarker):
		j.drop(func(m move) bool {
			return m.family == "EQUIPMENT" && (m.call == pod && m.code == "GTOT" || m.call == pod+1)
		})
	}
}

// cancelled is when a cancelled booking is cancelled: halfway from its confirmation to its first
// empty pickup.
func (j *journey) cancelled() time.Duration {
	firstOut, _ := j.bounds("EQUIPMENT", "GTOT", 0)
	return j.confirmed + (firstOut-j.confirmed)/2
}

// drop removes the moves gone says never happen.
func (j *journey) drop(gone func(move) bool) {
	j.moves = slices.DeleteFunc(j.moves, gone)
}

// legs are the journey's ocean legs in the order it sails them: the loop of each (one of its
// service's loops for that leg of the lane, drawn per journey) and the direction.
func (j *journey) legs() []leg {
	d := dice("journey/" + j.key)
	laneLegs, dir := []int{0}, 0
	if j.service.lane.hub != "" {
		laneLegs = []int{0, 1}
	}
	if j.reversed {
		slices.Reverse(laneLegs)
		dir = 1
	}
	out := make([]leg, len(laneLegs))
	for i, ll := range laneLegs {
		loops := j.service.loops[ll]
		out[i] = leg{loops[(d.intn(fmt.Sprint("loop/", i), len(loops))+j.alt)%len(loops)], dir}
	}
	return out
}

// route lays out the transport calls: the empty depot, the port of lading, the hub (one call for
// the arriving vessel, one for the departing one), the port of discharge and the return depot,
// at the ports of the voyages the boxes sail on.
func (j *journey) route(w *world, d dice, b boarding) {
	laneLegs := []int{0}
	if j.service.lane.hub != "" {
		laneLegs = []int{0, 1}
	}
	if j.reversed {
		slices.Reverse(laneLegs)
	}
	ports := []string{b.sailings[0].from().LOCODE}
	for _, s := range b.sailings {
		ports = append(ports, s.to().LOCODE)
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
			s := b.sailings[leg]
			c.vessel, c.voyage, c.service = s.vessel, s.number, j.service.codes[laneLegs[leg]]
			c.operator = operatorOf(c.vessel.Name)
		}
		c.id = boxwatch.NameUUID(fmt.Sprintf("boxwatch/sim/call/%s/%d", j.key, c.seq))
		j.calls = append(j.calls, c)
	}
	first, last := ports[0], ports[len(ports)-1]
	addCall(first, -1)
	addCall(first, 0)
	if len(b.sailings) == 2 {
		addCall(ports[1], 0)
		addCall(ports[1], 1)
	}
	addCall(last, len(b.sailings)-1)
	addCall(last, -1)
	for _, s := range b.sailings {
		j.seaNM = append(j.seaNM, s.loop.nm)
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
