package searoute_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/geo/land"
	"github.com/boxwatch/boxwatch/searoute"
)

// landDepthKM is how far inside Natural Earth 1:50m land a path may pass: the generalisation of
// the coastline at that scale, which draws quays, breakwaters and narrow channels on land.
const landDepthKM = 1.0

// checkPath fails the test if path does not run from from to to, is shorter than the great
// circle, or runs over land: no point of any segment may lie more than landDepthKM inside 1:50m
// land, with three exceptions only:
//   - a segment with both ends in one canal (searoute.Waterway: Suez, Panama, Kiel, Corinth);
//   - a point within searoute.FairwayKM of a river's fairway (data/rivers, nearFairway): a
//     segment over the land of a river is accepted where it follows the river, nowhere else;
//   - the leg from an end that itself lies on land to the water: its points may lie as deep as
//     that end does (at most searoute.SnapKM), not deeper.
//
// It asks package land, Waterway and the fairways' points directly, and measures depth by its own
// search (waterWithinKM), so that a fault in the router's own land check cannot hide a crossing.
func checkPath(t *testing.T, name string, from, to geo.Point, path searoute.Path) {
	t.Helper()
	l := data.Land()
	pts := path.Points
	if len(pts) < 2 || pts[0] != from || pts[len(pts)-1] != to {
		t.Errorf("%s: path does not run from %v to %v: %d points", name, from, to, len(pts))
		return
	}
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		if !l.Crosses(a, b) || searoute.Waterway(a, b) != "" {
			continue
		}
		limit := landDepthKM
		if i == 1 {
			limit = max(limit, depthKM(l, from)+0.1)
		}
		if i == len(pts)-1 {
			limit = max(limit, depthKM(l, to)+0.1)
		}
		if p, ok := deeperThan(l, a, b, limit); ok {
			t.Errorf("%s: segment %d from %v to %v passes %v, more than %.1f km inside land", name, i, a, b, p, limit)
		}
	}
	if gc := geo.DistanceNM(from, to); path.DistanceNM < gc-1e-6 {
		t.Errorf("%s: %.1f nm is shorter than the great circle, %.1f nm", name, path.DistanceNM, gc)
	}
}

// depthKM is how far inside land p lies: the distance to the nearest water by waterWithinKM's
// search (72 directions every 50 m), up to SnapKM and a kilometre more, or +Inf beyond.
func depthKM(l *land.Land, p geo.Point) float64 {
	if wetAt(l, p) {
		return 0
	}
	const kmPerDeg = geo.EarthRadiusKM * math.Pi / 180
	for r := 0.05; r <= searoute.SnapKM+1; r += 0.05 {
		for k := range 72 {
			a := float64(k) * 2 * math.Pi / 72
			if wetAt(l, geo.Point{Lat: p.Lat + r*math.Cos(a)/kmPerDeg, Lon: p.Lon + r*math.Sin(a)/(kmPerDeg*math.Cos(p.Lat*math.Pi/180))}) {
				return r
			}
		}
	}
	return math.Inf(1)
}

// wetAt reports whether p is in navigable water as the tests see it: off 1:50m land, in a canal,
// or within searoute.FairwayKM of a fairway.
func wetAt(l *land.Land, p geo.Point) bool {
	return !l.Contains(p) || searoute.Waterway(p, p) != "" || nearFairway(p)
}

// nearFairway reports whether p lies within searoute.FairwayKM of a fairway of data/rivers: its own
// measure (the distance to each segment in the plane tangent at p), over the fairways' points as
// the data holds them, not the router's index.
func nearFairway(p geo.Point) bool {
	const kmPerDeg = geo.EarthRadiusKM * math.Pi / 180
	k := math.Cos(p.Lat * math.Pi / 180)
	xy := func(q geo.Point) (float64, float64) {
		return (q.Lon - p.Lon) * k * kmPerDeg, (q.Lat - p.Lat) * kmPerDeg
	}
	for _, f := range testFairways() {
		if p.Lon < f.west || p.Lon > f.east || p.Lat < f.south || p.Lat > f.north {
			continue
		}
		for i := 1; i < len(f.pts); i++ {
			ax, ay := xy(f.pts[i-1])
			bx, by := xy(f.pts[i])
			dx, dy := bx-ax, by-ay
			t := 0.0
			if d := dx*dx + dy*dy; d > 0 {
				t = math.Max(0, math.Min(1, -(ax*dx+ay*dy)/d))
			}
			if math.Hypot(ax+t*dx, ay+t*dy) <= searoute.FairwayKM {
				return true
			}
		}
	}
	return false
}

