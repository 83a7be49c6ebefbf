package searoute

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/geo/land"
)

// FairwayKM is how far from a river's fairway a line may pass where Natural Earth 1:50m draws
// land over the river: the fairways are the river's course as GSHHG's high-resolution shorelines
// draw it (data/rivers), so a line within this distance of one follows the river, and half a
// kilometre keeps it on the water of any river a container ship sails.
const FairwayKM = 0.5

// A Fairway is the way up a river or an estuary from open sea to a port: the river's name, the
// port's UN/LOCODE and its points from the sea to the port.
type Fairway struct {
	River, Port string
	Points      []geo.Point
}

// Water is where a path may go: off land, inside a canal (see Waterway) or along a river's
// fairway (within FairwayKM of it). Fairways may be nil: no river then.
type Water struct {
	Land     *land.Land
	Fairways *Fairways
}

// Fairways are the fairways indexed for nearness. Read-only after NewFairways and safe for
// concurrent use.
type Fairways struct {
	list []Fairway
	segs []fairwaySeg
	box  box // round every segment, FairwayKM wider
	// A segment is near a point's fairwayCell when its cells (see fairwaySeg) reach that cell or
	// one of the eight round it. Each block of blockCells × blockCells cells lists the segments
	// near any of its cells (CSR, block by block over the box: origin, cols and rows in blocks),
	// so that a query reads one short list from an array, never a map.
	blockStart []int32
	blockSegs  []int32
	// blockReach holds, beside each entry of blockSegs, the fairwayCells its segment counts as
	// near (its cells and one more all round), so that a block is scanned over 16 bytes an
	// entry and only the segments whose cells reach a point's are read.
	blockReach           []cellRange
	origin               [2]int32
	blockCols, blockRows int32
}

// fairwaySeg is a segment of a fairway, from a to b, with what offsetKM computes of it alone,
// the fairwayCells its box spans, from lo to hi, and that box widened by a little more than
// FairwayKM: a point outside it is farther from the segment.
type fairwaySeg struct {
	a, b                     geo.Point
	k                        float64 // the cosine of a's latitude
	bx, by                   float64 // b from a, longitude scaled by k, in degrees
	lo, hi                   [2]int32
	west, south, east, north float64
}

// cellRange is a rectangle of fairwayCells, both corners included.
type cellRange struct{ x0, x1, y0, y1 int32 }

// blockCells is the side of an index block, in fairwayCells (half a degree).
const blockCells = 10

