// Package land answers whether a point lies on land and whether a straight line between two
// points touches land, over a set of land polygons (boxwatch ships Natural Earth 1:50m, see
// data.Land). The sea router uses it to keep paths off land, its generator to repair the
// network, and the map to check what it draws.
//
// Lines are straight in longitude and latitude (what a map in plate carrée or Web Mercator draws
// for short segments), taking the short way round: a segment from 179° to -179° crosses the
// antimeridian, not the whole globe. Polygon rings may cross the antimeridian or run round a
// pole (Fiji, Chukotka, Antarctica); New unwraps them so that neither becomes a wall around the
// globe.
//
// The package does no I/O; a Land is read-only after New and safe for concurrent use.
package land

import (
	"errors"
	"math"
	"slices"

	"github.com/boxwatch/boxwatch/geo"
)

// cellDeg is the side of the index cells in degrees: small enough that few coastline edges share
// a cell, large enough that the index stays small (720 × 360 cells).
const cellDeg = 0.5

const (
	cols = int(360 / cellDeg)
	rows = int(180 / cellDeg)
)

// Land is an indexed set of land polygons.
type Land struct {
	// edges holds the coastline segments as x1, y1, x2, y2 (longitude, latitude), including
	// copies shifted by ±360° of those that leave the range -180…180 once a ring is unwrapped.
	edges []float64
	// cellStart and cellEdges list the edges that touch each cell (CSR layout): cell c holds
	// cellEdges[cellStart[c]:cellStart[c+1]].
	cellStart []int32
	cellEdges []int32
	// centreLand tells whether the centre of each cell is on land; a point's answer is its cell
	// centre's, flipped once for each edge between the two.
	centreLand []bool
}

// New indexes the polygons whose rings are given, each ring a closed or open sequence of points
// (the last point joining the first). Holes are rings too: a point is on land when it lies inside
// an odd number of rings. A ring whose longitudes run once round the globe encloses the pole on
// its side (the south pole if its mean latitude is south of the equator). Rings with fewer than
// three points, or spanning less than 0.01° of latitude, are ignored. It returns an error only if no ring is usable.
func New(rings [][]geo.Point) (*Land, error) {
	l := &Land{}
	for _, r := range rings {
		l.addRing(r)
	}
	if len(l.edges) == 0 {
		return nil, errors.New("land: no usable ring")
	}
	l.index()
	return l, nil
}

// addRing unwraps a ring's longitudes so that consecutive points are less than 180° apart, closes
// a ring that circles a pole through that pole, and adds its edges with their shifted copies.
func (l *Land) addRing(r []geo.Point) {
	if len(r) > 1 && r[0] == r[len(r)-1] {
		r = r[:len(r)-1]
	}
	if len(r) < 3 {
		return
	}
	lo, hi := r[0].Lat, r[0].Lat
	for _, p := range r {
		lo, hi = min(lo, p.Lat), max(hi, p.Lat)
	}
	if hi-lo < 0.01 {
		// A sliver along one parallel (world-atlas has one at 89.999° S, a by-product of cutting
		// Antarctica at the antimeridian): it encloses nothing but could flip the pole.
		return
	}
	pts := make([][2]float64, 0, len(r)+3)
	x, meanLat := r[0].Lon, 0.0
	for i, p := range r {
		if i > 0 {
			x += wrap(p.Lon - r[i-1].Lon)
		}
		pts = append(pts, [2]float64{x, p.Lat})
		meanLat += p.Lat
	}
	meanLat /= float64(len(r))
	if turn := x + wrap(r[0].Lon-r[len(r)-1].Lon) - r[0].Lon; math.Abs(turn) > 180 {
		// The ring runs round the globe: close it along the meridians and the pole.
		// The closing edge runs a degree beyond the pole, where no point of the globe lies on it.
		pole := 91.0
		if meanLat < 0 {
			pole = -91
		}
		endX := r[0].Lon + turn
		pts = append(pts, [2]float64{endX, r[0].Lat}, [2]float64{endX, pole}, [2]float64{r[0].Lon, pole})
	}
	for i := range pts {
		a, b := pts[i], pts[(i+1)%len(pts)]
		for _, shift := range []float64{-360, 0, 360} {
			lo, hi := math.Min(a[0], b[0])+shift, math.Max(a[0], b[0])+shift
			if hi < -180 || lo > 180 {
				continue
			}
			l.edges = append(l.edges, a[0]+shift, a[1], b[0]+shift, b[1])
		}
	}
}