type testFairway struct {
	pts                      []geo.Point
	west, south, east, north float64 // round the points, a few kilometres wider
}

// testFairways are the fairways of data/rivers with their boxes, read once.
var testFairways = sync.OnceValue(func() []testFairway {
	var out []testFairway
	for _, f := range data.Fairways().All() {
		tf := testFairway{pts: f.Points, west: 180, south: 90, east: -180, north: -90}
		for _, q := range f.Points {
			tf.west, tf.east = math.Min(tf.west, q.Lon-0.05), math.Max(tf.east, q.Lon+0.05)
			tf.south, tf.north = math.Min(tf.south, q.Lat-0.05), math.Max(tf.north, q.Lat+0.05)
		}
		out = append(out, tf)
	}
	return out
})

// deeperThan returns a point of the straight segment from a to b (in longitude and latitude, as
// package land draws it), taken every 100 m, that lies more than km inside land, outside canals
// and away from fairways.
func deeperThan(l *land.Land, a, b geo.Point, km float64) (geo.Point, bool) {
	if math.Abs(b.Lon-a.Lon) > 180 {
		b.Lon += 360 * math.Copysign(1, a.Lon-b.Lon)
	}
	steps := int(geo.DistanceKM(a, b)/0.1) + 1
	for s := 0; s <= steps; s++ {
		f := float64(s) / float64(steps)
		p := geo.Point{Lat: a.Lat + f*(b.Lat-a.Lat), Lon: a.Lon + f*(b.Lon-a.Lon)}
		if p.Lon > 180 {
			p.Lon -= 360
		} else if p.Lon < -180 {
			p.Lon += 360
		}
		if !wetAt(l, p) && !waterWithinKM(l, p, km) {
			return p, true
		}
	}
	return geo.Point{}, false
}

func crossesAntimeridian(pts []geo.Point) bool {
	for i := 1; i < len(pts); i++ {
		if math.Abs(pts[i].Lon-pts[i-1].Lon) > 180 {
			return true
		}
	}
	return false
}

func TestSamplePairs(t *testing.T) {
	n := data.SeaNetwork()
	for _, p := range readPairs(t) {
		t.Run(p.ID, func(t *testing.T) {
			from, to := p.Origin.point(), p.Destination.point()
			path, err := n.Route(from, to, p.options())
			if err != nil {
				t.Fatal(err)
			}
			// The reference network follows lanes where boxwatch's crosses open sea by the great
			// circle (its long shortcuts): a route may come out up to 3 % shorter, never more than
			// 1.5 % longer; checkPath holds it off land and no shorter than the great circle.
			// A transpacific pair has no lower band but those: issue 23 accepts any such route
			// shorter than the reference, as the reference's lanes there are not the shortest way.
			d := (path.DistanceNM - p.DistanceNM) / p.DistanceNM
			if d > 0.015 || d < -0.03 && !strings.HasPrefix(p.ID, "transpac-") {
				t.Errorf("%.1f nm, want %.1f within -3 %% … +1.5 %% (off by %.2f %%)", path.DistanceNM, p.DistanceNM, 100*d)
			}
			for _, want := range p.Passages {
				if !slices.Contains(path.Passages, want) {
					t.Errorf("passages %v, want %s among them", path.Passages, want)
				}
			}
			for _, avoided := range p.Avoid {
				if slices.Contains(path.Passages, avoided) {
					t.Errorf("passages %v include %s, which the pair avoids", path.Passages, avoided)
				}
			}
			if got := crossesAntimeridian(path.Points); got != p.CrossesAntimeridian {
				t.Errorf("crosses the antimeridian: %v, want %v", got, p.CrossesAntimeridian)
			}
			checkPath(t, p.ID, from, to, path)
		})
	}
}

