package journey

import (
	"context"
	"math"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/eta"
	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/searoute"
)

// Position is a point of a vessel's estimated path: where it would be, heading where, and when.
// Latitude and longitude are rounded to six decimals, the longitude within -180…180.
type Position struct {
	Latitude, Longitude float64
	Heading             *float64 // nil at the path's end
	Time                time.Time
}

const (
	// maxFuturePositions bounds a future path: 60 days at one position a minute.
	maxFuturePositions = 60 * 24 * 60
	// fallbackKnots is the speed a future path is timed at when the vessel's own is unknown or
	// too slow to time one by: a container ship's usual service speed.
	fallbackKnots = 16.0
	// maxSpeedPositions bounds the positions read for the speed a vessel made good: eta.Window
	// at one a minute is 720.
	maxSpeedPositions = 20_000
)

// RouteError is a future path's failure when the sea router joins no path between its ends: one
// is on land or too far from navigable water, or no sea route joins them. Its text is the
// router's.
type RouteError struct{ Err error }

func (e *RouteError) Error() string { return e.Err.Error() }
func (e *RouteError) Unwrap() error { return e.Err }

// FuturePositions lays the sea route from start to the port at end out as positions one minute
// apart, timed from now (or the vessel's latest report, when its clock is ahead of ours) at the
// speed v made good over its recent track, or 16 knots when that is unknown or below
// eta.MinKnots. It returns at most 60 days of positions. An end the router cannot join is a
// *RouteError.
func (e *Engine) FuturePositions(ctx context.Context, v boxwatch.Vessel, start, end geo.Point) ([]Position, error) {
	path, err := e.sea.Route(start, end, searoute.Options{})
	if err != nil {
		return nil, &RouteError{Err: err}
	}
	knots := fallbackKnots
	now := e.now()
	if e.positions != nil && v.MMSI != "" {
		until := now
		if p := v.Position; p != nil && p.Timestamp.After(until) {
			until = p.Timestamp
		}
		recent, err := e.positions.VesselPositions(ctx, v.MMSI, until.Add(-eta.Window), until.Add(time.Second), maxSpeedPositions)
		if err != nil {
			return nil, err
		}
		if k, ok := eta.Speed(recent); ok && k >= eta.MinKnots {
			knots = k
		}
	}
	if p := v.Position; p != nil && p.Timestamp.After(now) {
		now = p.Timestamp // the vessel's clock is ahead of ours, as in the demo's simulated world
	}
	return futurePath(startAt(path.Points, start), knots, now.Truncate(time.Minute)), nil
}

// futurePath places positions one minute apart along a path sailed at knots from start.
func futurePath(points []geo.Point, knots float64, start time.Time) []Position {
	step := knots / 60 // nm a minute
	out := []Position{}
	along, seg := 0.0, 1
	for i := 0; i < maxFuturePositions && seg < len(points); i++ {
		a, b := points[seg-1], points[seg]
		d := geo.DistanceNM(a, b)
		p := b
		if d > 0 {
			p = geo.Intermediate(a, b, math.Min(1, along/d))
		}
		heading := math.Round(geo.Bearing(a, b))
		out = append(out, Position{Latitude: round6(p.Lat), Longitude: round6(wrapLon(p.Lon)), Heading: &heading,
			Time: start.Add(time.Duration(i) * time.Minute)})
		along += step
		for seg < len(points) && along >= geo.DistanceNM(points[seg-1], points[seg]) {
			along -= geo.DistanceNM(points[seg-1], points[seg])
			seg++
		}
	}
	if end := points[len(points)-1]; len(out) < maxFuturePositions {
		out = append(out, Position{Latitude: round6(end.Lat), Longitude: round6(wrapLon(end.Lon)),
			Time: start.Add(time.Duration(len(out)) * time.Minute)})
	}
	return out
}
