package sim

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/geo"
)

// Vessels follow rotations. Every leg of a lane is sailed by loops: one per pair of its ports
// (the lane's ports taken in turn on each side) and punctuality class (see classOf), shared by the
// lines of that class as lines share vessels in alliances and slot charters; each line names the
// loop by its own service code. A loop's vessels shuttle between its two ports on a fixed grid of
// absolute time from rotationEpoch: voyage v arrives at the port on the lane's origin side at
// epoch + offset + v × headway, sails to the other port, and back in time for voyage v + N, N
// being the loop's number of vessels. A voyage's times, pacing, weather, anchorage wait, canal
// queue and lateness are drawn per loop and voyage, and a late vessel starts its next voyage late,
// so every box aboard sees the same vessel at the same place, and no vessel is in two places at
// once. A box's own moves (gate-in, load, discharge, a roll to the next voyage) hang off the
// voyage it is on.

// rotationEpoch is the origin of every loop's grid: the same on every replica and every run.
// Voyages that began before it have no earlier voyage to follow (the world starts then).
var rotationEpoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// portStay is the planned stay of a loop's vessels at either port, and minStay the least a late
// vessel stays (it shortens its stay to keep its departure).
const (
	portStay    = 30 * hour
	minStayLow  = 14 * hour
	minStayHigh = 20 * hour
)

// loop is a rotation between two ports on a leg of a lane.
type loop struct {
	id    string
	lane  *lane
	leg   int              // the lane's leg
	class string           // the punctuality class whose figure its arrivals meet
	ends  [2]place         // ends[0] on the lane's origin side of the leg
	nm    float64          // sea distance between the ends
	knots float64          // planned service speed
	sea   [2]time.Duration // planned time at sea in each direction, with any canal's transit
	// headway is the time between two voyages: a week on long legs, less on short ones, so that
	// at any time a vessel of the loop is at sea in each direction.
	headway time.Duration
	offset  time.Duration // of voyage 0's planned arrival at ends[0], after rotationEpoch
	vessels []boxwatch.Vessel
}

// sailingKey names voyage v of a loop in one direction.
type sailingKey struct {
	loop      string
	voyage, d int
}

// sailingBytes is what a laid-out sailing weighs in the world's cache: the struct and its
// passage's pacing (a float a day); the sea path is the world's, shared by every sailing of the
// port pair.
func sailingBytes(k sailingKey, s *sailing) int64 {
	return int64(len(k.loop)) + 512 + 8*int64(len(s.passage.pace))
}

// DefaultSailingCacheBytes bounds the sailings the world keeps laid out. A sailing evicted is laid
// out again from the vessel's nearest earlier sailing still held, or from the epoch: the same
// sailing, at a cost.
const DefaultSailingCacheBytes = 32 << 20

// sailing is voyage v of a loop in one direction: from the port it arrives at and leaves to the
// port it berths at. Its times are offsets from rotationEpoch.
type sailing struct {
	loop   *loop
	voyage int
	dir    int // 0: ends[0] to ends[1]; 1: back
	vessel *boxwatch.Vessel
	number string // the voyage number lines give it
	// The plan: arrival at the port it leaves, departure, berth at the next.
	plannedArrival, plannedDeparture, plannedBerth time.Duration
	arrival                                        time.Duration // the actual arrival at the port it leaves
	arrivalCause                                   cause
	// omits: the vessel omits the call for cargo (a blank sailing): boxes booked on it go on the
	// loop's next voyage.
	omits   bool
	passage passage // departure, the sea passage and the berth (from and to unset)
	cause   cause   // of the berth's lateness
}

func (s *sailing) from() place { return s.loop.ends[s.dir] }
func (s *sailing) to() place   { return s.loop.ends[1-s.dir] }

