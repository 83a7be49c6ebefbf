package main

import (
	"fmt"
	"math"
	"slices"

	"github.com/boxwatch/boxwatch/geo"
)

// A patch replaces a stretch of one 1:50m ring, where Natural Earth draws water over land that
// ships sail round: the ring's vertices strictly between from and to, in the ring's order, give
// way to points, also in the ring's order.
type patch struct {
	name     string
	from, to geo.Point
	points   [][2]float64 // [longitude, latitude]
}

// patches are the stretches of coast taken from GSHHG 2.3.7's high-resolution shorelines
// (binned_GSHHS_h.nc of Debian's gmt-gshhg-high, LGPL-3.0-or-later; see data/land/README.md),
// point for point, where 1:50m's coast lets a route cut across land.
var patches = []patch{
	{
		// 1:50m draws Bayonne and Jersey City as water, so that a route to Newark Bay crossed them
		// instead of taking the Kill van Kull: the New Jersey shore from Hoboken down the Hudson,
		// round Jersey City, Bayonne and Bergen Point, and up and down Newark Bay's shores to
		// Elizabeth.
		name: "New Jersey shore, Hoboken to Elizabeth",
		from: geo.Point{Lon: -74.02574, Lat: 40.75678},
		to:   geo.Point{Lon: -74.18774, Lat: 40.64741},
		points: [][2]float64{
			{-74.0215, 40.7510}, {-74.0258, 40.7348}, {-74.0309, 40.7305}, {-74.0273, 40.7258}, {-74.0300, 40.7143},
			{-74.0364, 40.7102}, {-74.0323, 40.7067}, {-74.0348, 40.7043}, {-74.0433, 40.7047}, {-74.0409, 40.7022},
			{-74.0491, 40.6999}, {-74.0479, 40.6962}, {-74.0576, 40.6954}, {-74.0547, 40.6899}, {-74.0664, 40.6966},
			{-74.0704, 40.6844}, {-74.0783, 40.6869}, {-74.0709, 40.6818}, {-74.0745, 40.6765}, {-74.0992, 40.6755},
			{-74.0772, 40.6691}, {-74.0681, 40.6623}, {-74.0732, 40.6607}, {-74.0885, 40.6667}, {-74.1044, 40.6683},
			{-74.1065, 40.6657}, {-74.0883, 40.6634}, {-74.0887, 40.6569}, {-74.0848, 40.6550}, {-74.0871, 40.6526},
			{-74.0948, 40.6482}, {-74.1121, 40.6491}, {-74.1155, 40.6516}, {-74.1199, 40.6449}, {-74.1436, 40.6441},
			{-74.1476, 40.6463}, {-74.1459, 40.6522}, {-74.1190, 40.6773}, {-74.1151, 40.6873}, {-74.1093, 40.6896},
			{-74.1115, 40.6949}, {-74.1041, 40.7032}, {-74.1084, 40.7045}, {-74.1072, 40.7142}, {-74.0971, 40.7185},
			{-74.0980, 40.7258}, {-74.1148, 40.7158}, {-74.1197, 40.7200}, {-74.1230, 40.7192}, {-74.1207, 40.7031},
			{-74.1233, 40.6979}, {-74.1302, 40.6958}, {-74.1343, 40.6891}, {-74.1418, 40.6959}, {-74.1377, 40.6866},
			{-74.1448, 40.6809}, {-74.1524, 40.6831}, {-74.1397, 40.6766}, {-74.1408, 40.6705}, {-74.1507, 40.6616},
			{-74.1661, 40.6583}, {-74.1699, 40.6525}, {-74.1894, 40.6453},
		},
	},
	{
		// Staten Island's north shore, which 1:50m draws across the Kill van Kull.
		name: "Staten Island's north shore",
		from: geo.Point{Lon: -74.18774, Lat: 40.61443},
		to:   geo.Point{Lon: -74.06894, Lat: 40.61616},
		points: [][2]float64{
			{-74.1569, 40.6391}, {-74.1332, 40.6442}, {-74.1209, 40.6425}, {-74.0721, 40.6436}, {-74.0734, 40.6293},
		},
	},
	{
		// Staten Island's east shore at the Narrows (Fort Wadsworth), which 1:50m draws 1.4 km
		// inland; it follows the north shore's patch, whose last point is its start.
		name: "Staten Island at the Narrows",
		from: geo.Point{Lon: -74.0734, Lat: 40.6293},
		to:   geo.Point{Lon: -74.07974, Lat: 40.58665},
		points: [][2]float64{
			{-74.0703, 40.6225}, {-74.0531, 40.6029}, {-74.0661, 40.5870},
		},
	},
	{
		// 1:50m ends Manhattan at Midtown and draws the rest of it as water, so that routes down
		// the East River ran straight over lower Manhattan: the shore from the Bronx round
		// Randall's and Wards Islands at Hell Gate, down the East River to the Battery, and up
		// the Hudson. GSHHG closes the Hudson above Midtown as a lake; there the shore runs
		// straight to 1:50m's, within 0.5 km of the bank.
		name: "Manhattan",
		from: geo.Point{Lon: -73.91054, Lat: 40.81580},
		to:   geo.Point{Lon: -73.95014, Lat: 40.83837},
		points: [][2]float64{
			{-73.9001, 40.8071}, {-73.9138, 40.7966}, {-73.9250, 40.7820}, {-73.9354, 40.7850}, {-73.9334, 40.7904},
			{-73.9213, 40.7925}, {-73.9284, 40.7979}, {-73.9413, 40.7842}, {-73.9429, 40.7750}, {-73.9713, 40.7450},
			{-73.9738, 40.7358}, {-73.9713, 40.7241}, {-73.9754, 40.7116}, {-73.9941, 40.7093}, {-74.0000, 40.7066},
			{-74.0147, 40.6999}, {-74.0186, 40.7008}, {-74.0189, 40.7059}, {-74.0083, 40.7615},
		},
	},
	{
		// Brooklyn and Queens, which 1:50m draws as a straight shore from Coney Island to
		// LaGuardia, west of Bay Ridge, Red Hook and Brooklyn Heights and east of Astoria: from
		// Fort Hamilton at the Narrows up the Upper Bay and the East River to Hell Gate and
		// Bowery Bay. Gravesend Bay stays land, as 1:50m has it.
		name: "Brooklyn and Queens",
		from: geo.Point{Lon: -74.01494, Lat: 40.58144},
		to:   geo.Point{Lon: -73.87814, Lat: 40.79150},
		points: [][2]float64{
			{-74.0368, 40.6066}, {-74.0449, 40.6245}, {-74.0392, 40.6398}, {-74.0335, 40.6456}, {-74.0285, 40.6459},
			{-74.0262, 40.6514}, {-74.0218, 40.6520}, {-74.0194, 40.6599}, {-74.0110, 40.6600}, {-74.0035, 40.6649},
			{-74.0071, 40.6689}, {-74.0184, 40.6642}, {-74.0197, 40.6709}, {-74.0156, 40.6665}, {-74.0132, 40.6691},
			{-74.0218, 40.6777}, {-74.0182, 40.6817}, {-74.0109, 40.6829}, {-74.0007, 40.6974}, {-74.0000, 40.6981},
			{-73.9934, 40.7062}, {-73.9817, 40.7079}, {-73.9729, 40.7050}, {-73.9763, 40.7083}, {-73.9704, 40.7117},
			{-73.9629, 40.7241}, {-73.9588, 40.7483}, {-73.9442, 40.7663}, {-73.9354, 40.7708}, {-73.9367, 40.7779},
			{-73.9267, 40.7787}, {-73.9083, 40.7929},
		},
	},
}

