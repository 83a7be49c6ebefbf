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
}

// applyPatches applies every patch to the ring that holds both its ends, and fails if no ring does.
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
