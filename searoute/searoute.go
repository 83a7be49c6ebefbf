// Package searoute finds the shortest sea path between two points: over a maritime network
// (boxwatch ships one, see data.SeaNetwork), never across land, with passages such as Suez or
// Panama avoidable per query. The container map draws estimated legs with it and the simulator's
// vessels sail them.
//
// Distances are great-circle (haversine, geo.DistanceNM) lengths in nautical miles; each network
// edge is the great-circle arc between its nodes. (geo's Earth radius, 3,440.065 nm, is 6,370.99
// km: 1.3 parts per million below the 6,371.0088 km of the reference figures, 0.01 nm over
// 10,000 nm.) A point is joined to the network by projecting it onto the
// nearest usable edge, with a straight leg that stays off land (or a crooked one out of a harbour
// or a lagoon); a point on land first reaches the nearest water within SnapKM. Two points near
// each other may be joined directly, off the network (see directNM). Land is Natural Earth 1:50m
// (package geo/land), except inside the canals (see Waterway) and along the fairways up the rivers
// to inland ports (Hamburg, Antwerp, Shanghai and others, see Water), where that scale draws land
// over the water.
//
// The package does no I/O: the caller supplies the network, the land and the fairways. A Network is read-only
// after New and safe for concurrent use.
package searoute

import (
	"cmp"
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"sync"

	"github.com/boxwatch/boxwatch/geo"
)

// SimplifyKM is the tolerance of the output geometry: a returned path stays within this distance
// of the great-circle arcs it stands for, and never crosses land where they do not.
const SimplifyKM = 1.0

// CoastKM is the distance from water within which the ports' generator places reviewed port
// positions (data/ports/gen): the generalisation of a 1:50m coastline puts many quays a kilometre
// or two on land.
const CoastKM = 3.0

// SnapKM is how far inside land (Natural Earth 1:50m, outside canals and fairways) a point may lie and still
// be routed: published port coordinates are often a city centre or a quay that the coarse
// coastline draws inland, and vessel positions on an approach fall on the same land. Such a point
// reaches water by a straight leg to the nearest water (the only leg of a path allowed on land
// outside canals and fairways; every point of it lies no deeper inside land than the point itself); a point
// farther from water is ErrOnLand, naming the point.
const SnapKM = 5.0

// MaxSnapNM is how far a point may lie from the network it is joined to: the network is sparse
// in the Southern Ocean.
const MaxSnapNM = 1200.0

// DrawStepNM is the longest chord used to draw an edge's great-circle arc; the generator checks
// edges against land with chords of the same length, so a drawn edge is as land-free as checked.
const DrawStepNM = 10.0

// Errors a query can return, wrapped in a *PointError naming the point when one is at fault.
var (
	ErrOnLand       = fmt.Errorf("point is on land, more than %g km from navigable water", SnapKM)
	ErrFarFromWater = errors.New("point is too far from navigable water")
	ErrNoRoute      = errors.New("no sea route between the points")
	ErrBadPoint     = errors.New("point is not a valid position")
)

// PointError says which end of a query is at fault and why (Err is ErrOnLand, ErrFarFromWater or
// ErrBadPoint).
type PointError struct {
	Role  string // "from" or "to"
	Point geo.Point
	Err   error
}

func (e *PointError) Error() string {
	return fmt.Sprintf("%s point %.5f,%.5f: %v", e.Role, e.Point.Lon, e.Point.Lat, e.Err)
}

func (e *PointError) Unwrap() error { return e.Err }

// Options adjust one query. Avoid closes passages; Open opens passages closed by default
// (DefaultClosed). A passage in both is avoided.
type Options struct {
	Avoid []Passage
	Open  []Passage
}

// Path is a query's answer.
type Path struct {
	// DistanceNM is the length of the path at sea, legs from the points to the network included.
	DistanceNM float64
	// Points is the path from the first point to the second, simplified within SimplifyKM.
	// Longitudes are within -180…180; where the path crosses the antimeridian two consecutive
	// points lie more than 180° of longitude apart.
	Points []geo.Point
	// Passages are those the path goes through, in order.
	Passages []Passage
}

// arc is an edge as seen from one of its nodes, with what a search needs of it side by side, in
// 16 bytes: an edge through a passage has its far node stored complemented (negative), so that
// the search looks its passage up only for those few (see next).
type arc struct {
	length float64
	to     int32
	edge   int32
}

// next returns the node the arc leads to, and false when the arc's passage is closed (closed may
// be nil: every passage open).
func (n *Network) next(a arc, closed []bool) (int32, bool) {
	if a.to >= 0 {
		return a.to, true
	}
	return ^a.to, closed == nil || !closed[n.passage[a.edge]]
}

// edgeArc is an edge's great-circle arc: its ends' unit vectors, its unit normal (see normal)
// and the angle between its ends (see angle).
type edgeArc struct {
	u, v, normal vec
	angle        float64
}

// edgeCap is the cap round an edge's arc: its middle's unit vector and the cosine and sine of
// half the arc's angle. Every point of the arc lies within that half angle of the middle.
type edgeCap struct {
	mid        vec
	cosH, sinH float64
}

// Network is a maritime network ready for queries.
type Network struct {
	water  Water
	nodes  []geo.Point
	edges  []Edge
	length []float64 // nm, per edge
	comp   []int32   // connected piece of each node
	vecs   []vec     // unit vector of each node
	// arcs hold each edge's great circle side by side, for the snapping's projections, and caps
	// the cap round each, which tells the snapping which edges lie too far to project yet.
	arcs []edgeArc
	caps []edgeCap
	// passage is the index in Passages() of each edge's passage, or -1.
	passage []int8

	adjStart []int32 // CSR: edges at node n are adj[adjStart[n]:adjStart[n+1]]
	adj      []arc

	fine, coarse grid // snapping indexes (see indexEdges)

	// shapes holds each edge's drawn arc from U to V, simplified, without its ends:
	// shapes[shapeStart[e]:shapeStart[e+1]]. Longitudes continue from U's.
	shapes     []geo.Point
	shapeStart []int32

	// landmarks hold the distance from each landmark to every node with some passages closed,
	// node by node: dist[v*landmarkCount+k] is landmark k's distance to node v. A query uses the
	// sets that close only passages it closes itself, so that the distances stay lower bounds;
	// the first set closes none.
	landmarks    []landmarkSet
	landmarkNode int32 // a node of the piece the landmarks cover

	pool sync.Pool // *search
}

type landmarkSet struct {
	closed []bool // per passage, in the order of Passages
	dist   []float32
}

// landmarkClosures are the passage sets landmark distances are computed for: none (any query)
// and the default with Suez and Panama (voyages round the Cape, which the first set bounds
// loosely). A set for the default closures alone was tried and tightened no bound.
var landmarkClosures = [][]Passage{nil, append(DefaultClosed(), Suez, Panama)}

// landmarkCount is how many landmarks guide A*: their distances bound the remaining distance
// from below far more tightly than the great circle does on a network that rounds continents.
const landmarkCount = 16

