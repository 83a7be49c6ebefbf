package api

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/eta"
	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/searoute"
)

// The container map: GET /v2/containers/{id}/map_geojson draws one container's journey from the
// shipment's route (the legs), the vessels' stored AIS positions (the paths sailed) and the sea
// router (the paths to sail).

// Feature types of the map.
const (
	featurePort            = "port"
	featureCurrentVessel   = "current_vessel"
	featurePast            = "past_vessel_locations"
	featureEstimatedFull   = "estimated_full_legs"
	featureEstimatedPartil = "estimated_partial_leg"
)

type mapPortProperties struct {
	FeatureType   string  `json:"feature_type"`
	PortsSequence int     `json:"ports_sequence"`
	PortsTotal    int     `json:"ports_total"`
	LocationID    string  `json:"location_id"`
	LocationType  string  `json:"location_type"`
	Name          string  `json:"name"`
	StateAbbr     *string `json:"state_abbr"`
	State         *string `json:"state"`
	CountryCode   string  `json:"country_code"`
	Country       string  `json:"country"`
	TimeZone      *string `json:"time_zone"`
	InboundETAAt  *string `json:"inbound_eta_at"`
	InboundATAAt  *string `json:"inbound_ata_at"`
	OutboundETDAt *string `json:"outbound_etd_at"`
	OutboundATDAt *string `json:"outbound_atd_at"`
	Label         string  `json:"label"`
	UpdatedAt     *string `json:"updated_at"`
}

type mapVesselProperties struct {
	FeatureType              string   `json:"feature_type"`
	PortsSequence            int      `json:"ports_sequence"`
	VesselID                 string   `json:"vessel_id"`
	VesselName               string   `json:"vessel_name"`
	VesselIMO                string   `json:"vessel_imo"`
	VoyageNumber             *string  `json:"voyage_number"`
	VesselLocationTimestamp  string   `json:"vessel_location_timestamp"`
	VesselLocationHeading    *float64 `json:"vessel_location_heading"`
	VesselLocationSpeed      *float64 `json:"vessel_location_speed"`
	DeparturePortID          string   `json:"departure_port_id"`
	DeparturePortName        string   `json:"departure_port_name"`
	DeparturePortStateAbbr   *string  `json:"departure_port_state_abbr"`
	DeparturePortState       *string  `json:"departure_port_state"`
	DeparturePortCountryCode string   `json:"departure_port_country_code"`
	DeparturePortCountry     string   `json:"departure_port_country"`
	DeparturePortLabel       string   `json:"departure_port_label"`
	DeparturePortATD         *string  `json:"departure_port_atd"`
	DeparturePortTimeZone    *string  `json:"departure_port_time_zone"`
	ArrivalPortID            *string  `json:"arrival_port_id"`
	ArrivalPortName          *string  `json:"arrival_port_name"`
	ArrivalPortStateAbbr     *string  `json:"arrival_port_state_abbr"`
	ArrivalPortState         *string  `json:"arrival_port_state"`
	ArrivalPortCountryCode   *string  `json:"arrival_port_country_code"`
	ArrivalPortCountry       *string  `json:"arrival_port_country"`
	ArrivalPortLabel         *string  `json:"arrival_port_label"`
	ArrivalPortETA           *string  `json:"arrival_port_eta"`
	ArrivalPortTimeZone      *string  `json:"arrival_port_time_zone"`
	// boxwatch additions: the sea distance still to sail and the arrival it predicts.
	DistanceToGoNM     *float64 `json:"distance_to_go_nm"`
	PredictedArrivalAt *string  `json:"predicted_arrival_at"`
}

type mapPastProperties struct {
	FeatureType   string  `json:"feature_type"`
	PortsSequence int     `json:"ports_sequence"`
	VesselID      string  `json:"vessel_id"`
	StartTime     string  `json:"start_time"`
	EndTime       string  `json:"end_time"`
	PointCount    int     `json:"point_count"`
	OutboundATDAt *string `json:"outbound_atd_at"`
	InboundATAAt  *string `json:"inbound_ata_at"`
	InboundETAAt  *string `json:"inbound_eta_at"`
	// Estimated marks a path drawn by the sea router because no AIS position of the leg is
	// stored (a boxwatch addition).
	Estimated bool `json:"estimated,omitempty"`
}

