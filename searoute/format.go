package searoute

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/boxwatch/boxwatch/geo"
)

// Graph is a maritime network as stored: nodes, and undirected edges between them that follow
// the great circle. It is what the generator writes and Load reads.
type Graph struct {
	Nodes []geo.Point
	Edges []Edge
	// Shapes, if not nil, hold each edge's shape as New would draw it over the same land (see
	// DrawShapes): the generator stores them so that start-up need not draw them. They are
	// trusted as given.
	Shapes [][]geo.Point

	// cells are the fine snapping grid's cells each edge passes through, as Decode read them;
	// nil in a graph built otherwise, whose cells New finds itself.
	cells *edgeCells
}

// Edge joins two nodes (indexes into Graph.Nodes); Passage is "" outside passages.
type Edge struct {
	U, V    int32
	Passage Passage
}

// magic starts an encoded network. After it: the passage names, the nodes as zigzag varint deltas
// of longitude and latitude in micro-degrees, the edges as varint node indexes with a passage
// number (0 for none, else 1 + its index in the names), and the number of shapes (0 or the number
// of edges) followed by each shape's number of points and its points, as deltas from the edge's
// first node and then from the point before; then each edge's cells of the fine snapping grid, as
// runs of consecutive cells: the number of runs, and for each its first cell as a zigzag delta
// (the first run's from the cell of the edge's first node, each other's from the cell a row
// above the start of the run before: an arc's runs are mostly one a row) and its length less one.
const magic = "BWSEA3\n"

// maxCells bounds the cells a network file may list (the shipped network lists about 330,000), so
// that a corrupt file cannot make Decode allocate without
// bound.
const maxCells = 1 << 24

// Encode writes g in the compact form Decode reads; coordinates are rounded to a micro-degree.
// It also finds and writes the cells of the fine snapping grid each edge passes through, from the
// rounded nodes, so that New need not find them at start-up. It panics if g has shapes but not
// one per edge.
func Encode(g Graph) []byte {
	if g.Shapes != nil && len(g.Shapes) != len(g.Edges) {
		panic(fmt.Sprintf("searoute: %d shapes for %d edges", len(g.Shapes), len(g.Edges)))
	}
	names := Passages()
	b := []byte(magic)
	b = binary.AppendUvarint(b, uint64(len(names)))
	for _, n := range names {
		b = binary.AppendUvarint(b, uint64(len(n)))
		b = append(b, n...)
	}
	b = binary.AppendUvarint(b, uint64(len(g.Nodes)))
	var px, py int64
	for _, p := range g.Nodes {
		x, y := micro(p)
		b = binary.AppendVarint(b, x-px)
		b = binary.AppendVarint(b, y-py)
		px, py = x, y
	}
	b = binary.AppendUvarint(b, uint64(len(g.Edges)))
	for _, e := range g.Edges {
		b = binary.AppendUvarint(b, uint64(e.U))
		b = binary.AppendUvarint(b, uint64(e.V))
		b = binary.AppendUvarint(b, uint64(slices.Index(names, e.Passage)+1))
	}
	b = binary.AppendUvarint(b, uint64(len(g.Shapes)))
	for i, shape := range g.Shapes {
		b = binary.AppendUvarint(b, uint64(len(shape)))
		px, py := micro(g.Nodes[g.Edges[i].U])
		for _, p := range shape {
			x, y := micro(p)
			b = binary.AppendVarint(b, x-px)
			b = binary.AppendVarint(b, y-py)
			px, py = x, y
		}
	}
	rounded := make([]geo.Point, len(g.Nodes))
	for i, p := range g.Nodes {
		x, y := micro(p)
		rounded[i] = geo.Point{Lat: float64(y) / 1e6, Lon: float64(x) / 1e6}
	}
	gr, ec := grid{perDeg: fineDeg}, fineCells(rounded, g.Edges)
	for e, edge := range g.Edges {
		cs := ec.cells[ec.start[e]:ec.start[e+1]]
		var runs []int
		for k := range cs {
			if k == 0 || cs[k] != cs[k-1]+1 {
				runs = append(runs, k)
			}
		}
		b = binary.AppendUvarint(b, uint64(len(runs)))
		want, _ := gr.index(gr.key(rounded[edge.U]), 0, 0)
		for r, k := range runs {
			end := len(cs)
			if r+1 < len(runs) {
				end = runs[r+1]
			}
			b = binary.AppendVarint(b, int64(cs[k])-int64(want))
			b = binary.AppendUvarint(b, uint64(end-1-k))
			want = int(cs[k]) + 360*fineDeg
		}
	}
	return b
}

