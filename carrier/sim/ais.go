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
// A vessel is heard on the voyages that boxes looked up sail on, from the voyages' own truth
// (rotation.go), so every journey aboard sees it at the same place.
type broadcaster struct {
	n  *Network
	ln net.Listener

	// vessels holds a vessel while one of its voyages looked up is still to be heard from: what
	// the broadcaster keeps is bounded by the vessels sailing, not by the lookups made.
	mu      sync.Mutex
	vessels map[uint32]*heard // by MMSI
	clients map[chan []byte]bool

	stop    context.CancelFunc
	running sync.WaitGroup
}

// heard is a vessel the feed broadcasts: the voyages of it looked up, and the simulated clock its
// reports keep.
type heard struct {
	// anchor is the first lookup (real time) of the latest journey aboard: simulated time runs
	// from it (the same for every journey at Speed 1), so the vessel is heard where the journey
	// looked up last sees it. Its reports never go back in time.
	anchor   time.Time
	sailings map[sailingKey]*sailing // by key: the world's cache may lay a sailing out again
	segments []segment               // offsets from rotationEpoch, by start
	sent     time.Time               // simulated time up to which reports were sent
	static   bool                    // a static report was sent
}

// segment is a vessel's stay at a port, wait at an anchorage or a canal, or sailing between two,
// in offsets of a journey or of rotationEpoch.
type segment struct {
	vessel   ais.Message // MMSI, IMO, name, call sign, dimensions: the static report's fields
	from, to time.Duration
	path     []geo.Point // one point while at a port or waiting
	cum      []float64   // nm along path to each point
	dest     string      // UN/LOCODE the vessel is bound for
	anchored bool        // waiting at anchor rather than moored at a berth
	// While sailing: the passage's pace, the sailing time at from, the whole sailing time, and
	// how far along path the sailing ends (the anchorage off the port).
	pace                pacing
	sailFrom, sailTotal time.Duration
	reach               float64
	// scale is the sea distance over the path's length: without a router, vessels are drawn on
	// the great circle but sail, and report the speed of, the longer sea distance.
	scale float64
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
	b := &broadcaster{n: n, ln: ln, vessels: map[uint32]*heard{}, clients: map[chan []byte]bool{}, stop: cancel}
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

// register adds the voyages of a journey looked up at anchor; a vessel newly heard is heard from
// its arrival at the port it leaves (the backlog of a voyage under way goes out at the next
// tick). A voyage over is not kept.
func (b *broadcaster) register(j *journey, anchor time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	simNow := b.n.simTime(anchor, b.n.clock())
	for _, s := range j.sailings {
		vessel, ok := staticOf(s.vessel)
		if !ok {
			continue
		}
		segs := s.segments(vessel)
		if !simNow.Before(rotationEpoch.Add(segs[len(segs)-1].to)) {
			continue
		}
		h := b.vessels[vessel.MMSI]
		if h == nil {
			h = &heard{anchor: anchor, sailings: map[sailingKey]*sailing{}, sent: rotationEpoch.Add(segs[0].from - time.Nanosecond)}
			b.vessels[vessel.MMSI] = h
		}
		if anchor.After(h.anchor) {
			h.anchor = anchor
		}
		key := sailingKey{s.loop.id, s.voyage, s.dir}
		if h.sailings[key] != nil || slices.ContainsFunc(h.segments, func(g segment) bool { return g.from == segs[0].from }) {
			continue
		}
		h.sailings[key] = s
		h.segments = append(h.segments, segs...)
		slices.SortFunc(h.segments, func(a, b segment) int { return cmp.Compare(a.from, b.from) })
	}
}

// catchUp returns the lines of every report due between each vessel's last tick and real time
// now, in simulated time: one report per tick of a grid of positionEvery, from the segment the
// vessel is in then.
func (b *broadcaster) catchUp(now time.Time) []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	var e ais.Encoder
	var out []byte
	for mmsi, h := range b.vessels {
		simNow := b.n.simTime(h.anchor, now)
		if !simNow.After(h.sent) {
			continue
		}
		at := h.sent.Add(time.Nanosecond)
		if first := rotationEpoch.Add(h.segments[0].from); at.Before(first) {
			at = first
		}
		if t := at.Truncate(positionEvery); t.Before(at) {
			at = t.Add(positionEvery)
		} else {
			at = t
		}
		k := 0
		for ; !at.After(simNow) && k < len(h.segments); at = at.Add(positionEvery) {
			s, m, ok := h.report(at, &k)
			if !ok {
				continue
			}
			if !h.static || at.Truncate(staticEvery).Equal(at) {
				m := s.vessel
				m.Time = at
				m.Destination = ais.TextOf(s.dest)
				out, _ = e.Append(out, &m)
				h.static = true
			}
			out, _ = e.Append(out, &m)
		}
		h.sent = simNow
		// Forget what is over: the voyages, then the vessel once it fell silent (a lookup of a
		// voyage over keeps nothing).
		h.segments = slices.DeleteFunc(h.segments, func(s segment) bool { return !rotationEpoch.Add(s.to).After(simNow) })
		for key, s := range h.sailings {
			if !rotationEpoch.Add(s.passage.berth + portLinger).After(simNow) {
				delete(h.sailings, key)
			}
		}
		if len(h.segments) == 0 {
			delete(b.vessels, mmsi)
		}
	}
	return out
}

