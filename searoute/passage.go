package searoute

import (
	"github.com/boxwatch/boxwatch/geo"
)

// Passage names a strait or canal that a path can be told to avoid.
type Passage string

// The passages the network tags. Ocean-going container ships do not use the Arctic passages, the
// Kiel Canal or the Corinth Canal, so those are closed unless a query opens them (DefaultClosed).
const (
	Suez        Passage = "suez"
	Panama      Passage = "panama"
	BabElMandeb Passage = "babelmandeb"
	Malacca     Passage = "malacca"
	Gibraltar   Passage = "gibraltar"
	Dover       Passage = "dover"
	Bosporus    Passage = "bosporus"
	Kiel        Passage = "kiel"
	Corinth     Passage = "corinth"
	Magellan    Passage = "magellan"
	Northwest   Passage = "northwest"
	Northeast   Passage = "northeast"
)

// box is a rectangle in longitude and latitude (degrees, west to east and south to north).
type box struct{ west, south, east, north float64 }

func (b box) contains(p geo.Point) bool {
	return p.Lon >= b.west && p.Lon <= b.east && p.Lat >= b.south && p.Lat <= b.north
}

// passageBoxes place each passage: a network edge with an end inside a box belongs to its
// passage (the first box that matches, see PassageAt). The Kiel box starts north of the Elbe, whose fairway to
// Hamburg passes the canal's mouth at Brunsbüttel, and stops west of Kiel Fjord (10.1° E), so that
// the port of Kiel is reached from the Baltic without opening the canal. The Malacca box stops west of Singapore so that a voyage
// from Singapore eastwards does not count as passing Malacca; the Bosporus box covers the
// Dardanelles too (the Turkish Straits are one passage for this purpose). The Arctic boxes leave
// the Norwegian coast, the Kola peninsula and the White Sea open.
var passageBoxes = []struct {
	passage Passage
	box     box
}{
	{Suez, box{32.0, 29.8, 32.8, 31.5}},
	{Panama, box{-80.2, 8.7, -79.3, 9.5}},
	{BabElMandeb, box{43.0, 12.3, 43.7, 12.9}},
	{Malacca, box{95.5, 1.3, 103.4, 6.5}},
	{Gibraltar, box{-6.0, 35.7, -5.2, 36.2}},
	{Dover, box{1.0, 50.8, 2.0, 51.2}},
	{Bosporus, box{28.8, 40.9, 29.3, 41.3}},
	{Bosporus, box{26.1, 39.9, 26.9, 40.5}},
	{Kiel, box{9.2, 53.95, 10.1, 54.42}},
	{Corinth, box{22.85, 37.85, 23.1, 38.0}},
	{Magellan, box{-75, -54.5, -68, -52}},
	{Northwest, box{-165, 66.5, -75, 90}},
	{Northeast, box{45, 66.5, 180, 90}},
	{Northeast, box{-180, 66.5, -165, 90}},
}

// PassageAt returns the passage a network edge from a to b belongs to, or "": the first whose box
// a point of the edge's great-circle arc (taken every nautical mile) falls in.
func PassageAt(a, b geo.Point) Passage {
	pts := Arc(a, b, 1)
	for _, pb := range passageBoxes {
		for _, p := range pts {
			if pb.box.contains(normalise(p)) {
				return pb.passage
			}
		}
	}
	return ""
}

// Passages lists every passage the network knows, in a fixed order.
func Passages() []Passage {
	return []Passage{Suez, Panama, BabElMandeb, Malacca, Gibraltar, Dover, Bosporus, Kiel, Corinth, Magellan, Northwest, Northeast}
}

// DefaultClosed lists the passages a query avoids unless it opens them.
func DefaultClosed() []Passage { return []Passage{Kiel, Corinth, Northwest, Northeast} }

// waterways are the canals where Natural Earth 1:50m draws land over navigable water. A line with
// both ends in the same canal may cross that land: network edges, and the leg from a port to the
// network. Rivers have no box: a line over the land of a river keeps to its fairway (see Water).
var waterways = []struct {
	name string
	box  box
}{
	{"Suez Canal", box{32.15, 29.85, 32.65, 31.35}},
	{"Panama Canal", box{-80.0, 8.85, -79.45, 9.45}},
	{"Kiel Canal and Kiel Fjord", box{9.1, 53.85, 10.3, 54.55}},
	{"Corinth Canal", box{22.9, 37.88, 23.05, 37.97}},
}

// Waterway returns the name of the canal that holds both a and b, or "".
func Waterway(a, b geo.Point) string {
	for _, w := range waterways {
		if w.box.contains(a) && w.box.contains(b) {
			return w.name
		}
	}
	return ""
}