// classOf is the punctuality class of a line: lines with a published figure of their own sail on
// their own loops, the others share the loops of their band (60–70 % with every line the report
// does not name, 50–60 %).
func classOf(scac string) string {
	switch target, ok := onTime[scac]; {
	case scac == "MAEU" || scac == "HLCU" || scac == "WHLC":
		return scac
	case ok && target < 0.6:
		return "band55"
	}
	return "band65"
}

// classOnTime is the on-time share of a class's arrivals.
func classOnTime(class string) float64 {
	switch class {
	case "band55":
		return 0.55
	case "band65":
		return 0.65
	}
	if target, ok := onTime[class]; ok {
		return target
	}
	return industryOnTime
}

// buildLoops lays the loops of every lane leg for the classes of the lines serving it, and
// crews them: the fleet's real vessels first (a line's own vessels on its class's loops), then
// simulated ones.
func (w *world) buildLoops(lines []boxwatch.ShippingLine, fleet []boxwatch.Vessel) {
	classes := map[string]map[string]bool{} // lane code → classes
	for _, line := range lines {
		for _, l := range servedLanes(line) {
			if classes[l] == nil {
				classes[l] = map[string]bool{}
			}
			classes[l][classOf(line.SCAC)] = true
		}
	}
	w.loops = map[string][]*loop{}
	var all []*loop
	for i := range lanes {
		l := &lanes[i]
		for _, class := range []string{"MAEU", "HLCU", "WHLC", "band65", "band55"} {
			if !classes[l.code][class] {
				continue
			}
			for leg := range legs(l) {
				sides := [2][]string{l.origins, l.destinations}
				if l.hub != "" {
					sides = [2][]string{l.origins, {l.hub}}
					if leg == 1 {
						sides = [2][]string{{l.hub}, l.destinations}
					}
				}
				for p := range max(len(sides[0]), len(sides[1])) {
					lp := w.newLoop(l, leg, class, sides[0][p%len(sides[0])], sides[1][p%len(sides[1])])
					w.loops[loopKey(l.code, leg, class)] = append(w.loops[loopKey(l.code, leg, class)], lp)
					all = append(all, lp)
				}
			}
		}
	}
	w.crew(all, fleet)
}

func loopKey(lane string, leg int, class string) string {
	return fmt.Sprint(lane, "/", leg, "/", class)
}

func (w *world) newLoop(l *lane, leg int, class, a, b string) *loop {
	lp := &loop{id: fmt.Sprintf("%s/%d/%s/%s-%s", l.code, leg, class, a, b), lane: l, leg: leg, class: class,
		ends: [2]place{w.places[a], w.places[b]}}
	d := dice("loop/" + lp.id)
	lp.nm = l.detour[leg] * geo.DistanceNM(lp.ends[0].point, lp.ends[1].point)
	if w.router != nil {
		_, lp.nm = w.route(lp.ends[0], lp.ends[1])
	}
	lp.knots = minServiceKnots + (maxServiceKnots-minServiceKnots)*d.frac("knots")
	for dir := range 2 {
		lp.sea[dir] = time.Duration(lp.nm / lp.knots * float64(hour))
		if c := w.canalBetween(lp.ends[dir], lp.ends[1-dir]); c != nil {
			lp.sea[dir] += c.planned
		}
		lp.sea[dir] = lp.sea[dir].Truncate(time.Minute)
	}
	// A voyage leaves well before the one before it arrives; on legs of
	// more than two days, a whole number of days apart.
	lp.headway = max(3*hour, (min(lp.sea[0], lp.sea[1]) * 7 / 10).Truncate(hour))
	if lp.headway >= 2*day {
		lp.headway = min(week, lp.headway.Truncate(day))
	}
	lp.offset = d.between("offset", 0, lp.headway).Truncate(hour)
	return lp
}

// cycle is how long a vessel takes to come back: both stays and passages, the way back at the
// slowest service speed, and a week to spare, so that a vessel late on one voyage is on time for
// its next one (it waits off the port when it is not).
func (lp *loop) cycle() time.Duration {
	back := time.Duration(lp.nm/minServiceKnots*float64(hour)) + lp.sea[1] - time.Duration(lp.nm/lp.knots*float64(hour))
	return 2*portStay + lp.sea[0] + back + week
}

