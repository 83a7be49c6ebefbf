package main

import (
	"cmp"
	"container/heap"
	"math"
	"slices"

	"github.com/boxwatch/boxwatch/geo"
)

const (
	riverKM  = 0.4 // a cell this near a WDBII river line is in the river, whatever the shoreline says
	bankKM   = 0.3 // a cell this near a shoreline costs bankCost times its length (keeps fairways off the banks)
	bankCost = 3.0
	reachKM  = 4.0 // a fairway ends at the port from a cell at most this far from it
	// snapKM is how far that cell may lie where none lies within reachKM: the router's own bound
	// for a port's leg to the water (searoute.SnapKM).
	snapKM     = 5.0
	simplifyKM = 0.1 // fairways are simplified within this distance
	// lineMaxKM is how far a fairway may follow the lines of the smaller WDBII rivers (levels 3
	// and 4) beyond the shorelines' water, unless its river says otherwise: the last reach up to a
	// port, not a river inland to a town of the port list.
	lineMaxKM = 40.0
	kmPerDeg  = geo.EarthRadiusKM * math.Pi / 180
)

// viaLevel is the level of a digitised line (a river's via), one WDBII does not use: a river's
// course as much as a lake's shore is, not a WDBII line to a town inland.
const viaLevel = -1

// canalLevel is WDBII's level of the major canals, which only some rivers follow (see rivers'
// canals).
const canalLevel = 8

// riverLevels are the WDBII levels a fairway may follow where the shoreline has no river: the
// banks of the double-lined rivers (0), the permanent rivers (1 to 4) and the major canals; of
// them, majorLevels (the double-lined and the major permanent rivers, the major canals) as far as
// the river goes.
var (
	riverLevels = []int{0, 1, 2, 3, 4, canalLevel}
	majorLevels = []int{0, 1, 2, canalLevel}
)

// area is the search grid over one river's box, in a local plane (km east and north of its
// south-west corner).
type area struct {
	w, s, e, n float64 // degrees
	cellKM     float64 // the side of a cell
	cols, rows int
	dLon, dLat float64                // degrees per cell
	river      []bool                 // per cell: near a WDBII river line
	bank       []bool                 // per cell: near a shoreline
	lake       []bool                 // per cell: on a river's known course (a lake's shore, a major river's line, a via)
	open       []bool                 // per cell: water but for the river lines (set by search)
	shore      map[int][][2]geo.Point // shoreline segments by coarse cell
}

const coarse = 8 // grid cells per coarse cell of the shoreline index

func newArea(w, s, e, n, cellKM float64, rivers, shores []line) *area {
	a := &area{w: w, s: s, e: e, n: n, cellKM: cellKM, dLat: cellKM / kmPerDeg}
	a.dLon = a.dLat / math.Cos((s+n)/2*math.Pi/180)
	a.cols, a.rows = int((e-w)/a.dLon)+1, int((n-s)/a.dLat)+1
	a.river = make([]bool, a.cols*a.rows)
	a.bank = make([]bool, a.cols*a.rows)
	a.lake = make([]bool, a.cols*a.rows)
	a.shore = map[int][][2]geo.Point{}
	for _, ln := range rivers {
		if ln.level != viaLevel && !slices.Contains(riverLevels, ln.level) {
			continue
		}
		for i := 1; i < len(ln.points); i++ {
			a.mark(a.river, ln.points[i-1], ln.points[i], riverKM)
			if ln.level == viaLevel || slices.Contains(majorLevels, ln.level) {
				a.mark(a.lake, ln.points[i-1], ln.points[i], riverKM)
			}
		}
	}
	for _, ln := range shores {
		for i := 1; i < len(ln.points); i++ {
			p, q := ln.points[i-1], ln.points[i]
			if !a.touches(p, q) {
				continue
			}
			a.mark(a.bank, p, q, bankKM)
			if ln.level == 2 {
				// A lake's shore: the fat parts of the rivers are lakes to GSHHG (river-lakes),
				// their banks such shores; near them is river, as near a WDBII line.
				a.mark(a.river, p, q, riverKM)
				a.mark(a.lake, p, q, riverKM)
			}
			c0, r0 := a.cell(geo.Point{Lon: min(p.Lon, q.Lon), Lat: min(p.Lat, q.Lat)})
			c1, r1 := a.cell(geo.Point{Lon: max(p.Lon, q.Lon), Lat: max(p.Lat, q.Lat)})
			for r := r0 / coarse; r <= r1/coarse; r++ {
				for c := c0 / coarse; c <= c1/coarse; c++ {
					k := r*(a.cols/coarse+1) + c
					a.shore[k] = append(a.shore[k], [2]geo.Point{p, q})
				}
			}
		}
	}
	return a
}

