package searoute

import (
	"container/heap"
	"math"
	"slices"

	"github.com/boxwatch/boxwatch/geo"
)

// Detour finds a way from p to q, both in water, that stays off land: A* over a grid of the given
// step (degrees) over the box round p and q padded by pad degrees, moving by straight lines that
// Clear accepts; then it drops every waypoint it can while clear still accepts the line that skips
// it. It returns the waypoints between p and q (longitudes continuing from p's), or false if the
// grid has no way or would exceed 400,000 points.
func Detour(w Water, p, q geo.Point, step, pad float64, clear func(a, b geo.Point) bool) ([]geo.Point, bool) {
	q = unwrapTo(p.Lon, q)
	way, ok := gridPath(w, p, q, step, pad)
	if !ok {
		return nil, false
	}
	pts := append(append([]geo.Point{p}, way...), q)
	var out []geo.Point
	for i := 0; i < len(pts)-1; {
		j := len(pts) - 1
		for j > i+1 && !clear(pts[i], pts[j]) {
			j--
		}
		if j < len(pts)-1 {
			out = append(out, pts[j])
		}
		i = j
	}
	return out, true
}

// gridPath runs A* over an 8-connected grid of the given step (degrees) over the box round p and
// q padded by pad degrees; moves are straight lines that must stay off land.
func gridPath(w Water, p, q geo.Point, step, pad float64) ([]geo.Point, bool) {
	x0, y0 := math.Min(p.Lon, q.Lon)-pad, math.Max(math.Min(p.Lat, q.Lat)-pad, -85)
	x1, y1 := math.Max(p.Lon, q.Lon)+pad, math.Min(math.Max(p.Lat, q.Lat)+pad, 85)
	nx, ny := int((x1-x0)/step)+1, int((y1-y0)/step)+1
	if nx*ny > 400_000 {
		return nil, false
	}
	at := func(i int) geo.Point { return geo.Point{Lon: x0 + float64(i%nx)*step, Lat: y0 + float64(i/nx)*step} }
	// Nodes: grid points 0…nx*ny-1, then p and q.
	start, goal := nx*ny, nx*ny+1
	pos := func(i int) geo.Point {
		switch i {
		case start:
			return p
		case goal:
			return q
		}
		return at(i)
	}
	near := func(pt geo.Point) []int {
		cx, cy := int(math.Round((pt.Lon-x0)/step)), int(math.Round((pt.Lat-y0)/step))
		var out []int
		for dx := -2; dx <= 2; dx++ {
			for dy := -2; dy <= 2; dy++ {
				x, y := cx+dx, cy+dy
				if x >= 0 && x < nx && y >= 0 && y < ny {
					out = append(out, y*nx+x)
				}
			}
		}
		return out
	}
	goalNear := map[int]bool{}
	for _, i := range near(q) {
		goalNear[i] = true
	}
	dist := map[int]float64{start: 0}
	from := map[int]int{}
	h := func(i int) float64 { return geo.DistanceNM(pos(i), q) }
	pq := &gridQueue{{start, h(start)}}
	done := map[int]bool{}
	for pq.Len() > 0 {
		it := heap.Pop(pq).(gridItem)
		u := it.node
		if done[u] {
			continue
		}
		done[u] = true
		if u == goal {
			var way []geo.Point
			for v := from[goal]; v != start; v = from[v] {
				way = append(way, at(v))
			}
			slices.Reverse(way)
			return way, true
		}
		var next []int
		switch {
		case u == start:
			next = near(p)
		default:
			ux, uy := u%nx, u/nx
			for dx := -1; dx <= 1; dx++ {
				for dy := -1; dy <= 1; dy++ {
					x, y := ux+dx, uy+dy
					if (dx != 0 || dy != 0) && x >= 0 && x < nx && y >= 0 && y < ny {
						next = append(next, y*nx+x)
					}
				}
			}
			if goalNear[u] {
				next = append(next, goal)
			}
		}
		for _, v := range next {
			if done[v] {
				continue
			}
			a, c := pos(u), pos(v)
			d := dist[u] + geo.DistanceNM(a, c)
			if old, ok := dist[v]; ok && old <= d {
				continue
			}
			if !Clear(w, a, c) {
				continue
			}
			dist[v], from[v] = d, u
			heap.Push(pq, gridItem{v, d + h(v)})
		}
	}
	return nil, false
}

type gridItem struct {
	node int
	prio float64
}

type gridQueue []gridItem

func (q gridQueue) Len() int           { return len(q) }
func (q gridQueue) Less(i, j int) bool { return q[i].prio < q[j].prio }
func (q gridQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *gridQueue) Push(x any)        { *q = append(*q, x.(gridItem)) }
func (q *gridQueue) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}