// crew gives every loop ceil(cycle / headway) vessels.
func (w *world) crew(loops []*loop, fleet []boxwatch.Vessel) {
	byClass := map[string][]boxwatch.Vessel{}
	var spare []boxwatch.Vessel
	for _, v := range fleet {
		if op := operatorOf(v.Name); op != "" {
			byClass[classOf(op)] = append(byClass[classOf(op)], v)
			continue
		}
		spare = append(spare, v)
	}
	simulated := 0
	for _, lp := range loops {
		n := int(math.Ceil(float64(lp.cycle()) / float64(lp.headway)))
		for range n {
			switch own := byClass[lp.class]; {
			case len(own) > 0:
				lp.vessels, byClass[lp.class] = append(lp.vessels, own[0]), own[1:]
			case len(spare) > 0:
				lp.vessels, spare = append(lp.vessels, spare[0]), spare[1:]
			default:
				lp.vessels = append(lp.vessels, simulatedVessel(simulated))
				simulated++
			}
		}
	}
	// Real vessels of classes with fewer loops than vessels are left unused rather than sailing
	// two loops at once.
}

// Simulated vessels fill the loops the fleet data cannot: their names say what they are, and
// their IMO numbers and MMSIs come from ranges no ship is given (see docs/carriers.md).
const (
	simulatedIMOBase  = 3000000 // 3000000–3099999, with a valid check digit
	simulatedMMSIBase = 200000000
)

// simulatedVessel is the k-th simulated vessel.
func simulatedVessel(k int) boxwatch.Vessel {
	stem := strconv.Itoa(simulatedIMOBase/10 + k)
	sum := 0
	for i := range 6 {
		sum += int(stem[i]-'0') * (7 - i)
	}
	imo := stem + strconv.Itoa(sum%10)
	return boxwatch.Vessel{ID: boxwatch.VesselID(imo), IMO: imo, MMSI: strconv.Itoa(simulatedMMSIBase + k),
		Name: fmt.Sprintf("SIM VESSEL %04d", k), CallSign: fmt.Sprintf("SIM%04d", k)}
}

// large reports whether a vessel is of the size Panama's draft limits delay most. The fleet
// data gives no dimensions, so the IMO number stands for the age: ships numbered from 9700000
// (built from about 2014) are mostly neo-Panamax; every other simulated vessel is.
func large(v *boxwatch.Vessel) bool {
	if v.IMO[0] == '3' {
		return (v.IMO[5]-'0')%2 == 0
	}
	return v.IMO >= "9700000"
}

// voyageIndex is the voyage of lp whose planned arrival at ends[0] is the last at or before at.
func (lp *loop) voyageIndex(at time.Time) int {
	return int(math.Floor(float64(at.Sub(rotationEpoch)-lp.offset) / float64(lp.headway)))
}

// planned returns the plan of voyage v in direction dir: arrival, departure, berth.
func (lp *loop) planned(v, dir int) (arrival, departure, berth time.Duration) {
	a := lp.offset + time.Duration(v)*lp.headway
	if dir == 1 {
		a += portStay + lp.sea[0]
		n := len(lp.vessels)
		return a, a + portStay, lp.offset + time.Duration(v+n)*lp.headway
	}
	return a, a + portStay, a + portStay + lp.sea[0]
}

