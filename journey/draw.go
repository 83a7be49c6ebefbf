package journey

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/eta"
	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/searoute"
)

// The container map: one container's journey drawn from the shipment's route (the legs), the
// vessels' stored AIS positions (the paths sailed) and the sea router (the paths to sail).

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

// build draws the map of a shipment's route, and of the container's inland leg past the port of
// discharge when the carrier reports one. split cuts lines at the antimeridian.
func (e *Engine) build(ctx context.Context, s boxwatch.Shipment, c boxwatch.Container, split bool) (FeatureCollection, error) {
	fc := FeatureCollection{Type: "FeatureCollection", Features: []Feature{}}
	if len(s.Route) < 2 {
		return fc, nil
	}
	now := e.now()
	total := len(s.Route)
	legs := make([]mapLeg, total-1)
	for i := range legs {
		legs[i] = e.leg(s, i)
	}
	vessels, err := e.vesselAtSea(ctx, legs)
	if err != nil {
		return fc, err
	}
	var later []Feature // estimated full legs come after the last port
	for i, stop := range s.Route {
		if pt, ok := e.portAt(stop.LOCODE); ok {
			fc.Features = append(fc.Features, Feature{Type: "Feature", Geometry: pointGeometry(geo.Point{Lat: pt.Latitude, Lon: pt.Longitude}),
				Properties: portProperties(pt, stop, i, total, s.UpdatedAt)})
		}
		if i == len(legs) {
			break
		}
		l := legs[i]
		if !l.started() {
			if f, ok := e.fullLeg(l, split); ok {
				later = append(later, f)
			}
			continue
		}
		fs, err := e.sailedLeg(ctx, l, vessels[l.imo], total, now, split)
		if err != nil {
			return fc, err
		}
		fc.Features = append(fc.Features, fs...)
	}
	fc.Features = append(fc.Features, e.inland(s, c, split)...)
	fc.Features = append(fc.Features, later...)
	return fc, nil
}

// inland draws the leg past the port of discharge to the inland destination, when the carrier
// reports one and both places can be placed: a straight segment from the port to the destination
// (the carriers report no stops between, so the line does not follow the track), marked with its
// mode and its progress, and the destination as a point. It comes after the port of discharge,
// before the ocean legs not started.
func (e *Engine) inland(s boxwatch.Shipment, c boxwatch.Container, split bool) []Feature {
	d := s.Destination
	if d == nil || d.LOCODE == "" || len(s.Route) < 2 {
		return nil
	}
	pod := s.Route[len(s.Route)-1]
	if d.LOCODE == pod.LOCODE {
		return nil
	}
	from, ok := e.portAt(pod.LOCODE)
	if !ok {
		return nil
	}
	to, ok := e.portAt(d.LOCODE)
	if !ok {
		return nil
	}
	total := len(s.Route)
	mode := strings.ToLower(d.Mode)
	if mode == "" {
		mode = "unknown"
	}
	in := c.Inland
	eta, ata := firstTime(in.IndETAAt, d.ETA), firstTime(in.IndATAAt, d.ATA)
	progress := inlandAhead
	switch {
	case !ata.IsZero() || !in.IndRailUnloadedAt.IsZero() || !in.FinalDestinationFullOutAt.IsZero():
		progress = inlandDone
	case !in.PODRailDepartedAt.IsZero():
		progress = inlandUnderWay
	}
	g, n := lineGeometry(e.inlandPath(from, to, d.Mode), split)
	leg := Feature{Type: "Feature", Geometry: g, Properties: mapInlandLegProperties{FeatureType: featureInlandLeg, PortsSequence: total,
		Mode: mode, Progress: progress, PreviousPortID: from.ID, NextLocationID: to.ID,
		LoadedAt: optTime(in.PODRailLoadedAt), DepartedAt: optTime(in.PODRailDepartedAt), ETAAt: optTime(eta), ATAAt: optTime(ata),
		Straight: true, PointCount: n}}
	dest := Feature{Type: "Feature", Geometry: pointGeometry(portPoint(to)), Properties: mapInlandDestinationProperties{
		FeatureType: featureInlandDestination, PortsSequence: total + 1, LocationID: to.ID, LocationType: "InlandDestination",
		Name: to.Name, FacilityName: optString(d.Name), StateAbbr: optString(to.StateAbbr), State: optString(to.State),
		CountryCode: to.CountryCode, Country: to.Country, TimeZone: optString(to.TimeZone), Mode: mode,
		InboundETAAt: optTime(eta), InboundATAAt: optTime(ata), Label: "DEST"}}
	return []Feature{leg, dest}
}