// sampleDistances pin the router's own distance for each sample pair, in nautical miles: a change
// meant only to make queries faster must not move any of them by more than a tenth of a mile.
// Pinned again with the rivers' fairways (issue 23): Shanghai's and Hamburg's ends follow the
// Huangpu and the Elbe instead of a chord (+26.5 and +2.9 nm); the network's other shortcuts
// moved with its new nodes (−6.3 to +0.7 nm elsewhere). Pinned again with the generator's bound
// pass (issue 23: every land-free pair of nodes up to 1,200 nm within 1.25 times by the network):
// −75.0 nm round the Cape, −73.3 across the Pacific, −42.8 by Suez, −24.6 by Panama, −7.5 across
// the Atlantic, −2.3 to −1.9 elsewhere. The snapping's search past four snaps for one apart
// from them moved Durban–Singapore −2.3 nm, Rotterdam–New York −0.6, Santos–Hamburg −0.1. The
// ports' long joins made edges (and the bound pass run again for their nodes): sam-1 −12.4 nm,
// intra-asia-1 −8.4, transpac-1 −3.0. The fairways up the Yangtze to Nanjing (the bound pass
// run over their new nodes): Shanghai leaves south along the coast past Hangzhou Bay instead of
// 60 nm out to sea and back, −13.6 nm by Suez and round the Cape. New York harbour regenerated
// with Bayonne and Jersey City as land (the land's patch) and the fairway through the Kill van
// Kull to Newark: New York's end now comes in by a node off the Battery, +0.27 nm. Lower
// Manhattan, Brooklyn's shore and Astoria patched in as land, and the East River a channel of the
// network: Rotterdam–New York still comes down Long Island Sound, now through Hell Gate and down
// the East River instead of over Manhattan, +1.07 nm.
var sampleDistances = map[string]float64{
	"asia-eu-1":    10542.0990,
	"transpac-1":   5715.5817,
	"transatl-1":   3290.4812,
	"intra-asia-1": 1421.8270,
	"med-2":        562.5507,
	"gulf-2":       3522.7052,
	"sam-1":        5730.6514,
	"panama-2":     6238.7590,
	"africa-2":     4996.4821,
	"cape-1":       13819.0101,
}

func TestSampleDistances(t *testing.T) {
	n := data.SeaNetwork()
	pairs := readPairs(t)
	if len(pairs) != len(sampleDistances) {
		t.Fatalf("%d sample pairs, %d pinned distances", len(pairs), len(sampleDistances))
	}
	for _, p := range pairs {
		want, ok := sampleDistances[p.ID]
		if !ok {
			t.Errorf("%s: no pinned distance", p.ID)
			continue
		}
		path, err := n.Route(p.Origin.point(), p.Destination.point(), p.options())
		if err != nil {
			t.Errorf("%s: %v", p.ID, err)
			continue
		}
		if math.Abs(path.DistanceNM-want) > 0.1 {
			t.Errorf("%s: %.4f nm, pinned at %.4f nm", p.ID, path.DistanceNM, want)
		}
	}
}

// roundsAfrica reports whether a path passes south of the Cape of Good Hope (34.36° S).
func roundsAfrica(pts []geo.Point) bool {
	for _, p := range pts {
		if p.Lat < -34.3 && p.Lon > 10 && p.Lon < 30 {
			return true
		}
	}
	return false
}

func TestCapeVariants(t *testing.T) {
	n := data.SeaNetwork()
	tests := []struct {
		name     string
		from, to string
	}{
		{"Shanghai–Rotterdam", "CNSHA", "NLRTM"},
		{"Singapore–Rotterdam", "SGSIN", "NLRTM"},
		{"Jebel Ali–Genoa", "AEJEA", "ITGOA"},
		{"Busan–Piraeus", "KRPUS", "GRPIR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from, to := portPoint(t, tt.from), portPoint(t, tt.to)
			open, err := n.Route(from, to, searoute.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(open.Passages, searoute.Suez) || roundsAfrica(open.Points) {
				t.Errorf("with Suez open: passages %v, round Africa %v; want through Suez", open.Passages, roundsAfrica(open.Points))
			}
			cape, err := n.Route(from, to, searoute.Options{Avoid: []searoute.Passage{searoute.Suez, searoute.Panama}})
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(cape.Passages, searoute.Suez) || !roundsAfrica(cape.Points) {
				t.Errorf("avoiding Suez: passages %v, round Africa %v; want round the Cape", cape.Passages, roundsAfrica(cape.Points))
			}
			if cape.DistanceNM <= open.DistanceNM {
				t.Errorf("round the Cape %.0f nm is not longer than through Suez %.0f nm", cape.DistanceNM, open.DistanceNM)
			}
			checkPath(t, tt.name, from, to, cape)
		})
	}
}