// New prepares g for queries over the water w. It returns an error if an edge joins a node to
// itself or names a node that does not exist.
func New(g Graph, w Water) (*Network, error) {
	if len(g.Nodes) == 0 {
		return nil, errors.New("searoute: empty network")
	}
	if g.Shapes != nil && len(g.Shapes) != len(g.Edges) {
		return nil, fmt.Errorf("searoute: %d shapes for %d edges", len(g.Shapes), len(g.Edges))
	}
	n := &Network{water: w, nodes: g.Nodes, edges: g.Edges}
	n.length = make([]float64, len(g.Edges))
	n.passage = make([]int8, len(g.Edges))
	n.arcs = make([]edgeArc, len(g.Edges))
	n.caps = make([]edgeCap, len(g.Edges))
	n.vecs = make([]vec, len(g.Nodes))
	for i, p := range g.Nodes {
		n.vecs[i] = toVec(p)
	}
	deg := make([]int32, len(g.Nodes)+1)
	for i, e := range g.Edges {
		if e.U == e.V {
			return nil, fmt.Errorf("searoute: edge %d joins node %d to itself", i, e.U)
		}
		if e.U < 0 || e.V < 0 || int(e.U) >= len(g.Nodes) || int(e.V) >= len(g.Nodes) {
			return nil, fmt.Errorf("searoute: edge %d names a node that does not exist", i)
		}
		n.length[i] = geo.DistanceNM(g.Nodes[e.U], g.Nodes[e.V])
		u, v := n.vecs[e.U], n.vecs[e.V]
		n.arcs[i] = edgeArc{u, v, normal(u, v), angle(u, v)}
		// Ends nearly antipodal have no middle to speak of: a cap as wide as the sphere.
		n.caps[i] = edgeCap{sinH: 1}
		if mid := add(u, v); norm(mid) > 1e-9 {
			n.caps[i] = edgeCap{scale(mid, 1/norm(mid)), math.Cos(n.arcs[i].angle / 2), math.Sin(n.arcs[i].angle / 2)}
		}
		n.passage[i] = int8(passageIndex(e.Passage))
		deg[e.U+1]++
		deg[e.V+1]++
	}
	n.adjStart = make([]int32, len(g.Nodes)+1)
	for i := 1; i <= len(g.Nodes); i++ {
		n.adjStart[i] = n.adjStart[i-1] + deg[i]
	}
	n.adj = make([]arc, n.adjStart[len(g.Nodes)])
	fill := slices.Clone(n.adjStart[:len(g.Nodes)])
	for i, e := range g.Edges {
		u, v := e.U, e.V
		if n.passage[i] >= 0 {
			u, v = ^u, ^v
		}
		n.adj[fill[e.U]] = arc{n.length[i], v, int32(i)}
		fill[e.U]++
		n.adj[fill[e.V]] = arc{n.length[i], u, int32(i)}
		fill[e.V]++
	}
	n.labelPieces()
	// The preparations touch separate fields: on two cores they share the start-up time.
	var wg sync.WaitGroup
	wg.Go(n.pickLandmarks)
	cells := g.cells
	wg.Go(func() { n.indexEdges(cells) })
	n.drawEdges(g.Shapes)
	wg.Wait()
	// The pool's function names the counts, not g, which would keep the decoded shapes and cells.
	nodes, edges := len(g.Nodes), len(g.Edges)
	n.pool.New = func() any { return newSearch(nodes, edges) }
	return n, nil
}

func (n *Network) other(e int32, from int32) int32 {
	if n.edges[e].U == from {
		return n.edges[e].V
	}
	return n.edges[e].U
}

func (n *Network) labelPieces() {
	n.comp = make([]int32, len(n.nodes))
	for i := range n.comp {
		n.comp[i] = -1
	}
	var next int32
	var stack []int32
	for s := range n.nodes {
		if n.comp[s] >= 0 {
			continue
		}
		n.comp[s] = next
		stack = append(stack[:0], int32(s))
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, a := range n.adj[n.adjStart[u]:n.adjStart[u+1]] {
				if v, _ := n.next(a, nil); n.comp[v] < 0 {
					n.comp[v] = next
					stack = append(stack, v)
				}
			}
		}
		next++
	}
}

// grid is a snapping index: the edges whose drawn arc passes through each cell, perDeg cells to
// a degree.
type grid struct {
	perDeg int
	// start and edges list the edges of each cell (CSR): cell y*360*perDeg+x, x counted east
	// from 180° W and y north from 90° S, holds edges[start[i]:start[i+1]].
	start []int32
	edges []int32
}

// key is the cell of p: its column and row, counted from the prime meridian and the equator
// (negative to the west and south).
func (g *grid) key(p geo.Point) [2]int {
	lon := p.Lon
	if lon < -180 || lon >= 180 {
		lon = math.Mod(math.Mod(lon+180, 360)+360, 360) - 180
	}
	k := float64(g.perDeg)
	return [2]int{int(math.Floor(lon * k)), int(math.Floor(p.Lat * k))}
}

// index is the place in start of the cell dx, dy cells from c, across the antimeridian if need
// be, and false beyond a pole.
func (g *grid) index(c [2]int, dx, dy int) (int, bool) {
	cols, rows := 360*g.perDeg, 180*g.perDeg
	x := ((c[0]+dx+180*g.perDeg)%cols + cols) % cols
	y := c[1] + dy + 90*g.perDeg
	return y*cols + x, y >= 0 && y < rows
}

// at returns the edges of the cell dx, dy cells from c, across the antimeridian if need be.
func (g *grid) at(c [2]int, dx, dy int) []int32 {
	i, ok := g.index(c, dx, dy)
	if !ok {
		return nil
	}
	return g.edges[g.start[i]:g.start[i+1]]
}

// The snapping grids: a fine one (a quarter of a degree), so that a point near a dense stretch of
// network looks at few edges, and a coarse one (a degree) for points far from any edge.
const fineDeg, coarseDeg = 4, 1

// edgeCells lists the cells of a snapping grid (indexes of grid.start) that each edge's arc
// passes through: edge e's are cells[start[e]:start[e+1]], each once.
type edgeCells struct {
	start []int32
	cells []int32
}

// fill lays out the cells' edges, each cell's in the order of the edges.
func (g *grid) fill(ec edgeCells) {
	cells := 360 * 180 * g.perDeg * g.perDeg
	g.start = make([]int32, cells+1)
	for _, c := range ec.cells {
		g.start[c]++
	}
	for i := 1; i < cells; i++ {
		g.start[i] += g.start[i-1]
	}
	g.start[cells] = int32(len(ec.cells))
	g.edges = make([]int32, len(ec.cells))
	for e := len(ec.start) - 2; e >= 0; e-- {
		for i := ec.start[e+1] - 1; i >= ec.start[e]; i-- {
			c := ec.cells[i]
			g.start[c]--
			g.edges[g.start[c]] = int32(e)
		}
	}
}

// fineCells finds the cells of the fine grid each edge's great-circle arc passes through, in
// ascending order. It is most of what indexing the edges costs, so Encode stores its result and
// New reads it.
func fineCells(nodes []geo.Point, edges []Edge) edgeCells {
	g := grid{perDeg: fineDeg}
	out := edgeCells{start: make([]int32, 1, len(edges)+1)}
	// An edge's cells, gathered along it, sorted and made unique (a long edge passes through
	// hundreds of cells, so that checking each against those before would cost their square).
	var seen []int
	for _, e := range edges {
		a, b := nodes[e.U], nodes[e.V]
		if geo.DistanceNM(a, b) > 0 {
			pts := Arc(a, b, 20)
			seen = seen[:0]
			for k := 1; k < len(pts); k++ {
				a, b := pts[k-1], pts[k]
				steps := int(math.Ceil(max(math.Abs(b.Lon-a.Lon), math.Abs(b.Lat-a.Lat))*2*fineDeg)) + 1
				for s := 0; s <= steps; s++ {
					t := float64(s) / float64(steps)
					c, ok := g.index(g.key(geo.Point{Lat: a.Lat + t*(b.Lat-a.Lat), Lon: a.Lon + t*(b.Lon-a.Lon)}), 0, 0)
					if ok && (len(seen) == 0 || seen[len(seen)-1] != c) {
						seen = append(seen, c)
					}
				}
			}
			slices.Sort(seen)
			for _, c := range slices.Compact(seen) {
				out.cells = append(out.cells, int32(c))
			}
		}
		out.start = append(out.start, int32(len(out.cells)))
	}
	return out
}

