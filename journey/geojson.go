package journey

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/geo"
)

// GeoJSON (RFC 7946) as the map answers it. Positions are [longitude, latitude]. The types are
// exported for the API's document of the map; Map.Body is what the engine draws with them.

// FeatureCollection is a map: its features in route order.
type FeatureCollection struct {
	Type     string    `json:"type" enum:"FeatureCollection"`
	Features []Feature `json:"features"`
}

// Feature is a port, the vessel at sea or a line of a leg; Properties depend on its feature_type.
type Feature struct {
	Type       string   `json:"type" enum:"Feature"`
	Geometry   Geometry `json:"geometry"`
	Properties any      `json:"properties" doc:"By feature_type: see the endpoint's description."`
}

// Geometry is a Point, a LineString or a MultiLineString.
type Geometry struct {
	Type string `json:"type" enum:"Point,LineString,MultiLineString"`
	// Coordinates is a position, a list of positions or a list of lists of positions; the engine
	// keeps them as encoded JSON (json.RawMessage).
	Coordinates any `json:"coordinates"`
}

// Feature types of the map.
const (
	featurePort            = "port"
	featureCurrentVessel   = "current_vessel"
	featurePast            = "past_vessel_locations"
	featureEstimatedFull   = "estimated_full_legs"
	featureEstimatedPartil = "estimated_partial_leg"
	// boxwatch additions: the leg past the port of discharge and where it ends.
	featureInlandLeg         = "inland_leg"
	featureInlandDestination = "inland_destination"
)

// The progress of an inland leg.
const (
	inlandAhead    = "ahead"     // the train (or truck, or barge) has not left the port of discharge
	inlandUnderWay = "under_way" // it left and has not arrived
	inlandDone     = "past"      // it arrived at the inland destination
)

// The properties of each feature type, as the reference names them.

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

// mapInlandLegProperties describe the leg from the port of discharge to the inland destination
// (a boxwatch addition): a straight segment, as the carriers report no stops between.
type mapInlandLegProperties struct {
	FeatureType    string  `json:"feature_type"`
	PortsSequence  int     `json:"ports_sequence"`
	Mode           string  `json:"mode"`     // rail, truck, barge (the carrier's mode, lower case)
	Progress       string  `json:"progress"` // ahead, under_way, past
	PreviousPortID string  `json:"previous_port_id"`
	NextLocationID string  `json:"next_location_id"`
	LoadedAt       *string `json:"pod_rail_loaded_at"`
	DepartedAt     *string `json:"pod_rail_departed_at"`
	ETAAt          *string `json:"ind_eta_at"`
	ATAAt          *string `json:"ind_ata_at"`
	Straight       bool    `json:"straight"`
	PointCount     int     `json:"point_count"`
}

// mapInlandDestinationProperties describe the inland destination (a boxwatch addition), shaped
// as a port's.
type mapInlandDestinationProperties struct {
	FeatureType   string  `json:"feature_type"`
	PortsSequence int     `json:"ports_sequence"`
	LocationID    string  `json:"location_id"`
	LocationType  string  `json:"location_type"`
	Name          string  `json:"name"`
	FacilityName  *string `json:"facility_name"`
	StateAbbr     *string `json:"state_abbr"`
	State         *string `json:"state"`
	CountryCode   string  `json:"country_code"`
	Country       string  `json:"country"`
	TimeZone      *string `json:"time_zone"`
	Mode          string  `json:"mode"`
	InboundETAAt  *string `json:"inbound_eta_at"`
	InboundATAAt  *string `json:"inbound_ata_at"`
	Label         string  `json:"label"`
}

// optTime renders a zero time as null.
func optTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(boxwatch.TimeFormat)
	return &s
}

// optString renders "" as null.
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

type position [2]float64

func pos(p geo.Point) position { return position{round6(wrapLon(p.Lon)), round6(p.Lat)} }

// round6 keeps a tenth of a metre: more digits only make the answer longer.
func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

func wrapLon(lon float64) float64 {
	for lon > 180 {
		lon -= 360
	}
	for lon < -180 {
		lon += 360
	}
	return lon
}

func pointGeometry(p geo.Point) Geometry {
	return Geometry{Type: "Point", Coordinates: json.RawMessage(appendPosition(nil, pos(p)))}
}

// appendPosition writes a position as JSON: by hand, because maps are long lists of them and
// reflection is most of the cost of encoding them.
func appendPosition(b []byte, p position) []byte {
	b = append(b, '[')
	b = appendCoordinate(b, p[0])
	b = append(b, ',')
	b = appendCoordinate(b, p[1])
	return append(b, ']')
}

// appendCoordinate writes a coordinate rounded to six decimals as its shortest form (as
// encoding/json would), by fixed-point formatting, which is cheaper than finding the shortest.
func appendCoordinate(b []byte, x float64) []byte {
	start := len(b)
	b = strconv.AppendFloat(b, x, 'f', 6, 64)
	for b[len(b)-1] == '0' {
		b = b[:len(b)-1]
	}
	if b[len(b)-1] == '.' {
		b = b[:len(b)-1]
	}
	if string(b[start:]) == "-0" {
		b = append(b[:start], '0')
	}
	return b
}

// encode writes the collection as encoding/json would, but copies the geometries' coordinates
// as they are: they are most of a map's bytes and already valid JSON.
func (fc FeatureCollection) encode() []byte {
	size := 64
	for _, f := range fc.Features {
		size += len(f.Geometry.Coordinates.(json.RawMessage)) + 1024
	}
	b := make([]byte, 0, size)
	b = append(b, `{"type":"FeatureCollection","features":[`...)
	for i, f := range fc.Features {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":"Feature","geometry":{"type":"`...)
		b = append(b, f.Geometry.Type...)
		b = append(b, `","coordinates":`...)
		b = append(b, f.Geometry.Coordinates.(json.RawMessage)...)
		b = append(b, `},"properties":`...)
		b = appendJSON(b, f.Properties)
		b = append(b, '}')
	}
	return append(b, "]}\n"...)
}