// wrap brings a longitude difference into [-180, 180).
func wrap(d float64) float64 {
	return math.Mod(math.Mod(d+180, 360)+360, 360) - 180
}

func cellOf(x, y float64) (col, row int) {
	col = int(math.Floor((x + 180) / cellDeg))
	row = int(math.Floor((y + 90) / cellDeg))
	return min(max(col, 0), cols-1), min(max(row, 0), rows-1)
}

// index fills the cell lists and the land state of every cell centre.
func (l *Land) index() {
	n := len(l.edges) / 4
	counts := make([]int32, cols*rows+1)
	visit := func(e int, f func(c int)) {
		x1, y1, x2, y2 := l.edges[4*e], l.edges[4*e+1], l.edges[4*e+2], l.edges[4*e+3]
		c1, r1 := cellOf(math.Min(x1, x2), math.Min(y1, y2))
		c2, r2 := cellOf(math.Max(x1, x2), math.Max(y1, y2))
		for c := c1; c <= c2; c++ {
			for r := r1; r <= r2; r++ {
				x0, y0 := float64(c)*cellDeg-180, float64(r)*cellDeg-90
				if segmentTouchesBox(x1, y1, x2, y2, x0, y0, x0+cellDeg, y0+cellDeg) {
					f(r*cols + c)
				}
			}
		}
	}
	for e := range n {
		visit(e, func(c int) { counts[c+1]++ })
	}
	l.cellStart = make([]int32, cols*rows+1)
	for c := 1; c <= cols*rows; c++ {
		l.cellStart[c] = l.cellStart[c-1] + counts[c]
	}
	l.cellEdges = make([]int32, l.cellStart[cols*rows])
	fill := make([]int32, cols*rows)
	for e := range n {
		visit(e, func(c int) {
			l.cellEdges[l.cellStart[c]+fill[c]] = int32(e)
			fill[c]++
		})
	}
	// Cell centres: each column's centre line, walked from the north pole (water: land reaches
	// 83.6° N) southwards, changes between water and land at every edge it crosses.
	l.centreLand = make([]bool, cols*rows)
	crossings := make([][]float64, cols)
	for e := range n {
		x1, y1, x2, y2 := l.edges[4*e], l.edges[4*e+1], l.edges[4*e+2], l.edges[4*e+3]
		c1, _ := cellOf(math.Min(x1, x2), 0)
		c2, _ := cellOf(math.Max(x1, x2), 0)
		for c := c1; c <= c2; c++ {
			x := float64(c)*cellDeg - 180 + cellDeg/2
			if (x1 > x) != (x2 > x) {
				crossings[c] = append(crossings[c], y1+(x-x1)*(y2-y1)/(x2-x1))
			}
		}
	}
	for c, ys := range crossings {
		slices.Sort(ys)
		inside, k := false, len(ys)
		for r := rows - 1; r >= 0; r-- {
			yc := float64(r)*cellDeg - 90 + cellDeg/2
			for k > 0 && ys[k-1] > yc {
				k--
				inside = !inside
			}
			l.centreLand[r*cols+c] = inside
		}
	}
}

// Contains reports whether p lies on land. Longitudes outside -180…180 are brought into range.
func (l *Land) Contains(p geo.Point) bool {
	x := normLon(p.Lon)
	if math.IsNaN(x) || math.IsNaN(p.Lat) {
		return false
	}
	y := min(max(p.Lat, -90), 90)
	c, r := cellOf(x, y)
	cell := r*cols + c
	cx, cy := float64(c)*cellDeg-180+cellDeg/2, float64(r)*cellDeg-90+cellDeg/2
	inside := l.centreLand[cell]
	for _, e := range l.cellEdges[l.cellStart[cell]:l.cellStart[cell+1]] {
		if segmentsCross(x, y, cx, cy, l.edges[4*e], l.edges[4*e+1], l.edges[4*e+2], l.edges[4*e+3]) {
			inside = !inside
		}
	}
	return inside
}

