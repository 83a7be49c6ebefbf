package api

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/journey"
	"github.com/boxwatch/boxwatch/jsonapi"
)

// The vessel routing endpoints: a vessel's stored positions, and the positions it would pass on
// its way to a port, which the journey engine lays out.

const (
	// showPositionsDefault is how far back show_positions reaches without from_timestamp.
	showPositionsDefault = 7 * 24 * time.Hour
	// maxShownPositions bounds one answer: a month at one position every five minutes is 8,640.
	maxShownPositions = 20_000
)

var vesselGetParams = []param{
	{name: "show_positions[from_timestamp]", typ: "string", format: "date-time",
		doc: "Adds positions[], the vessel's stored AIS positions from this time (default 7 days before to_timestamp). Needs the map feature."},
	{name: "show_positions[to_timestamp]", typ: "string", format: "date-time",
		doc: "Adds positions[] up to this time (default now). Needs the map feature."},
}

// showPositions reads the show_positions parameters; show is false when neither is given.
func showPositions(r *http.Request, now time.Time) (from, to time.Time, show bool, err error) {
	q := r.URL.Query()
	fromS, hasFrom := q["show_positions[from_timestamp]"]
	toS, hasTo := q["show_positions[to_timestamp]"]
	if !hasFrom && !hasTo {
		return time.Time{}, time.Time{}, false, nil
	}
	if !account(r).Has(boxwatch.FeatureMap) {
		return time.Time{}, time.Time{}, false, boxwatch.FeatureMap.NotEnabled()
	}
	to = now
	if hasTo {
		if to, err = parseTimestamp("show_positions[to_timestamp]", toS[0]); err != nil {
			return
		}
	}
	from = to.Add(-showPositionsDefault)
	if hasFrom {
		if from, err = parseTimestamp("show_positions[from_timestamp]", fromS[0]); err != nil {
			return
		}
	}
	if !from.Before(to) {
		return time.Time{}, time.Time{}, false, boxwatch.BadParameter("show_positions[from_timestamp]", "show_positions[from_timestamp] must be before show_positions[to_timestamp].")
	}
	return from, to, true, nil
}

func parseTimestamp(name, v string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, boxwatch.BadParameter(name, "%s must be an ISO 8601 time such as 2026-05-20T00:00:00Z.", name)
	}
	return t, nil
}

// pastPositions lists a vessel's stored positions with from <= time <= to, oldest first.
func pastPositions(ctx context.Context, ps boxwatch.PositionStore, v boxwatch.Vessel, from, to time.Time) ([]jsonapi.VesselPosition, error) {
	out := []jsonapi.VesselPosition{}
	if ps == nil || v.MMSI == "" {
		return out, nil
	}
	got, err := ps.VesselPositions(ctx, v.MMSI, from, to.Add(time.Second), maxShownPositions) // times are stored to the second
	if err != nil {
		return nil, err
	}
	for _, p := range got {
		out = append(out, jsonapi.VesselPosition{Latitude: p.Latitude, Longitude: p.Longitude, Heading: p.HeadingDegrees,
			Timestamp: p.Timestamp.UTC().Format(boxwatch.TimeFormat)})
	}
	return out, nil
}

// Future paths come an hour apart by default, with the points where the path turns: a 60-day
// path at the reference's one-minute spacing is 86,400 positions and megabytes, which interval=1
// still gives.
const (
	defaultFutureInterval = 60
	maxFutureInterval     = 24 * 60
)

var futureParams = []param{
	{name: "port_id", typ: "string", doc: "Required: the port the vessel is bound for (id or UN/LOCODE)."},
	{name: "previous_port_id", typ: "string", doc: "Required: the port it left (id or UN/LOCODE)."},
	{name: "interval", typ: "integer", doc: fmt.Sprintf("Minutes between positions, 1 to %d (default %d). Coarser than 1, the path also has a position wherever it turns, so the line through the positions stays on the route; 1 is Terminal49's one-minute spacing.", maxFutureInterval, defaultFutureInterval)},
}

