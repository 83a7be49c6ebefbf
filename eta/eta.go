// Package eta predicts when a vessel at sea reaches its next port. Arrival is the sea distance
// still to go (from package searoute) at the speed the vessel has actually made good over its
// recent track; Predict adds what the track cannot show, the queues at the canals on the way and
// the wait at the port's anchorage, from the waits other vessels recently had there (Waits,
// learned from their tracks and berthing milestones), and weighs the carrier's ETA where it
// knows better: once the vessel waits off the port, the carrier has the terminal's berthing plan.
// Carriers' ETAs at sea follow the schedule and lag what the ship does; the track does not.
//
// The package does no I/O: callers hand it the track, the route's distance and canals, the
// carrier's ETA and the waits they saw. It must not know how a simulated world is made.
package eta

import (
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/geo"
)

// Window is how much of the recent track the speed is measured over: long enough to smooth a
// slow-down round a headland or a gap in reception, short enough to follow a change of pace.
const Window = 12 * time.Hour

// MinKnots is the slowest speed a prediction is made at: below it the vessel is drifting, at
// anchor or waiting for a berth, and its arrival depends on things its track does not show.
const MinKnots = 2.0

// Speed returns the speed in knots the vessel made good over the last Window of track (oldest
// first): the length sailed along the positions over the time they span. With less than an hour
// of track it falls back to the last position's reported speed over ground; ok is false when
// neither is known.
func Speed(track []boxwatch.VesselPosition) (knots float64, ok bool) {
	if len(track) == 0 {
		return 0, false
	}
	last := track[len(track)-1]
	since := last.Timestamp.Add(-Window)
	nm := 0.0
	first := len(track) - 1
	for i := len(track) - 1; i > 0 && !track[i-1].Timestamp.Before(since); i-- {
		nm += geo.DistanceNM(point(track[i-1]), point(track[i]))
		first = i - 1
	}
	if span := last.Timestamp.Sub(track[first].Timestamp); span >= time.Hour {
		return nm / span.Hours(), true
	}
	if last.SpeedKnots != nil {
		return *last.SpeedKnots, true
	}
	return 0, false
}

// Arrival is the predicted arrival of a vessel seen at a time with distanceNM still to sail at
// knots. ok is false below MinKnots or for a negative distance.
func Arrival(at time.Time, distanceNM, knots float64) (time.Time, bool) {
	if knots < MinKnots || distanceNM < 0 {
		return time.Time{}, false
	}
	return at.Add(time.Duration(distanceNM / knots * float64(time.Hour))).Truncate(time.Second), true
}

func point(p boxwatch.VesselPosition) geo.Point { return geo.Point{Lat: p.Latitude, Lon: p.Longitude} }
