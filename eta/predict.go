package eta

import (
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/geo"
)

// Voyage is what the service sees of a vessel bound for a port, as of At: its recent track, the
// sea route still to sail, and the canals on that route.
type Voyage struct {
	At time.Time
	// Track is the vessel's positions up to At, oldest first: CruiseWindow of them at least, when
	// the vessel has been under way that long.
	Track []boxwatch.VesselPosition
	// Port is the port of discharge (its UN/LOCODE, the key of its waits) and where it is.
	Port      string
	PortPoint geo.Point
	// RemainingNM is the length of the sea route from the last position to the port, and Canals
	// the queueing places on it, in order (the keys of their waits).
	RemainingNM float64
	Canals      []string
	// InCanal is the canal the vessel is in or off when it is one, else "".
	InCanal string
	// CarrierETA is the carrier's latest estimate of the arrival, zero when it gave none.
	CarrierETA time.Time
}

// CruiseWindow is how much of the track the cruising speed is measured over: long enough that a
// day of weather averages out, short enough to follow the passage's pace.
const CruiseWindow = 48 * time.Hour

// AnchorageNM is how close to its port of discharge a stopped vessel counts as waiting for a
// berth; StoppedKnots is the speed below which it counts as stopped.
const (
	AnchorageNM  = 15.0
	StoppedKnots = 1.0
)

// How Predict weighs the carrier's estimate, tuned on simulated voyages (etaeval's seeds TUNE1
// and TUNE2, never those it is graded on). Carriers revise their ETAs late and in steps: once the
// vessel waits off the port, to the terminal's berthing plan, and the day before it berths, to
// the hour; at sea, to the schedule and what they hear of the voyage, which the track betters.
const (
	// LastWordLead is how close to its arrival the carrier's estimate for a vessel at anchor
	// counts as its last word, the berthing plan, and is taken as it is.
	LastWordLead = 36 * time.Hour
	// AnchoredWeight is the weight of the waits seen at the port against the carrier's estimate
	// for a vessel at anchor further out (the terminal's plan, off by a third of the wait or so).
	AnchoredWeight = 0.5
	// SeaWaitQuantile is the quantile of the port's waits that a vessel under way is expected to
	// wait: most vessels sail straight in or wait hours, a few wait days for a berth (congestion),
	// and a vessel days out shows neither; a low quantile errs least on the many.
	SeaWaitQuantile = 0.25
)

// Predict returns when the vessel is expected to berth at its port of discharge. At the
// anchorage off the port: when the carrier expects it within LastWordLead, then; else as long as
// the waits there leave it to, weighed with the carrier's estimate (AnchoredWeight). Under way:
// after the route still to sail at the speed it has made good while cruising, the queues at the
// canals on the way (as long as those recently seen there) and the wait at the port most vessels
// have (SeaWaitQuantile). ok is false without a track or when the vessel has not been seen
// cruising.
func Predict(v Voyage, waits *Waits) (time.Time, bool) {
	if len(v.Track) == 0 {
		return time.Time{}, false
	}
	last := v.Track[len(v.Track)-1]
	since, stopped := stoppedSince(v.Track)
	if stopped && geo.DistanceNM(point(last), v.PortPoint) <= AnchorageNM {
		carrier := v.CarrierETA.After(v.At)
		if carrier && v.CarrierETA.Sub(v.At) <= LastWordLead {
			return v.CarrierETA, true
		}
		left, _ := waits.Remaining(v.Port, v.At, v.At.Sub(since))
		at := v.At.Add(left)
		if carrier {
			at = v.CarrierETA.Add(time.Duration(AnchoredWeight * float64(at.Sub(v.CarrierETA))))
		}
		return at.Truncate(time.Second), true
	}
	knots, ok := CruiseSpeed(v.Track)
	if !ok {
		return time.Time{}, false
	}
	at := v.At.Add(time.Duration(v.RemainingNM / knots * float64(time.Hour)))
	if stopped && v.InCanal != "" {
		left, _ := waits.Remaining(v.InCanal, v.At, v.At.Sub(since))
		at = at.Add(left)
	}
	for _, c := range v.Canals {
		if c == v.InCanal {
			continue
		}
		left, _ := waits.Remaining(c, v.At, 0)
		at = at.Add(left)
	}
	left, _ := waits.Quantile(v.Port, v.At, 0, SeaWaitQuantile)
	return at.Add(left).Truncate(time.Second), true
}

// stoppedSince reports whether the vessel's last position is stopped and since when it has been,
// by the track.
func stoppedSince(track []boxwatch.VesselPosition) (time.Time, bool) {
	i := len(track) - 1
	if !isStopped(track, i) {
		return time.Time{}, false
	}
	for i > 0 && isStopped(track, i-1) {
		i--
	}
	return track[i].Timestamp, true
}

// isStopped reports whether the vessel is stopped at position i: its reported speed, or the
// distance to the next position when it reports none.
func isStopped(track []boxwatch.VesselPosition, i int) bool {
	if s := track[i].SpeedKnots; s != nil {
		return *s < StoppedKnots
	}
	if i+1 < len(track) {
		h := track[i+1].Timestamp.Sub(track[i].Timestamp).Hours()
		return h > 0 && geo.DistanceNM(point(track[i]), point(track[i+1]))/h < StoppedKnots
	}
	return false
}

// CruiseSpeed is the speed in knots the vessel made good under way over the last CruiseWindow
// of its track (oldest first) it spent under way, leaving out the time it was stopped: at a
// canal, at anchor. ok is false when it covers less than an hour under way or is below MinKnots.
func CruiseSpeed(track []boxwatch.VesselPosition) (float64, bool) {
	nm, hours := 0.0, 0.0
	for i := len(track) - 1; i > 0 && hours < CruiseWindow.Hours(); i-- {
		if isStopped(track, i-1) {
			continue
		}
		nm += geo.DistanceNM(point(track[i-1]), point(track[i]))
		hours += track[i].Timestamp.Sub(track[i-1].Timestamp).Hours()
	}
	if hours < 1 || nm/hours < MinKnots {
		return 0, false
	}
	return nm / hours, true
}

// MaxLookback bounds how far back Predict is handed a vessel's track: a stop at a canal or off a
// port longer than this is traced only this far.
const MaxLookback = 14 * 24 * time.Hour

// TrackFrom is the index of the first position of track (oldest first) that Predict looks at:
// back far enough for CruiseSpeed's CruiseWindow under way and for the whole of the stop the
// vessel is in at the end, within MaxLookback of the last position. A caller keeping a vessel's
// recent positions for Predict may drop the ones before.
func TrackFrom(track []boxwatch.VesselPosition) int {
	if len(track) == 0 {
		return 0
	}
	i := len(track) - 1
	for i > 0 && isStopped(track, i) && isStopped(track, i-1) {
		i--
	}
	for hours := 0.0; i > 0 && hours < CruiseWindow.Hours(); i-- {
		if !isStopped(track, i-1) {
			hours += track[i].Timestamp.Sub(track[i-1].Timestamp).Hours()
		}
	}
	oldest := track[len(track)-1].Timestamp.Add(-MaxLookback)
	for i < len(track)-1 && track[i].Timestamp.Before(oldest) {
		i++
	}
	return i
}
