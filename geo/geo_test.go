package geo_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/boxwatch/boxwatch/geo"
)

// Worked examples with published answers:
//   - Ed Williams, Aviation Formulary (edwilliams.org/avform.htm), "Worked examples": LAX at
//     33°57'N 118°24'W, JFK at 40°38'N 73°47'W; distance 0.623585 radians (2144 nm on its
//     one-arc-minute mile), initial true course 1.150035 radians (66°).
//   - Rosetta Code, "Haversine formula": Nashville BNA at 36.12, -86.67 and Los Angeles LAX at
//     33.94, -118.40 are 2886.4444428 km apart on a sphere of radius 6371.0 km.
var (
	lax = geo.Point{Lat: 33 + 57.0/60, Lon: -(118 + 24.0/60)}
	jfk = geo.Point{Lat: 40 + 38.0/60, Lon: -(73 + 47.0/60)}
	bna = geo.Point{Lat: 36.12, Lon: -86.67}
	// laxRosetta is LAX as Rosetta Code rounds it.
	laxRosetta = geo.Point{Lat: 33.94, Lon: -118.40}
)

// degreeNM is the length of one degree of a great circle.
const degreeNM = geo.EarthRadiusNM * math.Pi / 180

func TestDistanceNM(t *testing.T) {
	tests := []struct {
		name      string
		a, b      geo.Point
		want, tol float64
	}{
		{"LAX–JFK (Aviation Formulary)", lax, jfk, 0.623585 * geo.EarthRadiusNM, 0.005},
		{"one degree of a meridian is about 60 nm", geo.Point{Lat: 10, Lon: 3}, geo.Point{Lat: 11, Lon: 3}, 60.04, 0.01},
		{"a quarter of the equator", geo.Point{Lat: 0, Lon: 0}, geo.Point{Lat: 0, Lon: 90}, 90 * degreeNM, 1e-9},
		{"pole to pole", geo.Point{Lat: 90, Lon: 0}, geo.Point{Lat: -90, Lon: 0}, 180 * degreeNM, 1e-9},
		{"antipodes on the equator", geo.Point{Lat: 0, Lon: 0}, geo.Point{Lat: 0, Lon: 180}, 180 * degreeNM, 1e-9},
		{"across the antimeridian", geo.Point{Lat: 0, Lon: 179.5}, geo.Point{Lat: 0, Lon: -179.5}, degreeNM, 1e-9},
		{"across the antimeridian at 60° N, half as far", geo.Point{Lat: 60, Lon: -179.5}, geo.Point{Lat: 60, Lon: 179.5}, 30.02, 0.005},
		{"180 and -180 are one meridian", geo.Point{Lat: 40, Lon: 180}, geo.Point{Lat: 40, Lon: -180}, 0, 1e-9},
		{"unnormalised longitude", geo.Point{Lat: 0, Lon: 190}, geo.Point{Lat: 0, Lon: -170}, 0, 1e-9},
		{"over the pole", geo.Point{Lat: 89, Lon: 0}, geo.Point{Lat: 89, Lon: 180}, 2 * degreeNM, 1e-9},
		{"the pole at any longitude", geo.Point{Lat: 90, Lon: 0}, geo.Point{Lat: 90, Lon: 123}, 0, 1e-9},
		{"same point", jfk, jfk, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := geo.DistanceNM(tt.a, tt.b); math.Abs(got-tt.want) > tt.tol {
				t.Errorf("DistanceNM = %.6f, want %.6f ± %g", got, tt.want, tt.tol)
			}
			if back := geo.DistanceNM(tt.b, tt.a); back != geo.DistanceNM(tt.a, tt.b) {
				t.Errorf("not symmetric: %v back", back)
			}
		})
	}
}

func TestDistanceKM(t *testing.T) {
	// Rosetta Code's figure is on a sphere of 6371.0 km; scale it to this package's radius.
	want := 2886.444442837983 * geo.EarthRadiusKM / 6371.0
	if got := geo.DistanceKM(bna, laxRosetta); math.Abs(got-want) > 1e-6 {
		t.Errorf("BNA–LAX = %.9f km, want %.9f", got, want)
	}
	if got, want := geo.EarthRadiusKM, 6371.0; math.Abs(got-want) > 0.01 {
		t.Errorf("EarthRadiusKM = %v, want about %v", got, want)
	}
}

