package journey

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/eta"
	"github.com/boxwatch/boxwatch/geo"
)

// Position is a point of a vessel's estimated path: where it would be, heading where, and when.
// Latitude and longitude are rounded to six decimals, the longitude within -180…180.
type Position struct {
	Latitude, Longitude float64
	Heading             *float64 // nil at the path's end
	Time                time.Time
}

const (
	// futureHorizon bounds a future path: 60 days, 86,400 positions at one a minute.
	futureHorizon = 60 * 24 * time.Hour
	// MinuteSpacing is the reference's spacing of future positions, one a minute; coarser
	// spacings add the points where the path turns.
	MinuteSpacing = time.Minute
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

// FuturePositions lays the sea route from start to the port at end out as positions every
// spacing (a whole number of minutes, MinuteSpacing the finest), timed from now (or the vessel's latest report, when its clock is ahead of ours) at the
// speed v made good over its recent track, or 16 knots when that is unknown or below
// eta.MinKnots. Spaced more coarsely than a minute, the path also has a position wherever it
// turns, so the line through the positions is the route's own, clear of land. It returns at most
// 60 days of positions. An end the router cannot join is a *RouteError.
func (e *Engine) FuturePositions(ctx context.Context, v boxwatch.Vessel, start, end geo.Point, spacing time.Duration) ([]Position, error) {
	if spacing < MinuteSpacing || spacing%time.Minute != 0 {
		return nil, fmt.Errorf("journey: future positions spaced %v: a whole number of minutes is needed", spacing)
	}
	path := e.routeEntry(start, end) // through the cache the maps share
	if path.err != nil {
		return nil, &RouteError{Err: path.err}
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
	return futurePath(startAt(path.path.Points, start), knots, now.Truncate(time.Minute), spacing), nil
}

// futurePath places positions along a path sailed at knots from start: one every spacing and,
// when spacing is coarser than a minute, one at each point where the path turns. The last is the
// path's end, with no heading.
func futurePath(points []geo.Point, knots float64, start time.Time, spacing time.Duration) []Position {
	out := []Position{}
	if len(points) == 0 {
		return out
	}
	pos := func(p geo.Point, heading *float64, t time.Time) Position {
		return Position{Latitude: round6(p.Lat), Longitude: round6(wrapLon(p.Lon)), Heading: heading, Time: t}
	}
	sailed := func(nm float64) time.Time { // when the vessel has sailed nm, to the second
		return start.Add(time.Duration(nm / knots * float64(time.Hour))).Truncate(time.Second)
	}
	stepNM := knots * spacing.Hours() // nm between two timed positions
	steps := int(futureHorizon / spacing)
	turns := spacing > MinuteSpacing
	done, k := 0.0, 0 // nm sailed to the start of the current segment; the next timed position
	for seg := 1; seg < len(points) && k < steps; seg++ {
		a, b := points[seg-1], points[seg]
		d := geo.DistanceNM(a, b)
		heading := math.Round(geo.Bearing(a, b))
		if turns && seg > 1 && float64(k)*stepNM > done {
			out = append(out, pos(a, &heading, sailed(done))) // where the path turns, between two timed positions
		}
		for ; k < steps && float64(k)*stepNM < done+d; k++ {
			p := a
			if d > 0 {
				p = geo.Intermediate(a, b, (float64(k)*stepNM-done)/d)
			}
			out = append(out, pos(p, &heading, start.Add(time.Duration(k)*spacing)))
		}
		done += d
	}
	if k < steps {
		out = append(out, pos(points[len(points)-1], nil, sailed(done)))
	}
	return out
}