func (a *area) touches(p, q geo.Point) bool {
	return max(p.Lon, q.Lon) >= a.w && min(p.Lon, q.Lon) <= a.e && max(p.Lat, q.Lat) >= a.s && min(p.Lat, q.Lat) <= a.n
}

// cell returns the column and row of p, clamped to the grid.
func (a *area) cell(p geo.Point) (int, int) {
	c := min(max(int((p.Lon-a.w)/a.dLon), 0), a.cols-1)
	r := min(max(int((p.Lat-a.s)/a.dLat), 0), a.rows-1)
	return c, r
}

func (a *area) centre(i int) geo.Point {
	return geo.Point{Lon: a.w + (float64(i%a.cols)+0.5)*a.dLon, Lat: a.s + (float64(i/a.cols)+0.5)*a.dLat}
}

// mark sets the cells within km of the segment from p to q.
func (a *area) mark(set []bool, p, q geo.Point, km float64) {
	if !a.touches(p, q) {
		return
	}
	steps := int(geo.DistanceKM(p, q)/(a.cellKM/2)) + 1
	reach := int(math.Ceil(km / a.cellKM))
	for s := 0; s <= steps; s++ {
		f := float64(s) / float64(steps)
		x := geo.Point{Lon: p.Lon + f*(q.Lon-p.Lon), Lat: p.Lat + f*(q.Lat-p.Lat)}
		c, r := a.cell(x)
		for dr := -reach; dr <= reach; dr++ {
			for dc := -reach; dc <= reach; dc++ {
				cc, rr := c+dc, r+dr
				if cc < 0 || rr < 0 || cc >= a.cols || rr >= a.rows {
					continue
				}
				if planeKM(x, a.centre(rr*a.cols+cc)) <= km {
					set[rr*a.cols+cc] = true
				}
			}
		}
	}
}

// crossesShore reports whether the segment between the centres of cells i and j crosses a
// shoreline.
func (a *area) crossesShore(i, j int) bool {
	p, q := a.centre(i), a.centre(j)
	c, r := i%a.cols, i/a.cols
	k := (r/coarse)*(a.cols/coarse+1) + c/coarse
	c2, r2 := j%a.cols, j/a.cols
	k2 := (r2/coarse)*(a.cols/coarse+1) + c2/coarse
	for _, key := range []int{k, k2} {
		for _, s := range a.shore[key] {
			if segmentsCross(p, q, s[0], s[1]) {
				return true
			}
		}
		if k2 == k {
			break
		}
	}
	return false
}

func segmentsCross(p1, p2, q1, q2 geo.Point) bool {
	d := func(a, b, c geo.Point) float64 { return (b.Lon-a.Lon)*(c.Lat-a.Lat) - (b.Lat-a.Lat)*(c.Lon-a.Lon) }
	d1, d2 := d(q1, q2, p1), d(q1, q2, p2)
	d3, d4 := d(p1, p2, q1), d(p1, p2, q2)
	return (d1 > 0) != (d2 > 0) && (d3 > 0) != (d4 > 0)
}

// planeKM is the distance between nearby points in a local plane.
func planeKM(p, q geo.Point) float64 {
	x := (q.Lon - p.Lon) * math.Cos((p.Lat+q.Lat)/2*math.Pi/180)
	return math.Hypot(x, q.Lat-p.Lat) * kmPerDeg
}

