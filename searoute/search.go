package searoute

import (
	"cmp"
	"math"
	"slices"

	"github.com/boxwatch/boxwatch/geo"
)

// search holds one query's working state, reused between queries through Network.pool. A stamp
// marks which nodes' states belong to the current query, so nothing is cleared between them.
type search struct {
	// node holds each node's state side by side, so that a node visited costs one cache line.
	node []nodeState
	cur  uint32
	// heap is a 4-ary min-heap of the nodes reached and not yet settled, each at most once.
	// pos is each reached node's place in it, or -1 once out of it: apart from node, so that
	// moving entries in the heap touches a small array rather than the nodes' states.
	heap []entry
	pos  []int32
	// goal marks the nodes of the current query's goals (those equal to cur), so that a node
	// settled is compared with the goals only when it is one.
	goal []uint32

	// cands is the snapping candidates' buffer, merged the buffer they are merged in, and
	// projected the nearest point of each candidate's edge.
	cands, merged []candidate
	projected     []vec
	// pending holds the edges seen by the snapping but not yet projected (see capsBeyond), and
	// tried the joining points whose legs it has checked.
	pending []int32
	tried   []geo.Point

	// edgeSeen marks the edges a snap has looked at (those equal to edgeStamp).
	edgeSeen  []uint32
	edgeStamp uint32
}

// candidate is an edge a point could be joined to, its distance and where its nearest point
// lies in search.projected. It is small, since candidates are sorted often.
type candidate struct {
	d    float64
	edge int32
	q    int32
}

// byDistance orders candidates nearest first, then by edge: a total order, so that any way of
// sorting them gives the same sequence.
func byDistance(a, b candidate) int {
	// As cmp.Or(cmp.Compare(a.d, b.d), cmp.Compare(a.edge, b.edge)), without cmp.Compare's care
	// for NaN: distances never are.
	switch {
	case a.d < b.d:
		return -1
	case a.d > b.d:
		return 1
	case a.edge < b.edge:
		return -1
	case a.edge > b.edge:
		return 1
	}
	return 0
}

// mergeCandidates sorts cands[from:] and merges them into cands[:from], which are sorted.
func (s *search) mergeCandidates(cands []candidate, from int) []candidate {
	fresh := cands[from:]
	slices.SortFunc(fresh, byDistance)
	if from == 0 || len(fresh) == 0 {
		return cands
	}
	m := s.merged[:0]
	i, j := 0, from
	for i < from && j < len(cands) {
		if byDistance(cands[j], cands[i]) < 0 {
			m = append(m, cands[j])
			j++
		} else {
			m = append(m, cands[i])
			i++
		}
	}
	m = append(append(m, cands[i:from]...), cands[j:]...)
	s.merged = m
	return append(cands[:0], m...)
}

// activeLandmarks is how many landmarks a query consults (see route).
const activeLandmarks = 4

// nodeState is a node's part in the current query, valid when stamp is search.cur: the node
// has been reached. It is settled once it has left the heap.
type nodeState struct {
	dist     float64 // from the start
	h        float64 // the estimate of the distance left (route), made when the node is reached
	prevEdge int32   // the edge dist came by, or -1-i for the start by snap i
	stamp    uint32  // the query that reached the node
}

type entry struct {
	key  float64
	node int32
}

func newSearch(nodes, edges int) *search {
	return &search{
		edgeSeen: make([]uint32, edges),
		node:     make([]nodeState, nodes),
		pos:      make([]int32, nodes),
		goal:     make([]uint32, nodes),
	}
}

func (s *search) reset() {
	s.cur++
	s.heap = s.heap[:0]
}

func (s *search) get(v int32) float64 {
	if ns := &s.node[v]; ns.stamp == s.cur {
		return ns.dist
	}
	return math.Inf(1)
}

// reach records that v is reached at distance d by edge via (a start when negative) and queues
// it with the given key, or moves it up the queue if it is there already. A node settled already
// keeps its place out of the queue: its distance is recorded, as a search that settles a node
// once would, but it is not expanded again.
func (s *search) reach(v int32, d, key float64, via int32) {
	ns := &s.node[v]
	var i int32
	switch {
	case ns.stamp != s.cur:
		ns.stamp = s.cur
		i = int32(len(s.heap))
		s.heap = append(s.heap, entry{key, v})
	case s.pos[v] < 0:
		ns.dist, ns.prevEdge = d, via
		return
	default:
		i = s.pos[v]
		s.heap[i].key = key
	}
	ns.dist, ns.prevEdge = d, via
	s.up(int(i))
}