// islands are whole rings that 1:50m lacks, from the same GSHHG shorelines.
var islands = []struct {
	name   string
	points [][2]float64 // [longitude, latitude], the first point repeated last
}{
	// Governors Island's south point is the island's southern tip on public maps (40.6840° N),
	// 120 m south of GSHHG's: package land ignores a ring spanning less than 0.01° of latitude,
	// and GSHHG's spans 0.0092°.
	{"Governors Island", [][2]float64{{-74.0158, 40.6943}, {-74.0197, 40.6943}, {-74.0271, 40.6852}, {-74.0200, 40.6840}, {-74.0123, 40.6910}, {-74.0158, 40.6943}}},
	{"Roosevelt Island", [][2]float64{{-73.9605, 40.7533}, {-73.9463, 40.7641}, {-73.9417, 40.7729}, {-73.9596, 40.7541}, {-73.9605, 40.7533}}},
}

// applyPatches applies every patch, in order, to the ring that holds both its ends, and fails if no ring does.
func applyPatches(rings [][]geo.Point) error {
	at := func(r []geo.Point, p geo.Point) int {
		return slices.IndexFunc(r, func(q geo.Point) bool { return math.Abs(q.Lon-p.Lon) < 1e-5 && math.Abs(q.Lat-p.Lat) < 1e-5 })
	}
	for _, p := range patches {
		done := false
		for k, r := range rings {
			i, j := at(r, p.from), at(r, p.to)
			if i < 0 || j <= i {
				continue
			}
			out := slices.Clone(r[:i+1])
			for _, q := range p.points {
				out = append(out, geo.Point{Lon: q[0], Lat: q[1]})
			}
			rings[k] = append(out, r[j:]...)
			done = true
			break
		}
		if !done {
			return fmt.Errorf("patch %q: no ring holds %v and then %v", p.name, p.from, p.to)
		}
	}
	return nil
}

// addIslands returns rings with the islands' rings after them.
func addIslands(rings [][]geo.Point) [][]geo.Point {
	for _, is := range islands {
		r := make([]geo.Point, len(is.points))
		for i, q := range is.points {
			r[i] = geo.Point{Lon: q[0], Lat: q[1]}
		}
		rings = append(rings, r)
	}
	return rings
}