// coarseCells returns the cells of the coarse grid that hold the fine cells of each edge.
func coarseCells(fine edgeCells) edgeCells {
	const cols, k = 360 * fineDeg, fineDeg / coarseDeg
	out := edgeCells{start: make([]int32, 1, len(fine.start))}
	last := make([]int32, 360*180*coarseDeg*coarseDeg) // the edge that last listed each cell, plus one
	for e := range len(fine.start) - 1 {
		for _, c := range fine.cells[fine.start[e]:fine.start[e+1]] {
			cc := c/cols/k*(cols/k) + c%cols/k
			if last[cc] != int32(e)+1 {
				last[cc] = int32(e) + 1
				out.cells = append(out.cells, cc)
			}
		}
		out.start = append(out.start, int32(len(out.cells)))
	}
	return out
}

// indexEdges fills the two snapping grids from the fine cells stored with the network, or from
// those it finds when there are none.
func (n *Network) indexEdges(stored *edgeCells) {
	var fine edgeCells
	if stored != nil {
		fine = *stored
	} else {
		fine = fineCells(n.nodes, n.edges)
	}
	n.fine, n.coarse = grid{perDeg: fineDeg}, grid{perDeg: coarseDeg}
	n.fine.fill(fine)
	n.coarse.fill(coarseCells(fine))
}

// DrawShapes returns the shape of each edge of g as New draws it over the water w: its great-circle
// arc in chords of DrawStepNM, simplified within SimplifyKM by shortcuts that stay off land, without
// its two nodes; longitudes continue from U's. The generator stores them with the network
// (Graph.Shapes), so that start-up does not draw them.
func DrawShapes(g Graph, w Water) [][]geo.Point {
	n := &Network{water: w}
	shapes := make([][]geo.Point, len(g.Edges))
	for i, e := range g.Edges {
		pts := n.simplify(Arc(g.Nodes[e.U], g.Nodes[e.V], DrawStepNM), SimplifyKM)
		shapes[i] = pts[1 : len(pts)-1]
	}
	return shapes
}

// drawEdges lays out the shapes of the edges, drawing them if they are not given.
func (n *Network) drawEdges(shapes [][]geo.Point) {
	if shapes == nil {
		shapes = DrawShapes(Graph{Nodes: n.nodes, Edges: n.edges}, n.water)
	}
	n.shapeStart = make([]int32, len(n.edges)+1)
	for i, shape := range shapes {
		n.shapeStart[i+1] = n.shapeStart[i] + int32(len(shape))
	}
	n.shapes = make([]geo.Point, 0, n.shapeStart[len(n.edges)])
	for _, shape := range shapes {
		n.shapes = append(n.shapes, shape...)
	}
}

// pickLandmarks chooses landmarks far apart on the largest piece (each the node farthest from
// those already chosen) and records their distances to every node. The sets with passages closed
// are filled on a second goroutine, each landmark as soon as it is chosen: on two cores they take
// the time of the choice.
func (n *Network) pickLandmarks() {
	counts := map[int32]int{}
	for _, c := range n.comp {
		counts[c]++
	}
	var main int32
	for c, k := range counts {
		if k > counts[main] || (k == counts[main] && c < main) {
			main = c
		}
	}
	start := int32(slices.Index(n.comp, main))
	n.landmarkNode = start
	n.landmarks = make([]landmarkSet, len(landmarkClosures))
	for i, closure := range landmarkClosures {
		set := landmarkSet{closed: make([]bool, len(Passages())), dist: make([]float32, len(n.nodes)*landmarkCount)}
		for _, p := range closure {
			set.closed[passageIndex(p)] = true
		}
		n.landmarks[i] = set
	}
	chosen := make(chan int32, landmarkCount)
	var closedSets sync.WaitGroup
	closedSets.Go(func() {
		s := newSearch(len(n.nodes), len(n.edges))
		k := 0
		for m := range chosen {
			for _, set := range n.landmarks[1:] {
				for v, d := range s.all(n, m, set.closed) {
					set.dist[v*landmarkCount+k] = float32(d)
				}
			}
			k++
		}
	})
	// The first set, all passages open, is filled while the landmarks are chosen.
	s := newSearch(len(n.nodes), len(n.edges))
	minDist := make([]float64, len(n.nodes))
	for i := range minDist {
		minDist[i] = math.Inf(1)
	}
	open := n.landmarks[0]
	next := start
	for k := range landmarkCount {
		chosen <- next
		d := s.all(n, next, nil)
		far, farD := next, -1.0
		for v := range n.nodes {
			open.dist[v*landmarkCount+k] = float32(d[v])
			if d[v] < minDist[v] {
				minDist[v] = d[v]
			}
			if !math.IsInf(minDist[v], 1) && minDist[v] > farD {
				far, farD = int32(v), minDist[v]
			}
		}
		next = far
	}
	close(chosen)
	closedSets.Wait()
}

// landmarksFor returns the landmark distances a query closing the given passages may use: those
// of every set that closes no passage the query leaves open. Each gives a lower bound; the search
// takes the largest.
func (n *Network) landmarksFor(closed []bool) [][]float32 {
	var out [][]float32
	for _, set := range n.landmarks {
		fits := true
		for i, c := range set.closed {
			if c && !closed[i] {
				fits = false
			}
		}
		if fits {
			out = append(out, set.dist)
		}
	}
	return out
}

// Size returns the number of nodes and edges of the network.
func (n *Network) Size() (nodes, edges int) { return len(n.nodes), len(n.edges) }

func normalise(p geo.Point) geo.Point {
	if p.Lon > 180 || p.Lon < -180 {
		p.Lon = math.Mod(math.Mod(p.Lon+180, 360)+360, 360) - 180
	}
	return p
}

// closedBy returns, per passage in the order of Passages, whether opts close it. Names that are
// not passages are ignored.
func closedBy(opts Options) []bool {
	closed := make([]bool, len(Passages()))
	set := func(ps []Passage, v bool) {
		for _, p := range ps {
			if i := passageIndex(p); i >= 0 {
				closed[i] = v
			}
		}
	}
	set(DefaultClosed(), true)
	set(opts.Open, false)
	set(opts.Avoid, true)
	return closed
}

// snap is a point joined to the network: the edge it joins, where on it (0 at U, 1 at V), the
// joining point (on the edge as drawn, see piece, so that the leg checked is the leg drawn) and
// the leg's length.
type snap struct {
	edge  int32
	t     float64
	at    geo.Point
	atVec vec // at's unit vector, once the snapping has compared it with others (see apart)
	legNM float64
	shore geo.Point   // where the point reaches water: the point itself unless it lies on land
	via   []geo.Point // waypoints from shore to at, when a straight leg would cross land
}

// snap joins p to the network: to the nearest edge not closed whose leg from p stays off land,
// and to up to maxSnaps-1 more such edges within snapSlackNM of it, so that the search can take
// whichever leads best to the other point (the nearest edge can be a spur into a port basin).
// A point on land reaches water first by a straight leg of at most SnapKM: to the nearest water,
// or, when that water does not lead to the network (a lagoon or a lake behind the coast), to the
// next nearest water away from the ones tried.
func (n *Network) snap(s *search, p geo.Point, closed []bool) ([]snap, error) {
	if math.IsNaN(p.Lat) || math.IsNaN(p.Lon) || math.IsInf(p.Lon, 0) || p.Lat < -90 || p.Lat > 90 {
		return nil, ErrBadPoint
	}
	if Wet(n.water, p) {
		sn, err := n.snapWet(s, p, closed)
		for i := range sn {
			sn[i].shore = p
		}
		return sn, err
	}
	// The waters are looked for one at a time: the first mostly leads to the network, and the
	// rings that find the others cost as much as the snapping.
	shores := 0
	for shore := range watersNear(n.water, p, SnapKM, maxShores) {
		shores++
		sn, err := n.snapWet(s, shore, closed)
		if err != nil {
			continue
		}
		coastNM := geo.DistanceNM(p, shore)
		for i := range sn {
			sn[i].shore = shore
			sn[i].legNM += coastNM
		}
		return sn, nil
	}
	if shores == 0 {
		return nil, ErrOnLand
	}
	return nil, ErrFarFromWater
}

