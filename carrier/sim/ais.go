package sim

import (
	"cmp"
	"context"
	"errors"
	"math"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/ais"
	"github.com/boxwatch/boxwatch/geo"
)

// Router finds the sea path between two points: the points along it, from one to the other, and
// its length in nautical miles. The simulator's vessels sail these paths (package searoute's
// Network answers it); without one they sail great circles.
type Router func(from, to geo.Point) (points []geo.Point, nm float64, err error)

// Cadence of the AIS broadcast, in simulated time: a position report from every vessel of a
// journey this often, and its static and voyage report every staticEvery.
const (
	positionEvery = 3 * time.Minute
	staticEvery   = 30 * time.Minute
	// portLinger is how long a vessel is heard at its last port of a journey after arriving.
	portLinger = 24 * time.Hour
	// aisTick is how often, in real time, the broadcaster catches up with simulated time.
	aisTick = 200 * time.Millisecond
	// clientBacklog bounds the batches waiting for one slow client before it is dropped, as a
	// real feed drops a reader that cannot keep up.
	clientBacklog = 4096
)

// broadcaster sends AIS for the vessels of the journeys looked up so far, over TCP, as an
// aggregator's feed would: one NMEA line per sentence, tag blocks with the time in simulated time.
type broadcaster struct {
	n  *Network
	ln net.Listener

	// journeys holds a journey while a vessel of it is still to be heard from it: one whose
	// vessels fell silent, or are all heard from journeys looked up later, is dropped, so that
	// what the broadcaster keeps is bounded by the vessels sailing, not by the lookups made.
	mu       sync.Mutex
	journeys map[string]*voyage   // by journey key
	owner    map[uint32]ownership // MMSI → the journey whose vessel that is
	clients  map[chan []byte]bool

	stop    context.CancelFunc
	running sync.WaitGroup
}

// ownership names the journey a vessel is heard from: of the journeys that sail it, the one
// first looked up last (an anchor kept by the State, so the choice is the same in every replica
// and after a restart, whatever order the lookups come in).
type ownership struct {
	key    string
	anchor time.Time
}

// supersededBy reports whether a journey first looked up at anchor with key takes a vessel from o.
func (o ownership) supersededBy(key string, anchor time.Time) bool {
	return anchor.After(o.anchor) || anchor.Equal(o.anchor) && key > o.key
}

// voyage is what the broadcaster keeps of a journey: where each of its vessels is when.
type voyage struct {
	anchor   time.Time // the first lookup, in real time
	start    time.Time // the journey's start, in simulated time: segments are offsets from it
	segments []segment
	sent     time.Time // simulated time up to which reports were sent
}

// segment is a vessel's stay at a port, wait at an anchorage or a canal, or sailing between two,
// in offsets of the journey.
type segment struct {
	vessel   ais.Message // MMSI, IMO, name, call sign, dimensions: the static report's fields
	from, to time.Duration
	path     []geo.Point // one point while at a port or waiting
	cum      []float64   // nm along path to each point
	dest     string      // UN/LOCODE the vessel is bound for
	heard    bool        // its static report was sent
	anchored bool        // waiting at anchor rather than moored at a berth
	// While sailing: the passage's pace, the sailing time at from, the whole sailing time, and
	// how far along path the sailing ends (the anchorage off the port).
	pace                pacing
	sailFrom, sailTotal time.Duration
	reach               float64
}

// StartAIS broadcasts AIS on ln until Close: every connection receives the reports of the
// vessels of every journey looked up from then on, including, for a voyage already under way, the
// reports since its vessel left port. It fails when already started.
func (n *Network) StartAIS(ln net.Listener) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.broadcast != nil {
		return errors.New("sim: AIS already started")
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := &broadcaster{n: n, ln: ln, journeys: map[string]*voyage{}, owner: map[uint32]ownership{},
		clients: map[chan []byte]bool{}, stop: cancel}
	n.broadcast = b
	b.running.Go(func() { b.accept(ctx) })
	b.running.Go(func() { b.loop(ctx) })
	return nil
}

// AISAddr returns the address the AIS feed listens on, or nil before StartAIS.
func (n *Network) AISAddr() net.Addr {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.broadcast == nil {
		return nil
	}
	return n.broadcast.ln.Addr()
}

func (b *broadcaster) close() {
	b.stop()
	b.ln.Close()
	b.mu.Lock()
	for c := range b.clients {
		close(c)
		delete(b.clients, c)
	}
	b.mu.Unlock()
	b.running.Wait()
}

func (b *broadcaster) accept(ctx context.Context) {
	for {
		conn, err := b.ln.Accept()
		if err != nil {
			return
		}
		c := make(chan []byte, clientBacklog)
		b.mu.Lock()
		b.clients[c] = true
		b.mu.Unlock()
		b.running.Go(func() {
			defer conn.Close()
			stop := context.AfterFunc(ctx, func() { conn.Close() })
			defer stop()
			for batch := range c {
				if _, err := conn.Write(batch); err != nil {
					b.drop(c)
					for range c {
					}
					return
				}
			}
		})
	}
}