// up moves the entry at i towards the root until its parent's key is no larger.
func (s *search) up(i int) {
	h := s.heap
	it := h[i]
	for i > 0 {
		p := (i - 1) / 4
		if h[p].key <= it.key {
			break
		}
		h[i] = h[p]
		s.pos[h[i].node] = int32(i)
		i = p
	}
	h[i] = it
	s.pos[it.node] = int32(i)
}

// pop removes the entry of smallest key: its node is settled.
func (s *search) pop() entry {
	h := s.heap
	top := h[0]
	s.pos[top.node] = -1
	last := h[len(h)-1]
	h = h[:len(h)-1]
	s.heap = h
	if len(h) == 0 {
		return top
	}
	i := 0
	for {
		c := 4*i + 1
		if c >= len(h) {
			break
		}
		// The first child of smallest key; four at once where all four are there.
		m, mk := c, h[c].key
		if c+3 < len(h) {
			kids := h[c+1 : c+4 : c+4]
			if k := kids[0].key; k < mk {
				m, mk = c+1, k
			}
			if k := kids[1].key; k < mk {
				m, mk = c+2, k
			}
			if k := kids[2].key; k < mk {
				m, mk = c+3, k
			}
		} else {
			for j := c + 1; j < len(h); j++ {
				if k := h[j].key; k < mk {
					m, mk = j, k
				}
			}
		}
		if mk >= last.key {
			break
		}
		h[i] = h[m]
		s.pos[h[i].node] = int32(i)
		i = m
	}
	h[i] = last
	s.pos[last.node] = int32(i)
	return top
}

// all returns the distance from src to every node over the edges not closed (Dijkstra; closed
// may be nil), +Inf where none.
func (s *search) all(n *Network, src int32, closed []bool) []float64 {
	s.reset()
	s.reach(src, 0, 0, -1)
	for len(s.heap) > 0 {
		it := s.pop()
		u := it.node
		for _, a := range n.adj[n.adjStart[u]:n.adjStart[u+1]] {
			v, open := n.next(a, closed)
			if !open {
				continue
			}
			if d := it.key + a.length; d < s.get(v) {
				s.reach(v, d, d, a.edge)
			}
		}
	}
	out := make([]float64, len(n.nodes))
	for v := range out {
		out[v] = s.get(int32(v))
	}
	return out
}

// found is a search's answer: which snaps of each end it joins, the network nodes passed (in
// order), the edges between them and the total distance.
type found struct {
	from, to     int
	nodes, edges []int32
	dist         float64
}

