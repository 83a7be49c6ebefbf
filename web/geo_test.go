package web_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/boxwatch/boxwatch/internal/testenv"
)

// runGeo runs a script against the app's geo.js in Node, which the browser tests do not reach on
// their own: the antimeridian only matters for journeys that cross it. go build and the API need
// no Node; these tests do (testenv decides what its absence does).
func runGeo(t *testing.T, script string, out any) {
	t.Helper()
	node := testenv.Need(t, "node")
	geo, err := filepath.Abs("app/js/geo.js")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "--input-type=module", "-e", "import * as geo from "+quote(geo)+";\n"+script)
	b, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("node: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("node printed %q: %v", b, err)
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// The API's trans-Pacific map (Shanghai to Los Angeles, the vessel past 180°) comes out with
// continuous longitudes: no step between two positions is longer than a few degrees, the vessel
// sits where its lines meet, and the bounds span the Pacific, not the rest of the world.
func TestUnwrapCrossesThePacific(t *testing.T) {
	for _, golden := range []string{"map_transpacific.geojson", "map_transpacific_split.geojson", "map_sea_leg1.geojson"} {
		t.Run(golden, func(t *testing.T) {
			file, err := filepath.Abs("../api/testdata/" + golden)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				MaxStep float64      `json:"maxStep"`
				Bounds  [][2]float64 `json:"bounds"`
				Vessel  []float64    `json:"vessel"`
				Lines   int          `json:"lines"`
			}
			runGeo(t, `
import { readFileSync } from 'node:fs';
const fc = geo.unwrap(JSON.parse(readFileSync(`+quote(file)+`, 'utf8')));
let maxStep = 0, lines = 0;
for (const f of fc.features) {
  if (f.geometry.type !== 'LineString') continue;
  lines++;
  const c = f.geometry.coordinates;
  for (let i = 1; i < c.length; i++) maxStep = Math.max(maxStep, Math.abs(c[i][0] - c[i - 1][0]));
}
const vessel = fc.features.find((f) => f.properties.feature_type === 'current_vessel')?.geometry.coordinates ?? [];
console.log(JSON.stringify({ maxStep, lines, vessel, bounds: geo.bounds(fc) }));`, &got)
			if got.Lines == 0 || got.MaxStep > 20 {
				t.Errorf("%d lines, longest step %.1f°", got.Lines, got.MaxStep)
			}
			if width := got.Bounds[1][0] - got.Bounds[0][0]; width > 180 {
				t.Errorf("bounds %v are %.0f° wide: the journey went round the world the long way", got.Bounds, width)
			}
			if len(got.Vessel) == 2 && (got.Vessel[0] < got.Bounds[0][0] || got.Vessel[0] > got.Bounds[1][0]) {
				t.Errorf("the vessel at %v lies outside the lines' bounds %v", got.Vessel, got.Bounds)
			}
			t.Logf("bounds %v, longest step %.2f°", got.Bounds, got.MaxStep)
		})
	}
}

// The land decoded from world-atlas has no ring that jumps across the map (which would draw a
// band round the world) and none outside [-180°, 180°], and keeps every polygon.
func TestLandIsPlanar(t *testing.T) {
	file, err := filepath.Abs("vendor/world-atlas/land-50m.json")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Polygons, Jumps, Open int
		West, East            float64
	}
	runGeo(t, `
import { readFileSync } from 'node:fs';
const land = geo.landFromTopology(JSON.parse(readFileSync(`+quote(file)+`, 'utf8')));
let Polygons = 0, Jumps = 0, Open = 0, West = 0, East = 0;
for (const f of land.features) for (const poly of f.geometry.coordinates) {
  Polygons++;
  for (const ring of poly) {
    const first = ring[0], last = ring[ring.length - 1];
    if (first[0] !== last[0] || first[1] !== last[1]) Open++;
    for (let i = 1; i < ring.length; i++) {
      // Along a pole (latitude ±90) a ring may run the map's whole width; anywhere else it must not.
      if (Math.abs(ring[i][0] - ring[i - 1][0]) > 180 && Math.abs(ring[i][1]) < 89.9) Jumps++;
    }
    for (const [x] of ring) { West = Math.min(West, x); East = Math.max(East, x); }
  }
}
console.log(JSON.stringify({ Polygons, Jumps, Open, West, East }));`, &got)
	if got.Jumps != 0 || got.Open != 0 || got.West < -180 || got.East > 180 {
		t.Errorf("%d rings jump across the map, %d are open, longitudes from %.1f to %.1f", got.Jumps, got.Open, got.West, got.East)
	}
	// land-50m holds 1,419 polygons; cutting the few that cross the antimeridian adds some.
	if got.Polygons < 1419 {
		t.Errorf("%d polygons, want 1419 or more", got.Polygons)
	}
}
