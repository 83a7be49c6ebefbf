// Command etaeval measures boxwatch's predicted arrivals against the simulator's voyages: for
// each voyage and horizon (7, 3 and 1 days before the vessel really reaches the port of
// discharge), the prediction from the vessel's broadcast track (package eta, over the sea
// router's distance to go) and the carrier's latest ETA at that moment, each against the actual
// arrival. It prints one table row per horizon: the voyages whose vessel was at sea on the last
// leg then (the only ones boxwatch predicts for), the mean absolute error of each, and how often
// the prediction was the closer.
//
// Usage, from the module root:
//
//	go run ./eta/cmd/etaeval [-voyages 1000]
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/boxwatch/boxwatch/carrier/sim"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/eta"
	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/searoute"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "etaeval:", err)
		os.Exit(1)
	}
}

// scacs are the lines whose voyages are replayed: every lane of the simulator is sailed by one.
var scacs = []string{"MAEU", "MSCU", "CMDU", "HLCU", "ONEY", "EGLV", "COSU", "ZIMU"}

var horizons = []time.Duration{7 * 24 * time.Hour, 3 * 24 * time.Hour, 24 * time.Hour}

// trackEvery is how often boxwatch keeps a position of a vessel (the ingest's decimation).
const trackEvery = 5 * time.Minute

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("etaeval", flag.ContinueOnError)
	voyages := fs.Int("voyages", 1000, "how many journeys to replay")
	worst := fs.Float64("worst", 0, "also list the predictions off by more than this many hours")
	if err := fs.Parse(args); err != nil {
		return err
	}
	sea := data.SeaNetwork()
	n, err := sim.New(sim.Options{SCACs: scacs, Router: func(from, to geo.Point) ([]geo.Point, float64, error) {
		p, err := sea.Route(from, to, searoute.Options{})
		return p.Points, p.DistanceNM, err
	}})
	if err != nil {
		return err
	}
	type row struct {
		n, better           int
		predicted, carrier  float64 // sums of absolute errors, hours
		noPrediction, notAt int
	}
	rows := make([]row, len(horizons))
	anchor := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	replayed := 0
	for i := 0; replayed < *voyages && i < *voyages*4; i++ {
		number := fmt.Sprintf("EVAL%08d", i)
		r, ok := n.Replay(scacs[i%len(scacs)], number, anchor)
		if !ok {
			continue
		}
		replayed++
		actual := r.Arrived()
		for h, horizon := range horizons {
			at := actual.Add(-horizon)
			if at.Before(r.Departed().Add(time.Hour)) {
				rows[h].notAt++ // not yet at sea on the last leg: boxwatch shows the carrier's ETA
				continue
			}
			carrier, ok := r.CarrierETA(at)
			if !ok {
				rows[h].notAt++
				continue
			}
			track := r.Track(at.Add(-eta.Window), at, trackEvery)
			last := track[len(track)-1]
			path, err := sea.Route(geo.Point{Lat: last.Latitude, Lon: last.Longitude}, r.Port(), searoute.Options{})
			knots, okSpeed := eta.Speed(track)
			predicted, okArrival := eta.Arrival(last.Timestamp, path.DistanceNM, knots)
			if err != nil || !okSpeed || !okArrival {
				rows[h].noPrediction++
				continue
			}
			ep, ec := math.Abs(predicted.Sub(actual).Hours()), math.Abs(carrier.Sub(actual).Hours())
			if *worst > 0 && ep > *worst {
				fmt.Fprintf(stdout, "%s %s: %.0f days out at %.3f,%.3f, %.0f nm to %s at %.1f kn: off by %.1f h (carrier %.1f h)\n",
					scacs[i%len(scacs)], number, horizon.Hours()/24, last.Latitude, last.Longitude, path.DistanceNM, r.LOCODE(), knots, ep, ec)
			}
			rows[h].n++
			rows[h].predicted += ep
			rows[h].carrier += ec
			if ep < ec {
				rows[h].better++
			}
		}
	}
	fmt.Fprintf(stdout, "%d voyages replayed (%s), positions every %v of track over the last %v\n\n", replayed, fmt.Sprint(scacs), trackEvery, eta.Window)
	fmt.Fprintln(stdout, "| days out | voyages at sea on the last leg | boxwatch MAE (h) | carrier ETA MAE (h) | boxwatch closer | not at sea yet | no prediction |")
	fmt.Fprintln(stdout, "|---:|---:|---:|---:|---:|---:|---:|")
	for h, horizon := range horizons {
		r := rows[h]
		if r.n == 0 {
			fmt.Fprintf(stdout, "| %.0f | 0 | – | – | – | %d | %d |\n", horizon.Hours()/24, r.notAt, r.noPrediction)
			continue
		}
		fmt.Fprintf(stdout, "| %.0f | %d | %.2f | %.2f | %.0f %% | %d | %d |\n", horizon.Hours()/24, r.n,
			r.predicted/float64(r.n), r.carrier/float64(r.n), 100*float64(r.better)/float64(r.n), r.notAt, r.noPrediction)
	}
	return nil
}
