package journey

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/boxwatch/boxwatch/geo"
)

func TestSplitAntimeridian(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []position
		want [][]position
	}{
		{"NoCrossing", []position{{10, 0}, {20, 5}}, [][]position{{{10, 0}, {20, 5}}}},
		{"Eastward", []position{{170, 10}, {-170, 20}}, [][]position{{{170, 10}, {180, 15}}, {{-180, 15}, {-170, 20}}}},
		{"Westward", []position{{-170, 20}, {170, 10}}, [][]position{{{-170, 20}, {-180, 15}}, {{180, 15}, {170, 10}}}},
		{"TwiceThere", []position{{170, 0}, {-170, 0}, {170, 0}},
			[][]position{{{170, 0}, {180, 0}}, {{-180, 0}, {-170, 0}, {-180, 0}}, {{180, 0}, {170, 0}}}},
		{"FromTheEdge", []position{{180, 5}, {-170, 5}}, [][]position{{{180, 5}, {180, 5}}, {{-180, 5}, {-170, 5}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := splitAntimeridian(tt.in)
			if a, b := mustMarshal(t, got), mustMarshal(t, tt.want); a != b {
				t.Errorf("split %v = %s, want %s", tt.in, a, b)
			}
		})
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// FuzzLineGeometry draws arbitrary lines both ways: the split form's parts never jump across
// the antimeridian, every part has two positions or more, positions stay in range and
// point_count counts them; the unsplit form keeps every point.
func FuzzLineGeometry(f *testing.F) {
	f.Add(170.0, 10.0, -170.0, 20.0, 175.0, 30.0)
	f.Add(-179.9, 0.0, 179.9, 1.0, -179.9, 2.0)
	f.Add(180.0, 90.0, -180.0, -90.0, 0.0, 0.0)
	f.Add(190.0, 5.0, 530.0, 5.0, -200.0, 5.0)
	f.Fuzz(func(t *testing.T, lon1, lat1, lon2, lat2, lon3, lat3 float64) {
		pts := []geo.Point{{Lat: lat1, Lon: lon1}, {Lat: lat2, Lon: lon2}, {Lat: lat3, Lon: lon3}}
		for _, p := range pts {
			if math.IsNaN(p.Lat) || math.IsInf(p.Lat, 0) || math.Abs(p.Lat) > 90 || math.IsNaN(p.Lon) || math.Abs(p.Lon) > 1e6 {
				return
			}
		}
		g, n := lineGeometry(pts, false)
		var line [][]float64
		if err := json.Unmarshal(g.Coordinates.(json.RawMessage), &line); err != nil || len(line) != 3 || n != 3 {
			t.Fatalf("unsplit %s (%d): %v", g.Coordinates, n, err)
		}
		g, n = lineGeometry(pts, true)
		var parts [][][]float64
		raw := g.Coordinates.(json.RawMessage)
		if g.Type == "LineString" {
			var one [][]float64
			if err := json.Unmarshal(raw, &one); err != nil {
				t.Fatal(err)
			}
			parts = [][][]float64{one}
		} else if err := json.Unmarshal(raw, &parts); err != nil || len(parts) < 2 {
			t.Fatalf("%s %s: %v", g.Type, raw, err)
		}
		count := 0
		for _, part := range parts {
			if len(part) < 2 {
				t.Fatalf("a part of %d positions: %s", len(part), raw)
			}
			for i, p := range part {
				if math.Abs(p[0]) > 180 || math.Abs(p[1]) > 90 {
					t.Fatalf("position %v out of range: %s", p, raw)
				}
				if i > 0 && math.Abs(p[0]-part[i-1][0]) > 180 {
					t.Fatalf("a part jumps across the antimeridian: %s", raw)
				}
			}
			count += len(part)
		}
		if count != n {
			t.Fatalf("point count %d, %d positions", n, count)
		}
	})
}

func TestSimplify(t *testing.T) {
	t.Parallel()
	// A straight track with a detour of half a degree in its middle: the straight runs go, the
	// detour stays.
	var in []geo.Point
	for i := range 101 {
		lat := 0.0
		if i == 50 {
			lat = 0.5
		}
		in = append(in, geo.Point{Lat: lat, Lon: float64(i) * 0.1})
	}
	got := simplify(in)
	if len(got) != 5 || got[0] != in[0] || got[len(got)-1] != in[100] || got[2] != in[50] {
		t.Errorf("simplified to %v", got)
	}
	// Across the antimeridian the track is as straight as elsewhere.
	var across []geo.Point
	for i := range 50 {
		across = append(across, geo.Point{Lat: 10, Lon: wrapLon(178 + float64(i)*0.1)})
	}
	if got := simplify(across); len(got) != 2 {
		t.Errorf("a straight track across the antimeridian simplified to %d points", len(got))
	}
	if got := simplify(in[:2]); len(got) != 2 {
		t.Errorf("two points became %d", len(got))
	}
}

func TestAppendCoordinate(t *testing.T) {
	t.Parallel()
	for _, x := range []float64{0, 180, -180, 103.85315, -37.885, 1e-6, -1e-6, 12.3456789, 0.1} {
		want, _ := json.Marshal(round6(x))
		if got := string(appendCoordinate(nil, round6(x))); got != string(want) {
			t.Errorf("appendCoordinate(%v) = %s, want %s", x, got, want)
		}
	}
}

func TestAppendCoordinateNegativeZero(t *testing.T) {
	t.Parallel()
	if got := string(appendCoordinate(nil, round6(-0.0000001))); got != "0" {
		t.Errorf("a coordinate rounding to -0 is written %s, want 0", got)
	}
}

func TestStartAndEndAt(t *testing.T) {
	t.Parallel()
	p := geo.Point{Lat: 10, Lon: 20}
	near := geo.Point{Lat: 10.00001, Lon: 20.00001} // about 1.5 m away
	far := geo.Point{Lat: 11, Lon: 21}
	if got := startAt([]geo.Point{p, near, far}, p); len(got) != 2 || got[0] != p || got[1] != far {
		t.Errorf("startAt = %v, want the vessel then the far point", got)
	}
	if got := startAt([]geo.Point{near}, p); len(got) != 2 {
		t.Errorf("startAt kept %d points of a two-point line", len(got))
	}
	if got := endAt([]geo.Point{far, near, near, p}, p); len(got) != 2 || got[0] != far || got[1] != p {
		t.Errorf("endAt = %v, want the far point then the vessel", got)
	}
}