// DecodeFairways reads fairways as data/rivers/fairways.json holds them: a JSON array of
// {"river", "port", "points"}, the points [longitude, latitude] from the sea to the port, and
// indexes them (see NewFairways). It returns an error naming what is wrong.
func DecodeFairways(b []byte) (*Fairways, error) {
	var doc []struct {
		River  string       `json:"river"`
		Port   string       `json:"port"`
		Points [][2]float64 `json:"points"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("searoute: fairways: %w", err)
	}
	fs := make([]Fairway, len(doc))
	for i, d := range doc {
		fs[i] = Fairway{River: d.River, Port: d.Port, Points: make([]geo.Point, len(d.Points))}
		for k, p := range d.Points {
			fs[i].Points[k] = geo.Point{Lon: p[0], Lat: p[1]}
		}
	}
	return NewFairways(fs)
}

// fairwayCellDeg is the side of the fairways' index cells, in degrees: far more than FairwayKM, so
// that a point's cell and the eight round it hold every segment near it.
const fairwayCellDeg = 0.05

// NewFairways indexes fs. It returns an error if a fairway has fewer than two points or a point is
// not a valid position.
func NewFairways(fs []Fairway) (*Fairways, error) {
	f := &Fairways{list: fs, box: box{180, 90, -180, -90}}
	const kmPerDeg = geo.EarthRadiusKM * rad
	for i, fw := range fs {
		if len(fw.Points) < 2 {
			return nil, fmt.Errorf("searoute: fairway %d (%s) has %d points", i, fw.Port, len(fw.Points))
		}
		for k, p := range fw.Points {
			if !(p.Lat >= -90 && p.Lat <= 90 && p.Lon >= -180 && p.Lon <= 180) {
				return nil, fmt.Errorf("searoute: fairway %d (%s) point %d: %w", i, fw.Port, k, ErrBadPoint)
			}
			if k == 0 {
				continue
			}
			a, b := fw.Points[k-1], p
			if math.Abs(a.Lon-b.Lon) > 180 {
				return nil, fmt.Errorf("searoute: fairway %d (%s) crosses the antimeridian", i, fw.Port)
			}
			// The widened box's margin is a millionth more than FairwayKM, far more than
			// offsetKM's rounding: a point it leaves out is one offsetKM puts beyond FairwayKM.
			k := math.Cos(a.Lat * rad)
			padLat := FairwayKM / kmPerDeg * (1 + 1e-6)
			f.segs = append(f.segs, fairwaySeg{
				a: a, b: b, k: k, bx: (b.Lon - a.Lon) * k, by: b.Lat - a.Lat,
				lo:   fairwayCell(geo.Point{Lat: min(a.Lat, b.Lat), Lon: min(a.Lon, b.Lon)}),
				hi:   fairwayCell(geo.Point{Lat: max(a.Lat, b.Lat), Lon: max(a.Lon, b.Lon)}),
				west: min(a.Lon, b.Lon) - padLat/k, east: max(a.Lon, b.Lon) + padLat/k,
				south: min(a.Lat, b.Lat) - padLat, north: max(a.Lat, b.Lat) + padLat,
			})
			pad := FairwayKM / kmPerDeg
			f.box.west = min(f.box.west, a.Lon-pad/math.Cos(a.Lat*rad), b.Lon-pad/math.Cos(b.Lat*rad))
			f.box.east = max(f.box.east, a.Lon+pad/math.Cos(a.Lat*rad), b.Lon+pad/math.Cos(b.Lat*rad))
			f.box.south = min(f.box.south, a.Lat-pad, b.Lat-pad)
			f.box.north = max(f.box.north, a.Lat+pad, b.Lat+pad)
		}
	}
	if len(f.segs) == 0 {
		return nil, errors.New("searoute: no fairways")
	}
	f.index()
	return f, nil
}

// index lists each segment in the blocks of every cell it is near.
func (f *Fairways) index() {
	lo, hi := fairwayCell(geo.Point{Lat: f.box.south, Lon: f.box.west}), fairwayCell(geo.Point{Lat: f.box.north, Lon: f.box.east})
	f.origin = [2]int32{floorDiv(lo[0]-1, blockCells), floorDiv(lo[1]-1, blockCells)}
	f.blockCols = floorDiv(hi[0]+1, blockCells) - f.origin[0] + 1
	f.blockRows = floorDiv(hi[1]+1, blockCells) - f.origin[1] + 1
	f.blockStart = make([]int32, f.blockCols*f.blockRows+1)
	blocks := func(s fairwaySeg, visit func(b int32)) {
		x0, y0 := floorDiv(s.lo[0]-1, blockCells)-f.origin[0], floorDiv(s.lo[1]-1, blockCells)-f.origin[1]
		x1, y1 := floorDiv(s.hi[0]+1, blockCells)-f.origin[0], floorDiv(s.hi[1]+1, blockCells)-f.origin[1]
		for y := y0; y <= y1; y++ {
			for x := x0; x <= x1; x++ {
				visit(y*f.blockCols + x)
			}
		}
	}
	for _, s := range f.segs {
		blocks(s, func(b int32) { f.blockStart[b+1]++ })
	}
	for b := range f.blockCols * f.blockRows {
		f.blockStart[b+1] += f.blockStart[b]
	}
	f.blockSegs = make([]int32, f.blockStart[len(f.blockStart)-1])
	f.blockReach = make([]cellRange, len(f.blockSegs))
	fill := slices.Clone(f.blockStart)
	for i, s := range f.segs {
		blocks(s, func(b int32) {
			f.blockSegs[fill[b]] = int32(i)
			f.blockReach[fill[b]] = cellRange{s.lo[0] - 1, s.hi[0] + 1, s.lo[1] - 1, s.hi[1] + 1}
			fill[b]++
		})
	}
}

// floorDiv is a / b rounded down.
func floorDiv(a, b int32) int32 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

func fairwayCell(p geo.Point) [2]int32 {
	return [2]int32{int32(math.Floor(p.Lon / fairwayCellDeg)), int32(math.Floor(p.Lat / fairwayCellDeg))}
}

// All returns the fairways as given to NewFairways. The caller must not change them.
func (f *Fairways) All() []Fairway {
	if f == nil {
		return nil
	}
	return f.list
}

// Near reports whether p lies within FairwayKM of a fairway.
func (f *Fairways) Near(p geo.Point) bool { return f.near(p, nil) }

// near is Near. When last is not nil it tries first the segment *last names (a segment found
// near an earlier point, or -1), and records the segment it finds: the points a line is
// sampled at, and the rings round a point on land, mostly lie near the segment the point
// before did. A segment counts when its cells reach p's fairwayCell or one of the eight round
// it, and p lies within FairwayKM of it.
func (f *Fairways) near(p geo.Point, last *int32) bool {
	if f == nil || !f.box.contains(p) {
		return false
	}
	if last != nil && f.nearLast(p, *last) {
		return true
	}
	return f.scan(p, last)
}

// scan is near without its first question: every segment of p's block, in order.
func (f *Fairways) scan(p geo.Point, last *int32) bool {
	c := fairwayCell(p)
	b := (floorDiv(c[1], blockCells)-f.origin[1])*f.blockCols + floorDiv(c[0], blockCells) - f.origin[0]
	lo, hi := f.blockStart[b], f.blockStart[b+1]
	for k, r := range f.blockReach[lo:hi] {
		// As the first test of fairwaySeg.near.
		if c[0] < r.x0 || c[0] > r.x1 || c[1] < r.y0 || c[1] > r.y1 {
			continue
		}
		if i := f.blockSegs[lo+int32(k)]; f.segs[i].nearPoint(p) {
			if last != nil {
				*last = i
			}
			return true
		}
	}
	return false
}

// around holds the segments of the fairways that may lie near some point of a window in longitude
// and latitude (see Fairways.around), few enough to be asked about each point in it in turn.
type around struct {
	f    *Fairways
	segs [16]int32
	n    int
	ok   bool // false: too many, or a window the blocks do not simply cover; near asks f
}

// around gathers the segments listed in the blocks of the window's cells (and of the cells next
// to them) whose widened boxes reach the window: every segment near a point of the window (see
// near) is one of them, since it lies in that point's block and its box holds the point.
func (f *Fairways) around(west, south, east, north float64) around {
	a := around{f: f}
	if f == nil || west < -180 || east > 180 || south < -90 || north > 90 {
		return a
	}
	lo, hi := fairwayCell(geo.Point{Lat: south, Lon: west}), fairwayCell(geo.Point{Lat: north, Lon: east})
	x0, y0 := max(floorDiv(lo[0]-1, blockCells)-f.origin[0], 0), max(floorDiv(lo[1]-1, blockCells)-f.origin[1], 0)
	x1, y1 := min(floorDiv(hi[0]+1, blockCells)-f.origin[0], f.blockCols-1), min(floorDiv(hi[1]+1, blockCells)-f.origin[1], f.blockRows-1)
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			b := y*f.blockCols + x
			for _, i := range f.blockSegs[f.blockStart[b]:f.blockStart[b+1]] {
				sg := &f.segs[i]
				if sg.east < west || sg.west > east || sg.north < south || sg.south > north || slices.Contains(a.segs[:a.n], i) {
					continue
				}
				if a.n == len(a.segs) {
					return around{f: f}
				}
				a.segs[a.n] = i
				a.n++
			}
		}
	}
	a.ok = true
	return a
}

// near is f.near(p, last) for a point p of the window.
func (a *around) near(p geo.Point, last *int32) bool {
	if !a.ok {
		return a.f.near(p, last)
	}
	if !a.f.box.contains(p) {
		return false
	}
	if *last >= 0 && a.f.segs[*last].near(fairwayCell(p), p) {
		return true
	}
	c := fairwayCell(p)
	for _, i := range a.segs[:a.n] {
		if a.f.segs[i].near(c, p) {
			*last = i
			return true
		}
	}
	return false
}

// nearLast reports whether segment last (none when negative) counts as near p, as Near would
// find: a cheap first question where the answer is mostly yes.
func (f *Fairways) nearLast(p geo.Point, last int32) bool {
	return f != nil && last >= 0 && f.box.contains(p) && f.segs[last].near(fairwayCell(p), p)
}

// near reports whether the segment counts as near p, whose fairwayCell is c (see Fairways.near).
func (s *fairwaySeg) near(c [2]int32, p geo.Point) bool {
	if s.lo[0] > c[0]+1 || s.hi[0] < c[0]-1 || s.lo[1] > c[1]+1 || s.hi[1] < c[1]-1 {
		return false
	}
	return s.nearPoint(p)
}

// nearPoint is near past its test of cells: p within the segment's widened box, and within
// FairwayKM of it.
func (s *fairwaySeg) nearPoint(p geo.Point) bool {
	if p.Lon < s.west || p.Lon > s.east || p.Lat < s.south || p.Lat > s.north {
		return false
	}
	return s.within(p)
}

// nearDeg2 bounds the square of FairwayKM in degrees a billionth below and above: far more than
// the rounding of a square sum or of math.Hypot, so that within settles by the square alone all
// but the points within a billionth of the limit.
var nearDeg2Lo, nearDeg2Hi = nearDeg2(1 - 1e-9), nearDeg2(1 + 1e-9)

func nearDeg2(f float64) float64 {
	d := FairwayKM * f / (geo.EarthRadiusKM * rad)
	return d * d
}

// within reports whether offsetKM(p) <= FairwayKM, as that comparison says: by the square of
// the offset in degrees, and by offsetKM itself only near the limit.
func (s *fairwaySeg) within(p geo.Point) bool {
	px, py := (p.Lon-s.a.Lon)*s.k, p.Lat-s.a.Lat
	t := 0.0
	if l := s.bx*s.bx + s.by*s.by; l > 0 {
		t = min(max((px*s.bx+py*s.by)/l, 0), 1)
	}
	dx, dy := px-t*s.bx, py-t*s.by
	switch d2 := dx*dx + dy*dy; {
	case d2 < nearDeg2Lo:
		return true
	case d2 > nearDeg2Hi:
		return false
	}
	return s.offsetKM(p) <= FairwayKM
}

// offsetKM is the distance from p to the segment, in the plane tangent at its start (the
// segments are short).
func (s *fairwaySeg) offsetKM(p geo.Point) float64 {
	const kmPerDeg = geo.EarthRadiusKM * rad
	px, py := (p.Lon-s.a.Lon)*s.k, p.Lat-s.a.Lat
	t := 0.0
	if l := s.bx*s.bx + s.by*s.by; l > 0 {
		t = min(max((px*s.bx+py*s.by)/l, 0), 1)
	}
	return math.Hypot(px-t*s.bx, py-t*s.by) * kmPerDeg
}

// fairwayStepKM is how finely a line is sampled against the land and the fairways.
const fairwayStepKM = 0.1

// along reports whether every point of the straight line from a to b (in longitude and latitude,
// as package land draws it), taken every fairwayStepKM, lies off land or near a fairway.
func (f *Fairways) along(l *land.Land, a, b geo.Point) bool {
	return f.alongFrom(l, a, b, f.firstOf(l, a))
}

// firstSample is what along finds of a line's first point, the line's start: whether it is off
// land or near a fairway, and the segment it is found near (-1 if none is asked).
type firstSample struct {
	wet  bool
	last int32
}

// firstOf is along's question about its first point, a (with no segment found yet).
func (f *Fairways) firstOf(l *land.Land, a geo.Point) firstSample {
	first := firstSample{last: -1}
	if f == nil {
		return first
	}
	first.wet = !l.Contains(a) || f.box.contains(a) && f.scan(a, &first.last)
	return first
}

// alongFrom is along, told what it would find of its first point (see firstOf): the snapping
// checks many legs from one point.
func (f *Fairways) alongFrom(l *land.Land, a, b geo.Point, first firstSample) bool {
	if f == nil {
		return false
	}
	if math.Abs(b.Lon-a.Lon) > 180 {
		return false
	}
	lo, hi := geo.Point{Lat: min(a.Lat, b.Lat), Lon: min(a.Lon, b.Lon)}, geo.Point{Lat: max(a.Lat, b.Lat), Lon: max(a.Lon, b.Lon)}
	if hi.Lon < f.box.west || lo.Lon > f.box.east || hi.Lat < f.box.south || lo.Lat > f.box.north {
		return false
	}
	steps := int(distanceKM(a, b)/fairwayStepKM) + 1
	// The first point is the line's start (a fraction 0 of the way from a to b is a).
	if !first.wet {
		return false
	}
	last := first.last
	wet := func(s int) bool {
		if s == 0 {
			return true
		}
		t := float64(s) / float64(steps)
		p := geo.Point{Lat: a.Lat + t*(b.Lat-a.Lat), Lon: a.Lon + t*(b.Lon-a.Lon)}
		// Along a river, on the land 1:50m draws over it, the segment found last mostly
		// answers alone.
		// (near would ask the segment found last again: scan is the rest of it.)
		return f.nearLast(p, last) || !l.Contains(p) || f.box.contains(p) && f.scan(p, &last)
	}
	// The points are taken coarse to fine (every 2^k-th first, then those halfway between, and
	// so on), each once: a line that crosses land away from a fairway mostly does so for many
	// points in a row, which the first rounds meet.
	stride := 1
	for stride*2 <= steps {
		stride *= 2
	}
	for s := 0; s <= steps; s += stride {
		if !wet(s) {
			return false
		}
	}
	for ; stride > 1; stride /= 2 {
		for s := stride / 2; s <= steps; s += stride {
			if !wet(s) {
				return false
			}
		}
	}
	return true
}

// Clear reports whether the straight line from a to b lies in water: off land; or in one canal
// (both ends inside it, see Waterway), where the land that Natural Earth 1:50m draws over the
// water does not count; or, where it crosses land, within FairwayKM of a fairway at every point
// on land (taken every 100 m). Lines are straight in longitude and latitude, the short way round,
// as in package land.
func Clear(w Water, a, b geo.Point) bool {
	if !w.Land.Crosses(a, b) {
		return true
	}
	a, b = normalise(a), normalise(b)
	return Waterway(a, b) != "" || w.Fairways.along(w.Land, a, b)
}

// legs checks straight lines from one point, as Clear does, asking about the point only once:
// whether it lies on land, and what along finds of it.
type legs struct {
	w      Water
	from   geo.Point // as given
	onLand bool
	first  firstSample // of from normalised, once asked (asked tells)
	asked  bool
}

func newLegs(w Water, from geo.Point) *legs {
	return &legs{w: w, from: from, onLand: w.Land.Contains(from)}
}

// clear is Clear(w, from, b). Land.Crosses(from, b) is true when from lies on land, and
// otherwise asks again whether it does.
func (g *legs) clear(b geo.Point) bool {
	if !g.onLand && !g.w.Land.Crosses(g.from, b) {
		return true
	}
	a, b := normalise(g.from), normalise(b)
	if Waterway(a, b) != "" {
		return true
	}
	if !g.asked {
		g.first, g.asked = g.w.Fairways.firstOf(g.w.Land, a), true
	}
	return g.w.Fairways.alongFrom(g.w.Land, a, b, g.first)
}

// Wet reports whether p is in navigable water: off land, in a canal, or near a fairway.
func Wet(w Water, p geo.Point) bool { return wet(w, p, nil) }

// wet is Wet, with the segment of a fairway found last (see Fairways.near).
func wet(w Water, p geo.Point, last *int32) bool {
	if last != nil && w.Fairways.nearLast(p, *last) {
		return true
	}
	return !w.Land.Contains(p) || Waterway(p, p) != "" || w.Fairways.near(p, last)
}
