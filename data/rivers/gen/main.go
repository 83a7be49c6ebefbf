// Command gen writes data/rivers/fairways.json: for each port of data/ports that lies up a river
// or an estuary that Natural Earth 1:50m (data/land) draws as land, the fairway from the sea to
// the port, following the river's course as GSHHG draws it. It reads GMT's binned GSHHG files of
// the Debian package gmt-gshhg-high (the shorelines, from the World Vector Shoreline, and the
// WDBII rivers), printed as CDL text by ncdump (scripts/rivers.sh does both).
//
// For each river in rivers it searches a grid of cells over the river's box, from every cell of
// open sea (off 1:50m land, seaKM from it, in the one piece of GSHHG water that holds most such
// cells) through water: that piece, the router's own water (off 1:50m land), and the cells near a
// lake's shore (GSHHG draws the fat parts of rivers as lakes), near a WDBII river line (where a
// river goes on narrower than the shoreline draws it; at most lineMaxKM of a way) or near a
// river's via (digitised where GSHHG has neither). A cell near a bank costs more, which keeps the
// fairway in mid-river. Each port in the box gets the cheapest way to a cell near it, then the
// port itself, if that way crosses 1:50m land; ways share their points where they share cells.
// It prints the ports of each box it finds no way to. The output is deterministic.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/geo/land"
)