// maxShores is how many separate waters within SnapKM a point on land tries to reach the network
// from, and shoreApartKM how far apart they must lie to count as separate.
const (
	maxShores    = 4
	shoreApartKM = 1.0
)

// WaterNear returns up to max points in navigable water (see Wet) within maxKM of p, nearest
// first, each at least a kilometre from those before it: on rings a quarter kilometre apart, with
// points a quarter kilometre apart on each (see ring). For a point in water it returns p alone.
func WaterNear(w Water, p geo.Point, maxKM float64, max int) []geo.Point {
	return slices.Collect(watersNear(w, p, maxKM, max))
}

// watersNear yields the points of WaterNear one by one, looking for each only when asked.
func watersNear(w Water, p geo.Point, maxKM float64, max int) iter.Seq[geo.Point] {
	return func(yield func(geo.Point) bool) {
		if Wet(w, p) {
			yield(p)
			return
		}
		var out []geo.Point
		last := int32(-1)
		// The fairways near the rings, asked about instead of the blocks of each point: the
		// rings lie within maxKM of p in latitude, and of longitude at p's latitude (see ring),
		// widened by a billionth and a billionth of a degree against rounding.
		const kmPerDeg = geo.EarthRadiusKM * rad
		dLat, dLon := maxKM/kmPerDeg*(1+1e-9)+1e-9, maxKM/(kmPerDeg*math.Cos(p.Lat*rad))*(1+1e-9)+1e-9
		fairways := w.Fairways.around(p.Lon-dLon, p.Lat-dLat, p.Lon+dLon, p.Lat+dLat)
		for r := 0.25; r <= maxKM+1e-9; r += 0.25 {
			for q := range ring(p, r) {
				// As wet(w, q, &last).
				if math.Abs(q.Lat) > 90 || !(w.Fairways.nearLast(q, last) || !w.Land.Contains(q) || Waterway(q, q) != "" || fairways.near(q, &last)) {
					continue
				}
				q = normalise(q)
				if slices.ContainsFunc(out, func(o geo.Point) bool {
					return meridianNM(o, q)*geo.KilometresPerNM <= shoreApartKM*(1+1e-9) && geo.DistanceKM(o, q) < shoreApartKM
				}) {
					continue
				}
				out = append(out, q)
				if !yield(q) || len(out) == max {
					return
				}
			}
		}
	}
}

// ring yields points r km from p, clockwise from north: at least 32, and at most a quarter
// kilometre apart, so that a strip of water a quarter kilometre wide is not missed.
func ring(p geo.Point, r float64) iter.Seq[geo.Point] {
	const kmPerDeg = geo.EarthRadiusKM * rad
	m := max(32, int(math.Ceil(2*math.Pi*r/0.25)))
	return func(yield func(geo.Point) bool) {
		dirs := ringDirections(m)
		lonKM := kmPerDeg * math.Cos(p.Lat*rad)
		for _, d := range dirs {
			if !yield(geo.Point{Lat: p.Lat + r*d.cos/kmPerDeg, Lon: p.Lon + r*d.sin/lonKM}) {
				return
			}
		}
	}
}

// direction is the cosine and sine of an angle clockwise from north.
type direction struct{ cos, sin float64 }

// ringDirections returns the directions of a ring of m points, clockwise from north: those of
// the rings within SnapKM are made once.
func ringDirections(m int) []direction {
	if dirs := ringTable(); m < len(dirs) {
		return dirs[m]
	}
	return directions(m)
}

var ringTable = sync.OnceValue(func() [][]direction {
	out := make([][]direction, int(math.Ceil(2*math.Pi*SnapKM/0.25))+1)
	for m := 32; m < len(out); m++ {
		out[m] = directions(m)
	}
	return out
})

func directions(m int) []direction {
	out := make([]direction, m)
	for k := range out {
		a := float64(k) * 2 * math.Pi / float64(m)
		out[k] = direction{math.Cos(a), math.Sin(a)}
	}
	return out
}

// slack is how much longer than the nearest a point's other legs to the network may be: a point
// far out at sea, where the network is sparse (the Southern Ocean), may join it anywhere within
// half as far again, at up to farSnaps edges, since the nearest lane may lead away.
func slack(nearestNM float64) float64 {
	if nearestNM > farNM {
		return max(snapSlackNM, nearestNM/2)
	}
	return snapSlackNM
}

// Past the slack, a point may join up to maxExtra more edges within laneSlackNM of the nearest,
// each at least laneApartNM from those found, after at most maxExtraChecks legs checked against
// land: the nearest edges can be one port's approach leading away from the lane (Salaverry's
// nearest edge is Chimbote's approach, which runs south; the lane lies 60 nm west).
const (
	maxExtra       = 2
	maxExtraChecks = 6
	laneSlackNM    = 100.0
	laneApartNM    = 25.0
)

const (
	farNM       = 100.0
	farSnaps    = 12
	maxSnaps    = 4
	snapSlackNM = 25.0
	sameDeg     = 1e-5 // joining points this close in latitude and longitude are one
	snapApartNM = 5.0  // a snap this near one found does not count towards maxSnaps
	// maxApartChecks is how many legs past the first maxSnaps snaps are checked for a snap apart
	// from them: each is a land test, the most costly step of a query near a coast.
	maxApartChecks = 2
	harbourNM      = 30.0 // how far a crooked leg out of a harbour may reach
)

// NearestWater returns the nearest point in navigable water (see Wet) within maxKM of p, on rings
// a quarter kilometre apart in 32 directions, and false if there is none. For a point already in
// water it returns p. The generators place ports with it; the router looks closer (WaterNear).
func NearestWater(w Water, p geo.Point, maxKM float64) (geo.Point, bool) {
	if Wet(w, p) {
		return p, true
	}
	const kmPerDeg = geo.EarthRadiusKM * rad
	for r := 0.25; r <= maxKM+1e-9; r += 0.25 {
		for k := range 32 {
			a := float64(k) * 2 * math.Pi / 32
			q := geo.Point{Lat: p.Lat + r*math.Cos(a)/kmPerDeg, Lon: p.Lon + r*math.Sin(a)/(kmPerDeg*math.Cos(p.Lat*rad))}
			if math.Abs(q.Lat) <= 90 && Wet(w, q) {
				return normalise(q), true
			}
		}
	}
	return geo.Point{}, false
}

// fineRings is how far, in cells of the fine grid, snapping looks before it turns to the coarse.
const fineRings = 12

// snapWet joins p, a point in water, to the network (see snap): through the fine grid when the
// network is near, through the coarse one when it is not.
func (n *Network) snapWet(s *search, p geo.Point, closed []bool) ([]snap, error) {
	if found := n.snapGrid(s, &n.fine, fineRings, p, closed); len(found) > 0 {
		return found, nil
	}
	if found := n.snapGrid(s, &n.coarse, 180, p, closed); len(found) > 0 {
		return found, nil
	}
	return nil, ErrFarFromWater
}

