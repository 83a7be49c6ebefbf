package main

import (
	"fmt"
	"math"

	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/searoute"
)

// moveKM is how far a port's coordinates may move to reach water when they fall on land: the
// source gives many city centres a few kilometres inland of their harbours.
const moveKM = 10.0

// waterSide is the table of reviewed port positions: the container terminals of the ports the
// simulator's lanes use, of the 100 busiest container ports, and of river and estuary ports (issue
// 23: Cai Mep on the Thi Vai, the Yangtze's Taicang, Changshu, Zhangjiagang, Yangzhou and Taizhou, Newark
// on Newark Bay, Zhongshan on the Pearl River delta's Hengmen waterway), whose source coordinates are a city centre or district far from the harbour, or
// on the wrong coast (PAMIT). Each was placed by hand at the named terminal from its published
// location and is checked by the generator to lie within searoute.CoastKM of water on Natural
// Earth 1:50m (with the land's patches and the last build's fairways).
var waterSide = map[string]struct {
	lat, lon float64
	terminal string
}{
	"ARBUE": {-34.58, -58.37, "Puerto Nuevo"},
	"CNCGU": {31.77, 120.90, "Changshu port (Xinggang), on the Yangtze; approximate, within a few km"},
	"CNTAG": {31.63, 121.23, "Taicang port (Fuqiao), on the Yangtze's south bank; approximate, within a few km"},
	"CNYZH": {32.224, 119.473, "on the Yangtze south of Yangzhou, whose port lines this reach; approximate, within a few km"},
	"CNZJG": {31.98, 120.40, "Zhangjiagang port (Jingang), on the Yangtze; approximate, within a few km"},
	"CNTZO": {32.287, 119.852, "Taizhou's port at Gaogang, on the Yangtze's north channel above the Taizhou Yangtze River Bridge (the source gives the city, 23 km inland); approximate, within a few km"},
	"CNZSN": {22.574, 113.52, "Zhongshan Port, in the Torch Development Zone on the Hengmen waterway, up which the fairways to Shunde and Jiangmen run (the source gives the city, 10.7 km from the delta's water); approximate, within a few km"},
	"CNQZJ": {24.83, 118.72, "Quanzhou Bay"},
	"CNSHA": {31.36, 121.62, "Waigaoqiao, on the Yangtze"},
	"NLRTM": {51.955, 4.05, "Maasvlakte"},
	"JPNGO": {35.03, 136.84, "Tobishima"},
	"SAJED": {21.47, 39.15, "Jeddah Islamic Port"},
	"TWTXG": {24.28, 120.50, "Port of Taichung"},
	"AUBNE": {-27.38, 153.17, "Fisherman Islands"},
	"AUMEL": {-37.885, 144.9, "Hobsons Bay, off Williamstown (Swanson Dock, up the Yarra, is land at 1:50m)"},
	"AUSYD": {-33.97, 151.21, "Port Botany"},
	"CIABJ": {5.25, -4.01, "Vridi"},
	"CNDLC": {38.94, 121.68, "Dalian port"},
	"CNNGB": {29.93, 121.86, "Beilun"},
	"COCTG": {10.39, -75.53, "Manga and Contecar"},
	"ESVLC": {39.44, -0.32, "Valencia port"},
	"GHTEM": {5.63, 0.01, "Tema port"},
	"GTSTC": {15.74, -88.61, "Santo Tomás de Castilla, in Amatique Bay"},
	"HKHKG": {22.33, 114.12, "Kwai Tsing"},
	"IDJKT": {-6.10, 106.88, "Tanjung Priok"},
	"INMUN": {22.74, 69.70, "Mundra port"},
	"INTUT": {8.75, 78.20, "V.O. Chidambaranar port"},
	"ITSPE": {44.085, 9.84, "La Spezia port, in the gulf"},
	"JMKIN": {17.98, -76.83, "Kingston Container Terminal"},
	"JPTYO": {35.60, 139.78, "Ohi"},
	"JPYOK": {35.44, 139.67, "Honmoku"},
	"MAPTM": {35.89, -5.50, "Tanger Med"},
	"MYPKG": {2.95, 101.30, "Westports"},
	"MYTPP": {1.35, 103.54, "Tanjung Pelepas"},
	"OMSLL": {16.94, 54.00, "Port of Salalah"},
	"PAMIT": {9.37, -79.88, "Manzanillo International Terminal, Colón"},
	"PHMNL": {14.61, 120.95, "Manila International Container Terminal"},
	"PKKHI": {24.83, 66.98, "Karachi port"},
	"SNDKR": {14.68, -17.42, "Port of Dakar"},
	"TGLFW": {6.13, 1.28, "Port of Lomé"},
	"USBAL": {39.25, -76.55, "Seagirt"},
	"USJAX": {30.40, -81.43, "St Johns River mouth (Blount Island lies up the river, land at 1:50m)"},
	"USLAX": {33.73, -118.26, "San Pedro Bay"},
	"USEWR": {40.684, -74.13, "Port Newark–Elizabeth, on Newark Bay (the source gives Newark's city centre)"},
	"USORF": {36.92, -76.32, "Norfolk International Terminals"},
	"USTIW": {47.29, -122.44, "Port of Tacoma, Commencement Bay"},
	"VNTOT": {10.54, 107.03, "Cai Mep terminals, on the Thi Vai's east bank (the source's position is 11 km inland)"},
}