// search returns each cell's cost from the nearest cell whose centre sea accepts, through water,
// and the cell before each on its cheapest way. Water is what a flood from those cells reaches
// without crossing a shoreline, the cells near a WDBII river line (where the river goes on
// narrower than the shoreline draws it) and the cells whose centre wet accepts (the router's own
// water).
func (a *area) search(sea, wet func(geo.Point) bool) (dist []float64, prev []int32) {
	n := a.cols * a.rows
	var seeds []int
	for i := range n {
		if sea(a.centre(i)) {
			seeds = append(seeds, i)
		}
	}
	// The flood from the seeds that reaches the most of them is the sea: where 1:50m draws sea
	// over land that GSHHG draws (tidal flats, a coarse coast), a seed may lie on that land.
	label := make([]int32, n)
	var sizes []int
	for _, s := range seeds {
		if label[s] != 0 {
			continue
		}
		sizes = append(sizes, 0)
		id := int32(len(sizes))
		label[s] = id
		stack := []int{s}
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			a.neighbours(i, func(j int, _ float64) {
				if label[j] == 0 && !a.crossesShore(i, j) {
					label[j] = id
					stack = append(stack, j)
				}
			})
		}
	}
	for _, s := range seeds {
		sizes[label[s]-1]++
	}
	open := int32(1)
	for i, c := range sizes {
		if c > sizes[open-1] {
			open = int32(i + 1)
		}
	}
	water := make([]bool, n)
	for i, l := range label {
		water[i] = l == open
	}
	seeds = slices.DeleteFunc(seeds, func(i int) bool { return !water[i] })
	a.open = make([]bool, n)
	for i := range water {
		a.open[i] = water[i] || a.lake[i] || wet(a.centre(i))
		water[i] = a.open[i] || a.river[i]
	}
	dist = make([]float64, n)
	prev = make([]int32, n)
	for i := range dist {
		dist[i], prev[i] = math.Inf(1), -1
	}
	q := &cellQueue{}
	for _, i := range seeds {
		dist[i] = 0
		*q = append(*q, cellItem{i, 0})
	}
	for q.Len() > 0 {
		it := heap.Pop(q).(cellItem)
		if it.d > dist[it.i] {
			continue
		}
		a.neighbours(it.i, func(j int, step float64) {
			if !water[j] {
				return
			}
			if a.bank[j] && !a.river[j] {
				step *= bankCost
			}
			d := it.d + step
			if d >= dist[j] {
				return
			}
			dist[j], prev[j] = d, int32(it.i)
			heap.Push(q, cellItem{j, d})
		})
	}
	return dist, prev
}

// neighbours calls f with each of the eight cells around cell i and the distance to it.
func (a *area) neighbours(i int, f func(j int, km float64)) {
	c, r := i%a.cols, i/a.cols
	for dr := -1; dr <= 1; dr++ {
		for dc := -1; dc <= 1; dc++ {
			cc, rr := c+dc, r+dr
			if (dc == 0 && dr == 0) || cc < 0 || rr < 0 || cc >= a.cols || rr >= a.rows {
				continue
			}
			f(rr*a.cols+cc, a.cellKM*math.Hypot(float64(dc), float64(dr)))
		}
	}
}

// way returns the fairway from the search's start to port: the cheapest way to a reachable cell
// within reachKM of the port (snapKM if none is so near), weighing the straight rest to the port
// four times, then the port. Of the cells near the port it takes only those whose way follows the
// smaller rivers' lines beyond the shorelines' water for at most maxLineKM (a cell reached
// cheapest up a small river may lie beside one reached up the main one); it returns false if
// none is left.
func (a *area) way(dist []float64, prev []int32, port geo.Point, maxLineKM float64) ([]int, bool) {
	best := a.nearest(dist, prev, port, reachKM, maxLineKM)
	if best < 0 {
		best = a.nearest(dist, prev, port, snapKM, maxLineKM)
	}
	if best < 0 {
		return nil, false
	}
	var cells []int
	for i := int32(best); i >= 0; i = prev[i] {
		cells = append(cells, int(i))
	}
	slices.Reverse(cells)
	return cells, true
}

