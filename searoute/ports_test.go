package searoute_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/geo/land"
	"github.com/boxwatch/boxwatch/searoute"
)

// namedPoint is a point to route from, named for failure messages.
type namedPoint struct {
	name string
	p    geo.Point
}

// portPoints returns every port of the shipped list with coordinates, at its shipped position and,
// where the generator moved it (data/ports/published.json), at the source's published position.
func portPoints(t testing.TB) []namedPoint {
	t.Helper()
	var out []namedPoint
	for _, p := range data.Ports().All() {
		if p.HasCoordinates {
			out = append(out, namedPoint{p.LOCODE, geo.Point{Lat: p.Latitude, Lon: p.Longitude}})
		}
	}
	b, err := os.ReadFile("../data/ports/published.json")
	if err != nil {
		t.Fatal(err)
	}
	var published []struct {
		LOCODE string  `json:"locode"`
		Lat    float64 `json:"lat"`
		Lon    float64 `json:"lon"`
	}
	if err := json.Unmarshal(b, &published); err != nil {
		t.Fatal(err)
	}
	for _, p := range published {
		out = append(out, namedPoint{p.LOCODE + " as published", geo.Point{Lat: p.Lat, Lon: p.Lon}})
	}
	if len(published) < 900 || len(out) < 2500 {
		t.Fatalf("%d published positions, %d points in all: the port list shrank", len(published), len(out))
	}
	return out
}

// waterWithinKM reports whether navigable water (see wetAt: off 1:50m land, in a canal or near a
// fairway) lies within km of p. It searches independently of the router's own search: 72
// directions every 50 m.
func waterWithinKM(l *land.Land, p geo.Point, km float64) bool {
	return withinKM(p, km, func(q geo.Point) bool { return wetAt(l, q) })
}

// withinKM reports whether wet accepts p or a point within km of it, searched as waterWithinKM.
func withinKM(p geo.Point, km float64, wet func(geo.Point) bool) bool {
	if wet(p) {
		return true
	}
	const kmPerDeg = geo.EarthRadiusKM * math.Pi / 180
	for r := 0.05; r <= km+1e-9; r += 0.05 {
		for k := range 72 {
			a := float64(k) * 2 * math.Pi / 72
			q := geo.Point{Lat: p.Lat + r*math.Cos(a)/kmPerDeg, Lon: p.Lon + r*math.Sin(a)/(kmPerDeg*math.Cos(p.Lat*math.Pi/180))}
			if wet(q) {
				return true
			}
		}
	}
	return false
}

// snapMarginKM separates the points that must route from those that must not: the router's
// search (32 directions, a quarter kilometre apart) and this test's differ by up to this much.
const snapMarginKM = 0.3

// TestEveryPortSnaps routes every port of the shipped list, at its shipped and its published
// position, to the open Atlantic and back: a point within searoute.SnapKM (less a margin) of
// navigable water routes, by a path that passes checkPath's land test; a point farther than
// SnapKM (plus the margin) from water fails with ErrOnLand naming it. In between, either.
func TestEveryPortSnaps(t *testing.T) {
	n := data.SeaNetwork()
	l := data.Land()
	sea := geo.Point{Lat: 40, Lon: -30}
	var routed, refused int
	for _, np := range portPoints(t) {
		near := waterWithinKM(l, np.p, searoute.SnapKM-snapMarginKM)
		far := !near && !waterWithinKM(l, np.p, searoute.SnapKM+snapMarginKM)
		path, err := n.Route(np.p, sea, searoute.Options{})
		switch {
		case err == nil:
			routed++
			if far {
				t.Errorf("%s at %v: routed, but it lies more than %.1f km from water", np.name, np.p, searoute.SnapKM+snapMarginKM)
			}
			checkPath(t, np.name, np.p, sea, path)
			back, err := n.Route(sea, np.p, searoute.Options{})
			if err != nil {
				t.Errorf("%s at %v: routed from, not to: %v", np.name, np.p, err)
				continue
			}
			checkPath(t, np.name+" (back)", sea, np.p, back)
		case near:
			t.Errorf("%s at %v, within %.1f km of water: %v", np.name, np.p, searoute.SnapKM-snapMarginKM, err)
		default:
			refused++
			if !errors.Is(err, searoute.ErrOnLand) || !strings.Contains(err.Error(), fmt.Sprintf("%.5f,%.5f", np.p.Lon, np.p.Lat)) {
				t.Errorf("%s at %v, far from water: %v; want ErrOnLand naming the point", np.name, np.p, err)
			}
		}
	}
	t.Logf("%d points routed, %d refused as more than %v km from water", routed, refused, searoute.SnapKM)
}