type mapFullLegProperties struct {
	FeatureType    string `json:"feature_type"`
	PortsSequence  int    `json:"ports_sequence"`
	PreviousPortID string `json:"previous_port_id"`
	NextPortID     string `json:"next_port_id"`
	PointCount     int    `json:"point_count"`
}

type mapPartialLegProperties struct {
	FeatureType   string `json:"feature_type"`
	PortsSequence int    `json:"ports_sequence"`
	CurrentPortID string `json:"current_port_id"`
	NextPortID    string `json:"next_port_id"`
	PointCount    int    `json:"point_count"`
}

// mapper builds maps. It is safe for concurrent use.
type mapper struct {
	st        boxwatch.Store
	positions boxwatch.PositionStore // nil: no stored tracks, every sailed path is estimated
	ports     portRenderer
	sea       *searoute.Network
	now       boxwatch.Clock
	log       *slog.Logger
	routes    *routeCache
	tracks    *trackCache // nil: tracks are read whole for every map
}

// mapLeg is the stretch of a route from stop i to stop i+1.
type mapLeg struct {
	i        int
	from, to boxwatch.RouteStop
	fromPort boxwatch.Port
	toPort   boxwatch.Port
	fromOK   bool
	toOK     bool
	imo      string
	voyage   string
}

func (l mapLeg) started() bool { return !l.from.ATD.IsZero() }

// sailing reports whether the leg's vessel left and has not reached the next port.
func (l mapLeg) sailing() bool { return l.started() && l.to.ATA.IsZero() && l.to.ATD.IsZero() }

// journeyEnded reports whether the container's journey is over: the port of discharge reached and the
// shipment no longer tracked. Its map then never changes.
func journeyEnded(s boxwatch.Shipment) bool {
	pod, ok := s.POD()
	return ok && !pod.ATA.IsZero() && !s.StoppedAt.IsZero()
}

// build draws the map of a shipment's route. split cuts lines at the antimeridian.
func (m *mapper) build(ctx context.Context, s boxwatch.Shipment, split bool) (featureCollection, error) {
	fc := featureCollection{Type: "FeatureCollection", Features: []feature{}}
	if len(s.Route) < 2 {
		return fc, nil
	}
	now := m.now()
	total := len(s.Route)
	legs := make([]mapLeg, total-1)
	for i := range legs {
		legs[i] = m.leg(s, i)
	}
	vessels, err := m.vessels(ctx, legs)
	if err != nil {
		return fc, err
	}
	var later []feature // estimated full legs come after the last port
	for i, stop := range s.Route {
		if pt, ok := m.portAt(stop.LOCODE); ok {
			fc.Features = append(fc.Features, feature{Type: "Feature", Geometry: pointGeometry(geo.Point{Lat: pt.Latitude, Lon: pt.Longitude}),
				Properties: portProperties(pt, stop, i, total, s.UpdatedAt)})
		}
		if i == len(legs) {
			break
		}
		l := legs[i]
		if !l.started() {
			if f, ok := m.fullLeg(l, split); ok {
				later = append(later, f)
			}
			continue
		}
		fs, err := m.sailedLeg(ctx, l, vessels[l.imo], total, now, split)
		if err != nil {
			return fc, err
		}
		fc.Features = append(fc.Features, fs...)
	}
	fc.Features = append(fc.Features, later...)
	return fc, nil
}

// leg is the leg of a shipment's route that leaves stop i, with its vessel: the one leaving the
// port or, when the carrier names none, the one arriving at the next.
func (m *mapper) leg(s boxwatch.Shipment, i int) mapLeg {
	from, to := s.Route[i], s.Route[i+1]
	l := mapLeg{i: i, from: from, to: to, imo: from.OutboundVesselIMO, voyage: from.OutboundVoyage}
	if l.imo == "" {
		l.imo, l.voyage = to.InboundVesselIMO, to.InboundVoyage
	}
	l.fromPort, l.fromOK = m.portAt(from.LOCODE)
	l.toPort, l.toOK = m.portAt(to.LOCODE)
	return l
}