// firstTime is the first of ts that is not zero.
func firstTime(ts ...time.Time) time.Time {
	for _, t := range ts {
		if !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}

// leg is the leg of a shipment's route that leaves stop i, with its vessel: the one leaving the
// port or, when the carrier names none, the one arriving at the next.
func (e *Engine) leg(s boxwatch.Shipment, i int) mapLeg {
	from, to := s.Route[i], s.Route[i+1]
	l := mapLeg{i: i, from: from, to: to, imo: from.OutboundVesselIMO, voyage: from.OutboundVoyage}
	if l.imo == "" {
		l.imo, l.voyage = to.InboundVesselIMO, to.InboundVoyage
	}
	l.fromPort, l.fromOK = e.portAt(from.LOCODE)
	l.toPort, l.toOK = e.portAt(to.LOCODE)
	return l
}

// vesselAtSea reads the vessel at sea, if any, with its latest position. The vessels of the legs
// sailed are needed only for their tracks, which the track cache keeps by IMO number.
func (e *Engine) vesselAtSea(ctx context.Context, legs []mapLeg) (map[string]boxwatch.Vessel, error) {
	for _, l := range legs {
		if !l.sailing() || l.imo == "" {
			continue
		}
		v, err := e.vessels.Vessel(ctx, l.imo)
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

// inlandPath is the line an inland leg is drawn along: for a barge, through the ports of the
// waterway between the two places (straight from port to port, as the carrier reports no position
// on the river); otherwise, or when a port has no coordinates, straight from one place to the other.
func (e *Engine) inlandPath(from, to boxwatch.Port, mode string) []geo.Point {
	straight := []geo.Point{portPoint(from), portPoint(to)}
	if mode != "BARGE" {
		return straight
	}
	ports, ok := e.waterways.Between(from.LOCODE, to.LOCODE)
	if !ok {
		return straight
	}
	path := make([]geo.Point, 0, len(ports))
	for _, code := range ports {
		pt, ok := e.portAt(code)
		if !ok {
			return straight
		}
		path = append(path, portPoint(pt))
	}
	return path
}

// portAt returns a port with coordinates: one without cannot be drawn.
func (e *Engine) portAt(locode string) (boxwatch.Port, bool) {
	if locode == "" {
		return boxwatch.Port{}, false
	}
	pt, ok := e.ports.ByLOCODE(locode)
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
func (e *Engine) fullLeg(l mapLeg, split bool) (Feature, bool) {
	if !l.fromOK || !l.toOK {
		return Feature{}, false
	}
	re := e.routeEntry(portPoint(l.fromPort), portPoint(l.toPort))
	if !re.ok {
		return Feature{}, false
	}
	g, n := re.geometry(split)
	return Feature{Type: "Feature", Geometry: g, Properties: mapFullLegProperties{FeatureType: featureEstimatedFull,
		PortsSequence: l.i + 1, PreviousPortID: l.fromPort.ID, NextPortID: l.toPort.ID, PointCount: n}}, true
}

// sailedLeg draws a leg sailed or being sailed: the current vessel (if at sea with a position),
// the path sailed, and the path still to sail from the vessel.
func (e *Engine) sailedLeg(ctx context.Context, l mapLeg, vessel boxwatch.Vessel, total int, now time.Time, split bool) ([]Feature, error) {
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
	if e.positions != nil && l.imo != "" && end.After(l.from.ATD) {
		var err error
		if tr, err = e.track(ctx, l.imo, vessel.MMSI, l.from.ATD, end, open); err != nil {
			return nil, err
		}
	}
	if here != nil && (len(tr.points) == 0 || here.Timestamp.After(tr.last)) {
		tr = tr.with(*here)
	}

	var out []Feature
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
			if p, ok := e.route(positionPoint(*here), portPoint(pt)); ok {
				partial = &p
				nm := math.Round(p.DistanceNM*10) / 10
				cur.DistanceToGoNM = &nm
				if at, ok := e.predictedArrival(*here, l, p, tr); ok {
					cur.PredictedArrivalAt = optTime(at)
				}
			}
		}
		out = append(out, Feature{Type: "Feature", Geometry: pointGeometry(positionPoint(*here)), Properties: cur})
	}

	past := mapPastProperties{FeatureType: featurePast, PortsSequence: l.i + 1, VesselID: vessel.ID,
		OutboundATDAt: optTime(l.from.ATD), InboundATAAt: optTime(l.to.ATA), InboundETAAt: optTime(l.to.ETA)}
	points := tr.points
	if len(points) >= 2 {
		past.StartTime, past.EndTime = tr.first.UTC().Format(boxwatch.TimeFormat), tr.last.UTC().Format(boxwatch.TimeFormat)
	} else if pts, upTo, ok := e.fallback(l, here, now); ok {
		points, past.Estimated = pts, true
		past.StartTime, past.EndTime = l.from.ATD.UTC().Format(boxwatch.TimeFormat), upTo.UTC().Format(boxwatch.TimeFormat)
	} else {
		points = nil
	}
	if len(points) >= 2 {
		var g Geometry
		if !split && !past.Estimated && tr.line != nil {
			g, past.PointCount = Geometry{Type: "LineString", Coordinates: json.RawMessage(tr.line)}, len(points) // drawn once, kept with the track
		} else {
			g, past.PointCount = lineGeometry(points, split)
		}
		out = append(out, Feature{Type: "Feature", Geometry: g, Properties: past})
	}

	if partial != nil {
		pts := startAt(partial.Points, positionPoint(*here))
		g, n := lineGeometry(pts, split)
		out = append(out, Feature{Type: "Feature", Geometry: g, Properties: mapPartialLegProperties{FeatureType: featureEstimatedPartil,
			PortsSequence: l.i + 1, CurrentPortID: l.fromPort.ID, NextPortID: l.toPort.ID, PointCount: n}})
	}
	return out, nil
}

// predictedArrival is when a vessel seen at here on leg l berths at the leg's end, toGo still to
// sail: eta.Predict from its recent track (ending at here), the path's distance and the canals on
// it, and the waits the engine learned (see learn.go), as of here's time. When the track is too
// short to tell a cruising speed (a vessel just heard, or with no stored track), the speed it
// made good or last reported carries it the distance; ok is false when neither is known or it
// is too slow.
func (e *Engine) predictedArrival(here boxwatch.VesselPosition, l mapLeg, toGo searoute.Path, tr track) (at time.Time, ok bool) {
	port := portPoint(l.toPort)
	v := eta.Voyage{At: here.Timestamp, Track: tr.recent, Port: l.to.LOCODE, PortPoint: port, RemainingNM: toGo.DistanceNM,
		InCanal: canalAt(positionPoint(here)), CarrierETA: l.to.ETA}
	for _, p := range toGo.Passages {
		// A port within a canal's approaches (Balboa, Port Said) is reached without queueing.
		if c := string(p); slices.Contains(queueing, p) && c != v.InCanal && c != canalAt(port) && !slices.Contains(v.Canals, c) {
			v.Canals = append(v.Canals, c)
		}
	}
	if at, ok := eta.Predict(v, e.waits); ok {
		return at, true
	}
	knots, ok := eta.Speed(tr.recent)
	if !ok {
		return time.Time{}, false
	}
	return eta.Arrival(here.Timestamp, toGo.DistanceNM, knots)
}

// PredictedArrival is when the vessel sailing a shipment's last leg reaches the port of
// discharge, as the map's current_vessel predicts it (predicted_arrival_at; see
// predictedArrival). ok is false unless the shipment is on its last leg at sea with the vessel's
// position and the speed it made good known, and a sea route joins the vessel to the port.
func (e *Engine) PredictedArrival(ctx context.Context, s boxwatch.Shipment) (at time.Time, ok bool, err error) {
	if len(s.Route) < 2 {
		return time.Time{}, false, nil
	}
	l := e.leg(s, len(s.Route)-2)
	if !l.sailing() || l.imo == "" || !l.toOK {
		return time.Time{}, false, nil
	}
	v, err := e.vessels.Vessel(ctx, l.imo)
	if boxwatch.IsKind(err, boxwatch.KindNotFound) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, err
	}
	p := latestPosition(l, v)
	if p == nil || e.positions == nil || v.MMSI == "" {
		return time.Time{}, false, nil
	}
	tr, err := e.track(ctx, l.imo, v.MMSI, l.from.ATD, maxTime(e.now(), p.Timestamp.Add(time.Second)), true)
	if err != nil {
		return time.Time{}, false, err
	}
	if len(tr.points) == 0 || p.Timestamp.After(tr.last) {
		tr = tr.with(*p) // as the map's leg does: the track ends where the vessel is
	}
	path, ok := e.route(positionPoint(*p), portPoint(l.toPort))
	if !ok {
		return time.Time{}, false, nil
	}
	at, ok = e.predictedArrival(*p, l, path, tr)
	return at, ok, nil
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
func (e *Engine) fallback(l mapLeg, here *boxwatch.VesselPosition, now time.Time) ([]geo.Point, time.Time, bool) {
	if !l.fromOK {
		return nil, time.Time{}, false
	}
	from := portPoint(l.fromPort)
	if here != nil {
		p, ok := e.route(from, positionPoint(*here))
		if !ok {
			return nil, time.Time{}, false
		}
		return endAt(p.Points, positionPoint(*here)), here.Timestamp, true
	}
	if !l.toOK {
		return nil, time.Time{}, false
	}
	p, ok := e.route(from, portPoint(l.toPort))
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
func (e *Engine) route(from, to geo.Point) (searoute.Path, bool) {
	re := e.routeEntry(from, to)
	return re.path, re.ok
}

func (e *Engine) routeEntry(from, to geo.Point) routeEntry {
	return e.routes.get(from, to, func() routeEntry {
		p, err := e.sea.Route(from, to, searoute.Options{})
		if err != nil {
			e.log.Warn("map: no sea route", "from", fmt.Sprint(from), "to", fmt.Sprint(to), "error", err.Error())
			return routeEntry{err: err}
		}
		if len(p.Points) < 2 {
			return routeEntry{path: p} // no line to draw, though the router answered
		}
		g, _ := lineGeometry(p.Points, false)
		return routeEntry{path: p, ok: true, line: g.Coordinates.(json.RawMessage)}
	})
}