// futureInterval reads interval, the spacing of a future path.
func futureInterval(q url.Values) (time.Duration, error) {
	v, ok := q["interval"]
	if !ok {
		return defaultFutureInterval * time.Minute, nil
	}
	n, err := strconv.Atoi(v[0])
	if err != nil || n < 1 || n > maxFutureInterval {
		return 0, boxwatch.BadParameter("interval", "interval must be a whole number of minutes from 1 to %d.", maxFutureInterval)
	}
	return time.Duration(n) * time.Minute, nil
}

var futureWithCoordinatesParams = append(futureParams[:len(futureParams):len(futureParams)],
	param{name: "latitude", typ: "number", doc: "Required: where the path starts, -90 to 90."},
	param{name: "longitude", typ: "number", doc: "Required: where the path starts, -180 to 180."})

// handleFuturePositions answers the sea path from the previous port (or, withCoordinates, from a
// given point) to the port as positions interval apart, as the journey engine times them.
func handleFuturePositions(st boxwatch.Store, ports portRenderer, journeys *journey.Engine, withCoordinates bool, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		spacing, err := futureInterval(q)
		if err != nil {
			return err
		}
		to, err := portParam(ports, q.Get("port_id"), "port_id")
		if err != nil {
			return err
		}
		prev, err := portParam(ports, q.Get("previous_port_id"), "previous_port_id")
		if err != nil {
			return err
		}
		start := geo.Point{Lat: prev.Latitude, Lon: prev.Longitude}
		if withCoordinates {
			lat, err := coordinateParam(q.Get("latitude"), "latitude", 90)
			if err != nil {
				return err
			}
			lon, err := coordinateParam(q.Get("longitude"), "longitude", 180)
			if err != nil {
				return err
			}
			start = geo.Point{Lat: lat, Lon: lon}
		}
		v, err := st.Vessel(r.Context(), r.PathValue("id"))
		if err != nil {
			return err
		}
		future, err := journeys.FuturePositions(r.Context(), v, start, geo.Point{Lat: to.Latitude, Lon: to.Longitude}, spacing)
		var noRoute *journey.RouteError
		if errors.As(err, &noRoute) {
			return boxwatch.BadParameter("latitude", "No sea route starts there: %v.", noRoute)
		}
		if err != nil {
			return err
		}
		list := make([]jsonapi.VesselPosition, len(future))
		for i, p := range future {
			list[i] = jsonapi.VesselPosition{Latitude: p.Latitude, Longitude: p.Longitude, Heading: p.Heading,
				Timestamp: p.Time.UTC().Format(boxwatch.TimeFormat), Estimated: true}
		}
		res := jsonapi.Vessel(v)
		res.Attributes.Positions = &list
		res.Links.Self = r.URL.Path
		writeResource(w, http.StatusOK, base(r)+r.URL.RequestURI(), res, nil)
		return nil
	}
}

func portParam(p portRenderer, v, name string) (boxwatch.Port, error) {
	if v == "" {
		return boxwatch.Port{}, boxwatch.BadParameter(name, "%s is required.", name)
	}
	if pt, ok := p.lookup(v); ok && pt.HasCoordinates {
		return pt, nil
	}
	return boxwatch.Port{}, boxwatch.BadParameter(name, "%s is not a known port.", name)
}

func coordinateParam(v, name string, limit float64) (float64, error) {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(x) || math.Abs(x) > limit {
		return 0, boxwatch.BadParameter(name, "%s must be a number from %v to %v.", name, -limit, limit)
	}
	return x, nil
}

// errRefreshNotEnabled is the reference API's answer to a refresh by an account without the feature.
var errRefreshNotEnabled = &httpError{status: http.StatusForbidden, code: boxwatch.CodeForbidden, title: "API access not enabled",
	detail: "This API endpoint is not enabled for your account. Please contact support@terminal49.com"}

type refreshAnswer struct {
	Message string `json:"message"`
}

// handleContainerRefresh schedules an immediate lookup of the container's shipment.
func handleContainerRefresh(st boxwatch.Store, tracker boxwatch.Tracker) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		acct := account(r).ID
		c, err := st.Container(r.Context(), acct, r.PathValue("id"))
		if err != nil {
			return err
		}
		if err := tracker.RefreshNow(r.Context(), acct, c.ShipmentID); err != nil {
			return err
		}
		writeJSONAs(w, http.StatusOK, "application/json", refreshAnswer{Message: "Started refresh for Shipping line, Terminal, Rail"})
		return nil
	}
}