func TestPassages(t *testing.T) {
	n := data.SeaNetwork()
	tests := []struct {
		name     string
		from, to string
		opts     searoute.Options
		want     searoute.Passage
		wantNot  searoute.Passage
	}{
		{"Panama", "CNSHA", "USNYC", searoute.Options{}, searoute.Panama, ""},
		{"Panama avoided", "CNSHA", "USNYC", searoute.Options{Avoid: []searoute.Passage{searoute.Panama}}, "", searoute.Panama},
		{"Gibraltar", "NLRTM", "ITGOA", searoute.Options{}, searoute.Gibraltar, ""},
		{"Bosporus", "GRPIR", "ROCND", searoute.Options{}, searoute.Bosporus, ""},
		{"Bab-el-Mandeb", "AEJEA", "ITGOA", searoute.Options{}, searoute.BabElMandeb, ""},
		{"Magellan", "CLVAP", "ARBUE", searoute.Options{}, searoute.Magellan, ""},
		{"Kiel closed by default", "NLRTM", "PLGDN", searoute.Options{}, "", searoute.Kiel},
		{"Kiel opened", "NLRTM", "PLGDN", searoute.Options{Open: []searoute.Passage{searoute.Kiel}}, searoute.Kiel, ""},
		{"Kiel opened and avoided", "NLRTM", "PLGDN", searoute.Options{Open: []searoute.Passage{searoute.Kiel}, Avoid: []searoute.Passage{searoute.Kiel}}, "", searoute.Kiel},
		{"Northeast closed by default", "NLRTM", "JPYOK", searoute.Options{Avoid: []searoute.Passage{searoute.Suez, searoute.Panama}}, "", searoute.Northeast},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, err := n.Route(portPoint(t, tt.from), portPoint(t, tt.to), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want != "" && !slices.Contains(path.Passages, tt.want) {
				t.Errorf("passages %v, want %s among them", path.Passages, tt.want)
			}
			if tt.wantNot != "" && slices.Contains(path.Passages, tt.wantNot) {
				t.Errorf("passages %v, want no %s", path.Passages, tt.wantNot)
			}
		})
	}
}

func TestRouteErrors(t *testing.T) {
	n := data.SeaNetwork()
	sea := geo.Point{Lat: 40, Lon: -30}
	tests := []struct {
		name string
		p    geo.Point
		want error
	}{
		{"ErrOnLand", geo.Point{Lat: 48.86, Lon: 2.35}, searoute.ErrOnLand},
		{"ErrBadPoint", geo.Point{Lat: 95, Lon: 0}, searoute.ErrBadPoint},
		{"ErrNoRoute", geo.Point{Lat: 42, Lon: 51}, searoute.ErrNoRoute}, // the Caspian Sea
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := n.Route(tt.p, sea, searoute.Options{})
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			var pe *searoute.PointError
			if errors.As(err, &pe) && (pe.Role != "from" || !strings.Contains(err.Error(), fmt.Sprintf("%.5f", tt.p.Lon))) {
				t.Errorf("%v does not name the from point", err)
			}
		})
	}
}

func portPoint(t testing.TB, locode string) geo.Point {
	t.Helper()
	p, ok := data.Ports().ByLOCODE(locode)
	if !ok || !p.HasCoordinates {
		t.Fatalf("no port %s with coordinates", locode)
	}
	return geo.Point{Lat: p.Latitude, Lon: p.Longitude}
}

// busiestPorts are the 100 busiest container ports by 2023 throughput after Lloyd's List, One
// Hundred Ports 2024 (the ranking's port names, as UN/LOCODEs of data.Ports).
var busiestPorts = strings.Fields(`CNSHA SGSIN CNNGB CNSZX CNTAO CNCAN KRPUS CNTXG AEJEA HKHKG
	NLRTM MYPKG BEANR CNXMN MYTPP TWKHH USLAX DEHAM USLGB THLCH USNYC MAPTM VNSGN LKCMB CNQZH
	IDJKT CNRZH CNLYG CNYIK CNDLC GRPIR ESVLC INMUN INNSA ESALG DEBRV USSAV PHMNL VNHPH PAONX
	JPTYO SAJED OMSLL IDSUB BRSSZ EGPSD PABLB USHOU USSEA GBFXT FRLEH CNDGG ITGIT TRAMR ESBCN
	ZADUR MTMAR CAVAN JPYOK MXZLO USORF USCHS ITGOA AEKHL SADMM BDCGP PKKHI AUSYD AUMEL JPUKB
	JPNGO JPOSA KRINC KRKAN TWTXG TWKEL CNFOC CNNKG CNQZJ CNSWA CNZUH COCTG PECLL ARBUE PAMIT
	JMKIN BSFPO USOAK CAMTR CAPRR AEAUH SAKAC OMSOH QAHMD INMAA TGLFW GHTEM NGAPP DJJIB PLGDN`)

