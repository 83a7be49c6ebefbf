package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/searoute"
)

// runRoute is "boxwatch route": the shortest sea path between two places, or for every pair of
// a file (--pairs) with the median time of a query.
func runRoute(_ context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flagSet{flag.NewFlagSet("route", flag.ContinueOnError), stderr}
	fs.SetOutput(io.Discard)
	avoid := fs.String("avoid", "", "passages to avoid, comma-separated: "+passageNames())
	open := fs.String("open", "", "passages closed by default to open, comma-separated (kiel, corinth, northwest, northeast)")
	format := fs.String("format", "geojson", "output: geojson (a Feature) or json (a summary)")
	pairs := fs.String("pairs", "", "route every pair of this JSON file instead (see sea-routes-sample.json's shape)")
	repeat := fs.Int("repeat", 1, "with --pairs: time each query this many times and report the median")
	// A western longitude ("-118.26,33.73") is a place, not a flag: a leading space keeps the
	// flag package from reading it as one, and parsePlace trims it.
	args = slices.Clone(args)
	for i, a := range args {
		if len(a) > 1 && a[0] == '-' && (a[1] >= '0' && a[1] <= '9' || a[1] == '.') {
			args[i] = " " + a
		}
	}
	pos, err := parseFlags(fs, args, getenv)
	if err != nil {
		return err
	}
	opts, err := routeOptions(*avoid, *open)
	if err != nil {
		return err
	}
	if *pairs != "" {
		if len(pos) != 0 {
			return usagef("route --pairs FILE takes no FROM and TO")
		}
		if *repeat < 1 {
			return usagef("--repeat must be at least 1")
		}
		return routePairs(*pairs, *repeat, opts, stdout)
	}
	for i := range pos {
		pos[i] = strings.TrimSpace(pos[i])
	}
	if len(pos) != 2 {
		return usagef("usage: boxwatch route FROM TO [--avoid suez,panama] [--format geojson|json] (FROM and TO are UN/LOCODEs or lon,lat)")
	}
	if *format != "geojson" && *format != "json" {
		return usagef("--format is geojson or json, not %q", *format)
	}
	from, err := parsePlace(pos[0])
	if err != nil {
		return err
	}
	to, err := parsePlace(pos[1])
	if err != nil {
		return err
	}
	path, err := data.SeaNetwork().Route(from, to, opts)
	if err != nil {
		return fmt.Errorf("route %s %s: %w", pos[0], pos[1], err)
	}
	enc := json.NewEncoder(stdout)
	if *format == "json" {
		return enc.Encode(routeSummary{From: pos[0], To: pos[1], DistanceNM: round1(path.DistanceNM), Passages: passagesOf(path), Points: len(path.Points)})
	}
	return enc.Encode(routeFeature(pos[0], pos[1], path))
}

// parsePlace reads a UN/LOCODE of the port list or "lon,lat" in degrees.
func parsePlace(s string) (geo.Point, error) {
	s = strings.TrimSpace(s)
	if lon, lat, ok := strings.Cut(s, ","); ok {
		x, errX := strconv.ParseFloat(strings.TrimSpace(lon), 64)
		y, errY := strconv.ParseFloat(strings.TrimSpace(lat), 64)
		if errX != nil || errY != nil || math.IsNaN(x) || math.IsNaN(y) || x < -180 || x > 180 || y < -90 || y > 90 {
			return geo.Point{}, usagef("%q is not lon,lat in degrees (longitude -180…180, latitude -90…90)", s)
		}
		return geo.Point{Lat: y, Lon: x}, nil
	}
	if !boxwatch.IsLOCODE(boxwatch.UpperASCII(s)) {
		return geo.Point{}, usagef("%q is neither a UN/LOCODE nor lon,lat", s)
	}
	p, ok := data.Ports().ByLOCODE(s)
	if !ok {
		return geo.Point{}, usagef("%s is not in the port list", boxwatch.UpperASCII(s))
	}
	if !p.HasCoordinates {
		return geo.Point{}, usagef("%s (%s) has no coordinates in the port list", p.LOCODE, p.Name)
	}
	return geo.Point{Lat: p.Latitude, Lon: p.Longitude}, nil
}

func passageNames() string {
	var names []string
	for _, p := range searoute.Passages() {
		names = append(names, string(p))
	}
	return strings.Join(names, ", ")
}

func parsePassages(list string) ([]searoute.Passage, error) {
	var out []searoute.Passage
	for _, name := range strings.Split(list, ",") {
		name = boxwatch.LowerASCII(strings.TrimSpace(name))
		if name == "" {
			continue
		}
		if !slices.Contains(searoute.Passages(), searoute.Passage(name)) {
			return nil, usagef("unknown passage %q (known: %s)", name, passageNames())
		}
		out = append(out, searoute.Passage(name))
	}
	return out, nil
}

func routeOptions(avoid, open string) (searoute.Options, error) {
	a, err := parsePassages(avoid)
	if err != nil {
		return searoute.Options{}, err
	}
	o, err := parsePassages(open)
	return searoute.Options{Avoid: a, Open: o}, err
}

func round1(x float64) float64 { return math.Round(x*10) / 10 }

// passagesOf is the path's passages, [] rather than null when there are none.
func passagesOf(p searoute.Path) []searoute.Passage {
	if p.Passages == nil {
		return []searoute.Passage{}
	}
	return p.Passages
}

type routeSummary struct {
	From       string             `json:"from"`
	To         string             `json:"to"`
	DistanceNM float64            `json:"distance_nm"`
	Passages   []searoute.Passage `json:"passages"`
	Points     int                `json:"points"`
}