// drop forgets a client; its channel is closed so its writer ends.
func (b *broadcaster) drop(c chan []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.clients[c] {
		delete(b.clients, c)
		close(c)
	}
}

func (b *broadcaster) loop(ctx context.Context) {
	t := time.NewTicker(aisTick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			b.send(b.catchUp(b.n.clock()))
		}
	}
}

// send gives a batch of lines to every client; a client too far behind is dropped.
func (b *broadcaster) send(batch []byte) {
	if len(batch) == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for c := range b.clients {
		select {
		case c <- batch:
		default:
			delete(b.clients, c)
			close(c)
		}
	}
}

// register adds a journey looked up at anchor; its vessels' reports start at the first segment
// (the backlog of a voyage under way goes out at the next tick). A journey that is over, or none
// of whose vessels is its own (each sails for a journey first looked up later), is not kept; the
// journeys it takes every vessel from are dropped.
func (b *broadcaster) register(j *journey, anchor time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, known := b.journeys[j.key]; known {
		return
	}
	v := &voyage{anchor: anchor, start: anchor.Add(-j.lookup), segments: b.n.world.segments(j)}
	if v.over(b.n.simTime(anchor, b.n.clock())) {
		return
	}
	v.sent = v.start.Add(v.segments[0].from - time.Nanosecond)
	var took []string
	for _, s := range v.segments {
		o, owned := b.owner[s.vessel.MMSI]
		if owned && o.key != j.key && !o.supersededBy(j.key, anchor) {
			continue
		}
		if owned && o.key != j.key {
			took = append(took, o.key)
		}
		b.owner[s.vessel.MMSI] = ownership{key: j.key, anchor: anchor}
	}
	if b.owns(j.key, v) {
		b.journeys[j.key] = v
	}
	for _, key := range took {
		if old, ok := b.journeys[key]; ok && !b.owns(key, old) {
			delete(b.journeys, key)
		}
	}
}

// owns reports whether a vessel of v is heard from the journey of key.
func (b *broadcaster) owns(key string, v *voyage) bool {
	for _, s := range v.segments {
		if b.owner[s.vessel.MMSI].key == key {
			return true
		}
	}
	return false
}

// over reports whether every vessel of the voyage fell silent by simulated time simNow.
func (v *voyage) over(simNow time.Time) bool {
	return len(v.segments) == 0 || !simNow.Before(v.start.Add(v.segments[len(v.segments)-1].to))
}

// catchUp returns the lines of every report due between each journey's last tick and real time
// now, in simulated time.
func (b *broadcaster) catchUp(now time.Time) []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	var e ais.Encoder
	var out []byte
	for key, v := range b.journeys {
		simNow := b.n.simTime(v.anchor, now)
		for i := range v.segments {
			s := &v.segments[i]
			if b.owner[s.vessel.MMSI].key != key {
				continue // a journey looked up later uses this vessel now
			}
			from, to := v.start.Add(s.from), v.start.Add(s.to)
			// Reports fall on a grid of positionEvery, the same for every vessel and segment.
			first := v.sent.Add(time.Nanosecond)
			if first.Before(from) {
				first = from
			}
			at := first.Truncate(positionEvery)
			if at.Before(first) {
				at = at.Add(positionEvery)
			}
			for ; !at.After(simNow) && at.Before(to); at = at.Add(positionEvery) {
				if !s.heard || at.Truncate(staticEvery).Equal(at) {
					m := s.vessel
					m.Time = at
					m.Destination = ais.TextOf(s.dest)
					out, _ = e.Append(out, &m)
					s.heard = true
				}
				m := s.report(at.Sub(from), to.Sub(from))
				m.Time = at
				out, _ = e.Append(out, &m)
			}
		}
		v.sent = simNow
		if v.over(simNow) {
			// Its last vessel fell silent: stop walking it at every tick (a lookup of it again
			// finds it over and keeps nothing).
			delete(b.journeys, key)
			for _, s := range v.segments {
				if b.owner[s.vessel.MMSI].key == key {
					delete(b.owner, s.vessel.MMSI)
				}
			}
		}
	}
	return out
}

