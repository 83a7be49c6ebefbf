package land_test

import (
	"testing"

	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/geo/land"
)

func TestContains(t *testing.T) {
	l := data.Land()
	tests := []struct {
		name     string
		p        geo.Point
		wantLand bool
	}{
		{"Paris", geo.Point{Lat: 48.86, Lon: 2.35}, true},
		{"mid-Atlantic", geo.Point{Lat: 30, Lon: -40}, false},
		{"Caspian Sea", geo.Point{Lat: 42, Lon: 51}, false},
		{"Viti Levu, Fiji", geo.Point{Lat: -17.8, Lon: 178.0}, true},
		{"Vanua Levu east of 180", geo.Point{Lat: -16.6, Lon: -179.95}, false},
		{"Koro Sea, Fiji", geo.Point{Lat: -17.5, Lon: 179.5}, false},
		{"Chukotka west of 180", geo.Point{Lat: 67.0, Lon: 178.0}, true},
		{"Chukotka east of 180", geo.Point{Lat: 66.0, Lon: -175.0}, true},
		{"Bering Sea", geo.Point{Lat: 60.0, Lon: -179.0}, false},
		{"Pacific on the antimeridian", geo.Point{Lat: 0, Lon: 180}, false},
		{"Pacific, -180", geo.Point{Lat: 10, Lon: -180}, false},
		{"Antarctica", geo.Point{Lat: -85, Lon: 0}, true},
		{"south pole", geo.Point{Lat: -90, Lon: 45}, true},
		{"Ross Sea", geo.Point{Lat: -74, Lon: -175}, false},
		{"Southern Ocean", geo.Point{Lat: -60, Lon: 0}, false},
		{"north pole", geo.Point{Lat: 90, Lon: 0}, false},
		{"Singapore Strait", geo.Point{Lat: 1.2, Lon: 103.9}, false},
		{"Strait of Gibraltar", geo.Point{Lat: 35.95, Lon: -5.6}, false},
		{"Bosporus", geo.Point{Lat: 41.12, Lon: 29.07}, false},
		{"longitude beyond 180", geo.Point{Lat: 48.86, Lon: 362.35}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := l.Contains(tt.p); got != tt.wantLand {
				t.Errorf("Contains(%v) = %v, want %v", tt.p, got, tt.wantLand)
			}
		})
	}
}

func TestCrosses(t *testing.T) {
	l := data.Land()
	tests := []struct {
		name string
		a, b geo.Point
		want bool
	}{
		{"across Italy", geo.Point{Lat: 42, Lon: 10}, geo.Point{Lat: 42, Lon: 15.5}, true},
		{"open Atlantic", geo.Point{Lat: 30, Lon: -40}, geo.Point{Lat: 40, Lon: -30}, false},
		{"Pacific across the antimeridian", geo.Point{Lat: 30, Lon: 175}, geo.Point{Lat: 32, Lon: -175}, false},
		{"Wrangel Island across the antimeridian", geo.Point{Lat: 71.2, Lon: 178}, geo.Point{Lat: 71.2, Lon: -178}, true},
		{"Socotra", geo.Point{Lat: 12.5, Lon: 53.0}, geo.Point{Lat: 12.5, Lon: 55.0}, true},
		{"along the equator in the Pacific, the long way round is not taken", geo.Point{Lat: 5, Lon: -170}, geo.Point{Lat: 5, Lon: 170}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := l.Crosses(tt.a, tt.b); got != tt.want {
				t.Errorf("Crosses(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
			if got := l.Crosses(tt.b, tt.a); got != tt.want {
				t.Errorf("Crosses(%v, %v) = %v, want %v", tt.b, tt.a, got, tt.want)
			}
		})
	}
}

// A square island straddling the antimeridian must not turn into a band round the globe.
func TestNewAntimeridianRing(t *testing.T) {
	l, err := land.New([][]geo.Point{{{Lat: -1, Lon: 179}, {Lat: -1, Lon: -179}, {Lat: 1, Lon: -179}, {Lat: 1, Lon: 179}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		p    geo.Point
		want bool
	}{
		{geo.Point{Lat: 0, Lon: 179.5}, true},
		{geo.Point{Lat: 0, Lon: -179.5}, true},
		{geo.Point{Lat: 0, Lon: 0}, false},
		{geo.Point{Lat: 0, Lon: 178}, false},
		{geo.Point{Lat: 2, Lon: 179.5}, false},
	} {
		if got := l.Contains(tt.p); got != tt.want {
			t.Errorf("Contains(%v) = %v, want %v", tt.p, got, tt.want)
		}
	}
}

func TestEncodeDecode(t *testing.T) {
	rings := [][]geo.Point{{{Lat: 1.5, Lon: -2.25}, {Lat: -89.999, Lon: 180}, {Lat: 0.000001, Lon: -180}}}
	got, err := land.Decode(land.Encode(rings))
	if err != nil || len(got) != 1 || len(got[0]) != 3 || got[0][1] != rings[0][1] || got[0][2] != rings[0][2] {
		t.Fatalf("Decode(Encode(%v)) = %v, %v", rings, got, err)
	}
	if _, err := land.Decode([]byte("BWLAND1\n\x05")); err == nil {
		t.Error("truncated file decoded without error")
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(land.Encode([][]geo.Point{{{Lat: 1, Lon: 1}, {Lat: 2, Lon: 1}, {Lat: 2, Lon: 2}}}))
	f.Add([]byte("BWLAND1\n\x01\x03\x02\x02"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rings, err := land.Decode(b)
		if err != nil {
			return
		}
		l, err := land.New(rings)
		if err != nil {
			return
		}
		p := geo.Point{Lat: 0.25, Lon: 0.25}
		if l.Crosses(p, p) != l.Contains(p) {
			t.Errorf("a zero-length line at %v disagrees with Contains", p)
		}
	})
}

// Contains and Crosses on random points agree: a line between two points whose answers differ
// must cross land.
func FuzzContains(f *testing.F) {
	f.Add(48.86, 2.35, 30.0, -40.0)
	f.Add(-17.8, 178.0, -16.6, -179.95)
	f.Add(-85.0, 0.0, -60.0, 0.0)
	l := data.Land()
	f.Fuzz(func(t *testing.T, lat1, lon1, lat2, lon2 float64) {
		a, b := geo.Point{Lat: lat1, Lon: lon1}, geo.Point{Lat: lat2, Lon: lon2}
		if lat1 < -90 || lat1 > 90 || lat2 < -90 || lat2 > 90 || lon1 < -180 || lon1 > 180 || lon2 < -180 || lon2 > 180 {
			return
		}
		if l.Contains(a) != l.Contains(b) && !l.Crosses(a, b) {
			t.Errorf("%v and %v differ but the line between them does not cross land", a, b)
		}
	})
}