// appendJSON writes v as encoding/json would, HTML characters unescaped, without the encoder's
// newline.
func appendJSON(b []byte, v any) []byte {
	buf := bytes.NewBuffer(b)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only a programming error gets here: every property is made of plain types.
		panic(fmt.Sprintf("journey: encoding %T: %v", v, err))
	}
	out := buf.Bytes()
	return out[:len(out)-1]
}

func appendLine(b []byte, line []position) []byte {
	b = append(b, '[')
	for i, p := range line {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendPosition(b, p)
	}
	return append(b, ']')
}

// lineGeometry draws points as one LineString, or, with split, cut at the antimeridian per RFC 7946
// §3.1.9 (a MultiLineString whenever the line crosses it). It returns the geometry and how many
// positions it has; points must be at least two.
func lineGeometry(points []geo.Point, split bool) (Geometry, int) {
	line := make([]position, len(points))
	for i, p := range points {
		line[i] = pos(p)
	}
	if !split {
		return Geometry{Type: "LineString", Coordinates: json.RawMessage(appendLine(nil, line))}, len(line)
	}
	parts := splitAntimeridian(line)
	if len(parts) == 1 {
		return Geometry{Type: "LineString", Coordinates: json.RawMessage(appendLine(nil, parts[0]))}, len(parts[0])
	}
	n := 0
	b := []byte{'['}
	for i, p := range parts {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendLine(b, p)
		n += len(p)
	}
	return Geometry{Type: "MultiLineString", Coordinates: json.RawMessage(append(b, ']'))}, n
}

// splitAntimeridian cuts a line wherever two consecutive positions lie more than 180° of
// longitude apart (the short way between them crosses the antimeridian), ending one part at ±180
// and starting the next at ∓180 at the latitude where the segment crosses.
func splitAntimeridian(line []position) [][]position {
	var parts [][]position
	cur := []position{line[0]}
	for i := 1; i < len(line); i++ {
		a, b := line[i-1], line[i]
		if d := b[0] - a[0]; math.Abs(d) > 180 {
			edge := 180.0
			bLon := b[0] + 360
			if d > 0 { // westward across the antimeridian: a is near -180, b near +180
				edge, bLon = -180, b[0]-360
			}
			lat := a[1]
			if bLon != a[0] { // both on the antimeridian: the crossing is at a
				lat = round6(a[1] + (b[1]-a[1])*(edge-a[0])/(bLon-a[0]))
			}
			cur = appendDistinct(cur, position{edge, lat})
			if len(cur) < 2 { // a lay on the edge itself: the part is that single point, drawn twice
				cur = append(cur, cur[0])
			}
			parts = append(parts, cur)
			cur = []position{{-edge, lat}}
		}
		cur = appendDistinct(cur, b)
	}
	if len(cur) < 2 {
		cur = append(cur, cur[0])
	}
	return append(parts, cur)
}

func appendDistinct(line []position, p position) []position {
	if len(line) > 0 && line[len(line)-1] == p {
		return line
	}
	return append(line, p)
}

// simplifyDeg is the map's simplification tolerance in degrees of latitude (about 1 km): finer
// than any zoom that shows a whole leg, coarse enough to draw a 20,000-position track with a few
// hundred.
const simplifyDeg = 0.01

// simplify drops the points of a path that lie within simplifyDeg of the line through their
// neighbours (Douglas-Peucker, on longitudes unwrapped so that the antimeridian is no edge, east
// distances scaled by the cosine of the latitude). The first and last points are kept.
func simplify(points []geo.Point) []geo.Point {
	if len(points) < 3 {
		return points
	}
	un := make([]geo.Point, len(points))
	un[0] = points[0]
	for i := 1; i < len(points); i++ {
		lon := points[i].Lon
		for lon-un[i-1].Lon > 180 {
			lon -= 360
		}
		for lon-un[i-1].Lon < -180 {
			lon += 360
		}
		un[i] = geo.Point{Lat: points[i].Lat, Lon: lon}
	}
	keep := make([]bool, len(un))
	keep[0], keep[len(un)-1] = true, true
	type span struct{ lo, hi int }
	stack := []span{{0, len(un) - 1}}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if s.hi-s.lo < 2 {
			continue
		}
		worst, at := -1.0, -1
		a, b := un[s.lo], un[s.hi]
		k := math.Cos((a.Lat + b.Lat) / 2 * math.Pi / 180)
		ax, bx := a.Lon*k, b.Lon*k
		dx, dy := bx-ax, b.Lat-a.Lat
		l2 := dx*dx + dy*dy
		for i := s.lo + 1; i < s.hi; i++ {
			px, py := un[i].Lon*k-ax, un[i].Lat-a.Lat
			var d float64
			if l2 == 0 {
				d = px*px + py*py
			} else {
				t := max(0, min(1, (px*dx+py*dy)/l2))
				ex, ey := px-t*dx, py-t*dy
				d = ex*ex + ey*ey
			}
			if d > worst {
				worst, at = d, i
			}
		}
		if worst > simplifyDeg*simplifyDeg {
			keep[at] = true
			stack = append(stack, span{s.lo, at}, span{at, s.hi})
		}
	}
	out := make([]geo.Point, 0, 64)
	for i, p := range points {
		if keep[i] {
			out = append(out, p)
		}
	}
	return out
}
