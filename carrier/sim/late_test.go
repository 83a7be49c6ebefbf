package sim

import (
	"fmt"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/searoute"
)

// lateWorld is the world on the sea router's paths, as the service runs it.
func lateWorld(t *testing.T) *world {
	t.Helper()
	sea := data.SeaNetwork()
	w, err := newWorld(data.Carriers(), data.Ports(), data.Fleet(), func(from, to geo.Point) ([]geo.Point, float64, error) {
		p, err := sea.Route(from, to, searoute.Options{})
		return p.Points, p.DistanceNM, err
	})
	if err != nil {
		t.Fatal(err)
	}
	w.setTerminals(data.Terminals()) // as New does
	return w
}

// The AIS broadcast follows the journey's truth: every passage's vessel leaves the port it departs
// from, moves without jumps (but the hop from the anchorage to the berth), holds still inside the
// canal it queues at, waits at anchor off the port until the moment the carrier reports its
// arrival, and is at the port then.
func TestPositionsFollowTheJourney(t *testing.T) {
	t.Parallel()
	w := lateWorld(t)
	waited, queued := 0, 0
	for _, scac := range []string{"MAEU", "MSCU", "CMDU", "WHLC"} {
		line, _ := data.Carriers().BySCAC(scac)
		for i := range 60 {
			j := w.newJourney(line, fmt.Sprintf("AIS%07d", i), time.Date(2026, 1+time.Month(i%12), 3, 0, 0, 0, 0, time.UTC))
			segs := w.segments(j)
			for _, p := range j.passages {
				arrival, _ := j.transportAt("ARRI", p.to)
				departure, _ := j.transportAt("DEPA", p.from)
				if arrival.actual != p.berth || departure.actual != p.depart {
					t.Fatalf("%s: passage %v–%v, the carrier says %v–%v", j.key, p.depart, p.berth, departure.actual, arrival.actual)
				}
				port := j.calls[p.to].place
				var prev geo.Point
				for k, s := range segs {
					if s.from < p.depart || s.to > p.berth || len(s.path) == 1 && !s.anchored {
						continue
					}
					for at := s.from; at < s.to; at += time.Hour {
						m := s.report(at-s.from, s.to-s.from)
						if k > 0 && at > p.depart && geo.DistanceNM(prev, m.Position) > 40 {
							t.Fatalf("%s: the vessel jumps %.0f nm at %v", j.key, geo.DistanceNM(prev, m.Position), at)
						}
						prev = m.Position
					}
					if s.anchored {
						if p.canalTo > p.canalFrom && s.from == p.canalFrom {
							queued++
							if !p.canal.contains(s.path[0]) {
								t.Errorf("%s: queues for %s at %v, outside it", j.key, p.canal.name, s.path[0])
							}
							continue
						}
						waited++
						if d := geo.DistanceNM(s.path[0], port.point); d > 10 || s.to != p.berth {
							t.Errorf("%s: waits %.1f nm off %s until %v, berths at %v", j.key, d, port.LOCODE, s.to, p.berth)
						}
					}
				}
				if d := geo.DistanceNM(prev, port.point); d > 10 {
					t.Errorf("%s: %.1f nm from %s as it berths", j.key, d, port.LOCODE)
				}
			}
		}
	}
	if waited == 0 || queued == 0 {
		t.Errorf("%d waits at anchor and %d canal queues: the journeys should show both", waited, queued)
	}
}

// The carrier's ETA for a vessel's arrival is the schedule until the vessel leaves its previous
// call (or the day before the arrival, on a leg shorter than that), then revised in a few steps, wrong by a day or more a week out on many voyages, and within
// the hour the day before.
func TestCarrierETAsRevisedLateInSteps(t *testing.T) {
	t.Parallel()
	w := lateWorld(t)
	line, _ := data.Carriers().BySCAC("MSCU")
	voyages, offAWeekOut, steps := 0, 0, 0
	for i := range 300 {
		j := w.newJourney(line, fmt.Sprintf("ETA%07d", i), time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
		d := dice("estimates/" + j.key)
		for k, m := range j.moves {
			if m.family != "TRANSPORT" || m.code != "ARRI" || m.call == 1 {
				continue
			}
			p := j.passages[0]
			if p.to != m.call {
				p = j.passages[1]
			}
			voyages++
			var last time.Duration
			changes := 0
			for at := j.confirmed; at < m.actual; at += time.Hour {
				est, _, _ := j.estimate(d, k, at)
				if at < p.depart && at < m.actual-30*hour && est != m.planned+m.slot {
					t.Fatalf("%s: ETA %v before the vessel left, the schedule says %v", j.key, est, m.planned+m.slot)
				}
				if at > j.confirmed && est != last {
					changes++
				}
				last = est
			}
			steps += changes
			if changes > 5 {
				t.Errorf("%s: the ETA changed %d times", j.key, changes)
			}
			if week, _, _ := j.estimate(d, k, m.actual-7*day); m.actual-7*day > p.depart && (week-m.actual).Abs() > day {
				offAWeekOut++
			}
			if dayBefore, _, _ := j.estimate(d, k, m.actual-min(18*hour, (m.actual-j.confirmed)/10)); (dayBefore - m.actual).Abs() > 30*time.Minute {
				t.Errorf("%s: ETA %v the day before an arrival at %v", j.key, dayBefore, m.actual)
			}
		}
	}
	t.Logf("%d arrivals, %.1f ETA changes each, %d off by more than a day a week out", voyages, float64(steps)/float64(voyages), offAWeekOut)
	if offAWeekOut*10 < voyages {
		t.Errorf("only %d of %d ETAs off by more than a day a week out", offAWeekOut, voyages)
	}
}

// Boxes miss their vessel at the port of lading (shut out, or the vessel omits the call) and at
// the hub, and go on the loop's next voyage (a headway later: a week on long legs), which the
// carrier says.
func TestBoxesRollToTheNextVessel(t *testing.T) {
	t.Parallel()
	w := lateWorld(t)
	line, _ := data.Carriers().BySCAC("HLCU")
	reasons := map[string]int{}
	journeys := 2000
	for i := range journeys {
		// First looked up over most of a year: with rotations the boxes of one day share a few
		// sailings, and whether those omit a call would decide the count.
		j := w.newJourney(line, fmt.Sprintf("ROLL%07d", i), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i)*3*time.Hour))
		for _, m := range j.moves {
			if m.family != "TRANSPORT" || m.code != "DEPA" || m.slot == 0 {
				continue
			}
			headway := j.sailings[0].loop.headway
			if m.call != 1 {
				headway = j.sailings[len(j.sailings)-1].loop.headway
			}
			if m.slot%headway != 0 || m.actual-m.planned < m.slot-day {
				t.Errorf("%s: leaves %v after its plan, on a vessel scheduled %v later", j.key, m.actual-m.planned, m.slot)
			}
			reasons[m.reason.remark]++
		}
	}
	t.Logf("%v", reasons)
	shutOut, omitted := reasons["Booked on the next vessel"], reasons["Call omitted by the vessel booked; booked on the next vessel"]
	if shutOut < journeys/100 || omitted < journeys/200 {
		t.Errorf("of %d journeys, %d boxes shut out or missing their connection and %d left by an omitted call", journeys, shutOut, omitted)
	}
}