func micro(p geo.Point) (x, y int64) {
	return int64(math.Round(p.Lon * 1e6)), int64(math.Round(p.Lat * 1e6))
}

// Decode reads a network written by Encode. It returns an error if b is not one, or if an edge
// names a node or a passage that does not exist.
func Decode(b []byte) (Graph, error) {
	var g Graph
	if len(b) < len(magic) || string(b[:len(magic)]) != magic {
		return g, errors.New("searoute: not a network file")
	}
	b = b[len(magic):]
	var bad error
	uvarint := func() uint64 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			bad = errors.New("searoute: truncated network file")
			b = nil
			return 0
		}
		b = b[n:]
		return v
	}
	varint := func() int64 {
		v, n := binary.Varint(b)
		if n <= 0 {
			bad = errors.New("searoute: truncated network file")
			b = nil
			return 0
		}
		b = b[n:]
		return v
	}
	count := func() int {
		n := uvarint()
		if n > uint64(len(b)) {
			bad = errors.New("searoute: count beyond the end of the network file")
			return 0
		}
		return int(n)
	}
	names := make([]Passage, count())
	for i := range names {
		n := count()
		if bad != nil {
			return g, bad
		}
		names[i] = Passage(b[:n])
		b = b[n:]
	}
	g.Nodes = make([]geo.Point, count())
	var x, y int64
	for i := range g.Nodes {
		x, y = x+varint(), y+varint()
		g.Nodes[i] = geo.Point{Lat: float64(y) / 1e6, Lon: float64(x) / 1e6}
		if math.Abs(g.Nodes[i].Lat) > 90 || math.Abs(g.Nodes[i].Lon) > 180 {
			return g, fmt.Errorf("searoute: node %d at %v is out of range", i, g.Nodes[i])
		}
	}
	g.Edges = make([]Edge, count())
	for i := range g.Edges {
		u, v, p := uvarint(), uvarint(), uvarint()
		if bad != nil {
			return g, bad
		}
		if u >= uint64(len(g.Nodes)) || v >= uint64(len(g.Nodes)) || p > uint64(len(names)) {
			return g, fmt.Errorf("searoute: edge %d (%d, %d, passage %d) is out of range", i, u, v, p)
		}
		g.Edges[i] = Edge{U: int32(u), V: int32(v)}
		if p > 0 {
			g.Edges[i].Passage = names[p-1]
		}
	}
	if n := count(); n > 0 {
		if n != len(g.Edges) {
			return g, fmt.Errorf("searoute: %d shapes for %d edges", n, len(g.Edges))
		}
		g.Shapes = make([][]geo.Point, n)
		for i := range g.Shapes {
			x, y := micro(g.Nodes[g.Edges[i].U])
			g.Shapes[i] = make([]geo.Point, count())
			for k := range g.Shapes[i] {
				x, y = x+varint(), y+varint()
				p := geo.Point{Lat: float64(y) / 1e6, Lon: float64(x) / 1e6}
				if math.Abs(p.Lat) > 90 || math.Abs(p.Lon) > 540 {
					return g, fmt.Errorf("searoute: shape of edge %d at %v is out of range", i, p)
				}
				g.Shapes[i][k] = p
			}
		}
	}
	total := int64(360 * 180 * fineDeg * fineDeg)
	gr := grid{perDeg: fineDeg}
	cells := edgeCells{start: make([]int32, 1, len(g.Edges)+1)}
	for _, e := range g.Edges {
		runs := count()
		want, _ := gr.index(gr.key(g.Nodes[e.U]), 0, 0)
		last := int64(-1)
		for range runs {
			first := int64(want) + varint()
			n := uvarint()
			if bad != nil {
				return g, bad
			}
			if first <= last || first >= total || n >= uint64(total-first) || len(cells.cells)+int(n) >= maxCells {
				return g, fmt.Errorf("searoute: a cell of edge %d is out of range", len(cells.start)-1)
			}
			last = first + int64(n)
			for c := first; c <= last; c++ {
				cells.cells = append(cells.cells, int32(c))
			}
			want = int(first) + 360*fineDeg
		}
		cells.start = append(cells.start, int32(len(cells.cells)))
	}
	g.cells = &cells
	if bad != nil {
		return g, bad
	}
	if len(b) != 0 {
		return g, errors.New("searoute: trailing bytes in network file")
	}
	return g, nil
}
