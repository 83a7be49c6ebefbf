package sim

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/cache"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/geo"
)

// TestVesselsSailOneVoyageAtATime: over a few thousand journeys of every line and lane (the
// README's demo numbers among them) looked up through a year, no vessel sails two voyages at
// once, every journey aboard a voyage sees the same vessel at the same times between the same
// ports, and the AIS track of each vessel, over every voyage looked up, never moves farther
// between two reports than its speed allows.
func TestVesselsSailOneVoyageAtATime(t *testing.T) {
	t.Parallel()
	w := lateWorld(t)
	type numbered struct{ scac, number string }
	numbers := []numbered{{"MSCU", "MEDUFR030802"}, {"MAEU", "MAEU123456784"}}
	for _, line := range data.Carriers().All() {
		for i := range 70 {
			numbers = append(numbers, numbered{line.SCAC, fmt.Sprintf("ROT%s%05d", line.SCAC[:2], i)})
		}
	}
	// voyage is what a journey says of a voyage: its vessel's times and ports, in absolute time.
	type voyage struct {
		depart, berth time.Time
		from, to      string
		key           string
	}
	byVoyage := map[string]voyage{}     // by IMO, voyage number and port left
	byVessel := map[string][]*sailing{} // distinct sailings by IMO
	seen := map[sailingKey]bool{}       // by key: a sailing evicted from the world's cache comes back as another value
	b := &broadcaster{n: &Network{world: w, speed: 1, clock: func() time.Time { return rotationEpoch }}, vessels: map[uint32]*heard{}}
	for i, nb := range numbers {
		line, _ := data.Carriers().BySCAC(nb.scac)
		anchor := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i*37%365)*day + time.Duration(i%24)*hour)
		j := w.newJourney(line, nb.number, anchor)
		start := anchor.Add(-j.lookup)
		for k, p := range j.passages {
			from, to := j.calls[p.from], j.calls[p.to]
			dep, _ := j.transportAt("DEPA", p.from)
			arr, _ := j.transportAt("ARRI", p.to)
			got := voyage{start.Add(dep.actual), start.Add(arr.actual), from.place.LOCODE, to.place.LOCODE, j.key}
			id := from.vessel.IMO + "/" + from.voyage + "/" + got.from
			if from.vessel.IMO != to.vessel.IMO || from.voyage != to.voyage {
				t.Fatalf("%s: leg %d leaves on %s %s and arrives on %s %s", j.key, k, from.vessel.IMO, from.voyage, to.vessel.IMO, to.voyage)
			}
			if v, ok := byVoyage[id]; ok && (!v.depart.Equal(got.depart) || !v.berth.Equal(got.berth) || v.to != got.to) {
				t.Errorf("voyage %s: %s says %s %v–%s %v, %s says %s %v–%s %v", id, v.key, v.from, v.depart, v.to, v.berth,
					j.key, got.from, got.depart, got.to, got.berth)
			}
			byVoyage[id] = got
			if s := j.sailings[k]; !seen[sailingKey{s.loop.id, s.voyage, s.dir}] {
				seen[sailingKey{s.loop.id, s.voyage, s.dir}] = true
				byVessel[s.vessel.IMO] = append(byVessel[s.vessel.IMO], s)
			}
		}
		b.register(j, rotationEpoch)
	}
	overlaps := 0
	for imo, sailings := range byVessel {
		slices.SortFunc(sailings, func(a, b *sailing) int { return cmp.Compare(a.arrival, b.arrival) })
		for k := 1; k < len(sailings); k++ {
			prev, s := sailings[k-1], sailings[k]
			if s.arrival < prev.passage.berth {
				overlaps++
				if overlaps <= 10 {
					t.Errorf("vessel %s: voyage %s (%s %v–%v) begins before voyage %s (%s %v–%v) ends", imo,
						s.number, s.loop.id, rotationEpoch.Add(s.arrival), rotationEpoch.Add(s.passage.berth),
						prev.number, prev.loop.id, rotationEpoch.Add(prev.arrival), rotationEpoch.Add(prev.passage.berth))
				}
			}
		}
	}
	if overlaps > 0 {
		t.Errorf("%d voyages overlap another of their vessel", overlaps)
	}
	// The AIS track of every vessel, a report every half hour: no jump but the hop from the
	// anchorage to the berth.
	reports, shared := 0, 0
	for _, h := range b.vessels {
		if len(h.sailings) > 1 {
			shared++
		}
		k := 0
		var last geo.Point
		var lastAt time.Time
		for at := rotationEpoch.Add(h.segments[0].from).Truncate(30 * time.Minute); k < len(h.segments); at = at.Add(30 * time.Minute) {
			_, m, ok := h.report(at, &k)
			if !ok {
				continue
			}
			reports++
			if !lastAt.IsZero() {
				allowed := maxKnots*at.Sub(lastAt).Hours()*1.05 + anchorageNM + 1
				if d := geo.DistanceNM(last, m.Position); d > allowed {
					t.Fatalf("vessel %d: %.0f nm from %v to %v, at most %.0f nm at %.1f kn", m.MMSI, d, lastAt, at, allowed, maxKnots)
				}
			}
			last, lastAt = m.Position, at
		}
	}
	t.Logf("sailing cache: %+v", w.sailings.Stats())
	t.Logf("%d journeys, %d voyages on %d vessels (%d heard on more than one voyage), %d AIS reports", len(numbers),
		len(seen), len(byVessel), shared, reports)
	if len(numbers) < 2000 || shared == 0 {
		t.Errorf("%d journeys, %d vessels heard on more than one voyage: the test should cover both", len(numbers), shared)
	}
}