// placeOnWater applies the reviewed table, then moves every other port on land within moveKM of
// water to the nearest water. It returns how many ports lay more than 5 km from water before and
// after, and fails if a reviewed position is not at the water's edge.
func placeOnWater(ports []port) (before, after int, err error) {
	l := data.Water()
	far := func(lat, lon float64) bool {
		_, ok := searoute.NearestWater(l, geo.Point{Lat: lat, Lon: lon}, 5)
		return !ok
	}
	for i := range ports {
		p := &ports[i]
		if p.Lat == nil {
			continue
		}
		if far(*p.Lat, *p.Lon) {
			before++
		}
		if w, ok := waterSide[p.LOCODE]; ok {
			if _, ok := searoute.NearestWater(l, geo.Point{Lat: w.lat, Lon: w.lon}, searoute.CoastKM); !ok {
				return 0, 0, fmt.Errorf("%s: reviewed position %v,%v is not at the water's edge", p.LOCODE, w.lat, w.lon)
			}
			lat, lon := w.lat, w.lon
			p.Lat, p.Lon = &lat, &lon
		} else if q, ok := fairwayEnd(l, p.LOCODE, geo.Point{Lat: *p.Lat, Lon: *p.Lon}); ok {
			lat, lon := q.Lat, q.Lon
			p.Lat, p.Lon = &lat, &lon
		} else if q, ok := searoute.NearestWater(l, geo.Point{Lat: *p.Lat, Lon: *p.Lon}, moveKM); ok {
			lat, lon := roundTo(q.Lat), roundTo(q.Lon)
			p.Lat, p.Lon = &lat, &lon
		}
		if far(*p.Lat, *p.Lon) {
			after++
		}
	}
	return before, after, nil
}

// fairwayEnd returns where the last build's fairway to the port ends, when the port's own position
// is on land and that end lies within moveKM of it: the port stays where its fairway leads. The
// nearest water would otherwise be a point beside that fairway, a few hundred metres short of
// its end, so that each build moved the port and its fairway again (Bramel, Shunde and
// Bangpakong crept along their rivers from one build to the next).
func fairwayEnd(w searoute.Water, locode string, at geo.Point) (geo.Point, bool) {
	if searoute.Wet(w, at) {
		return geo.Point{}, false
	}
	best, bestKM := geo.Point{}, math.Inf(1)
	for _, f := range w.Fairways.All() {
		end := f.Points[len(f.Points)-1]
		if d := geo.DistanceKM(at, end); f.Port == locode && d <= moveKM && d < bestKM {
			best, bestKM = end, d
		}
	}
	return best, bestKM <= moveKM
}

// roundTo rounds a coordinate to 1e-5 degrees (about a metre).
func roundTo(x float64) float64 {
	return math.Round(x*1e5) / 1e5
}