// snapGrid looks for snaps of p in the cells of g up to maxRing cells away.
func (n *Network) snapGrid(s *search, g *grid, maxRing int, p geo.Point, closed []bool) []snap {
	vp := toVec(p)
	s.edgeStamp++
	cands, pending := s.cands[:0], s.pending[:0]
	s.projected = s.projected[:0]
	defer func() { s.cands, s.pending = cands[:0], pending[:0] }()
	// found is made for the snaps a point mostly has; tried is the search's, reused.
	var nearestRoom [2]snap
	found, nearest := make([]snap, 0, maxSnaps+2), nearestRoom[:0]
	tried := s.tried[:0]
	defer func() { s.tried = tried[:0] }()
	from := newLegs(n.water, p)
	var extra, checks, ways, apartChecks int
	c0 := g.key(p)
	for r := 0; r <= maxRing; r++ {
		seen := len(cands)
		for dx := -r; dx <= r; dx++ {
			for dy := -r; dy <= r; dy++ {
				if max(dx, -dx, dy, -dy) != r {
					continue
				}
				for _, e := range g.at(c0, dx, dy) {
					if s.edgeSeen[e] == s.edgeStamp || (n.passage[e] >= 0 && closed[n.passage[e]]) {
						continue
					}
					s.edgeSeen[e] = s.edgeStamp
					pending = append(pending, e)
				}
			}
		}
		// Every edge not yet seen lies at least r cells of latitude, or of longitude at the
		// highest latitude of the ring, away.
		k := float64(g.perDeg)
		bound := float64(r) * 60 / k * math.Cos(math.Min(89, math.Abs(p.Lat)+float64(r+1)/k)*rad)
		if bound >= MaxSnapNM || (r == maxRing && g == &n.coarse) {
			bound = math.Inf(1) // every edge within reach has been seen
		}
		// Only the edges seen that may lie within the bound are projected now: those taken
		// below are the same as if every edge seen were, in the same order.
		far := capsBeyond(bound)
		left := pending[:0]
		for _, e := range pending {
			if far.holds(vp, &n.caps[e]) {
				left = append(left, e)
				continue
			}
			if q, d := n.project(&vp, e); d <= MaxSnapNM {
				cands = append(cands, candidate{d, e, int32(len(s.projected))})
				s.projected = append(s.projected, q)
			}
		}
		pending = left
		// The candidates left from earlier rings are in order: the ring's own are sorted and
		// merged into them.
		cands = s.mergeCandidates(cands, seen)
		for len(cands) > 0 && cands[0].d <= bound {
			c := snap{edge: cands[0].edge, legNM: cands[0].d}
			arc := &n.arcs[c.edge]
			c.t = along(arc.u, arc.v, s.projected[cands[0].q], arc.angle)
			c.at = n.drawnAt(c.edge, c.t)
			cands = cands[1:]
			if len(nearest) < 2 {
				nearest = append(nearest, c)
			}
			beyond := len(found) > 0 && c.legNM > found[0].legNM+slack(found[0].legNM)
			if beyond && (extra == maxExtra || checks == maxExtraChecks || c.legNM > found[0].legNM+laneSlackNM) {
				return n.harbour(p, found, nearest)
			}
			// Edges meeting at a node project a point near it onto the node itself (drawn within
			// rounding of it, see drawnAt): one leg to check, and one way into the network, since
			// the search leaves the node by every edge.
			if slices.ContainsFunc(tried, func(q geo.Point) bool {
				return math.Abs(q.Lat-c.at.Lat) < sameDeg && math.Abs(q.Lon-c.at.Lon) < sameDeg
			}) {
				continue
			}
			tried = append(tried, c.at)
			c.atVec = n.vecAt(c.edge, c.at)
			if beyond {
				// Past the slack, only a lane away from every snap found so far.
				if laneApart.nearAny(found, &c) {
					continue
				}
				checks++
				if from.clear(c.at) {
					found = append(found, c)
					extra++
				}
				continue
			}
			// A snap within snapApartNM of one found joins the network where that one does, by
			// another edge: the first maxSnaps are taken as they come, but past them only a snap
			// apart from all is (after at most maxApartChecks legs checked), and only those count,
			// so that edges fanning out from a node near the point (the generator's shortcuts)
			// crowd out fewer of the lanes beyond (they still can: the checks are capped).
			near := snapApart.nearAny(found, &c)
			if near && len(found) >= maxSnaps {
				continue
			}
			if len(found) >= maxSnaps {
				// A point far from the network (see slack) may check up to farSnaps legs: its
				// lanes lie in many directions, and such queries are few.
				if apartChecks == maxApartChecks && found[0].legNM <= farNM || apartChecks == farSnaps-maxSnaps {
					return n.harbour(p, found, nearest)
				}
				apartChecks++
			}
			if from.clear(c.at) {
				if !near {
					ways++
				}
				found = append(found, c)
				if ways == maxSnaps || len(found) == farSnaps {
					if len(found) == farSnaps || found[0].legNM <= farNM {
						return n.harbour(p, found, nearest)
					}
				}
			}
		}
		if math.IsInf(bound, 1) {
			break
		}
	}
	return n.harbour(p, found, nearest)
}

// apart tells whether two snaps' joining points lie less than nm apart, as geo.DistanceNM says,
// mostly from the chord between their unit vectors: the chord's square is compared with those
// of the chords a billionth shorter and longer than nm, far more than the rounding of either
// way, and the haversine settles only what lies between.
type apart struct{ nm, lo2, hi2 float64 }

var snapApart, laneApart = apartBy(snapApartNM), apartBy(laneApartNM)

func apartBy(nm float64) apart {
	chord2 := func(f float64) float64 {
		c := 2 * math.Sin(nm*f/geo.EarthRadiusNM/2)
		return c * c
	}
	return apart{nm, chord2(1 - 1e-9), chord2(1 + 1e-9)}
}

func (t apart) within(a, b *snap) bool {
	d0, d1, d2 := a.atVec[0]-b.atVec[0], a.atVec[1]-b.atVec[1], a.atVec[2]-b.atVec[2]
	switch c2 := d0*d0 + d1*d1 + d2*d2; {
	case c2 < t.lo2:
		return true
	case c2 > t.hi2:
		return false
	}
	return geo.DistanceNM(a.at, b.at) < t.nm
}

// nearAny reports whether c lies within t of any of the snaps found (see within), reading them
// in place: a snap is large.
func (t apart) nearAny(found []snap, c *snap) bool {
	for i := range found {
		if t.within(&found[i], c) {
			return true
		}
	}
	return false
}

// meridianNM is the length of the meridian arc between a's and b's latitudes: the great circle
// between them is never shorter, and a billionth more is far more than the rounding of either.
func meridianNM(a, b geo.Point) float64 { return math.Abs(a.Lat-b.Lat) * (geo.EarthRadiusNM * rad) }

// capsBeyond is a test of edges' caps (see edgeCap) that holds only for an edge whose every point
// lies more than nm from a point: the cosine and sine of nm as an angle, with a margin of 10⁻⁷
// radians (under a metre) against rounding. It never holds when nm is infinite or the angles too
// wide to tell.
func capsBeyond(nm float64) capTest {
	b := nm/geo.EarthRadiusNM + 1e-7
	if math.IsInf(nm, 1) || b > math.Pi/2 {
		return capTest{}
	}
	return capTest{math.Cos(b), math.Sin(b), true}
}

type capTest struct {
	cos, sin float64
	ok       bool
}