// nearest returns the reached cell within km of port whose way is cheapest, the straight rest to
// the port weighed four times, of those whose way follows river lines outside the open water for
// at most maxLineKM; or -1.
func (a *area) nearest(dist []float64, prev []int32, port geo.Point, km, maxLineKM float64) int {
	best, bestCost := -1, math.Inf(1)
	c, r := a.cell(port)
	reach := int(math.Ceil(km / a.cellKM))
	for rr := max(r-reach, 0); rr <= min(r+reach, a.rows-1); rr++ {
		for cc := max(c-reach, 0); cc <= min(c+reach, a.cols-1); cc++ {
			i := rr*a.cols + cc
			if math.IsInf(dist[i], 1) {
				continue
			}
			d := planeKM(a.centre(i), port)
			if d > km {
				continue
			}
			if cost := dist[i] + 4*d; cost < bestCost && a.lineKM(prev, i) <= maxLineKM {
				best, bestCost = i, cost
			}
		}
	}
	return best
}

// nearestKM returns the distance from p to the nearest cell the search reached, and how far the
// way to that cell follows river lines outside the open water: what a port without a way lacks.
func (a *area) nearestKM(dist []float64, prev []int32, p geo.Point) (km, lineKM float64) {
	km, best := math.Inf(1), -1
	for i, d := range dist {
		if !math.IsInf(d, 1) {
			if k := planeKM(a.centre(i), p); k < km {
				km, best = k, i
			}
		}
	}
	if best >= 0 {
		lineKM = a.lineKM(prev, best)
	}
	return km, lineKM
}

// lineKM returns how far the cheapest way to cell i follows river lines outside the open water.
func (a *area) lineKM(prev []int32, i int) float64 {
	km := 0.0
	for j := prev[i]; j >= 0; i, j = int(j), prev[j] {
		if !a.open[i] {
			km += planeKM(a.centre(int(j)), a.centre(i))
		}
	}
	return km
}

// simplify keeps the points of pts (Douglas–Peucker within simplifyKM) and every point keep
// reports, so that ways that share cells share points.
func simplify(pts []geo.Point, keep func(int) bool) []geo.Point {
	marks := make([]bool, len(pts))
	marks[0], marks[len(pts)-1] = true, true
	var rec func(i, j int)
	rec = func(i, j int) {
		far, farD := -1, simplifyKM
		for k := i + 1; k < j; k++ {
			if keep(k) {
				far = k
				break
			}
			if d := offsetKM(pts[k], pts[i], pts[j]); d > farD {
				far, farD = k, d
			}
		}
		if far < 0 {
			return
		}
		marks[far] = true
		rec(i, far)
		rec(far, j)
	}
	rec(0, len(pts)-1)
	var out []geo.Point
	for i, m := range marks {
		if m {
			out = append(out, pts[i])
		}
	}
	return out
}

// offsetKM is the distance from p to the segment from a to b, in a local plane.
func offsetKM(p, a, b geo.Point) float64 {
	k := math.Cos(a.Lat * math.Pi / 180)
	bx, by := (b.Lon-a.Lon)*k, b.Lat-a.Lat
	px, py := (p.Lon-a.Lon)*k, p.Lat-a.Lat
	t := 0.0
	if l := bx*bx + by*by; l > 0 {
		t = min(max((px*bx+py*by)/l, 0), 1)
	}
	return math.Hypot(px-t*bx, py-t*by) * kmPerDeg
}

type cellItem struct {
	i int
	d float64
}

type cellQueue []cellItem

func (q cellQueue) Len() int           { return len(q) }
func (q cellQueue) Less(i, j int) bool { return cmp.Less(q[i].d, q[j].d) }
func (q cellQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *cellQueue) Push(x any)        { *q = append(*q, x.(cellItem)) }
func (q *cellQueue) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}