type feature struct {
	Type       string         `json:"type"`
	Geometry   geometry       `json:"geometry"`
	Properties map[string]any `json:"properties"`
}

type geometry struct {
	Type        string `json:"type"`
	Coordinates any    `json:"coordinates"`
}

// routeFeature is a path as a GeoJSON Feature: a LineString, or a MultiLineString cut at the
// antimeridian when the path crosses it (RFC 7946 §3.1.9).
func routeFeature(from, to string, p searoute.Path) feature {
	parts := cutAtAntimeridian(p.Points)
	g := geometry{Type: "LineString", Coordinates: parts[0]}
	if len(parts) > 1 {
		g = geometry{Type: "MultiLineString", Coordinates: parts}
	}
	return feature{Type: "Feature", Geometry: g, Properties: map[string]any{
		"from": from, "to": to, "distance_nm": round1(p.DistanceNM), "passages": passagesOf(p),
		"simplify_km": searoute.SimplifyKM,
	}}
}

// cutAtAntimeridian splits a line wherever two consecutive points lie more than 180° of longitude
// apart, ending one part at 180° (or -180°) and starting the next at the other side, at the
// latitude where the straight line between the points meets the meridian. Coordinates are
// [lon, lat] rounded to 1e-5 degrees (about a metre).
func cutAtAntimeridian(pts []geo.Point) [][][2]float64 {
	r := func(x float64) float64 { return math.Round(x*1e5) / 1e5 }
	parts := [][][2]float64{{}}
	for i, p := range pts {
		if i > 0 {
			q := pts[i-1]
			if d := p.Lon - q.Lon; math.Abs(d) > 180 {
				edge, lon := 180.0, p.Lon+360 // the meridian the line leaves q's side by; p unwrapped
				if d > 0 {
					edge, lon = -180, p.Lon-360
				}
				lat := r(q.Lat + (edge-q.Lon)*(p.Lat-q.Lat)/(lon-q.Lon))
				last := &parts[len(parts)-1]
				if end := [2]float64{edge, lat}; (*last)[len(*last)-1] != end {
					*last = append(*last, end)
				}
				parts = append(parts, [][2]float64{{-edge, lat}})
			}
		}
		last := &parts[len(parts)-1]
		if c := [2]float64{r(p.Lon), r(p.Lat)}; len(*last) == 0 || (*last)[len(*last)-1] != c {
			*last = append(*last, c)
		}
	}
	return parts
}

// pairFile is a --pairs document: pairs with an id, an origin and a destination (each a locode,
// or lon and lat), and passages to avoid.
type pairFile struct {
	Pairs []struct {
		ID          string             `json:"id"`
		Origin      pairPlace          `json:"origin"`
		Destination pairPlace          `json:"destination"`
		Avoid       []searoute.Passage `json:"avoid"`
	} `json:"pairs"`
}

type pairPlace struct {
	LOCODE string   `json:"locode"`
	Lon    *float64 `json:"lon"`
	Lat    *float64 `json:"lat"`
}

func (p pairPlace) point() (geo.Point, error) {
	if p.Lon != nil && p.Lat != nil {
		return parsePlace(strconv.FormatFloat(*p.Lon, 'f', -1, 64) + "," + strconv.FormatFloat(*p.Lat, 'f', -1, 64))
	}
	if p.LOCODE == "" {
		return geo.Point{}, errors.New("neither lon and lat nor locode")
	}
	return parsePlace(p.LOCODE)
}

type pairResult struct {
	ID         string             `json:"id"`
	DistanceNM float64            `json:"distance_nm"`
	Passages   []searoute.Passage `json:"passages"`
	Points     int                `json:"points"`
	MS         float64            `json:"ms"`
	Error      string             `json:"error,omitempty"`
}

// routePairs prints one JSON line per pair of the file; it fails after the last if any pair had
// no route.
func routePairs(name string, repeat int, base searoute.Options, stdout io.Writer) error {
	raw, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	var doc pairFile
	if err := json.Unmarshal(raw, &doc); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if len(doc.Pairs) == 0 {
		return fmt.Errorf("%s: no pairs", name)
	}
	n := data.SeaNetwork()
	enc := json.NewEncoder(stdout)
	failed := 0
	for i, pr := range doc.Pairs {
		res := pairResult{ID: cmp.Or(pr.ID, strconv.Itoa(i+1)), Passages: []searoute.Passage{}}
		opts := base
		opts.Avoid = append(slices.Clone(base.Avoid), pr.Avoid...)
		from, errFrom := pr.Origin.point()
		to, errTo := pr.Destination.point()
		if err := errors.Join(errFrom, errTo); err != nil {
			res.Error = err.Error()
			failed++
			if err := enc.Encode(res); err != nil {
				return err
			}
			continue
		}
		times := make([]time.Duration, repeat)
		var path searoute.Path
		for k := range times {
			start := time.Now()
			path, err = n.Route(from, to, opts)
			times[k] = time.Since(start)
			if err != nil {
				break
			}
		}
		if err != nil {
			res.Error = err.Error()
			failed++
		} else {
			slices.Sort(times)
			res.DistanceNM, res.Passages, res.Points = round1(path.DistanceNM), passagesOf(path), len(path.Points)
			res.MS = math.Round(float64(median(times))/1e3) / 1e3
		}
		if err := enc.Encode(res); err != nil {
			return err
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d pairs have no route", failed, len(doc.Pairs))
	}
	return nil
}

// median of sorted durations.
func median(d []time.Duration) time.Duration {
	if len(d)%2 == 1 {
		return d[len(d)/2]
	}
	return (d[len(d)/2-1] + d[len(d)/2]) / 2
}
