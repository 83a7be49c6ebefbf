package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch/geo"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

func TestRouteSummary(t *testing.T) {
	out, _, err := runCmd(t, nil, "route", "CNSHA", "NLRTM", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var s routeSummary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("%v in %q", err, out)
	}
	if s.DistanceNM < 10400 || s.DistanceNM > 10800 || !slices.Contains(s.Passages, "suez") || s.Points < 2 {
		t.Errorf("got %+v, want about 10,600 nm through Suez", s)
	}
	out, _, err = runCmd(t, nil, "route", "cnsha", "nlrtm", "--format", "json", "--avoid", "suez,panama")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil || s.DistanceNM < 13500 || slices.Contains(s.Passages, "suez") {
		t.Errorf("avoiding Suez and Panama: %+v, %v; want round the Cape", s, err)
	}
}

// TestRoutePublishedCoordinates routes between port coordinates as the port list's source
// publishes them, which Natural Earth 1:50m draws on land (Tilbury, Manila): each reaches the
// water beside it. A point farther inland than searoute.SnapKM fails, naming the point.
func TestRoutePublishedCoordinates(t *testing.T) {
	out, _, err := runCmd(t, nil, "route", "0.360498,51.463024", "120.98422,14.59951", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var s routeSummary
	if err := json.Unmarshal([]byte(out), &s); err != nil || s.DistanceNM < 9000 || s.Points < 2 {
		t.Errorf("Tilbury to Manila as published: %+v, %v; want a route", s, err)
	}
	_, _, err = runCmd(t, nil, "route", "0.36050,51.46302", "10.0,51.0")
	if err == nil || !strings.Contains(err.Error(), "to point 10.00000,51.00000: point is on land, more than 5 km from navigable water") {
		t.Errorf("a point in Germany: %v; want it named as on land", err)
	}
}

// TestRouteGeoJSON compares a path across the antimeridian with its golden file: a
// MultiLineString cut at 180° (-update rewrites it).
func TestRouteGeoJSON(t *testing.T) {
	out, _, err := runCmd(t, nil, "route", "170,30", "-170,31")
	if err != nil {
		t.Fatal(err)
	}
	var f feature
	if err := json.Unmarshal([]byte(out), &f); err != nil {
		t.Fatal(err)
	}
	if f.Type != "Feature" || f.Geometry.Type != "MultiLineString" {
		t.Errorf("got a %s of a %s, want a Feature of a MultiLineString", f.Type, f.Geometry.Type)
	}
	path := filepath.Join("testdata", "golden", "route-antimeridian.geojson")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestCutAtAntimeridian(t *testing.T) {
	got := cutAtAntimeridian(pointsOf(170, 10, -170, 20, -160, 20, 170, 30))
	want := [][][2]float64{{{170, 10}, {180, 15}}, {{-180, 15}, {-170, 20}, {-160, 20}, {-180, 26.66667}}, {{180, 26.66667}, {170, 30}}}
	if !equalParts(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := cutAtAntimeridian(pointsOf(0, 0, 10, 10)); len(got) != 1 || len(got[0]) != 2 {
		t.Errorf("a line far from 180° was cut: %v", got)
	}
}

func TestRoutePairs(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte(`{"pairs": [
		{"id": "a", "origin": {"locode": "CNSHA"}, "destination": {"lon": 4.442447, "lat": 51.904383}},
		{"id": "b", "origin": {"locode": "CNSHA"}, "destination": {"locode": "NLRTM"}, "avoid": ["suez", "panama"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCmd(t, nil, "route", "--pairs", good, "--repeat", "3")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2: %q", len(lines), out)
	}
	var a, b pairResult
	if json.Unmarshal([]byte(lines[0]), &a) != nil || json.Unmarshal([]byte(lines[1]), &b) != nil {
		t.Fatalf("not JSON lines: %q", out)
	}
	if a.ID != "a" || b.ID != "b" || a.DistanceNM >= b.DistanceNM || a.Points < 2 || a.MS <= 0 || slices.Contains(b.Passages, "suez") {
		t.Errorf("got %+v and %+v, want a through Suez shorter than b round the Cape", a, b)
	}

	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"pairs": [{"id": "paris", "origin": {"lon": 2.35, "lat": 48.86}, "destination": {"locode": "NLRTM"}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err = runCmd(t, nil, "route", "--pairs", bad)
	if err == nil || !strings.Contains(out, `"error":"from point 2.35000,48.86000: point is on land, more than 5 km from navigable water"`) {
		t.Errorf("a pair on land: %q, %v; want its error line and a failure", out, err)
	}
}

func TestRouteUsageErrors(t *testing.T) {
	for name, args := range map[string][]string{
		"UnknownPassage": {"route", "CNSHA", "NLRTM", "--avoid", "atlantis"},
		"BadFormat":      {"route", "CNSHA", "NLRTM", "--format", "kml"},
		"OnePlace":       {"route", "CNSHA"},
		"NotAPlace":      {"route", "CNSHA", "nowhere"},
		"UnknownLOCODE":  {"route", "CNSHA", "XXZZZ"},
		"OutOfRange":     {"route", "CNSHA", "200,10"},
		"PairsAndPlaces": {"route", "CNSHA", "NLRTM", "--pairs", "x.json"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, _, err := runCmd(t, nil, args...); err == nil {
				t.Fatal("no error")
			} else if _, ok := err.(usageError); !ok {
				t.Errorf("%v is not a usage error", err)
			}
		})
	}
}

func FuzzParsePlace(f *testing.F) {
	for _, s := range []string{"CNSHA", "4.44,51.9", " -118.26,33.73", "180,90", "-180,-90", "1e2,3", "NaN,0", "a,b", ",", "nlrtm"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parsePlace(s)
		if err != nil {
			return
		}
		if p.Lat < -90 || p.Lat > 90 || p.Lon < -180 || p.Lon > 180 || p.Lat != p.Lat || p.Lon != p.Lon {
			t.Errorf("parsePlace(%q) = %v, out of range", s, p)
		}
	})
}

func pointsOf(lonlat ...float64) []geo.Point {
	var out []geo.Point
	for i := 0; i < len(lonlat); i += 2 {
		out = append(out, geo.Point{Lon: lonlat[i], Lat: lonlat[i+1]})
	}
	return out
}

func equalParts(a, b [][][2]float64) bool {
	return slices.EqualFunc(a, b, func(x, y [][2]float64) bool { return slices.Equal(x, y) })
}