// holds reports whether every point of the cap c lies farther from vp than the test's angle: the
// angle from vp to the cap's middle is more than that angle and the cap's half angle together,
// whose cosine the sum formula gives; a further 10⁻¹² keeps the comparison of cosines safe from
// rounding. Only caps of a half angle under 30° are judged, so that the sum stays below 120°,
// where the cosine still falls as the angle grows.
func (t capTest) holds(vp vec, c *edgeCap) bool {
	return t.ok && c.sinH < 0.5 && dot(vp, c.mid) < t.cos*c.cosH-t.sin*c.sinH-1e-12
}

// vecAt is toVec(p) for a point p of edge e: its end's unit vector, made at load, when p is one
// of its ends (as joining points mostly are).
func (n *Network) vecAt(e int32, p geo.Point) vec {
	ed := &n.edges[e]
	switch p {
	case n.nodes[ed.U]:
		return n.vecs[ed.U]
	case n.nodes[ed.V]:
		return n.vecs[ed.V]
	}
	return toVec(p)
}

// project returns the point of edge e's great-circle arc nearest to vp and its distance from vp
// in nautical miles: the foot of the perpendicular on the arc's great circle when it lies between
// the ends, else the nearer end. It leaves out the fraction along the arc (see along), which costs
// more and is needed only for the edges a point is joined to. The arc's vectors are read in place,
// not copied: the snapping projects tens of edges a point, and the copies cost more than the
// arithmetic.
func (n *Network) project(vp *vec, e int32) (vec, float64) {
	a := &n.arcs[e]
	nab := &a.normal
	if *nab != (vec{}) {
		s := vp[0]*nab[0] + vp[1]*nab[1] + vp[2]*nab[2]
		q := vec{vp[0] + nab[0]*-s, vp[1] + nab[1]*-s, vp[2] + nab[2]*-s}
		if qn := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2]); qn > 1e-15 {
			k := 1 / qn
			q = vec{q[0] * k, q[1] * k, q[2] * k}
			u, v := &a.u, &a.v
			if (u[1]*q[2]-u[2]*q[1])*nab[0]+(u[2]*q[0]-u[0]*q[2])*nab[1]+(u[0]*q[1]-u[1]*q[0])*nab[2] >= 0 &&
				(q[1]*v[2]-q[2]*v[1])*nab[0]+(q[2]*v[0]-q[0]*v[2])*nab[1]+(q[0]*v[1]-q[1]*v[0])*nab[2] >= 0 {
				return q, math.Asin(min(1, math.Abs(s))) * geo.EarthRadiusNM
			}
		}
	}
	return projectEnds(vp, &a.u, &a.v)
}

// projectEnds returns the nearer of an arc's ends to vp and its distance in nautical miles:
// chord lengths order the ends as their angles do, so one arcsine will do.
func projectEnds(vp, va, vb *vec) (vec, float64) {
	ca := math.Sqrt((vp[0]-va[0])*(vp[0]-va[0]) + (vp[1]-va[1])*(vp[1]-va[1]) + (vp[2]-va[2])*(vp[2]-va[2]))
	cb := math.Sqrt((vp[0]-vb[0])*(vp[0]-vb[0]) + (vp[1]-vb[1])*(vp[1]-vb[1]) + (vp[2]-vb[2])*(vp[2]-vb[2]))
	if ca <= cb {
		return *va, 2 * math.Asin(min(1, ca/2)) * geo.EarthRadiusNM
	}
	return *vb, 2 * math.Asin(min(1, cb/2)) * geo.EarthRadiusNM
}

// harbour adds, to the snaps found by straight legs, snaps to the nearest edges by a crooked leg
// when no straight leg reaches them: from an enclosed harbour (Victoria Harbour at 1:50m) the
// nearest straight leg can lead hundreds of miles away, and from a lagoon (Lagoa dos Patos to
// Porto Alegre) or a fjord (Puerto Natales) none leads anywhere. The crooked leg is a way over a
// grid (Detour) round p and the edge, a hundredth of a degree apart near a harbour and coarser
// over a long lagoon, within crookedNM.
func (n *Network) harbour(p geo.Point, found, nearest []snap) []snap {
	for _, c := range nearest {
		reach := harbourNM
		if len(found) == 0 {
			reach = crookedNM
		}
		if len(found) > 0 && c.legNM+slack(c.legNM) >= found[0].legNM || c.legNM > reach {
			continue
		}
		if slices.ContainsFunc(found, func(f snap) bool { return f.edge == c.edge }) {
			continue
		}
		way, ok := n.crooked(p, c.at, c.legNM)
		if !ok {
			continue
		}
		c.via = way
		c.legNM = 0
		prev := p
		for _, w := range append(way, c.at) {
			c.legNM += geo.DistanceNM(prev, w)
			prev = w
		}
		found = append(found, c)
	}
	return found
}

// crookedNM is how far a crooked leg may reach when no straight leg reaches the network at all.
const crookedNM = 300.0

// crooked finds a way from p to q, legNM apart, that stays off land (see harbour).
func (n *Network) crooked(p, q geo.Point, legNM float64) ([]geo.Point, bool) {
	clear := func(a, b geo.Point) bool { return Clear(n.water, a, b) }
	pad := max(0.1, 2*legNM/60)
	if legNM <= harbourNM {
		return Detour(n.water, p, q, 0.01, pad, clear)
	}
	// Wider boxes, on coarser grids, for a way out of a lagoon that leaves the box round p and q
	// (Lagoa dos Patos opens to the sea at Rio Grande, 2° south of Porto Alegre).
	q = unwrapTo(p.Lon, q)
	for _, pad := range []float64{1, 2, 3} {
		w, h := math.Abs(p.Lon-q.Lon)+2*pad, math.Abs(p.Lat-q.Lat)+2*pad
		step := max(0.01, math.Ceil(1000*math.Sqrt(w*h/390_000))/1000)
		if way, ok := Detour(n.water, p, q, step, pad, clear); ok {
			return way, true
		}
	}
	return nil, false
}

// Join is where a route from a point joins the network: the edge's ends, the joining point on it,
// and the leg's length from the point (through the shore and any waypoints when the point lies on
// land or in a harbour). Crooked is true when the leg is not straight.
type Join struct {
	U, V    geo.Point
	At      geo.Point
	LegNM   float64
	Crooked bool
}

// Joins returns the places where a route from p, with the default passages, joins the network,
// nearest first, and the errors of Route for a point that cannot be joined. The generator gives a
// port whose join to a lane is long and far round by the network that join as an edge.
func (n *Network) Joins(p geo.Point) ([]Join, error) {
	s := n.pool.Get().(*search)
	defer n.pool.Put(s)
	sn, err := n.snap(s, p, closedBy(Options{}))
	if err != nil {
		return nil, err
	}
	out := make([]Join, len(sn))
	for i, c := range sn {
		e := n.edges[c.edge]
		out[i] = Join{U: n.nodes[e.U], V: n.nodes[e.V], At: c.at, LegNM: c.legNM, Crooked: len(c.via) > 0 || c.shore != p}
	}
	slices.SortStableFunc(out, func(a, b Join) int { return cmp.Compare(a.LegNM, b.LegNM) })
	return out, nil
}

func passageIndex(p Passage) int { return slices.Index(Passages(), p) }

// Route returns the shortest sea path from one point to another. It returns a *PointError
// wrapping ErrOnLand (more than SnapKM inside land), ErrFarFromWater or ErrBadPoint when a point
// cannot be joined to the network (within MaxSnapNM of it, by a leg that stays off land), and ErrNoRoute when the points lie in
// waters that do not connect with the passages allowed.
func (n *Network) Route(from, to geo.Point, opts Options) (Path, error) {
	closed := closedBy(opts)
	s := n.pool.Get().(*search)
	defer n.pool.Put(s)
	a, err := n.snap(s, from, closed)
	if err != nil {
		return Path{}, &PointError{"from", from, err}
	}
	b, err := n.snap(s, to, closed)
	if err != nil {
		return Path{}, &PointError{"to", to, err}
	}
	r, ok := s.route(n, a, b, closed)
	if d, ok := n.direct(from, to, a, b, closed, r.dist, ok); ok {
		return d, nil
	}
	if !ok {
		return Path{}, ErrNoRoute
	}
	return n.path(from, to, a[r.from], b[r.to], r.nodes, r.edges, r.dist), nil
}

