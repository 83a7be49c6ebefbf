package sim

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/data"
)

// punctuality counts vessel arrivals as Sea-Intelligence does: on time within a day of the
// vessel's schedule, early or late; the delay of the late ones.
type punctuality struct {
	arrivals, onTime, late int
	lateDays               float64
}

// add counts a vessel's arrival at the end of a sailing.
func (p *punctuality) add(s *sailing) {
	delay := s.passage.berth - s.plannedBerth
	p.arrivals++
	switch {
	case delay.Abs() <= day:
		p.onTime++
	case delay > day:
		p.late++
		p.lateDays += delay.Hours() / 24
	}
}

func (p punctuality) share() float64    { return float64(p.onTime) / float64(p.arrivals) }
func (p punctuality) lateMean() float64 { return p.lateDays / float64(p.late) }

// TestScheduleReliability holds the simulated world to Sea-Intelligence's Global Liner
// Performance figures for September 2025, counting as the report does every vessel arrival of
// every line's services (each voyage of the loops it sails, both ways, through 2025): 65.2 % of
// arrivals on time and late ones 4.88 days late on average; each line within 4 points of its own
// figure (Maersk 77.0 %, Hapag-Lloyd 73.6 %, Wan Hai 47.9 %; the carriers the report only places
// in a band, within it; the others near the industry's).
func TestScheduleReliability(t *testing.T) {
	t.Parallel()
	w := lateWorld(t)
	var all punctuality
	byLine := map[string]*punctuality{}
	counted := map[*loop]bool{}
	from, to := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, line := range data.Carriers().All() {
		if line.TestLine {
			continue
		}
		p := &punctuality{}
		byLine[line.SCAC] = p
		for _, s := range w.services[line.SCAC] {
			for _, loops := range s.loops {
				for _, lp := range loops {
					for v := lp.voyageIndex(from); v < lp.voyageIndex(to); v++ {
						for dir := range 2 {
							s := w.sailing(lp, v, dir)
							p.add(s)
							if !counted[lp] {
								all.add(s)
							}
						}
					}
					counted[lp] = true
				}
			}
		}
	}
	t.Logf("all: %d arrivals, %.1f %% on time, late by %.2f days", all.arrivals, 100*all.share(), all.lateMean())
	if math.Abs(all.share()-industryOnTime) > 0.03 {
		t.Errorf("%.1f %% of arrivals on time; September 2025: 65.2 %%", 100*all.share())
	}
	if math.Abs(all.lateMean()-4.88) > 0.4 {
		t.Errorf("late arrivals %.2f days late; September 2025: 4.88", all.lateMean())
	}
	scacs := make([]string, 0, len(byLine))
	for s := range byLine {
		scacs = append(scacs, s)
	}
	slices.Sort(scacs)
	for _, s := range scacs {
		p := byLine[s]
		want, ok := onTime[s]
		if !ok {
			want = industryOnTime
		}
		t.Logf("%s: %d arrivals, %.1f %% on time (figure %.1f %%), late by %.2f days", s, p.arrivals, 100*p.share(), 100*want, p.lateMean())
		if math.Abs(p.share()-want) > 0.04 {
			t.Errorf("%s: %.1f %% on time, want %.1f %% within 4 points", s, 100*p.share(), 100*want)
		}
	}
}