func TestBearing(t *testing.T) {
	tests := []struct {
		name string
		a, b geo.Point
		want float64
		tol  float64
	}{
		{"LAX–JFK (Aviation Formulary)", lax, jfk, 1.150035 * 180 / math.Pi, 0.0001},
		{"north", geo.Point{Lat: 0, Lon: 0}, geo.Point{Lat: 10, Lon: 0}, 0, 1e-9},
		{"east along the equator", geo.Point{Lat: 0, Lon: 0}, geo.Point{Lat: 0, Lon: 10}, 90, 1e-9},
		{"south", geo.Point{Lat: 10, Lon: 0}, geo.Point{Lat: 0, Lon: 0}, 180, 1e-9},
		{"west along the equator", geo.Point{Lat: 0, Lon: 10}, geo.Point{Lat: 0, Lon: 0}, 270, 1e-9},
		{"east across the antimeridian", geo.Point{Lat: 0, Lon: 179.5}, geo.Point{Lat: 0, Lon: -179.5}, 90, 1e-9},
		{"west across the antimeridian", geo.Point{Lat: 0, Lon: -179.5}, geo.Point{Lat: 0, Lon: 179.5}, 270, 1e-9},
		{"east at 60° N starts north of east", geo.Point{Lat: 60, Lon: 0}, geo.Point{Lat: 60, Lon: 10}, 85.67, 0.01},
		{"towards the north pole", geo.Point{Lat: -30, Lon: 100}, geo.Point{Lat: 90, Lon: 0}, 0, 1e-9},
		{"from the north pole", geo.Point{Lat: 90, Lon: 30}, geo.Point{Lat: 0, Lon: 30}, 180, 1e-9},
		{"from the south pole", geo.Point{Lat: -90, Lon: 30}, geo.Point{Lat: 0, Lon: 30}, 0, 1e-9},
		{"same point", jfk, jfk, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := geo.Bearing(tt.a, tt.b)
			if got < 0 || got >= 360 {
				t.Fatalf("Bearing = %v, out of [0, 360)", got)
			}
			// 359.9999… is as good as 0.
			if d := math.Abs(got - tt.want); math.Min(d, 360-d) > tt.tol {
				t.Errorf("Bearing = %.6f, want %.6f ± %g", got, tt.want, tt.tol)
			}
		})
	}
}

// The great circle from Rotterdam to Shanghai, as the port list places them: less than half the
// way by sea through Suez (about 10,500 nm).
func ExampleDistanceNM() {
	rotterdam := geo.Point{Lat: 51.92, Lon: 4.5}
	shanghai := geo.Point{Lat: 31.230416, Lon: 121.473701}
	fmt.Printf("%.0f nm, %.0f km, leaving on %03.0f°\n",
		geo.DistanceNM(rotterdam, shanghai), geo.DistanceKM(rotterdam, shanghai), geo.Bearing(rotterdam, shanghai))
	// Output: 4820 nm, 8926 km, leaving on 051°
}

func TestIntermediate(t *testing.T) {
	t.Parallel()
	rotterdam, newYork := geo.Point{Lat: 51.95, Lon: 4.05}, geo.Point{Lat: 40.68, Lon: -74.04}
	tokyo, losAngeles := geo.Point{Lat: 35.6, Lon: 139.8}, geo.Point{Lat: 33.73, Lon: -118.26}
	for _, tt := range []struct {
		name string
		a, b geo.Point
	}{
		{"Atlantic", rotterdam, newYork},
		{"AcrossTheAntimeridian", tokyo, losAngeles},
		{"AlongTheEquator", geo.Point{Lat: 0, Lon: 10}, geo.Point{Lat: 0, Lon: 20}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			total := geo.DistanceNM(tt.a, tt.b)
			for _, f := range []float64{0, 0.25, 0.5, 0.9, 1} {
				p := geo.Intermediate(tt.a, tt.b, f)
				if p.Lon < -180 || p.Lon > 180 || math.IsNaN(p.Lat) {
					t.Fatalf("f %v: %+v out of range", f, p)
				}
				// On the great circle: the two parts add up to the whole, in the right shares.
				da, db := geo.DistanceNM(tt.a, p), geo.DistanceNM(p, tt.b)
				if math.Abs(da+db-total) > 0.01 || math.Abs(da-f*total) > 0.01 {
					t.Fatalf("f %v: %.3f + %.3f nm of %.3f", f, da, db, total)
				}
			}
		})
	}
	// The great circle from Tokyo to Los Angeles bows north of both ports.
	if mid := geo.Intermediate(tokyo, losAngeles, 0.5); mid.Lat < 45 {
		t.Fatalf("transpacific midpoint at %.1f°N, want north of 45°", mid.Lat)
	}
	if p := geo.Intermediate(geo.Point{Lat: 10, Lon: 20}, geo.Point{Lat: 10, Lon: 20}, 0.5); p != (geo.Point{Lat: 10, Lon: 20}) {
		t.Fatalf("same point: %+v", p)
	}
}