// directNM is how far apart two points may lie for a path between them to leave the network:
// a vessel on a port's approach, between the lane and the quay, sails on to the quay rather than
// back to the lane, and two ports facing each other across open sea (Santiago de Cuba and Ocho
// Rios) are joined by the great circle where the network's lanes run round.
const directNM = 500.0

// shoreDirectNM is the longest direct leg between points of two approaches other than their
// shores: longer legs are tried from shore to shore only, so that a query between two ports
// round a peninsula (Genoa to Barcelona) checks one great circle against land, not every pair.
const shoreDirectNM = 60.0

// approach is the way from a point to the network, as a snap joins them: the point, the water it
// reaches, the crooked leg's waypoints and the point on the edge; along[k] is the distance from the
// point to pts[k] along it.
func approach(p geo.Point, sn snap) (pts []geo.Point, along []float64) {
	pts = append(append([]geo.Point{p, sn.shore}, sn.via...), sn.at)
	along = make([]float64, len(pts))
	for k := 1; k < len(pts); k++ {
		along[k] = along[k-1] + geo.DistanceNM(pts[k-1], pts[k])
	}
	return pts, along
}

// direct returns a path between two points near each other that leaves the network: from a point
// of one's approach (see approach) to a point of the other's by the great circle, drawn in chords
// of DrawStepNM that stay off land (Clear) and through no passage the query closes, when it is
// shorter than the network's path (netNM, if found).
func (n *Network) direct(from, to geo.Point, a, b []snap, closed []bool, netNM float64, found bool) (Path, bool) {
	if geo.DistanceNM(from, to) > directNM {
		return Path{}, false
	}
	bestNM := math.Inf(1)
	if found {
		bestNM = netNM
	}
	type cand struct {
		pa, pb []geo.Point
		i, j   int
		d      float64 // the leg's length
	}
	// The candidates are sorted by total through a small record of each (the same comparisons
	// on the same sequence give the same order as sorting the candidates themselves).
	type byTotal struct {
		total float64
		k     int
	}
	var cands []cand
	var order []byTotal
	type way struct {
		pts   []geo.Point
		along []float64
	}
	bs := make([]way, len(b))
	for k, sb := range b {
		bs[k].pts, bs[k].along = approach(to, sb)
	}
	for _, sa := range a {
		pa, la := approach(from, sa)
		for _, wb := range bs {
			pb, lb := wb.pts, wb.along
			// From the points' shores on: the legs from a point on land to its shore are the only
			// legs on land.
			for i := 1; i < len(pa); i++ {
				for j := 1; j < len(pb); j++ {
					d := geo.DistanceNM(pa[i], pb[j])
					if total := la[i] + d + lb[j]; total < bestNM-1e-9 {
						order = append(order, byTotal{total, len(cands)})
						cands = append(cands, cand{pa, pb, i, j, d})
					}
				}
			}
		}
	}
	slices.SortFunc(order, func(x, y byTotal) int { return cmp.Compare(x.total, y.total) })
	// Every snap of a point shares its shore, and snaps meeting at a node share their joining
	// point: each leg is tried once.
	var tried [][2]geo.Point
	for _, o := range order {
		c := &cands[o.k]
		total := o.total
		ends := [2]geo.Point{c.pa[c.i], c.pb[c.j]}
		d := c.d
		if d > directNM || d > shoreDirectNM && (c.i > 1 || c.j > 1) || slices.Contains(tried, ends) {
			continue
		}
		tried = append(tried, ends)
		leg := Arc(c.pa[c.i], c.pb[c.j], DrawStepNM)
		// From both ends inwards: a leg that meets land mostly meets it near a coast. The land
		// is asked first, as it refuses most legs, and the passages' boxes cost more (an arc
		// drawn every mile).
		clear := true
		for lo, hi := 1, len(leg)-1; lo <= hi && clear; lo, hi = lo+1, hi-1 {
			clear = Clear(n.water, leg[lo-1], leg[lo]) && (hi == lo || Clear(n.water, leg[hi-1], leg[hi]))
		}
		if !clear {
			continue
		}
		passage := PassageAt(c.pa[c.i], c.pb[c.j])
		if passage != "" && closed[passageIndex(passage)] {
			continue
		}
		way := slices.Clone(c.pa[:c.i])
		way = append(way, n.simplify(leg, SimplifyKM)...)
		for k := c.j - 1; k >= 0; k-- {
			way = append(way, c.pb[k])
		}
		out := Path{DistanceNM: total}
		if passage != "" {
			out.Passages = []Passage{passage}
		}
		out.Points = pathPoints(way, from, to)
		return out, true
	}
	return n.around(from, to, a, b, closed, bestNM)
}

// aroundNM is how far apart two points may lie for around to look for a way between them.
const aroundNM = 200.0

// around returns a path between two points less than aroundNM apart that land keeps apart, when
// the network's way is much longer (more than 1.5 times the great circle and 10 nm): the network
// has no edge near some harbours among small islands (from Anguilla to Pointe-à-Pitre it went
// round Guadeloupe by a lane off Dominica). The way round the land, from shore to shore, is found
// on a water grid (see crooked).
func (n *Network) around(from, to geo.Point, a, b []snap, closed []bool, netNM float64) (Path, bool) {
	gc := geo.DistanceNM(from, to)
	if gc > aroundNM || netNM <= 1.5*gc+10 || len(a) == 0 || len(b) == 0 {
		return Path{}, false
	}
	p, q := a[0].shore, b[0].shore
	way, ok := n.crooked(p, q, gc)
	if !ok {
		return Path{}, false
	}
	pts := append(append([]geo.Point{from, p}, way...), unwrapTo(p.Lon, q), to)
	out := Path{}
	for i := 1; i < len(pts); i++ {
		out.DistanceNM += geo.DistanceNM(pts[i-1], pts[i])
	}
	if out.DistanceNM >= netNM {
		return Path{}, false
	}
	for i := 1; i < len(pts)-2; i++ {
		if ps := PassageAt(pts[i], pts[i+1]); ps != "" {
			if closed[passageIndex(ps)] {
				return Path{}, false
			}
			if !slices.Contains(out.Passages, ps) {
				out.Passages = append(out.Passages, ps)
			}
		}
	}
	out.Points = pathPoints(pts, from, to)
	return out, true
}

// pathPoints makes a path's points of way: each unwrapped to the longitude of the one before
// (no jump at the antimeridian), none twice in a row, at least two, normalised, and ending
// exactly at from and to.
func pathPoints(way []geo.Point, from, to geo.Point) []geo.Point {
	var out []geo.Point
	for i, p := range way {
		if i > 0 {
			p = unwrapTo(out[len(out)-1].Lon, p)
		}
		if len(out) == 0 || p != out[len(out)-1] {
			out = append(out, p)
		}
	}
	if len(out) == 1 {
		out = append(out, out[0])
	}
	for i := range out {
		out[i] = normalise(out[i])
	}
	out[0], out[len(out)-1] = normalise(from), normalise(to)
	return out
}