// TestSailingsEvictedLaidOutAgain: a world whose sailing cache holds a handful of sailings lays out
// every sailing as one that holds them all does (each follows its vessel's one before, back to
// the epoch if need be), and its cache never weighs more than its bound.
func TestSailingsEvictedLaidOutAgain(t *testing.T) {
	t.Parallel()
	full, small := lateWorld(t), lateWorld(t)
	const bound = 16 << 10
	small.sailings = cache.New("sim_sailings", bound, sailingBytes)
	var loops []*loop
	for _, k := range slices.Sorted(maps.Keys(full.loops)) {
		loops = append(loops, full.loops[k]...)
	}
	d := dice("evicted")
	// Twenty loops asked in turn for voyages through 2024–2026, mostly later ones (as time passes)
	// and now and then an earlier one: the small cache holds some of each loop's, so a sailing is
	// laid out after the nearest one it still holds, or from the epoch.
	picked := make([]*loop, 20)
	next := make([]int, len(picked))
	for i := range picked {
		picked[i] = loops[d.intn(fmt.Sprint("loop/", i), len(loops))]
	}
	for i := range 600 {
		k := i % len(picked)
		lp := picked[k]
		slp := small.loopByID(lp.id)
		if slp == nil {
			t.Fatalf("loop %s is in one world only", lp.id)
		}
		next[k] += 1 + d.intn(fmt.Sprint("step/", i), 3*len(lp.vessels))
		v := next[k]
		if d.frac(fmt.Sprint("back/", i)) < 0.2 {
			v = d.intn(fmt.Sprint("voyage/", i), v+1)
		}
		dir := d.intn(fmt.Sprint("dir/", i), 2)
		a, b := full.sailing(lp, v, dir), small.sailing(slp, v, dir)
		if a.vessel.IMO != b.vessel.IMO || a.arrival != b.arrival || a.passage.depart != b.passage.depart ||
			a.passage.berth != b.passage.berth || a.omits != b.omits || a.number != b.number {
			t.Fatalf("%s voyage %d dir %d laid out again differs: vessel %s/%s, arrival %v/%v, departure %v/%v, berth %v/%v",
				lp.id, v, dir, a.vessel.IMO, b.vessel.IMO, a.arrival, b.arrival, a.passage.depart, b.passage.depart,
				a.passage.berth, b.passage.berth)
		}
		if st := small.sailings.Stats(); st.Bytes > bound {
			t.Fatalf("the sailing cache weighs %d bytes, over its bound of %d", st.Bytes, bound)
		}
	}
	if st := small.sailings.Stats(); st.Evictions == 0 {
		t.Errorf("the small cache evicted nothing (%+v): the test lays out nothing again", st)
	}
}

// loopByID returns the loop of w named id, or nil.
func (w *world) loopByID(id string) *loop {
	for _, ls := range w.loops {
		for _, lp := range ls {
			if lp.id == id {
				return lp
			}
		}
	}
	return nil
}
