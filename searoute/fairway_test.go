package searoute_test

import (
	"errors"
	"math"
	"testing"

	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/searoute"
)

func TestDecodeFairways(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		bad       bool
	}{
		{"OK", `[{"river":"Elbe","port":"DEHAM","points":[[8.7,53.9],[9.0,53.8],[9.97,53.54]]}]`, false},
		{"ErrNotJSON", `{"river":`, true},
		{"ErrOnePoint", `[{"river":"Elbe","port":"DEHAM","points":[[8.7,53.9]]}]`, true},
		{"ErrBadPoint", `[{"river":"Elbe","port":"DEHAM","points":[[8.7,53.9],[9,95]]}]`, true},
		{"ErrAntimeridian", `[{"river":"X","port":"XXXXX","points":[[179.9,0],[-179.9,0]]}]`, true},
		{"ErrEmpty", `[]`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := searoute.DecodeFairways([]byte(tc.doc))
			if (err != nil) != tc.bad {
				t.Fatalf("err = %v, want an error: %v", err, tc.bad)
			}
			if err == nil && (len(f.All()) != 1 || !f.Near(geo.Point{Lat: 53.801, Lon: 9.0}) || f.Near(geo.Point{Lat: 53.6, Lon: 9.0})) {
				t.Errorf("fairways %+v: not near their own point, or near a point 22 km off", f.All())
			}
		})
	}
}

// A line over the land of a river is clear only along the river's fairway: Hamburg's, up the Elbe
// from Glückstadt, is; a line cut across the bend at Wedel is not.
func TestClearAlongFairway(t *testing.T) {
	w := data.Water()
	var hamburg []geo.Point
	for _, f := range w.Fairways.All() {
		if f.Port == "DEHAM" {
			hamburg = f.Points
		}
	}
	if hamburg == nil {
		t.Fatal("no fairway to Hamburg")
	}
	for i := 1; i < len(hamburg); i++ {
		if !searoute.Clear(w, hamburg[i-1], hamburg[i]) {
			t.Errorf("the fairway's own segment %d from %v to %v is not clear", i, hamburg[i-1], hamburg[i])
		}
	}
	if searoute.Clear(w, geo.Point{Lat: 53.78, Lon: 9.42}, hamburg[len(hamburg)-1]) {
		t.Error("a chord from Glückstadt to Hamburg over the land is clear")
	}
	if searoute.Clear(searoute.Water{Land: w.Land}, hamburg[len(hamburg)-2], hamburg[len(hamburg)-1]) && data.Land().Crosses(hamburg[len(hamburg)-2], hamburg[len(hamburg)-1]) {
		t.Error("without fairways a line over land is clear")
	}
}

// Routes into Cai Mep, Port Elizabeth (New Jersey), Newark, Zhongshan and Taizhou follow their waterways
// from the sea: each passes within 2 km of places on the channel or its banks (positions from public
// maps) and holds to checkPath's land bound, which exempts only a fairway. Natural Earth 1:50m
// draws the Thi Vai up to Cai Mep's terminals as water, so that route needs no fairway; the
// Maurice River up to Port Elizabeth and the Kill van Kull to Newark Bay have one (vias,
// data/rivers/README.md), and Bayonne, which 1:50m drew as water, is land (data/land/README.md).
// Zhongshan's port lies up the Hengmen waterway, which GSHHG draws. Taizhou's port, Gaogang, lies
// on the Yangtze's north channel past Yangzhong island, which GSHHG does not draw (a via): the
// route from Shanghai goes up it, under the Taizhou Yangtze River Bridge, not by the south branch
// that the fairways to Zhenjiang and Nanjing take.
func TestRoutesUpWaterways(t *testing.T) {
	n := data.SeaNetwork()
	type place struct {
		name     string
		lon, lat float64
	}
	for _, tc := range []struct {
		from, to string
		places   []place
	}{
		{"SGSIN", "VNTOT", []place{{"Ganh Rai Bay, off the Thi Vai's mouth", 107.00, 10.46}, {"the Thi Vai below Cai Mep", 107.01, 10.51}}},
		{"USNYC", "USPEB", []place{{"Bivalve", -75.031, 39.233}, {"Dorchester", -74.980, 39.274}, {"Mauricetown", -74.995, 39.285}}},
		{"USNYC", "USEWR", []place{{"the Kill van Kull off Constable Hook", -74.085, 40.646}, {"Bergen Point", -74.144, 40.643}, {"Newark Bay off Port Newark", -74.132, 40.675}}},
		{"HKHKG", "CNZSN", []place{{"the Hengmen waterway's mouth", 113.575, 22.570}}},
		{"CNSHA", "CNTZO", []place{{"the Taizhou Yangtze River Bridge, over the north channel", 119.877, 32.247}}},
	} {
		from, to := portPoint(t, tc.from), portPoint(t, tc.to)
		path, err := n.Route(from, to, searoute.Options{})
		if err != nil {
			t.Errorf("%s–%s: %v", tc.from, tc.to, err)
			continue
		}
		checkPath(t, tc.from+"–"+tc.to, from, to, path)
		for _, pl := range tc.places {
			if best := distanceToPathKM(path.Points, geo.Point{Lat: pl.lat, Lon: pl.lon}); best > 2 {
				t.Errorf("%s–%s passes %.1f km from %s", tc.from, tc.to, best, pl.name)
			}
		}
	}
}

// distanceToPathKM is how near a path's points, and points every 100 m along its segments, come
// to at.
func distanceToPathKM(points []geo.Point, at geo.Point) float64 {
	best := math.Inf(1)
	for i := 1; i < len(points); i++ {
		a, b := points[i-1], points[i]
		k := int(geo.DistanceKM(a, b)/0.1) + 1
		for j := 0; j <= k; j++ {
			best = min(best, geo.DistanceKM(at, geo.Intermediate(a, b, float64(j)/float64(k))))
		}
	}
	return best
}

func FuzzDecodeFairways(f *testing.F) {
	f.Add([]byte(`[{"river":"Elbe","port":"DEHAM","points":[[8.7,53.9],[9.0,53.8],[9.97,53.54]]}]`))
	f.Add([]byte(`[{"river":"","port":"","points":[[0,0],[0,0]]}]`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		fs, err := searoute.DecodeFairways(b)
		if err != nil {
			if errors.Is(err, searoute.ErrBadPoint) || err.Error() != "" {
				return
			}
			t.Fatal("an error without a message")
		}
		for _, fw := range fs.All() {
			if len(fw.Points) < 2 {
				t.Fatalf("fairway %+v of fewer than two points", fw)
			}
			fs.Near(fw.Points[0])
		}
	})
}