// route runs A* from the snaps of one point to those of the other over the edges not closed. The
// estimate of the distance left is, per goal node, the larger of the great circle and the
// landmarks' bound (ALT), both never more than the truth; so the first time the best goal
// distance is no more than the smallest key left, it is the shortest.
func (s *search) route(n *Network, from, to []snap, closed []bool) (found, bool) {
	s.reset()
	type goal struct {
		node int32
		cost float64 // from the node to the point
		snap int
	}
	goals := make([]goal, 0, 2*len(to))
	for i, b := range to {
		eb, lb := n.edges[b.edge], n.length[b.edge]
		goals = append(goals, goal{eb.U, b.t*lb + b.legNM, i}, goal{eb.V, (1-b.t)*lb + b.legNM, i})
		s.goal[eb.U], s.goal[eb.V] = s.cur, s.cur
	}
	// Lower bounds of the distance left from a node v: the great circle to where the point meets
	// water; and for each landmark L, since
	// |d(L, g) - d(L, v)| <= d(v, g) for every goal node g,
	// max(A - d(L, v), d(L, v) - B) with A = min over g of d(L, g) + cost(g) and
	// B = max over g of d(L, g) - cost(g).
	shore := toVec(to[0].shore)
	useALT := true
	sets := n.landmarksFor(closed)
	lmA := make([][landmarkCount]float64, len(sets))
	lmB := make([][landmarkCount]float64, len(sets))
	for i := range sets {
		for k := range landmarkCount {
			lmA[i][k], lmB[i][k] = math.Inf(1), math.Inf(-1)
		}
	}
	for _, g := range goals {
		if n.comp[g.node] != n.comp[n.landmarkNode] {
			useALT = false
		}
		for i, set := range sets {
			row := set[int(g.node)*landmarkCount : int(g.node+1)*landmarkCount]
			for k, d := range row {
				lmA[i][k] = min(lmA[i][k], float64(d)+g.cost)
				lmB[i][k] = max(lmB[i][k], float64(d)-g.cost)
			}
		}
	}
	// Only the landmarks that bound this query's distance best, judged from its first start
	// node, are consulted at every node: fewer look-ups, nearly the same bound.
	type mark struct {
		set, k int
		score  float64
	}
	marks := make([]mark, 0, len(sets)*landmarkCount)
	// bounds are the marks consulted, each with its column of distances and its A and B.
	var bounds [activeLandmarks]struct {
		dist []float32
		k    int
		a, b float64
	}
	active := 0
	if useALT {
		start := n.edges[from[0].edge].U
		for i, set := range sets {
			row := set[int(start)*landmarkCount : int(start+1)*landmarkCount]
			for k, d := range row {
				if lv := float64(d); !math.IsInf(lv, 1) {
					marks = append(marks, mark{i, k, max(lmA[i][k]-lv, lv-lmB[i][k])})
				}
			}
		}
		slices.SortFunc(marks, func(a, b mark) int { return cmp.Compare(b.score, a.score) })
		for _, m := range marks[:min(len(marks), activeLandmarks)] {
			b := &bounds[active]
			b.dist, b.k, b.a, b.b = sets[m.set], m.k, lmA[m.set][m.k], lmB[m.set][m.k]
			active++
		}
	}
	estimate := func(v int32) float64 {
		if !useALT {
			return 2 * geo.EarthRadiusNM * math.Asin(min(1, norm(sub(n.vecs[v], shore))/2))
		}
		// On a network that rounds continents the landmarks' bound is almost always the larger,
		// so the great circle is left out: A* stays correct with any lower bound.
		est := 0.0
		base := int(v) * landmarkCount
		for i := range active {
			b := &bounds[i]
			lv := float64(b.dist[base+b.k])
			if math.IsInf(lv, 1) {
				continue // cut off from this landmark by the closed passages: it says nothing
			}
			// As max(est, b.a-lv, lv-b.b), without its care for NaN and signed zeros:
			// distances are never NaN, and a zero's sign is lost in the subtraction below.
			if x := b.a - lv; x > est {
				est = x
			}
			if x := lv - b.b; x > est {
				est = x
			}
		}
		// Less a hundredth of a mile, more than float32 rounding can add.
		return est - 0.01
	}
	h := func(v int32) float64 {
		ns := &s.node[v]
		if ns.stamp != s.cur {
			ns.h = estimate(v)
		}
		return ns.h
	}
	best, via, res := math.Inf(1), int32(-1), found{}
	for i, a := range from {
		for j, b := range to {
			if a.edge == b.edge {
				if d := a.legNM + math.Abs(a.t-b.t)*n.length[a.edge] + b.legNM; d < best {
					best, res = d, found{from: i, to: j}
				}
			}
		}
	}
	for i, a := range from {
		ea, la := n.edges[a.edge], n.length[a.edge]
		for _, st := range []struct {
			node int32
			d    float64
		}{{ea.U, a.legNM + a.t*la}, {ea.V, a.legNM + (1-a.t)*la}} {
			if st.d < s.get(st.node) {
				s.reach(st.node, st.d, st.d+h(st.node), int32(-1-i)) // a start: which snap, not which edge
			}
		}
	}
	for len(s.heap) > 0 {
		it := s.pop()
		if it.key >= best {
			break
		}
		u := it.node
		du := s.node[u].dist
		if s.goal[u] == s.cur {
			for _, g := range goals {
				if g.node == u && du+g.cost < best {
					best, via = du+g.cost, u
					res.to = g.snap
				}
			}
		}
		for _, a := range n.adj[n.adjStart[u]:n.adjStart[u+1]] {
			v := a.to
			if v < 0 {
				if v = ^v; closed[n.passage[a.edge]] {
					continue
				}
			}
			// A node whose key is no less than the best distance found would never leave the heap.
			// (get and h written out, reading the node's state once: the search's innermost step.)
			d := du + a.length
			ns := &s.node[v]
			if ns.stamp == s.cur {
				if d >= ns.dist {
					continue
				}
			} else {
				ns.h = estimate(v)
			}
			if key := d + ns.h; key < best {
				s.reach(v, d, key, a.edge)
			}
		}
	}
	if math.IsInf(best, 1) {
		return found{}, false
	}
	res.dist = best
	if via < 0 {
		return res, true // both points join one edge: no node between them
	}
	// The path is walked back twice, to count its edges and then to lay them out in order.
	hops := 0
	for v := via; s.node[v].prevEdge >= 0; hops++ {
		v = n.other(s.node[v].prevEdge, v)
	}
	res.nodes, res.edges = make([]int32, hops+1), make([]int32, hops)
	for i, v := hops, via; ; i-- {
		res.nodes[i] = v
		e := s.node[v].prevEdge
		if e < 0 {
			res.from = int(-1 - e)
			break
		}
		res.edges[i-1] = e
		v = n.other(e, v)
	}
	return res, true
}

func sub(a, b vec) vec { return vec{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