// TestPositionsOnLegs routes from positions along every leg of the simulator's lanes, as a vessel
// sailing the leg reports them (every 400 nm of the drawn path, every 50 nm with
// BOXWATCH_ROUTES_FULL=1, and the points next to either end, on the approach legs), to the
// leg's port: every position routes, by a path that passes checkPath's land test, and none is
// longer than what is left of the leg by more than 1 % and 5 nm (the way back to the network from
// a point between two lanes).
func TestPositionsOnLegs(t *testing.T) {
	n := data.SeaNetwork()
	step := 400.0
	if os.Getenv("BOXWATCH_ROUTES_FULL") == "1" {
		step = 50
	}
	seen := map[[2]string]bool{}
	var routed int
	for _, l := range simLanes {
		for _, o := range strings.Fields(l.origins) {
			for _, d := range strings.Fields(l.destinations) {
				legs := [][2]string{{o, d}}
				if l.hub != "" {
					legs = [][2]string{{o, l.hub}, {l.hub, d}}
				}
				for _, leg := range legs {
					if seen[leg] {
						continue
					}
					seen[leg] = true
					routed += routeAlong(t, n, leg[0]+"–"+leg[1], portPoint(t, leg[0]), portPoint(t, leg[1]), step)
				}
			}
		}
	}
	t.Logf("%d positions routed to their port", routed)
}

// routeAlong routes from positions every stepNM along the path from a to b, and from the path's
// points next to each end (on the approach legs), to b.
func routeAlong(t *testing.T, n *searoute.Network, name string, a, b geo.Point, stepNM float64) int {
	t.Helper()
	path, err := n.Route(a, b, searoute.Options{})
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return 0
	}
	pts := path.Points
	left := make([]float64, len(pts)) // nm from each point to b along the path
	for i := len(pts) - 2; i >= 0; i-- {
		left[i] = left[i+1] + geo.DistanceNM(pts[i], pts[i+1])
	}
	type pos struct {
		p    geo.Point
		left float64
	}
	var at []pos
	for _, i := range []int{1, 2, len(pts) - 3, len(pts) - 2} {
		if i > 0 && i < len(pts)-1 {
			at = append(at, pos{pts[i], left[i]})
		}
	}
	next := stepNM
	for i := 1; i < len(pts); i++ {
		for done := left[0] - left[i-1]; next < left[0]-left[i]; next += stepNM {
			d := geo.DistanceNM(pts[i-1], pts[i])
			at = append(at, pos{geo.Intermediate(pts[i-1], pts[i], (next-done)/d), left[0] - next})
		}
	}
	for _, v := range at {
		got, err := n.Route(v.p, b, searoute.Options{})
		if err != nil {
			t.Errorf("%s: from %v, %.0f nm out: %v", name, v.p, v.left, err)
			continue
		}
		if got.DistanceNM > v.left*1.01+5 {
			t.Errorf("%s: from %v, %.0f nm out along the leg: routed %.0f nm", name, v.p, v.left, got.DistanceNM)
		}
		checkPath(t, fmt.Sprintf("%s from %v", name, v.p), v.p, b, got)
	}
	return len(at)
}
