package searoute

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

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
	list  []Fairway
	segs  [][2]geo.Point
	cells map[[2]int32][]int32 // segments by fairwayCell
	box   box                  // round every segment, FairwayKM wider
}

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
	f := &Fairways{list: fs, cells: map[[2]int32][]int32{}, box: box{180, 90, -180, -90}}
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
			s := int32(len(f.segs))
			f.segs = append(f.segs, [2]geo.Point{a, b})
			c0, c1 := fairwayCell(geo.Point{Lat: min(a.Lat, b.Lat), Lon: min(a.Lon, b.Lon)}), fairwayCell(geo.Point{Lat: max(a.Lat, b.Lat), Lon: max(a.Lon, b.Lon)})
			for x := c0[0]; x <= c1[0]; x++ {
				for y := c0[1]; y <= c1[1]; y++ {
					f.cells[[2]int32{x, y}] = append(f.cells[[2]int32{x, y}], s)
				}
			}
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
	return f, nil
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
func (f *Fairways) Near(p geo.Point) bool {
	if f == nil || !f.box.contains(p) {
		return false
	}
	c := fairwayCell(p)
	for dx := int32(-1); dx <= 1; dx++ {
		for dy := int32(-1); dy <= 1; dy++ {
			for _, s := range f.cells[[2]int32{c[0] + dx, c[1] + dy}] {
				if offsetKM(p, f.segs[s][0], f.segs[s][1]) <= FairwayKM {
					return true
				}
			}
		}
	}
	return false
}

// offsetKM is the distance from p to the segment from a to b, in the plane tangent at a (the
// segments are short).
func offsetKM(p, a, b geo.Point) float64 {
	const kmPerDeg = geo.EarthRadiusKM * rad
	k := math.Cos(a.Lat * rad)
	bx, by := (b.Lon-a.Lon)*k, b.Lat-a.Lat
	px, py := (p.Lon-a.Lon)*k, p.Lat-a.Lat
	t := 0.0
	if l := bx*bx + by*by; l > 0 {
		t = min(max((px*bx+py*by)/l, 0), 1)
	}
	return math.Hypot(px-t*bx, py-t*by) * kmPerDeg
}

// fairwayStepKM is how finely a line is sampled against the land and the fairways.
const fairwayStepKM = 0.1

// along reports whether every point of the straight line from a to b (in longitude and latitude,
// as package land draws it), taken every fairwayStepKM, lies off land or near a fairway.
func (f *Fairways) along(l *land.Land, a, b geo.Point) bool {
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
	steps := int(geo.DistanceKM(a, b)/fairwayStepKM) + 1
	for s := 0; s <= steps; s++ {
		t := float64(s) / float64(steps)
		p := geo.Point{Lat: a.Lat + t*(b.Lat-a.Lat), Lon: a.Lon + t*(b.Lon-a.Lon)}
		if !f.Near(p) && l.Contains(p) {
			return false
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

// Wet reports whether p is in navigable water: off land, in a canal, or near a fairway.
func Wet(w Water, p geo.Point) bool {
	return !w.Land.Contains(p) || Waterway(p, p) != "" || w.Fairways.Near(p)
}