// vessels reads the vessel at sea, if any, with its latest position. The vessels of the legs
// sailed are needed only for their tracks, which the track cache keeps by IMO number.
func (m *mapper) vessels(ctx context.Context, legs []mapLeg) (map[string]boxwatch.Vessel, error) {
	for _, l := range legs {
		if !l.sailing() || l.imo == "" {
			continue
		}
		v, err := m.st.Vessel(ctx, l.imo)
		if boxwatch.IsKind(err, boxwatch.KindNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return map[string]boxwatch.Vessel{l.imo: v}, nil
	}
	return nil, nil
}

// portAt returns a port with coordinates: one without cannot be drawn.
func (m *mapper) portAt(locode string) (boxwatch.Port, bool) {
	pt, ok := m.ports.port(locode)
	return pt, ok && pt.HasCoordinates
}

func portPoint(pt boxwatch.Port) geo.Point { return geo.Point{Lat: pt.Latitude, Lon: pt.Longitude} }

func label(i, total int) string {
	switch i {
	case 0:
		return boxwatch.RolePOL
	case total - 1:
		return boxwatch.RolePOD
	}
	return "TS" + strconv.Itoa(i)
}

func portProperties(pt boxwatch.Port, stop boxwatch.RouteStop, i, total int, updated time.Time) mapPortProperties {
	return mapPortProperties{
		FeatureType: featurePort, PortsSequence: i + 1, PortsTotal: total, LocationID: pt.ID, LocationType: "Port",
		Name: pt.Name, StateAbbr: optString(pt.StateAbbr), State: optString(pt.State),
		CountryCode: pt.CountryCode, Country: pt.Country, TimeZone: optString(pt.TimeZone),
		InboundETAAt: optTime(stop.ETA), InboundATAAt: optTime(stop.ATA), OutboundETDAt: optTime(stop.ETD), OutboundATDAt: optTime(stop.ATD),
		Label: label(i, total), UpdatedAt: optTime(updated),
	}
}

// fullLeg is the routed path of a leg not started.
func (m *mapper) fullLeg(l mapLeg, split bool) (feature, bool) {
	if !l.fromOK || !l.toOK {
		return feature{}, false
	}
	e := m.routeEntry(portPoint(l.fromPort), portPoint(l.toPort))
	if !e.ok {
		return feature{}, false
	}
	g, n := e.geometry(split)
	return feature{Type: "Feature", Geometry: g, Properties: mapFullLegProperties{FeatureType: featureEstimatedFull,
		PortsSequence: l.i + 1, PreviousPortID: l.fromPort.ID, NextPortID: l.toPort.ID, PointCount: n}}, true
}

// sailedLeg draws a leg sailed or being sailed: the current vessel (if at sea with a position),
// the path sailed, and the path still to sail from the vessel.
func (m *mapper) sailedLeg(ctx context.Context, l mapLeg, vessel boxwatch.Vessel, total int, now time.Time, split bool) ([]feature, error) {
	if vessel.ID == "" && l.imo != "" {
		vessel.ID = boxwatch.VesselID(l.imo)
	}
	here := latestPosition(l, vessel)
	end := l.to.ATA
	if end.IsZero() {
		end = l.to.ATD
	}
	open := end.IsZero()
	if open {
		end = now
		if here != nil && !here.Timestamp.Before(end) {
			// The vessel's clock is ahead of ours (the demo's simulated world runs faster than
			// time): the leg so far runs to its latest report.
			end = here.Timestamp.Add(time.Second)
		}
	}
	var tr track
	if m.positions != nil && l.imo != "" && end.After(l.from.ATD) {
		var err error
		if tr, err = m.track(ctx, l.imo, vessel.MMSI, l.from.ATD, end, open); err != nil {
			return nil, err
		}
	}
	if here != nil && (len(tr.points) == 0 || here.Timestamp.After(tr.last)) {
		tr = tr.with(*here)
	}

	var out []feature
	var partial *searoute.Path
	if here != nil {
		cur := mapVesselProperties{FeatureType: featureCurrentVessel, PortsSequence: l.i + 1,
			VesselID: vessel.ID, VesselName: vessel.Name, VesselIMO: l.imo, VoyageNumber: optString(l.voyage),
			VesselLocationTimestamp: here.Timestamp.UTC().Format(boxwatch.TimeFormat),
			VesselLocationHeading:   here.HeadingDegrees, VesselLocationSpeed: here.SpeedKnots,
			DeparturePortID: l.fromPort.ID, DeparturePortName: l.fromPort.Name, DeparturePortStateAbbr: optString(l.fromPort.StateAbbr),
			DeparturePortState: optString(l.fromPort.State), DeparturePortCountryCode: l.fromPort.CountryCode, DeparturePortCountry: l.fromPort.Country,
			DeparturePortLabel: label(l.i, total), DeparturePortATD: optTime(l.from.ATD), DeparturePortTimeZone: optString(l.fromPort.TimeZone),
			ArrivalPortETA: optTime(l.to.ETA),
		}
		if l.toOK {
			pt := l.toPort
			lbl := label(l.i+1, total)
			cur.ArrivalPortID, cur.ArrivalPortName, cur.ArrivalPortStateAbbr, cur.ArrivalPortState = &pt.ID, &pt.Name, optString(pt.StateAbbr), optString(pt.State)
			cur.ArrivalPortCountryCode, cur.ArrivalPortCountry, cur.ArrivalPortLabel, cur.ArrivalPortTimeZone = &pt.CountryCode, &pt.Country, &lbl, optString(pt.TimeZone)
			if p, ok := m.route(positionPoint(*here), portPoint(pt)); ok {
				partial = &p
				nm := math.Round(p.DistanceNM*10) / 10
				cur.DistanceToGoNM, cur.PredictedArrivalAt = &nm, predictedArrival(*here, p, tr)
			}
		}
		out = append(out, feature{Type: "Feature", Geometry: pointGeometry(positionPoint(*here)), Properties: cur})
	}

	past := mapPastProperties{FeatureType: featurePast, PortsSequence: l.i + 1, VesselID: vessel.ID,
		OutboundATDAt: optTime(l.from.ATD), InboundATAAt: optTime(l.to.ATA), InboundETAAt: optTime(l.to.ETA)}
	points := tr.points
	if len(points) >= 2 {
		past.StartTime, past.EndTime = tr.first.UTC().Format(boxwatch.TimeFormat), tr.last.UTC().Format(boxwatch.TimeFormat)
	} else if pts, upTo, ok := m.fallback(l, here, now); ok {
		points, past.Estimated = pts, true
		past.StartTime, past.EndTime = l.from.ATD.UTC().Format(boxwatch.TimeFormat), upTo.UTC().Format(boxwatch.TimeFormat)
	} else {
		points = nil
	}
	if len(points) >= 2 {
		g, n := lineGeometry(points, split)
		if !split && !past.Estimated && tr.line != nil {
			g = geometry{Type: "LineString", Coordinates: json.RawMessage(tr.line)}
		}
		past.PointCount = n
		out = append(out, feature{Type: "Feature", Geometry: g, Properties: past})
	}

	if partial != nil {
		pts := startAt(partial.Points, positionPoint(*here))
		g, n := lineGeometry(pts, split)
		out = append(out, feature{Type: "Feature", Geometry: g, Properties: mapPartialLegProperties{FeatureType: featureEstimatedPartil,
			PortsSequence: l.i + 1, CurrentPortID: l.fromPort.ID, NextPortID: l.toPort.ID, PointCount: n}})
	}
	return out, nil
}

// predictedArrival is when a vessel seen at here reaches the end of the path still to sail, at
// the speed it made good over its track; nil when that speed is unknown or too slow.
func predictedArrival(here boxwatch.VesselPosition, toGo searoute.Path, tr track) *string {
	if !tr.speedOK {
		return nil
	}
	at, ok := eta.Arrival(here.Timestamp, toGo.DistanceNM, tr.speed)
	if !ok {
		return nil
	}
	return optTime(at)
}

// podArrival is the predicted arrival at the port of discharge while the vessel sails the last
// leg, as the map's current_vessel gives it; nil otherwise.
func (m *mapper) podArrival(ctx context.Context, s boxwatch.Shipment) (*string, error) {
	if len(s.Route) < 2 {
		return nil, nil
	}
	l := m.leg(s, len(s.Route)-2)
	if !l.sailing() || l.imo == "" || !l.toOK {
		return nil, nil
	}
	v, err := m.st.Vessel(ctx, l.imo)
	if boxwatch.IsKind(err, boxwatch.KindNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	p := latestPosition(l, v)
	if p == nil || m.positions == nil || v.MMSI == "" {
		return nil, nil
	}
	tr, err := m.track(ctx, l.imo, v.MMSI, l.from.ATD, maxTime(m.now(), p.Timestamp.Add(time.Second)), true)
	if err != nil {
		return nil, err
	}
	path, ok := m.route(positionPoint(*p), portPoint(l.toPort))
	if !ok {
		return nil, nil
	}
	return predictedArrival(*p, path, tr), nil
}

// latestPosition is the vessel's latest position when it is at sea on the leg: heard since the
// leg's departure, and the leg not ended. nil otherwise.
func latestPosition(l mapLeg, v boxwatch.Vessel) *boxwatch.VesselPosition {
	p := v.Position
	if !l.sailing() || p == nil || !validPosition(*p) || p.Timestamp.Before(l.from.ATD) {
		return nil
	}
	return p
}

// fallback is the path of a leg with no stored positions, drawn by the sea router: to the vessel
// when its position is known, to the next port when the leg is over, and otherwise as far along
// the routed path as the time since departure is of the time the leg should take. It returns the
// path and the time it runs up to.
func (m *mapper) fallback(l mapLeg, here *boxwatch.VesselPosition, now time.Time) ([]geo.Point, time.Time, bool) {
	if !l.fromOK {
		return nil, time.Time{}, false
	}
	from := portPoint(l.fromPort)
	if here != nil {
		p, ok := m.route(from, positionPoint(*here))
		if !ok {
			return nil, time.Time{}, false
		}
		return endAt(p.Points, positionPoint(*here)), here.Timestamp, true
	}
	if !l.toOK {
		return nil, time.Time{}, false
	}
	p, ok := m.route(from, portPoint(l.toPort))
	if !ok {
		return nil, time.Time{}, false
	}
	if !l.sailing() {
		end := l.to.ATA
		if end.IsZero() {
			end = l.to.ATD
		}
		return p.Points, end, true
	}
	if l.to.ETA.IsZero() || !l.to.ETA.After(l.from.ATD) {
		return nil, time.Time{}, false
	}
	f := float64(now.Sub(l.from.ATD)) / float64(l.to.ETA.Sub(l.from.ATD))
	pts := along(p.Points, min(f, 1)*p.DistanceNM)
	if len(pts) < 2 {
		return nil, time.Time{}, false
	}
	return pts, now, true
}

// along returns the first nm nautical miles of a path.
func along(points []geo.Point, nm float64) []geo.Point {
	out := []geo.Point{points[0]}
	for i := 1; i < len(points); i++ {
		d := geo.DistanceNM(points[i-1], points[i])
		if d >= nm {
			if nm > 0 && d > 0 {
				out = append(out, geo.Intermediate(points[i-1], points[i], nm/d))
			}
			return out
		}
		nm -= d
		out = append(out, points[i])
	}
	return out
}

// startAt makes a routed path begin exactly at p (the router may begin it at p's snap to water
// when p is on the coast).
func startAt(points []geo.Point, p geo.Point) []geo.Point {
	out := append([]geo.Point{p}, points...)
	for len(out) > 2 && sameSpot(out[0], out[1]) {
		out = append(out[:1], out[2:]...)
	}
	return out
}

func endAt(points []geo.Point, p geo.Point) []geo.Point {
	out := append(points[:len(points):len(points)], p)
	for n := len(out); n > 2 && sameSpot(out[n-2], out[n-1]); n = len(out) {
		out = append(out[:n-2], p)
	}
	return out
}

// sameSpot reports whether two points are within a few metres: the router's ends are the
// points it was given, or their snap to water, which the line need not draw twice.
func sameSpot(a, b geo.Point) bool { return geo.DistanceNM(a, b) < 0.005 }

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func positionPoint(p boxwatch.VesselPosition) geo.Point {
	return geo.Point{Lat: p.Latitude, Lon: p.Longitude}
}

func validPosition(p boxwatch.VesselPosition) bool {
	return p.Latitude >= -90 && p.Latitude <= 90 && p.Longitude >= -180 && p.Longitude <= 180 &&
		!math.IsNaN(p.Latitude) && !math.IsNaN(p.Longitude) && !p.Timestamp.IsZero()
}

// route asks the sea router, through the cache; a point the router cannot join to the sea (far
// inland, far from the network) has no path, and the map leaves that line out rather than draw
// one over land.
func (m *mapper) route(from, to geo.Point) (searoute.Path, bool) {
	e := m.routeEntry(from, to)
	return e.path, e.ok
}

func (m *mapper) routeEntry(from, to geo.Point) routeEntry {
	return m.routes.get(from, to, func() routeEntry {
		p, err := m.sea.Route(from, to, searoute.Options{})
		if err != nil {
			m.log.Warn("map: no sea route", "from", fmt.Sprint(from), "to", fmt.Sprint(to), "error", err.Error())
			return routeEntry{}
		}
		if len(p.Points) < 2 {
			return routeEntry{}
		}
		g, _ := lineGeometry(p.Points, false)
		return routeEntry{path: p, ok: true, line: g.Coordinates.(json.RawMessage)}
	})
}

// routeCache keeps recent sea paths: those between ports are asked for by every map of every
// container on the lane, and the vessel's position changes only with a new report.
type routeCache struct {
	mu   sync.Mutex
	max  int
	hits map[[2]geo.Point]routeEntry
}

type routeEntry struct {
	path searoute.Path
	ok   bool
	line json.RawMessage // the path's LineString coordinates, encoded once
}

// geometry draws the path, from the encoding kept unless split.
func (e routeEntry) geometry(split bool) (geometry, int) {
	if split {
		return lineGeometry(e.path.Points, true)
	}
	return geometry{Type: "LineString", Coordinates: e.line}, len(e.path.Points)
}

func newRouteCache(max int) *routeCache {
	return &routeCache{max: max, hits: make(map[[2]geo.Point]routeEntry)}
}

func (c *routeCache) get(from, to geo.Point, compute func() routeEntry) routeEntry {
	key := [2]geo.Point{from, to}
	c.mu.Lock()
	e, hit := c.hits[key]
	c.mu.Unlock()
	if hit {
		return e
	}
	e = compute()
	c.mu.Lock()
	if len(c.hits) >= c.max {
		clear(c.hits) // a crude bound: the working set is the lanes tracked, refilled at once
	}
	c.hits[key] = e
	c.mu.Unlock()
	return e
}

// track is a stretch of a vessel's stored positions, simplified for drawing, with the speed it
// made good at its end.
type track struct {
	points      []geo.Point
	line        []byte // points as LineString coordinates, encoded once; nil when not yet
	first, last time.Time
	speed       float64
	speedOK     bool
}

// with extends the track by one position (the vessel's latest, newer than the stored track).
func (t track) with(p boxwatch.VesselPosition) track {
	t.points = append(t.points[:len(t.points):len(t.points)], positionPoint(p))
	if len(t.line) > 0 {
		line := make([]byte, 0, len(t.line)+32)
		line = append(append(line, t.line[:len(t.line)-1]...), ',')
		t.line = append(appendPosition(line, pos(positionPoint(p))), ']')
	}
	if t.first.IsZero() {
		t.first = p.Timestamp
	}
	t.last = p.Timestamp
	return t
}

// maxTrackPositions bounds what one leg's track reads: over a month at one position every five
// minutes, far more than any leg keeps.
const maxTrackPositions = 100_000

// track returns the stored positions of the vessel with IMO number imo with from <= time < to,
// simplified. mmsi is its MMSI when the caller knows it; else it is looked up when the track is
// read. A vessel with no MMSI known has no track.
func (m *mapper) track(ctx context.Context, imo, mmsi string, from, to time.Time, open bool) (track, error) {
	resolve := func() (string, error) {
		if mmsi != "" {
			return mmsi, nil
		}
		v, err := m.st.Vessel(ctx, imo)
		if boxwatch.IsKind(err, boxwatch.KindNotFound) {
			return "", nil
		}
		return v.MMSI, err
	}
	if m.tracks == nil {
		id, err := resolve()
		if err != nil || id == "" {
			return track{}, err
		}
		ps, err := m.positions.VesselPositions(ctx, id, from, to, maxTrackPositions)
		if err != nil {
			return track{}, err
		}
		raw := newRawTrack()
		raw.add(ps)
		return raw.track(), nil
	}
	return m.tracks.get(ctx, m.positions, imo, resolve, from, to, open, m.now())
}

// rawTrack is the positions of a track as read, and their simplification.
type rawTrack struct {
	points []geo.Point
	recent []boxwatch.VesselPosition // the last eta.Window of positions, for the speed
	first  time.Time
	last   time.Time
}

func newRawTrack() *rawTrack { return &rawTrack{} }

func (r *rawTrack) add(ps []boxwatch.VesselPosition) {
	for _, p := range ps {
		if !validPosition(p) {
			continue
		}
		if r.first.IsZero() {
			r.first = p.Timestamp
		}
		r.last = p.Timestamp
		r.points = append(r.points, positionPoint(p))
		r.recent = append(r.recent, p)
	}
	cut := 0
	for cut < len(r.recent) && r.recent[cut].Timestamp.Before(r.last.Add(-eta.Window)) {
		cut++
	}
	r.recent = r.recent[cut:]
}

func (r *rawTrack) track() track {
	t := track{points: simplify(r.points), first: r.first, last: r.last}
	if len(t.points) > 0 {
		g, _ := lineGeometry(t.points, false)
		t.line = g.Coordinates.(json.RawMessage)
	}
	t.speed, t.speedOK = eta.Speed(r.recent)
	return t
}

// trackCache keeps the tracks of the legs maps were drawn for: a track only grows, so a map
// reads the positions stored since the last one it saw, and simplifies again only when there are
// new ones. A track is read whole again after trackRebuild, for positions stored late (a
// receiver's backlog) with times inside what was read.
type trackCache struct {
	mu      sync.Mutex
	max     int
	entries map[trackKey]*trackEntry
}

type trackKey struct {
	imo      string
	from, to time.Time // to is zero for a leg still sailed
}

type trackEntry struct {
	mu      sync.Mutex
	mmsi    string // "" while the vessel's MMSI is not known: no track
	raw     *rawTrack
	drawn   track
	loaded  time.Time // when read whole
	checked time.Time // when last asked for new positions
}

const (
	trackRebuild = 10 * time.Minute
	// trackPoll is how often a sailed track asks for new positions: positions are stored every
	// few minutes of a vessel's voyage, and the map's own cache lifetime is longer.
	trackPoll = 5 * time.Second
)

func newTrackCache(max int) *trackCache {
	return &trackCache{max: max, entries: make(map[trackKey]*trackEntry)}
}

func (c *trackCache) get(ctx context.Context, ps boxwatch.PositionStore, imo string, resolve func() (string, error), from, to time.Time, open bool, now time.Time) (track, error) {
	key := trackKey{imo: imo, from: from}
	if !open {
		key.to = to
	}
	c.mu.Lock()
	e := c.entries[key]
	if e == nil {
		if len(c.entries) >= c.max {
			clear(c.entries)
		}
		e = &trackEntry{}
		c.entries[key] = e
	}
	c.mu.Unlock()

	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case e.raw == nil || now.Sub(e.loaded) >= trackRebuild || now.Before(e.loaded):
		mmsi, err := resolve()
		if err != nil {
			return track{}, err
		}
		var got []boxwatch.VesselPosition
		if mmsi != "" {
			if got, err = ps.VesselPositions(ctx, mmsi, from, to, maxTrackPositions); err != nil {
				return track{}, err
			}
		}
		e.mmsi, e.raw = mmsi, newRawTrack()
		e.raw.add(got)
		e.drawn, e.loaded, e.checked = e.raw.track(), now, now
		if !open {
			// A leg sailed gets no new positions: only its drawing is kept, not the 10,000 or so
			// positions it was drawn from.
			e.raw.points, e.raw.recent = nil, nil
		}
	case open && e.mmsi != "" && now.Sub(e.checked) >= trackPoll:
		since := from
		if !e.raw.last.IsZero() {
			since = e.raw.last.Add(time.Nanosecond)
		}
		got, err := ps.VesselPositions(ctx, e.mmsi, since, to, maxTrackPositions)
		if err != nil {
			return track{}, err
		}
		e.checked = now
		if len(got) > 0 {
			e.raw.add(got)
			e.drawn = e.raw.track()
		}
	}
	return e.drawn, nil
}

// mapCache keeps rendered maps for a short time: a map is asked for far more often than its
// journey changes.
type mapCache struct {
	mu      sync.Mutex
	max     int
	entries map[string]renderedMap
}

type renderedMap struct {
	body         []byte
	etag         string
	cacheControl string
	expires      time.Time
}

func newMapCache(max int) *mapCache {
	return &mapCache{max: max, entries: make(map[string]renderedMap)}
}

func (c *mapCache) get(key string, now time.Time) (renderedMap, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.entries[key]
	if !ok || !now.Before(r.expires) {
		return renderedMap{}, false
	}
	return r, true
}

func (c *mapCache) put(key string, r renderedMap) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= c.max {
		clear(c.entries)
	}
	c.entries[key] = r
}