// Crosses reports whether the straight line from a to b touches land: an end on land, or a
// coastline edge crossed. The line takes the short way round in longitude.
func (l *Land) Crosses(a, b geo.Point) bool {
	if l.Contains(a) || l.Contains(b) {
		return true
	}
	x1, x2 := normLon(a.Lon), normLon(b.Lon)
	y1, y2 := a.Lat, b.Lat
	if math.Abs(x2-x1) > 180 {
		// Split at the antimeridian.
		if x1 > x2 {
			x2 += 360
		} else {
			x2 -= 360
		}
		edge := 180.0
		if x2 < x1 {
			edge = -180
		}
		ym := y1 + (edge-x1)*(y2-y1)/(x2-x1)
		return l.segmentCrosses(x1, y1, edge, ym) || l.segmentCrosses(-edge, ym, x2-2*edge, y2)
	}
	return l.segmentCrosses(x1, y1, x2, y2)
}

// segmentCrosses reports whether a segment within -180…180 crosses a coastline edge. It visits
// only the cells the segment passes through, column by column.
func (l *Land) segmentCrosses(x1, y1, x2, y2 float64) bool {
	if x2 < x1 {
		x1, y1, x2, y2 = x2, y2, x1, y1
	}
	c1, _ := cellOf(x1, y1)
	c2, _ := cellOf(x2, y2)
	for c := c1; c <= c2; c++ {
		// The part of the segment within this column, and the rows it spans.
		xa, xb := math.Max(x1, float64(c)*cellDeg-180), math.Min(x2, float64(c+1)*cellDeg-180)
		ya, yb := y1, y2
		if x2 > x1 {
			ya, yb = y1+(xa-x1)*(y2-y1)/(x2-x1), y1+(xb-x1)*(y2-y1)/(x2-x1)
		}
		_, r1 := cellOf(xa, math.Min(ya, yb))
		_, r2 := cellOf(xa, math.Max(ya, yb))
		for r := max(r1-1, 0); r <= min(r2+1, rows-1); r++ {
			cell := r*cols + c
			for _, e := range l.cellEdges[l.cellStart[cell]:l.cellStart[cell+1]] {
				if segmentsCross(x1, y1, x2, y2, l.edges[4*e], l.edges[4*e+1], l.edges[4*e+2], l.edges[4*e+3]) {
					return true
				}
			}
		}
	}
	return false
}

func normLon(x float64) float64 {
	if x >= -180 && x <= 180 {
		return x
	}
	return wrap(x)
}

// segmentsCross reports whether segments p1p2 and q1q2 intersect (touching counts).
func segmentsCross(px1, py1, px2, py2, qx1, qy1, qx2, qy2 float64) bool {
	d1 := orient(qx1, qy1, qx2, qy2, px1, py1)
	d2 := orient(qx1, qy1, qx2, qy2, px2, py2)
	d3 := orient(px1, py1, px2, py2, qx1, qy1)
	d4 := orient(px1, py1, px2, py2, qx2, qy2)
	if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) {
		return true
	}
	return (d1 == 0 && onSegment(qx1, qy1, qx2, qy2, px1, py1)) ||
		(d2 == 0 && onSegment(qx1, qy1, qx2, qy2, px2, py2)) ||
		(d3 == 0 && onSegment(px1, py1, px2, py2, qx1, qy1)) ||
		(d4 == 0 && onSegment(px1, py1, px2, py2, qx2, qy2))
}

func orient(ax, ay, bx, by, cx, cy float64) float64 {
	return (bx-ax)*(cy-ay) - (by-ay)*(cx-ax)
}

func onSegment(ax, ay, bx, by, px, py float64) bool {
	return px >= math.Min(ax, bx) && px <= math.Max(ax, bx) && py >= math.Min(ay, by) && py <= math.Max(ay, by)
}

// segmentTouchesBox reports whether a segment meets an axis-aligned box.
func segmentTouchesBox(x1, y1, x2, y2, bx0, by0, bx1, by1 float64) bool {
	if math.Max(x1, x2) < bx0 || math.Min(x1, x2) > bx1 || math.Max(y1, y2) < by0 || math.Min(y1, y2) > by1 {
		return false
	}
	inBox := func(x, y float64) bool { return x >= bx0 && x <= bx1 && y >= by0 && y <= by1 }
	if inBox(x1, y1) || inBox(x2, y2) {
		return true
	}
	return segmentsCross(x1, y1, x2, y2, bx0, by0, bx1, by0) || segmentsCross(x1, y1, x2, y2, bx1, by0, bx1, by1) ||
		segmentsCross(x1, y1, x2, y2, bx1, by1, bx0, by1) || segmentsCross(x1, y1, x2, y2, bx0, by1, bx0, by0)
}