// path turns a network path into a Path: points drawn along the arcs, simplified, passages named.
func (n *Network) path(from, to geo.Point, a, b snap, nodes, edges []int32, dist float64) Path {
	out := Path{DistanceNM: dist}
	// Room for every point but those of the two parts drawn here, mostly a few.
	room := len(a.via) + len(b.via) + 6 + 2*len(edges)
	for _, e := range edges {
		room += int(n.shapeStart[e+1] - n.shapeStart[e])
	}
	pts := make([]geo.Point, 0, room+16)
	pts = append(append(append(pts, from, a.shore), a.via...), a.at)
	// The parts of the first and last edges are drawn and simplified here; the edges between
	// were at load (drawEdges), within the same tolerance.
	add := func(e int32, t0, t1 float64) {
		part := n.simplify(n.piece(e, t0, t1), SimplifyKM)
		pts = append(pts, part[1:]...)
	}
	end := func(e, node int32) float64 {
		if n.edges[e].U == node {
			return 0
		}
		return 1
	}
	if len(nodes) == 0 {
		add(a.edge, a.t, b.t)
	} else {
		add(a.edge, a.t, end(a.edge, nodes[0]))
		for i, e := range edges {
			shape := n.shapes[n.shapeStart[e]:n.shapeStart[e+1]]
			if n.edges[e].U == nodes[i] {
				pts = append(pts, shape...)
			} else {
				for k := len(shape) - 1; k >= 0; k-- {
					pts = append(pts, shape[k])
				}
			}
			pts = append(pts, n.nodes[nodes[i+1]])
		}
		add(b.edge, end(b.edge, nodes[len(nodes)-1]), b.t)
	}
	for i := len(b.via) - 1; i >= 0; i-- {
		pts = append(pts, b.via[i])
	}
	pts = append(pts, b.shore, to)
	for i := range pts {
		pts[i] = unwrapTo(pts[max(i-1, 0)].Lon, pts[i])
	}
	note := func(e int32) {
		if p := n.edges[e].Passage; p != "" && !slices.Contains(out.Passages, p) {
			out.Passages = append(out.Passages, p)
		}
	}
	note(a.edge)
	for _, e := range edges {
		note(e)
	}
	note(b.edge)
	out.Points = make([]geo.Point, 0, len(pts))
	for _, p := range pts {
		if len(out.Points) == 0 || p != out.Points[len(out.Points)-1] {
			out.Points = append(out.Points, p)
		}
	}
	if len(out.Points) == 1 {
		out.Points = append(out.Points, out.Points[0])
	}
	for i := range out.Points {
		out.Points[i] = normalise(out.Points[i])
	}
	// Exactly the points asked for, without the rounding of unwrapping longitudes.
	out.Points[0], out.Points[len(out.Points)-1] = normalise(from), normalise(to)
	return out
}

// piece returns the part of edge e from t0 to t1 (0 at U, 1 at V) as drawn: along the chords
// of its arc that the generator checked against land (Arc with DrawStepNM), starting and ending
// on them. Chords drawn afresh from a point inside the edge would fall elsewhere and could cut
// a corner of land the edge's own chords go round. The first point lies within -180…180 and the
// longitudes of the others continue from it.
func (n *Network) piece(e int32, t0, t1 float64) []geo.Point {
	pts := Arc(n.nodes[n.edges[e].U], n.nodes[n.edges[e].V], DrawStepNM)
	if t0 > t1 {
		slices.Reverse(pts)
		t0, t1 = 1-t0, 1-t1
	}
	m := float64(len(pts) - 1)
	at := func(t float64) geo.Point {
		k := min(int(t*m), len(pts)-2)
		f := t*m - float64(k)
		if f <= 0 {
			return pts[k]
		}
		if f >= 1 {
			return pts[k+1]
		}
		a, b := pts[k], pts[k+1]
		return geo.Point{Lat: a.Lat + f*(b.Lat-a.Lat), Lon: a.Lon + f*(b.Lon-a.Lon)}
	}
	out := []geo.Point{at(t0)}
	for k := int(t0*m) + 1; float64(k) < t1*m; k++ {
		out = append(out, pts[k])
	}
	out = append(out, at(t1))
	if shift := 360 * math.Round(out[0].Lon/360); shift != 0 {
		for i := range out {
			out[i].Lon -= shift
		}
	}
	return out
}

// drawnAt is the point at t along edge e (0 at U, 1 at V) as drawn: the first point of
// piece(e, t, t), without drawing the rest of the edge.
func (n *Network) drawnAt(e int32, t float64) geo.Point {
	ed := n.edges[e]
	u, v := n.nodes[ed.U], n.nodes[ed.V]
	if t == 0 {
		return normalise(u) // as below, without drawing: the first chord starts at U
	}
	w := n.arcs[e].angle
	m := chordCount(w, DrawStepNM)
	if m == 0 {
		v = unwrapTo(u.Lon, v)
		return normalise(geo.Point{Lat: u.Lat + t*(v.Lat-u.Lat), Lon: u.Lon + t*(v.Lon-u.Lon)})
	}
	at := func(i int) geo.Point {
		switch i {
		case 0:
			return u
		case m:
			return v
		}
		return slerp(n.vecs[ed.U], n.vecs[ed.V], w, float64(i)/float64(m)).point()
	}
	k := min(int(t*float64(m)), m-1)
	f := t*float64(m) - float64(k)
	// Each chord's end drawn only when it is needed.
	if f <= 0 {
		return at(k)
	}
	if f >= 1 {
		return at(k + 1)
	}
	a, b := at(k), at(k+1)
	b = unwrapTo(a.Lon, b)
	return normalise(geo.Point{Lat: a.Lat + f*(b.Lat-a.Lat), Lon: a.Lon + f*(b.Lon-a.Lon)})
}

// simplify drops points (Douglas–Peucker, tolerance in km) as long as each shortcut stays off
// land. pts have continuous longitudes. Edges are simplified once, at load, and a path is made of
// their shapes, so it stays within the tolerance of the arcs it follows.
func (n *Network) simplify(pts []geo.Point, toleranceKM float64) []geo.Point {
	tolerance2 := math.Pow(toleranceKM/(geo.EarthRadiusKM*rad), 2)
	keep := make([]bool, len(pts))
	keep[0], keep[len(pts)-1] = true, true
	var visit func(i, j int)
	visit = func(i, j int) {
		if j <= i+1 {
			return
		}
		far, farD := -1, 0.0
		for k := i + 1; k < j; k++ {
			if d := offset2(pts[k], pts[i], pts[j]); d > farD {
				far, farD = k, d
			}
		}
		if farD <= tolerance2 && Clear(n.water, pts[i], pts[j]) {
			return
		}
		if far < 0 {
			far = (i + j) / 2
		}
		keep[far] = true
		visit(i, far)
		visit(far, j)
	}
	visit(0, len(pts)-1)
	out := make([]geo.Point, 0, 64)
	for i, p := range pts {
		if keep[i] && (len(out) == 0 || p != out[len(out)-1]) {
			out = append(out, p)
		}
	}
	if len(out) == 1 {
		out = append(out, out[0])
	}
	return out
}

// offset2 is the square of the distance from p to the straight line (in longitude and latitude,
// as drawn) from a to b, in degrees of latitude on a local equirectangular projection.
func offset2(p, a, b geo.Point) float64 {
	k := math.Cos(p.Lat * rad)
	ax, ay := (a.Lon-p.Lon)*k, a.Lat-p.Lat
	bx, by := (b.Lon-p.Lon)*k, b.Lat-p.Lat
	dx, dy := bx-ax, by-ay
	t := 0.0
	if l2 := dx*dx + dy*dy; l2 > 0 {
		t = min(max(-(ax*dx+ay*dy)/l2, 0), 1)
	}
	x, y := ax+t*dx, ay+t*dy
	return x*x + y*y
}