// segments lays out where the journey's vessels are: at each port from arrival to departure
// (portLinger after arriving at the last), and on each passage: sailing its sea path, queueing at
// a canal, waiting at the anchorage off the port. A vessel without a valid MMSI is not heard.
func (w *world) segments(j *journey) []segment {
	var out []segment
	static := func(c call) (ais.Message, bool) {
		if c.vessel == nil || !boxwatch.ValidMMSI(c.vessel.MMSI) {
			return ais.Message{}, false
		}
		mmsi, _ := strconv.ParseUint(c.vessel.MMSI, 10, 32)
		imo, _ := strconv.ParseUint(c.vessel.IMO, 10, 32)
		return ais.Message{Type: 5, MMSI: uint32(mmsi), IMO: uint32(imo), Name: ais.TextOf(c.vessel.Name),
			CallSign: ais.TextOf(c.vessel.CallSign), ShipType: 70}, true
	}
	for k, c := range j.calls {
		if c.mode != "VESSEL" {
			continue
		}
		vessel, ok := static(c)
		if !ok {
			continue
		}
		arrival, arrived := j.transportAt("ARRI", k)
		departure, departs := j.transportAt("DEPA", k)
		stay := segment{vessel: vessel, path: []geo.Point{c.place.point}, cum: []float64{0}, dest: c.place.LOCODE}
		switch {
		case arrived && departs:
			stay.from, stay.to = arrival.actual, departure.actual
			out = append(out, stay)
		case arrived:
			stay.from, stay.to = arrival.actual, arrival.actual+portLinger
			out = append(out, stay)
		}
	}
	for _, p := range j.passages {
		vessel, ok := static(j.calls[p.from])
		if !ok {
			continue
		}
		out = append(out, p.segments(vessel, j.calls[p.to].place.LOCODE)...)
	}
	slices.SortFunc(out, func(a, b segment) int { return cmp.Compare(a.from, b.from) })
	return out
}

// segments are the passage's stretches: sailing, the canal queue, sailing on, the anchorage.
func (p passage) segments(vessel ais.Message, dest string) []segment {
	nm := p.cum[len(p.cum)-1]
	reach := max(nm-anchorageNM, nm*0.9)
	sailing := p.sailing()
	sail := func(from, to time.Duration) segment {
		return segment{vessel: vessel, from: from, to: to, path: p.path, cum: p.cum, dest: dest,
			pace: p.pace, sailFrom: p.sailed(from), sailTotal: sailing, reach: reach}
	}
	hold := func(from, to time.Duration, at geo.Point) segment {
		return segment{vessel: vessel, from: from, to: to, path: []geo.Point{at}, cum: []float64{0}, dest: dest, anchored: true}
	}
	var out []segment
	if p.canalTo > p.canalFrom {
		out = append(out, sail(p.depart, p.canalFrom),
			hold(p.canalFrom, p.canalTo, pointAlong(p.path, p.cum, min(p.canalNM, reach))),
			sail(p.canalTo, p.anchor))
	} else {
		out = append(out, sail(p.depart, p.anchor))
	}
	if p.berth > p.anchor {
		out = append(out, hold(p.anchor, p.berth, pointAlong(p.path, p.cum, reach)))
	}
	return out
}

// pointAlong is the point along nm of a path.
func pointAlong(path []geo.Point, cum []float64, along float64) geo.Point {
	i := 1
	for i < len(cum)-1 && cum[i] < along {
		i++
	}
	f := 0.0
	if leg := cum[i] - cum[i-1]; leg > 0 {
		f = min(1, max(0, (along-cum[i-1])/leg))
	}
	switch f { // a vertex exactly, not as the interpolation rounds it
	case 0:
		return path[i-1]
	case 1:
		return path[i]
	}
	return geo.Intermediate(path[i-1], path[i], f)
}

// transportAt returns the transport move of a code at call k, if the journey has one.
func (j *journey) transportAt(code string, k int) (move, bool) {
	for _, m := range j.moves {
		if m.family == "TRANSPORT" && m.code == code && m.call == k {
			return m, true
		}
	}
	return move{}, false
}

// seaPath is the path between two ports, with the distance along it to each point: both shared
// by every journey between them, never changed.
func (w *world) seaPath(from, to place) ([]geo.Point, []float64) {
	r := w.seaRoute(from, to)
	return r.points, r.cum
}

// report is the position report of a vessel elapsed into a segment lasting total.
func (s segment) report(elapsed, total time.Duration) ais.Message {
	m := ais.Message{Type: 1, MMSI: s.vessel.MMSI, HasPosition: true}
	if len(s.path) == 1 || total <= 0 {
		m.Position, m.NavStatus = s.path[0], 5 // moored
		if s.anchored {
			m.NavStatus = 1
		}
		m.Speed, m.HasSpeed = 0, true
		return m
	}
	sailed := s.sailFrom + elapsed
	along := s.reach * s.pace.progress(sailed, s.sailTotal)
	knots := s.reach / s.sailTotal.Hours() * s.pace.rate(sailed, s.sailTotal)
	i := 1
	for i < len(s.cum)-1 && s.cum[i] < along {
		i++
	}
	a, c := s.path[i-1], s.path[i]
	f := 0.0
	if leg := s.cum[i] - s.cum[i-1]; leg > 0 {
		f = min(1, (along-s.cum[i-1])/leg)
	}
	m.Position = geo.Intermediate(a, c, f)
	course := geo.Bearing(m.Position, c)
	if f >= 1 {
		course = geo.Bearing(a, c)
	}
	m.Course, m.HasCourse = math.Round(course*10)/10, true
	m.Heading, m.HasHeading = int(math.Round(course))%360, true
	m.Speed, m.HasSpeed = math.Round(knots*10)/10, true
	return m
}