// TestPortPairs routes every pair among the 100 busiest container ports and the ports of the
// simulator's lanes: none fails, and no path runs over land (Natural Earth 1:50m) except where
// checkPath allows it.
func TestPortPairs(t *testing.T) {
	n := data.SeaNetwork()
	codes := slices.Clone(busiestPorts)
	for _, l := range simLanes {
		for _, c := range strings.Fields(l.origins + " " + l.hub + " " + l.destinations) {
			if !slices.Contains(codes, c) {
				codes = append(codes, c)
			}
		}
	}
	var pts []geo.Point
	var found []string
	for _, c := range codes {
		p, ok := data.Ports().ByLOCODE(c)
		if !ok || !p.HasCoordinates {
			if !slices.Contains(busiestPorts, c) {
				t.Errorf("simulator port %s is not in the port list with coordinates", c)
			}
			continue
		}
		pts, found = append(pts, geo.Point{Lat: p.Latitude, Lon: p.Longitude}), append(found, c)
	}
	if busiest := len(found) - (len(codes) - len(busiestPorts)); busiest < 95 {
		t.Fatalf("only %d of the 100 busiest ports are in the port list with coordinates", busiest)
	}
	for i := range pts {
		for j := i + 1; j < len(pts); j++ {
			path, err := n.Route(pts[i], pts[j], searoute.Options{})
			if err != nil {
				t.Errorf("%s–%s: %v", found[i], found[j], err)
				continue
			}
			checkPath(t, found[i]+"–"+found[j], pts[i], pts[j], path)
		}
	}
}

// simLanes are the simulator's lanes (carrier/sim/world.go): origins, hub ("" when direct) and
// destinations.
var simLanes = []struct {
	origins, hub, destinations string
}{
	{"CNSHA CNNGB CNXMN CNTAO KRPUS HKHKG", "", "NLRTM DEHAM BEANR GBFXT FRLEH"},
	{"THLCH VNCLI VNHPH IDJKT PHMNL", "SGSIN", "NLRTM DEHAM BEANR GBFXT DEBRV"},
	{"CNSHA CNNGB CNXMN KRPUS HKHKG", "", "ITGOA ESVLC ESBCN GRPIR FRFOS"},
	{"THLCH VNCLI IDJKT PHMNL", "MYTPP", "ITGOA ESVLC GRPIR ITSPE"},
	{"CNSHA CNNGB CNXMN KRPUS HKHKG TWKHH JPTYO", "", "USLAX USLGB USSEA USTIW CAVAN CAPRR"},
	{"CNTAO CNDLC CNTXG", "KRPUS", "USLAX USLGB USSEA CAVAN"},
	{"CNSHA CNNGB CNXMN KRPUS", "", "USNYC USSAV USCHS USORF USBAL"},
	{"CNSHA CNNGB KRPUS HKHKG", "PAMIT", "COCTG DOCAU JMKIN CRLIO"},
	{"NLRTM DEHAM BEANR DEBRV GBFXT FRLEH", "", "USNYC USSAV USCHS USORF USBAL CAHAL CAMTR"},
	{"BDCGP INMAA INTUT", "LKCMB", "NLRTM DEHAM BEANR GBFXT"},
	{"NLRTM BEANR DEHAM FRLEH GBFXT", "MAPTM", "GHTEM NGAPP CIABJ SNDKR TGLFW"},
	{"CNSHA CNNGB CNXMN KRPUS JPTYO JPYOK HKHKG TWKHH", "", "SGSIN THLCH VNCLI MYPKG IDJKT PHMNL"},
	{"CNSHA CNNGB HKHKG KRPUS SGSIN", "", "AEJEA INNSA INMUN PKKHI OMSLL"},
	{"CNSHA CNNGB KRPUS HKHKG SGSIN", "", "AUSYD AUMEL AUBNE NZAKL"},
	{"NLRTM DEHAM BEANR ESALG FRLEH", "", "BRSSZ BRRIG ARBUE UYMVD"},
	{"USMIA USPEF USJAX USHOU", "", "JMKIN DOCAU HNPCR GTSTC CRLIO COCTG"},
}