// rivers lists the rivers and estuaries up to the ports of data/ports that 1:50m draws inland:
// each box holds the river from the port farthest up to open sea, and no second river mouth.
var rivers = []struct {
	name   string
	box    [4]float64 // west, south, east, north
	cellKM float64    // the side of the search grid's cells
	// lineKM, if not 0, is how far a way may follow the smaller rivers' lines beyond the
	// shorelines' water (lineMaxKM otherwise): where WDBII draws the river to its port as a
	// smaller river than it is.
	lineKM float64
	// canals says that WDBII's major canals (level 8) lead to the river's ports: elsewhere a canal
	// is a way round the river that sea-going ships do not take (the Gulf Intracoastal Waterway to
	// New Orleans, the Grand Canal to the Yangtze's ports).
	canals bool
	// via are lines up the river where GSHHG draws neither its banks nor its course (see the
	// README: digitised from the positions of places on its banks), searched as the known course
	// of a river.
	via [][][2]float64
}{
	{"Elbe", [4]float64{8.6, 53.4, 10.1, 54.1}, 0.15, 0, false, nil},
	{"Weser", [4]float64{7.9, 53.0, 8.6, 53.9}, 0.15, 0, false, [][][2]float64{{
		{8.497, 53.374}, {8.500, 53.362}, {8.503, 53.352},
	}}},
	{"Scheldt", [4]float64{3.2, 51.2, 4.45, 51.6}, 0.15, 0, false, [][][2]float64{{
		{4.215, 51.393}, {4.245, 51.375}, {4.268, 51.355}, {4.280, 51.330}, {4.287, 51.310}, {4.300, 51.288}, {4.312, 51.265},
	}}},
	{"Nieuwe Waterweg and Maas", [4]float64{3.9, 51.6, 4.75, 52.05}, 0.15, 0, false, nil},
	{"North Sea Canal", [4]float64{4.3, 52.3, 5.0, 52.55}, 0.15, 0, true, nil},
	{"Seine", [4]float64{-0.3, 49.2, 1.2, 49.75}, 0.15, 0, false, [][][2]float64{{
		{0.430, 49.458}, {0.460, 49.468}, {0.485, 49.481}, {0.508, 49.487},
	}}},
	{"Thames", [4]float64{-0.2, 51.3, 1.7, 51.7}, 0.15, 0, false, nil},
	{"Yangtze and Huangpu", [4]float64{118.6, 30.7, 122.6, 32.5}, 0.3, 0, false, [][][2]float64{
		{{119.600, 32.190}, {119.640, 32.215}, {119.680, 32.245}, {119.712, 32.265}},
		{{119.898, 32.072}, {119.900, 32.045}, {119.905, 32.015}, {119.930, 31.990}, {119.970, 31.972}, {120.010, 31.963}, {120.070, 31.955}},
		{{119.905, 32.075}, {119.898, 32.120}, {119.890, 32.170}, {119.884, 32.215}, {119.877, 32.247}, {119.865, 32.270}, {119.852, 32.287}},
		{{118.733, 32.108}, {118.745, 32.103}, {118.758, 32.097}, {118.770, 32.090}, {118.782, 32.083}, {118.792, 32.075}, {118.797, 32.068}},
	}},
	{"Pearl River", [4]float64{112.9, 21.8, 114.3, 23.3}, 0.2, 100, false, [][][2]float64{{
		{113.368, 23.108}, {113.355, 23.110}, {113.340, 23.112}, {113.322, 23.114}, {113.300, 23.117},
		{113.280, 23.119}, {113.265, 23.119}, {113.250, 23.114}, {113.238, 23.102},
	}}},
	{"Houston Ship Channel", [4]float64{-95.4, 28.9, -94.4, 29.85}, 0.15, 0, false, [][][2]float64{{
		{-94.985, 29.680}, {-95.010, 29.720}, {-95.060, 29.755}, {-95.085, 29.762}, {-95.130, 29.745},
		{-95.180, 29.735}, {-95.230, 29.727}, {-95.270, 29.735}, {-95.290, 29.748}, {-95.320, 29.752}, {-95.345, 29.758},
	}}},
	{"Mississippi", [4]float64{-90.3, 28.7, -88.8, 30.1}, 0.15, 0, false, nil},
	{"Savannah River", [4]float64{-81.25, 31.8, -80.6, 32.2}, 0.15, 0, false, nil},
	{"Delaware River", [4]float64{-75.6, 38.5, -74.7, 40.1}, 0.15, 0, false, [][][2]float64{{
		// The Maurice River, from its cove past Bivalve, Leesburg, Dorchester and Mauricetown to
		// Port Elizabeth (New Jersey), which neither GSHHG nor WDBII draws.
		{-75.033, 39.200}, {-75.034, 39.215}, {-75.031, 39.230}, {-75.022, 39.241}, {-75.006, 39.243},
		{-74.995, 39.245}, {-74.988, 39.256}, {-74.985, 39.270}, {-74.990, 39.282}, {-74.986, 39.294}, {-74.980, 39.302},
	}}},
	{"Kill van Kull and Newark Bay", [4]float64{-74.25, 40.45, -73.95, 40.76}, 0.1, 0, false, [][][2]float64{{
		// From the Upper Bay off Robbins Reef through the Kill van Kull between Bayonne and
		// Staten Island, past Bergen Point and up Newark Bay to Port Newark, mid-channel between
		// GSHHG's shores, which nearly meet at Port Richmond.
		{-74.060, 40.6500}, {-74.078, 40.6462}, {-74.095, 40.6458}, {-74.115, 40.6460}, {-74.1335, 40.6443},
		{-74.148, 40.6430}, {-74.157, 40.6500}, {-74.140, 40.6650}, {-74.130, 40.6800},
	}}},
	{"Columbia and Willamette", [4]float64{-124.4, 45.4, -122.5, 46.4}, 0.2, 0, false, [][][2]float64{{
		{-123.235, 46.152}, {-123.215, 46.160}, {-123.190, 46.175}, {-123.165, 46.193}, {-123.150, 46.196},
	}}},
	{"St. Lawrence", [4]float64{-74.0, 45.3, -66.0, 49.6}, 0.4, 0, false, nil},
	{"Río de la Plata", [4]float64{-59.2, -35.3, -56.0, -33.9}, 0.3, 100, false, nil},
	{"Saigon River", [4]float64{106.6, 10.2, 107.2, 10.9}, 0.15, 0, false, [][][2]float64{{
		{106.960, 10.390}, {106.900, 10.470}, {106.850, 10.550}, {106.800, 10.620}, {106.770, 10.670}, {106.780, 10.720}, {106.790, 10.760},
	}}},
	{"Chao Phraya", [4]float64{100.35, 13.2, 100.8, 13.8}, 0.15, 0, false, nil},
	{"Karnaphuli", [4]float64{91.6, 22.0, 91.95, 22.4}, 0.15, 0, false, nil},
	{"Cam River", [4]float64{106.6, 20.55, 107.0, 20.95}, 0.15, 0, false, nil},
	{"Hooghly", [4]float64{87.7, 21.3, 88.5, 22.65}, 0.2, 0, false, [][][2]float64{{
		{88.068, 22.205}, {88.074, 22.222}, {88.077, 22.240},
	}}},
}

