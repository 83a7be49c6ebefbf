package main

import (
	"fmt"
	"math"

	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/geo"
)

func main() {
	l := data.Land()
	const kmPerDeg = geo.EarthRadiusKM * math.Pi / 180
	for _, p := range data.Ports().All() {
		if !p.HasCoordinates {
			continue
		}
		pt := geo.Point{Lat: p.Latitude, Lon: p.Longitude}
		d := -1.0
	outer:
		for r := 0.0; r <= 30; r += 0.25 {
			for k := range 72 {
				a := float64(k) * 2 * math.Pi / 72
				q := geo.Point{Lat: pt.Lat + r*math.Cos(a)/kmPerDeg, Lon: pt.Lon + r*math.Sin(a)/(kmPerDeg*math.Cos(pt.Lat*math.Pi/180))}
				if !l.Contains(q) {
					d = r
					break outer
				}
			}
		}
		if d != 0 {
			fmt.Printf("%s\t%.1f\t%.3f,%.3f\t%s\n", p.LOCODE, d, pt.Lon, pt.Lat, p.Name)
		}
	}
}
