package searoute

import (
	"math"

	"github.com/boxwatch/boxwatch/geo"
)

// vec is a point on the unit sphere.
type vec [3]float64

const rad = math.Pi / 180

func toVec(p geo.Point) vec {
	lat, lon := p.Lat*rad, p.Lon*rad
	return vec{math.Cos(lat) * math.Cos(lon), math.Cos(lat) * math.Sin(lon), math.Sin(lat)}
}

func (v vec) point() geo.Point {
	return geo.Point{Lat: math.Atan2(v[2], math.Hypot(v[0], v[1])) / rad, Lon: math.Atan2(v[1], v[0]) / rad}
}

func dot(a, b vec) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func cross(a, b vec) vec {
	return vec{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func norm(a vec) float64         { return math.Sqrt(dot(a, a)) }
func scale(a vec, k float64) vec { return vec{a[0] * k, a[1] * k, a[2] * k} }
func add(a, b vec) vec           { return vec{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }

// angle is the angle between unit vectors a and b in radians, accurate for small angles.
func angle(a, b vec) float64 { return math.Atan2(norm(cross(a, b)), dot(a, b)) }

// Arc returns points along the great circle from a to b, a and b included, no two consecutive
// ones more than stepNM apart. Longitudes follow on from a's without jumping at the antimeridian
// (they may leave -180…180), so that straight lines between them are short.
func Arc(a, b geo.Point, stepNM float64) []geo.Point {
	va, vb := toVec(a), toVec(b)
	w, n := chords(va, vb, stepNM)
	if n == 0 {
		return []geo.Point{a, unwrapTo(a.Lon, b)}
	}
	pts := make([]geo.Point, 0, n+1)
	pts = append(pts, a)
	for i := 1; i < n; i++ {
		pts = append(pts, unwrapTo(pts[len(pts)-1].Lon, slerp(va, vb, w, float64(i)/float64(n)).point()))
	}
	return append(pts, unwrapTo(pts[len(pts)-1].Lon, b))
}

// chords returns the angle between va and vb and the number of chords Arc draws between them
// with stepNM, 0 when it draws a single straight line.
func chords(va, vb vec, stepNM float64) (w float64, n int) {
	w = angle(va, vb)
	return w, chordCount(w, stepNM)
}

// chordCount is the number of chords of chords for ends w apart.
func chordCount(w, stepNM float64) int {
	n := int(math.Ceil(w * geo.EarthRadiusNM / stepNM))
	if n < 1 || math.Sin(w) < 1e-12 {
		return 0
	}
	return n
}

// slerp is the point a fraction t of the way along the great circle from va to vb, w apart.
func slerp(va, vb vec, w, t float64) vec {
	return add(scale(va, math.Sin((1-t)*w)/math.Sin(w)), scale(vb, math.Sin(t*w)/math.Sin(w)))
}

// unwrapTo shifts p's longitude by a multiple of 360° to lie within 180° of lon.
func unwrapTo(lon float64, p geo.Point) geo.Point {
	for p.Lon-lon > 180 {
		p.Lon -= 360
	}
	for p.Lon-lon < -180 {
		p.Lon += 360
	}
	return p
}

// normal is the unit normal of the great circle through va and vb, or the zero vector when they
// are too close to each other or to antipodes to define one.
func normal(va, vb vec) vec {
	n := cross(va, vb)
	if nn := norm(n); nn > 1e-15 {
		return scale(n, 1/nn)
	}
	return vec{}
}

// along is how far q, a point of the arc from a to b, lies along it: 0 at a, 1 at b. w is the
// angle between a and b as angle(va, vb) gives it.
func along(va, vb, q vec, w float64) float64 {
	// As below, without the arctangents: the nearest point is often an end. At b, angle(va, q)
	// is w itself, and w/w is 1.
	if q == va {
		return 0
	}
	if q == vb && w > 0 {
		return 1
	}
	if w > 0 {
		return min(1, angle(va, q)/w)
	}
	return 0
}

// distanceKM is geo.DistanceKM by the same operations, save that it squares by multiplying where
// geo.DistanceNM calls math.Pow(x, 2): the two agree to the bit but where the square is
// subnormal, for points within 10⁻¹⁵⁰ of a degree, whose distance both round to nothing.
func distanceKM(a, b geo.Point) float64 {
	rad := math.Pi / 180
	lat1, lat2 := a.Lat*rad, b.Lat*rad
	dLat, dLon := lat2-lat1, (b.Lon-a.Lon)*rad
	sLat, sLon := math.Sin(dLat/2), math.Sin(dLon/2)
	h := sLat*sLat + math.Cos(lat1)*math.Cos(lat2)*(sLon*sLon)
	return 2 * geo.EarthRadiusNM * math.Asin(math.Min(1, math.Sqrt(h))) * geo.KilometresPerNM
}
