// Package geo holds the geographic primitives every other package may use: a point on the Earth,
// the great-circle distance between two points and the initial bearing from one to the other.
//
// The Earth is a sphere here (radius EarthRadiusNM), which puts distances within about 0.5 % of
// the ellipsoid's: plenty for sea legs and estimated times, not for surveying. Angles are degrees,
// distances nautical miles or kilometres, as each name says.
//
// The package imports only the standard library and nothing of boxwatch's, so that any package,
// the domain included, can depend on it without a cycle; it does no I/O.
package geo

import "math"

// EarthRadiusKM is the mean radius of the Earth in kilometres (the IUGG's mean radius R1 of
// WGS84): the sphere distances are measured on.
const EarthRadiusKM = 6371.0088

// KilometresPerNM is the length of the international nautical mile, exactly 1,852 metres.
const KilometresPerNM = 1.852

// EarthRadiusNM is EarthRadiusKM in nautical miles (about 3,440.07 nm).
const EarthRadiusNM = EarthRadiusKM / KilometresPerNM

// Point is a position on the Earth: WGS84 latitude and longitude in degrees, north and east
// positive. Longitudes need not be normalised: 190 and -170 are the same meridian.
type Point struct {
	Lat, Lon float64
}

// DistanceNM is the great-circle distance between a and b in nautical miles: the shortest way
// over the surface, across the antimeridian or a pole when that is shorter. It is symmetric and
// never more than half the circumference (π × EarthRadiusNM).
func DistanceNM(a, b Point) float64 {
	// The haversine formula: well-conditioned for short distances, where the law of cosines is not.
	rad := math.Pi / 180
	lat1, lat2 := a.Lat*rad, b.Lat*rad
	dLat, dLon := lat2-lat1, (b.Lon-a.Lon)*rad
	h := math.Pow(math.Sin(dLat/2), 2) + math.Cos(lat1)*math.Cos(lat2)*math.Pow(math.Sin(dLon/2), 2)
	return 2 * EarthRadiusNM * math.Asin(math.Min(1, math.Sqrt(h)))
}

// DistanceKM is the great-circle distance between a and b in kilometres (see DistanceNM).
func DistanceKM(a, b Point) float64 { return DistanceNM(a, b) * KilometresPerNM }

// Bearing is the initial great-circle bearing from a to b: degrees clockwise from true north, in
// [0, 360). Along a great circle the bearing changes as one goes, so this is the course to steer
// when leaving a. It is 0 when a and b are the same point; from a pole, where every way is south
// (or north), it is measured against the meridian of a.Lon.
func Bearing(a, b Point) float64 {
	rad := math.Pi / 180
	lat1, lat2 := a.Lat*rad, b.Lat*rad
	dLon := (b.Lon - a.Lon) * rad
	y := math.Sin(dLon) * math.Cos(lat2)
	x := math.Cos(lat1)*math.Sin(lat2) - math.Sin(lat1)*math.Cos(lat2)*math.Cos(dLon)
	return math.Mod(math.Atan2(y, x)/rad+360, 360)
}

// Intermediate is the point a fraction f of the way from a to b along the great circle: a at 0,
// b at 1. Between antipodes, where no great circle is unique, it goes by the meridian of a. The
// longitude it returns is within [-180, 180].
func Intermediate(a, b Point, f float64) Point {
	rad := math.Pi / 180
	d := DistanceNM(a, b) / EarthRadiusNM // angular distance
	if d < 1e-12 {
		return Point{Lat: a.Lat, Lon: normalize(a.Lon)}
	}
	sinD := math.Sin(d)
	if sinD < 1e-12 { // antipodes
		return Point{Lat: a.Lat + f*(b.Lat-a.Lat), Lon: normalize(a.Lon)}
	}
	x1, y1, z1 := unit(a.Lat*rad, a.Lon*rad)
	x2, y2, z2 := unit(b.Lat*rad, b.Lon*rad)
	p, q := math.Sin((1-f)*d)/sinD, math.Sin(f*d)/sinD
	x, y, z := p*x1+q*x2, p*y1+q*y2, p*z1+q*z2
	return Point{Lat: math.Atan2(z, math.Hypot(x, y)) / rad, Lon: math.Atan2(y, x) / rad}
}

func unit(lat, lon float64) (x, y, z float64) {
	return math.Cos(lat) * math.Cos(lon), math.Cos(lat) * math.Sin(lon), math.Sin(lat)
}

// normalize brings a longitude within [-180, 180].
func normalize(lon float64) float64 {
	lon = math.Mod(lon+180, 360)
	if lon < 0 {
		lon += 360
	}
	return lon - 180
}