// Cache lifetimes of a map: one whose journey has ended never changes; one at sea changes with
// every position, which the spec asks clients to fetch at most hourly.
const (
	mapMaxAgeEnded = 365 * 24 * time.Hour
	mapMaxAgeLive  = 15 * time.Minute
	// mapServerTTL is how long the server reuses a live map it drew.
	mapServerTTL = 10 * time.Second
)

var mapParams = []param{{name: "antimeridian", typ: "string", enum: []string{"split"},
	doc: "boxwatch extension: split cuts every line that crosses the antimeridian into a MultiLineString (RFC 7946 §3.1.9), " +
		"for clients that draw on a flat map. Without it such a leg is one LineString whose longitude jumps from ±180 to ∓180."}}

func handleContainerMap(st boxwatch.Store, m *mapper, cache *mapCache, now boxwatch.Clock) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		split := false
		switch v, given := q["antimeridian"]; {
		case !given:
		case len(v) == 1 && v[0] == "split":
			split = true
		default:
			return boxwatch.BadParameter("antimeridian", "antimeridian must be split.")
		}
		acct := account(r).ID
		id := r.PathValue("id")
		key := acct + "\x00" + id + "\x00" + strconv.FormatBool(split)
		t := now()
		rm, hit := renderedMap{}, false
		if cache != nil {
			rm, hit = cache.get(key, t)
		}
		if !hit {
			c, err := st.Container(r.Context(), acct, id)
			if err != nil {
				return err
			}
			s, err := st.Shipment(r.Context(), acct, c.ShipmentID)
			if err != nil {
				return err
			}
			fc, err := m.build(r.Context(), s, split)
			if err != nil {
				return err
			}
			body := fc.encode()
			sum := sha256.Sum256(body)
			rm = renderedMap{body: body, etag: `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`}
			ttl := mapServerTTL
			if journeyEnded(s) {
				rm.cacheControl = "private, max-age=" + strconv.Itoa(int(mapMaxAgeEnded.Seconds())) + ", immutable"
				ttl = time.Hour
			} else {
				rm.cacheControl = "private, max-age=" + strconv.Itoa(int(mapMaxAgeLive.Seconds()))
			}
			rm.expires = t.Add(ttl)
			if cache != nil {
				cache.put(key, rm)
			}
		}
		w.Header().Set("ETag", rm.etag)
		w.Header().Set("Cache-Control", rm.cacheControl)
		if etagMatches(r.Header.Get("If-None-Match"), rm.etag) {
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
		w.Header().Set("Content-Type", MapMediaType)
		w.Header().Set("Content-Length", strconv.Itoa(len(rm.body)))
		w.WriteHeader(http.StatusOK)
		w.Write(rm.body)
		return nil
	}
}

// etagMatches applies If-None-Match: a list of entity tags, weak or strong, or *.
func etagMatches(header, etag string) bool {
	for header != "" {
		var tag string
		header = trimSpace(header)
		if header == "" {
			break
		}
		if header[0] == '*' {
			return true
		}
		tag, header = cutTag(header)
		if tag == "" {
			return false
		}
		if len(tag) > 2 && tag[:2] == "W/" {
			tag = tag[2:]
		}
		if tag == etag {
			return true
		}
		header = trimSpace(header)
		if header != "" && header[0] == ',' {
			header = header[1:]
		}
	}
	return false
}

func trimSpace(s string) string {
	for s != "" && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	return s
}

// cutTag takes one entity tag ("…" or W/"…") off the front of s; tag is "" when s does not
// start with one.
func cutTag(s string) (tag, rest string) {
	start := 0
	if len(s) > 2 && s[:2] == "W/" {
		start = 2
	}
	if len(s) <= start || s[start] != '"' {
		return "", ""
	}
	for i := start + 1; i < len(s); i++ {
		if s[i] == '"' {
			return s[:i+1], s[i+1:]
		}
	}
	return "", ""
}