// report is the vessel's position report at simulated time at, from the first segment it is in
// then; ok is false between two voyages looked up. Successive calls must ask for later times,
// with the same k, 0 at first.
func (h *heard) report(at time.Time, k *int) (segment, ais.Message, bool) {
	for *k < len(h.segments) && !rotationEpoch.Add(h.segments[*k].to).After(at) {
		*k++
	}
	if *k == len(h.segments) {
		return segment{}, ais.Message{}, false
	}
	s := h.segments[*k]
	from, to := rotationEpoch.Add(s.from), rotationEpoch.Add(s.to)
	if at.Before(from) {
		return segment{}, ais.Message{}, false
	}
	m := s.report(at.Sub(from), to.Sub(from))
	m.Time = at
	return s, m, true
}

// staticOf is the static report of a vessel; ok is false for a vessel without a valid MMSI,
// which is not heard.
func staticOf(v *boxwatch.Vessel) (ais.Message, bool) {
	if v == nil || !boxwatch.ValidMMSI(v.MMSI) {
		return ais.Message{}, false
	}
	mmsi, _ := strconv.ParseUint(v.MMSI, 10, 32)
	imo, _ := strconv.ParseUint(v.IMO, 10, 32)
	return ais.Message{Type: 5, MMSI: uint32(mmsi), IMO: uint32(imo), Name: ais.TextOf(v.Name),
		CallSign: ais.TextOf(v.CallSign), ShipType: 70}, true
}

// segments lays out where a sailing's vessel is, in offsets from rotationEpoch: at the port it
// leaves from its arrival to its departure, on the passage (sailing its sea path, queueing at a
// canal, waiting at the anchorage off the port), and at the port it berths at until it can have
// left at the earliest.
func (s *sailing) segments(vessel ais.Message) []segment {
	from, to := s.from(), s.to()
	at := func(p place, a, b time.Duration) segment {
		return segment{vessel: vessel, from: a, to: b, path: []geo.Point{p.point}, cum: []float64{0}, dest: p.LOCODE}
	}
	out := []segment{at(from, s.arrival, s.passage.depart)}
	out = append(out, s.passage.segments(vessel, to.LOCODE)...)
	return append(out, at(to, s.passage.berth, s.passage.berth+minStayLow))
}

// segments lays out where a journey's vessels are, in offsets of the journey: at each port from
// arrival to departure (portLinger after arriving at the last), and on each passage: sailing its
// sea path, queueing at a canal, waiting at the anchorage off the port. A vessel without a valid
// MMSI is not heard.
func (w *world) segments(j *journey) []segment {
	var out []segment
	for k, c := range j.calls {
		if c.mode != "VESSEL" {
			continue
		}
		vessel, ok := staticOf(c.vessel)
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
		vessel, ok := staticOf(j.calls[p.from].vessel)
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
			pace: p.pace, sailFrom: p.sailed(from), sailTotal: sailing, reach: reach, scale: max(1, p.nm/nm)}
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
	knots := s.reach / s.sailTotal.Hours() * s.pace.rate(sailed, s.sailTotal) * max(1, s.scale)
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
