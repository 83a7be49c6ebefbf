package searoute

import "github.com/boxwatch/boxwatch/geo"

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

// waterways are the canals and the rivers up to inland ports where Natural Earth 1:50m draws land
// over navigable water. A line with both ends in the same waterway may cross that land: network
// edges, and the leg from a port to the network. Each box holds one river or canal and the water
// at its mouths, and no other sea: a box that took in a second sea would let a line cut across
// the land between them (one box from Nanjing to 30.85° N once took in Hangzhou Bay, and paths
// from Shanghai crossed Pudong to reach it), so the Yangtze has three, the Scheldt's stops short
// of the Oosterschelde and Houston's of the Gulf beyond the Bolivar peninsula.
var waterways = []struct {
	name string
	box  box
}{
	{"Suez Canal", box{32.15, 29.85, 32.65, 31.35}},
	{"Panama Canal", box{-80.0, 8.85, -79.45, 9.45}},
	{"Kiel Canal and Kiel Fjord", box{9.1, 53.85, 10.3, 54.55}},
	{"Corinth Canal", box{22.9, 37.88, 23.05, 37.97}},
	{"Nieuwe Waterweg and Maas (Rotterdam)", box{3.95, 51.82, 4.6, 52.02}},
	{"Scheldt (Antwerp)", box{3.4, 51.2, 4.45, 51.46}},
	{"Elbe (Hamburg)", box{8.4, 53.4, 10.1, 54.0}},
	{"Weser (Bremerhaven, Bremen)", box{8.0, 53.0, 8.9, 53.9}},
	{"Houston Ship Channel", box{-95.35, 29.55, -94.85, 29.8}},
	{"Yangtze (Nanjing to Jiangyin)", box{118.6, 31.85, 120.35, 32.45}},
	{"Yangtze (Jiangyin to the estuary)", box{120.2, 31.4, 121.5, 32.05}},
	{"Huangpu (Shanghai)", box{121.35, 31.15, 121.65, 31.5}},
	{"Saigon River (Ho Chi Minh City)", box{106.6, 10.3, 107.1, 10.9}},
	{"Chao Phraya (Bangkok)", box{100.4, 13.4, 100.7, 13.75}},
	{"Karnaphuli (Chittagong)", box{91.7, 22.15, 91.9, 22.4}},
	{"Pearl River (Guangzhou)", box{113.3, 22.5, 113.7, 23.2}},
	{"Cam River (Haiphong)", box{106.6, 20.7, 106.9, 20.95}},
	{"St. Lawrence (Montreal)", box{-74.0, 45.3, -70.5, 47.2}},
	{"Savannah River", box{-81.2, 31.95, -80.8, 32.15}},
	{"Delaware River (Philadelphia)", box{-75.6, 38.8, -74.9, 40.1}},
	{"Mississippi (New Orleans)", box{-90.3, 28.9, -89.0, 30.1}},
	{"Hooghly (Kolkata)", box{87.9, 21.6, 88.4, 22.65}},
}

// Waterway returns the name of the waterway that holds both a and b, or "".
func Waterway(a, b geo.Point) string {
	for _, w := range waterways {
		if w.box.contains(a) && w.box.contains(b) {
			return w.name
		}
	}
	return ""
}