// TestSimulatorLanes routes every leg of every lane of the simulator: none fails, none touches land.
func TestSimulatorLanes(t *testing.T) {
	n := data.SeaNetwork()
	seen := map[[2]string]bool{}
	leg := func(a, b string) {
		if seen[[2]string{a, b}] {
			return
		}
		seen[[2]string{a, b}] = true
		from, to := portPoint(t, a), portPoint(t, b)
		path, err := n.Route(from, to, searoute.Options{})
		if err != nil {
			t.Errorf("%s–%s: %v", a, b, err)
			return
		}
		checkPath(t, a+"–"+b, from, to, path)
	}
	for _, l := range simLanes {
		for _, o := range strings.Fields(l.origins) {
			for _, d := range strings.Fields(l.destinations) {
				if l.hub == "" {
					leg(o, d)
				} else {
					leg(o, l.hub)
					leg(l.hub, d)
				}
			}
		}
	}
}

// TestOpenSea routes random pairs of points in open sea between 60° S and 65° N (two degrees of
// water every way round, outside the Caspian): every pair has a route that stays off land and is no shorter than the
// great circle.
func TestOpenSea(t *testing.T) {
	n := data.SeaNetwork()
	l := data.Land()
	rng := rand.New(rand.NewPCG(10, 2026))
	open := func() geo.Point {
		for {
			p := geo.Point{Lat: rng.Float64()*125 - 60, Lon: rng.Float64()*360 - 180}
			if p.Lon > 45 && p.Lon < 56 && p.Lat > 35 && p.Lat < 48 {
				continue // the Caspian Sea: water, but no way to the ocean
			}
			clear := true
			for _, d := range [][2]float64{{0, 0}, {2, 0}, {-2, 0}, {0, 2}, {0, -2}, {2, 2}, {-2, -2}, {2, -2}, {-2, 2}} {
				if l.Contains(geo.Point{Lat: p.Lat + d[0], Lon: p.Lon + d[1]}) {
					clear = false
				}
			}
			if clear {
				return p
			}
		}
	}
	for i := range 150 {
		a, b := open(), open()
		path, err := n.Route(a, b, searoute.Options{})
		if err != nil {
			t.Errorf("pair %d, %v to %v: %v", i, a, b, err)
			continue
		}
		checkPath(t, fmt.Sprintf("pair %d", i), a, b, path)
	}
}

func TestDecode(t *testing.T) {
	g := searoute.Graph{
		Nodes:  []geo.Point{{Lat: 1, Lon: 2}, {Lat: -3.5, Lon: 179.25}},
		Edges:  []searoute.Edge{{U: 0, V: 1, Passage: searoute.Suez}},
		Shapes: [][]geo.Point{{{Lat: 0.5, Lon: 60}, {Lat: -2, Lon: 181.5}}},
	}
	got, err := searoute.Decode(searoute.Encode(g))
	if err != nil || !slices.Equal(got.Nodes, g.Nodes) || !slices.Equal(got.Edges, g.Edges) ||
		len(got.Shapes) != 1 || !slices.Equal(got.Shapes[0], g.Shapes[0]) {
		t.Fatalf("Decode(Encode(g)) = %+v, %v", got, err)
	}
	b := searoute.Encode(g)
	if _, err := searoute.Decode(b[:len(b)-1]); err == nil {
		t.Error("a truncated network decoded without error")
	}
}

// TestDrawnAt checks that the point a leg joins an edge at, found without drawing the edge, is
// where the drawn part of the edge starts: the leg checked against land must be the leg drawn.
func TestDrawnAt(t *testing.T) {
	n := data.SeaNetwork()
	_, edges := n.Size()
	for e := int32(0); e < int32(edges); e += 7 {
		for _, at := range []float64{0, 0.13, 0.5, 0.77, 0.999, 1} {
			got := n.DrawnAt(e, at)
			for _, part := range [][]geo.Point{n.Piece(e, at, at), n.Piece(e, at, 0), n.Piece(e, at, 1)} {
				want := part[0]
				if dLon := math.Mod(math.Abs(got.Lon-want.Lon), 360); math.Abs(got.Lat-want.Lat) > 1e-9 || min(dLon, 360-dLon) > 1e-9 {
					t.Fatalf("edge %d at %v: joined at %v, drawn from %v", e, at, got, want)
				}
			}
		}
	}
}

