package sim

import (
	"strconv"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/geo"
)

// Replay is the last ocean leg of a simulated journey as the simulation lays it out: when the
// vessel really arrives at the port of discharge, what the carrier estimates before that, and the
// positions the vessel broadcasts on the way. It exists to measure arrival predictions against
// the simulated truth (see eta/cmd/etaeval); the carrier API and the AIS feed say the same.
type Replay struct {
	j     *journey
	start time.Time // the journey's start: offsets of its moves count from here
	leg   []segment // the vessel's passage to the port of discharge, in order
	pod   int       // index of the port of discharge's call
	arri  int       // index of the arrival move there
}

// Replay returns the replay of the journey of a number with a line (primary or alternative
// SCAC), its first lookup at anchor. ok is false for unknown numbers and SCACs, and for journeys
// whose vessel to the port of discharge broadcasts no AIS.
func (n *Network) Replay(scac, number string, anchor time.Time) (Replay, bool) {
	line, ok := n.lines[scac]
	if !ok || unknown(line, number) {
		return Replay{}, false
	}
	j := n.world.newJourney(line, number, anchor)
	r := Replay{j: j, start: anchor.Add(-j.lookup), pod: j.pod(), arri: -1}
	for i, m := range j.moves {
		if m.family == "TRANSPORT" && m.code == "ARRI" && m.call == r.pod {
			r.arri = i
		}
	}
	if r.arri < 0 {
		return Replay{}, false
	}
	last := j.passages[len(j.passages)-1]
	for _, s := range n.world.segments(j) {
		if s.from >= last.depart && s.to <= last.berth && s.dest == j.calls[r.pod].place.LOCODE {
			r.leg = append(r.leg, s)
		}
	}
	return r, len(r.leg) > 0
}

// Port is the port of discharge's position; LOCODE its UN/LOCODE.
func (r Replay) Port() geo.Point { return r.j.calls[r.pod].place.point }
func (r Replay) LOCODE() string  { return r.j.calls[r.pod].place.LOCODE }

// Departed and Arrived are the instants the vessel really leaves for the port of discharge and
// reaches it (the carrier reports its times to the minute).
func (r Replay) Departed() time.Time { return r.start.Add(r.leg[0].from) }
func (r Replay) Arrived() time.Time  { return r.start.Add(r.j.moves[r.arri].actual) }

// CarrierETA is the carrier's latest estimate of the arrival at the port of discharge as of at,
// and when the carrier made it; ok is false before the plan is published or once the arrival is
// recorded.
func (r Replay) CarrierETA(at time.Time) (eta, revised time.Time, ok bool) {
	m := r.j.moves[r.arri]
	if !r.start.Add(m.actual + m.lag).After(at) {
		return time.Time{}, time.Time{}, false
	}
	est, rev, ok := r.j.estimate(dice("estimates/"+r.j.key), r.arri, at.Sub(r.start))
	if !ok {
		return time.Time{}, time.Time{}, false
	}
	return r.start.Add(est).Truncate(time.Minute), r.start.Add(rev).Truncate(time.Minute), true
}

// Track is the positions the vessel broadcasts on its way to the port of discharge from since up
// to at, one every `every` of simulated time (boxwatch stores one every five minutes), oldest
// first: under way, queueing at a canal, waiting at the anchorage.
func (r Replay) Track(since, at time.Time, every time.Duration) []boxwatch.VesselPosition {
	var out []boxwatch.VesselPosition
	t := since.Truncate(every)
	if t.Before(since) {
		t = t.Add(every)
	}
	k := 0
	for ; !t.After(at); t = t.Add(every) {
		for k < len(r.leg) && !r.start.Add(r.leg[k].to).After(t) {
			k++
		}
		if k == len(r.leg) {
			break
		}
		s := r.leg[k]
		from, to := r.start.Add(s.from), r.start.Add(s.to)
		if t.Before(from) {
			continue
		}
		m := s.report(t.Sub(from), to.Sub(from))
		speed, course := m.Speed, m.Course
		mmsi := strconv.FormatUint(uint64(s.vessel.MMSI), 10)
		p := boxwatch.VesselPosition{MMSI: mmsi, Latitude: m.Position.Lat, Longitude: m.Position.Lon, SpeedKnots: &speed, Timestamp: t}
		if m.HasCourse {
			p.CourseDegrees = &course
		}
		out = append(out, p)
	}
	return out
}

// Lane is the trade of the journey's service ("TP Transpacific"), to group measurements by.
func (r Replay) Lane() string {
	for _, s := range r.j.calls {
		if s.service != "" {
			for _, l := range lanes {
				if strings.HasPrefix(s.service, l.code) {
					return l.code + " " + l.name
				}
			}
		}
	}
	return ""
}