func main() {
	riversCDL := flag.String("rivers", "", "binned_river_h.nc as CDL text (ncdump)")
	shoresCDL := flag.String("shores", "", "binned_GSHHS_h.nc as CDL text (ncdump)")
	out := flag.String("out", "data/rivers", "directory to write fairways.json to")
	flag.Parse()
	if err := run(*riversCDL, *shoresCDL, *out); err != nil {
		fmt.Fprintln(os.Stderr, "rivers:", err)
		os.Exit(1)
	}
}

// A fairway as written: the river's name, the port's UN/LOCODE and the points from the sea to
// the port, [longitude, latitude] rounded to micro-degrees.
type fairway struct {
	River  string       `json:"river"`
	Port   string       `json:"port"`
	Points [][2]float64 `json:"points"`
}

func run(riversCDL, shoresCDL, out string) error {
	if riversCDL == "" || shoresCDL == "" {
		return errors.New("-rivers and -shores are required")
	}
	rf, err := os.Open(riversCDL)
	if err != nil {
		return err
	}
	defer rf.Close()
	lines, err := readRivers(rf)
	if err != nil {
		return fmt.Errorf("%s: %w", riversCDL, err)
	}
	sf, err := os.Open(shoresCDL)
	if err != nil {
		return err
	}
	defer sf.Close()
	shores, err := readShores(sf)
	if err != nil {
		return fmt.Errorf("%s: %w", shoresCDL, err)
	}
	targets, err := readTargets(filepath.Join(filepath.Dir(out), "ports", "published.json"))
	if err != nil {
		return err
	}
	var all []fairway
	for _, r := range rivers {
		river := slices.DeleteFunc(slices.Clone(lines), func(ln line) bool { return ln.level == canalLevel && !r.canals })
		for _, v := range r.via {
			ln := line{level: viaLevel}
			for _, p := range v {
				ln.points = append(ln.points, geo.Point{Lon: p[0], Lat: p[1]})
			}
			river = append(river, ln)
		}
		maxLineKM := lineMaxKM
		if r.lineKM != 0 {
			maxLineKM = r.lineKM
		}
		fs, err := build(r.name, r.box, r.cellKM, maxLineKM, river, shores, targets)
		if err != nil {
			return err
		}
		all = append(all, fs...)
	}
	b, err := json.MarshalIndent(all, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(out+"/fairways.json", append(b, '\n'), 0o644)
}

// seaKM is how far from 1:50m land the search starts: where 1:50m draws a river wider than it
// is, a start nearer land could lie on the land GSHHG draws, and the search would cross it.
const seaKM = 3.0

// A target is a position of a port that a fairway may lead to.
type target struct {
	locode, name string
	at           geo.Point
}

// readTargets returns every port's position in data/ports, and its published position
// (published.json, the source's own, for ports the port list moved to the water side) where that
// lies more than 100 m away: routes must take both.
func readTargets(published string) ([]target, error) {
	var out []target
	for _, p := range data.Ports().All() {
		if p.HasCoordinates {
			out = append(out, target{p.LOCODE, p.Name, geo.Point{Lat: p.Latitude, Lon: p.Longitude}})
		}
	}
	raw, err := os.ReadFile(published)
	if err != nil {
		return nil, err
	}
	var doc []struct {
		LOCODE string  `json:"locode"`
		Name   string  `json:"name"`
		Lat    float64 `json:"lat"`
		Lon    float64 `json:"lon"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", published, err)
	}
	for _, d := range doc {
		at := geo.Point{Lat: d.Lat, Lon: d.Lon}
		if p, ok := data.Ports().ByLOCODE(d.LOCODE); ok && p.HasCoordinates && geo.DistanceKM(at, geo.Point{Lat: p.Latitude, Lon: p.Longitude}) > 0.1 {
			out = append(out, target{d.LOCODE, d.Name, at})
		}
	}
	return out, nil
}

// seaAt reports whether p is off 1:50m land and seaKM from it.
func seaAt(l *land.Land, p geo.Point) bool {
	if l.Contains(p) {
		return false
	}
	for k := range 16 {
		b := float64(k) * math.Pi / 8
		q := geo.Point{Lat: p.Lat + seaKM*math.Cos(b)/kmPerDeg, Lon: p.Lon + seaKM*math.Sin(b)/(kmPerDeg*math.Cos(p.Lat*math.Pi/180))}
		if l.Contains(q) {
			return false
		}
	}
	return true
}

// build returns the fairways of one river's ports.
func build(name string, box [4]float64, cellKM, maxLineKM float64, lines, shores []line, targets []target) ([]fairway, error) {
	l := data.Land()
	a := newArea(box[0], box[1], box[2], box[3], cellKM, lines, shores)
	dist, prev := a.search(func(p geo.Point) bool { return seaAt(l, p) }, func(p geo.Point) bool { return !l.Contains(p) })
	type way struct {
		port  string
		at    geo.Point
		cells []int
	}
	var ways []way
	for _, p := range targets {
		at := p.at
		if at.Lon < box[0] || at.Lon > box[2] || at.Lat < box[1] || at.Lat > box[3] {
			continue
		}
		cells, ok := a.way(dist, prev, at, maxLineKM)
		if !ok {
			km, lineKM := a.nearestKM(dist, prev, at)
			fmt.Printf("%s: no way to %s (%s) at %.5f,%.5f: the nearest water reached is %.1f km off (%.0f km up river lines)\n", name, p.locode, p.name, at.Lon, at.Lat, km, lineKM)
			continue
		}
		inland := l.Crosses(a.centre(cells[len(cells)-1]), at)
		for i := 1; i < len(cells) && !inland; i++ {
			inland = l.Crosses(a.centre(cells[i-1]), a.centre(cells[i]))
		}
		if inland {
			ways = append(ways, way{p.locode, at, cells})
		}
	}
	// A cell where ways part (or one ends) is kept by each, so that ways share their points.
	next := map[int][]int{}
	for _, w := range ways {
		for i, c := range w.cells {
			n := -1
			if i+1 < len(w.cells) {
				n = w.cells[i+1]
			}
			if !slices.Contains(next[c], n) {
				next[c] = append(next[c], n)
			}
		}
	}
	var out []fairway
	for _, w := range ways {
		pts := make([]geo.Point, 0, len(w.cells)+1)
		for _, c := range w.cells {
			pts = append(pts, a.centre(c))
		}
		pts = append(pts, w.at)
		pts = simplify(pts, func(i int) bool { return i < len(w.cells) && len(next[w.cells[i]]) > 1 })
		f := fairway{River: name, Port: w.port}
		for _, p := range pts {
			f.Points = append(f.Points, [2]float64{math.Round(p.Lon*1e6) / 1e6, math.Round(p.Lat*1e6) / 1e6})
		}
		out = append(out, f)
		fmt.Printf("%s: %s, %d points, %.1f km\n", name, w.port, len(f.Points), dist[w.cells[len(w.cells)-1]])
	}
	return out, nil
}