// sailing returns voyage v of lp in direction dir, laying it out (and the vessel's earlier
// voyages back to the nearest one the cache holds, or to the epoch) when the cache does not hold it.
// Each sailing follows the vessel's one before, so a sailing laid out again is the one evicted.
func (w *world) sailing(lp *loop, v, dir int) *sailing {
	key := func(k, d int) sailingKey { return sailingKey{lp.id, k, d} }
	if s, ok := w.sailings.Get(key(v, dir)); ok {
		return s
	}
	w.layMu.Lock()
	defer w.layMu.Unlock()
	if s, ok := w.sailings.Get(key(v, dir)); ok {
		return s
	}
	// The vessel's earlier voyages, oldest first, so that each follows the one before.
	n := len(lp.vessels)
	first := v
	var prev *sailing
	if dir == 1 {
		prev, _ = w.sailings.Get(key(v, 0))
	}
	for prev == nil && first-n >= 0 {
		if p, known := w.sailings.Get(key(first-n, 1)); known {
			prev = p
			break
		}
		first -= n
	}
	var s *sailing
	for k := first; k <= v; k += n {
		for d := range 2 {
			if k == v && d > dir {
				break
			}
			if k == v && d == 0 && dir == 1 && prev != nil && prev.voyage == v {
				continue // the outbound half is held: it is prev
			}
			s = w.laySailing(lp, k, d, prev)
			w.sailings.Add(key(k, d), s)
			prev = s
		}
	}
	return s
}

// laySailing lays out voyage v in direction dir after prev, the vessel's sailing before it (nil
// for its first).
func (w *world) laySailing(lp *loop, v, dir int, prev *sailing) *sailing {
	d := dice(fmt.Sprintf("voyage/%s/%d/%d", lp.id, v, dir))
	n := len(lp.vessels)
	s := &sailing{loop: lp, voyage: v, dir: dir, vessel: &lp.vessels[((v%n)+n)%n]}
	s.number = fmt.Sprintf("%03d%s", 100+((v%900)+900)%900, heading(s.from().point, s.to().point))
	s.plannedArrival, s.plannedDeparture, s.plannedBerth = lp.planned(v, dir)
	abs := func(off time.Duration) time.Time { return rotationEpoch.Add(off) }
	from, to := s.from(), s.to()
	lg := large(s.vessel)
	switch {
	case prev != nil:
		s.arrival, s.arrivalCause = prev.passage.berth, prev.cause
	default:
		a := drawArrival(d, "arrival", lp.class, from, abs(s.plannedArrival), nil, lg, 0)
		if a.cause == canalQueue {
			a.cause = slipped
		}
		s.arrival, s.arrivalCause = s.plannedArrival+a.delay, a.cause
	}
	s.omits = d.frac("omits") < rolledShare/2
	departure := max(s.arrival+d.between("stay", minStayLow, minStayHigh), s.plannedDeparture-d.between("early-departure", 0, 6*hour))
	// The arrival is late whatever happens at sea when the vessel came later than its stay and
	// the passage can make up: how often that is, is counted in the class's late arrivals.
	fastest := time.Duration(lp.nm / maxKnots * float64(hour))
	c := w.canalBetween(from, to)
	if c != nil {
		fastest += c.planned
	}
	slack := s.plannedDeparture - s.plannedArrival - minStayLow + (s.plannedBerth - s.plannedDeparture) - fastest + day
	forced := disruptedShare(lp.class) * forcedLate(causes(from, abs(s.plannedArrival), nil, false), slack)
	draw := drawArrival(d, "berth", lp.class, to, abs(s.plannedBerth), c, lg, forced)
	s.passage = w.sail(d, "sail", from, to, lp.nm, departure, s.plannedBerth, draw)
	s.cause = draw.cause
	return s
}

// canalBetween is the canal on the sea path between two ports, nil when there is none.
func (w *world) canalBetween(from, to place) *canal {
	path, cum := w.seaPath(from, to)
	if c, _, ok := canalOn(path, cum); ok {
		return &c
	}
	return nil
}

// servedLanes are the codes of the lanes a line serves: every lane for a line of no listed lane.
func servedLanes(line boxwatch.ShippingLine) []string {
	var out []string
	for _, l := range lanes {
		if slices.Contains(carrierLanes[line.SCAC], l.code) {
			out = append(out, l.code)
		}
	}
	if len(out) == 0 {
		for _, l := range lanes {
			out = append(out, l.code)
		}
	}
	return out
}
