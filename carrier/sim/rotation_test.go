package sim

import (
	"cmp"
	"fmt"
	"slices"
	"testing"
	"time"

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
	seen := map[*sailing]bool{}
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
			if s := j.sailings[k]; !seen[s] {
				seen[s] = true
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
	t.Logf("%d journeys, %d voyages on %d vessels (%d heard on more than one voyage), %d AIS reports", len(numbers),
		len(seen), len(byVessel), shared, reports)
	if len(numbers) < 2000 || shared == 0 {
		t.Errorf("%d journeys, %d vessels heard on more than one voyage: the test should cover both", len(numbers), shared)
	}
}