// TestStoredShapes checks that the edge shapes stored with the embedded network are those New
// would draw over the embedded land, to the micro-degree they are stored to: start-up trusts
// them, so a network not regenerated after the land or the drawing changed fails here.
func TestStoredShapes(t *testing.T) {
	b, err := os.ReadFile("../data/searoute/network.bin")
	if err != nil {
		t.Fatal(err)
	}
	g, err := searoute.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Shapes) != len(g.Edges) {
		t.Fatalf("%d shapes for %d edges", len(g.Shapes), len(g.Edges))
	}
	for i, want := range searoute.DrawShapes(g, data.Water()) {
		got := g.Shapes[i]
		same := len(got) == len(want)
		for k := 0; same && k < len(got); k++ {
			same = math.Abs(got[k].Lat-want[k].Lat) <= 1e-6 && math.Abs(got[k].Lon-want[k].Lon) <= 1e-6
		}
		if !same {
			t.Errorf("edge %d: stored shape %v, drawn %v", i, got, want)
		}
	}
}

// TestStoredCells checks that the embedded network holds the snapping grids' cells the current
// code finds (Encode finds them afresh from the decoded nodes), and that a network built on them
// snaps and routes exactly as one that finds them itself: start-up trusts them.
func TestStoredCells(t *testing.T) {
	b, err := os.ReadFile("../data/searoute/network.bin")
	if err != nil {
		t.Fatal(err)
	}
	g, err := searoute.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(searoute.Encode(g), b) {
		t.Fatal("network.bin differs from its own re-encoding: its stored cells are stale (run scripts/searoute.sh)")
	}
	stored, err := searoute.New(g, data.Water())
	if err != nil {
		t.Fatal(err)
	}
	found, err := searoute.New(searoute.Graph{Nodes: g.Nodes, Edges: g.Edges, Shapes: g.Shapes}, data.Water())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(23, 1))
	routed := 0
	for range 200 {
		a := geo.Point{Lat: rng.Float64()*140 - 70, Lon: rng.Float64()*360 - 180}
		z := geo.Point{Lat: rng.Float64()*140 - 70, Lon: rng.Float64()*360 - 180}
		p1, err1 := stored.Route(a, z, searoute.Options{})
		p2, err2 := found.Route(a, z, searoute.Options{})
		if fmt.Sprint(err1) != fmt.Sprint(err2) || p1.DistanceNM != p2.DistanceNM || !slices.Equal(p1.Points, p2.Points) {
			t.Errorf("%v to %v: stored cells give %.1f nm (%v), found cells %.1f nm (%v)", a, z, p1.DistanceNM, err1, p2.DistanceNM, err2)
		}
		if err1 == nil {
			routed++
		}
	}
	if routed < 50 {
		t.Errorf("only %d of 200 random pairs routed: the comparison says little", routed)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(searoute.Encode(searoute.Graph{Nodes: []geo.Point{{Lat: 1, Lon: 2}, {Lat: 3, Lon: 4}}, Edges: []searoute.Edge{{U: 0, V: 1}}}))
	f.Add([]byte("BWSEA3\n\x00\x02\x02\x02\x04\x04\x01\x00\x01\x05\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := searoute.Decode(b)
		if err != nil {
			return
		}
		for _, e := range g.Edges {
			if int(e.U) >= len(g.Nodes) || int(e.V) >= len(g.Nodes) {
				t.Fatalf("edge %+v names a node beyond %d", e, len(g.Nodes))
			}
		}
		if again, err := searoute.Decode(searoute.Encode(g)); err != nil || len(again.Edges) != len(g.Edges) {
			t.Fatalf("re-encoding fails: %v", err)
		}
	})
}

func ExampleNetwork_Route() {
	n := data.SeaNetwork()
	shanghai := geo.Point{Lat: 31.400091, Lon: 121.497113}
	rotterdam := geo.Point{Lat: 51.904383, Lon: 4.442447}
	path, err := n.Route(shanghai, rotterdam, searoute.Options{Avoid: []searoute.Passage{searoute.Suez, searoute.Panama}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.0f nm round the Cape, through %v\n", path.DistanceNM, path.Passages)
	// Output: 13819 nm round the Cape, through [dover]
}
