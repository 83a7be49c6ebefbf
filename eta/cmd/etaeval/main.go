// Command etaeval grades boxwatch's predicted arrivals on the simulator's voyages, which run late
// as the liner trades do (carrier/sim calibrates them to Sea-Intelligence's figures). For each
// voyage and horizon (7, 3 and 1 days before the vessel really berths at the port of discharge),
// it predicts the arrival from what the service sees (package eta: the vessel's AIS track, the
// sea route still to sail, the waits recently seen at the port's anchorage and at the canals on
// the way, learned from other vessels' tracks and berthing milestones that ended before that
// moment, and the carrier's latest ETA, as the service hands them to it: the map's
// predicted_arrival_at is this prediction) and sets it beside two baselines: the carrier's latest ETA then, and the great-circle
// distance to the port at the vessel's service speed (the median speed it reported under way).
// It prints, overall and per lane, the voyages at sea on the last leg at each horizon, the mean
// absolute error of each, boxwatch's over the carrier's, and how often boxwatch was the closer.
//
// The voyages graded are generated from numbers with a prefix (-seed) the predictor was never
// tuned on; the waits are learned from as many more voyages again (-history times as many) of
// the same weeks, as the service hears every vessel calling at a port, not only those it tracks.
//
// Usage, from the module root:
//
//	go run ./eta/cmd/etaeval [-voyages 2000] [-history 2] [-seed EVAL] [-lane-min 30]
package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"time"

	"github.com/boxwatch/boxwatch"
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

// Track resolutions: boxwatch keeps a position every five minutes; the waits are learned from a
// coarser look at the whole passage.
const (
	trackEvery   = 5 * time.Minute
	learnEvery   = 30 * time.Minute
	stopLookback = 14 * 24 * time.Hour // how far back a stop at the port or a canal is traced
)

// period is the weeks the voyages are looked up in: their first lookups spread over it.
var (
	periodStart = time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	periodDays  = 60
)

// queueing are the passages where vessels queue, and so the places whose waits are learned.
var queueing = []searoute.Passage{searoute.Suez, searoute.Panama}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("etaeval", flag.ContinueOnError)
	voyages := fs.Int("voyages", 2000, "how many voyages to grade")
	history := fs.Int("history", 2, "how many more voyages per graded one the waits are learned from")
	seed := fs.String("seed", "EVAL", "prefix of the graded voyages' numbers")
	laneMin := fs.Int("lane-min", 30, "the fewest voyages at a horizon for a lane's row to be judged")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *voyages < 1 || *history < 0 || *seed == "" {
		return fmt.Errorf("-voyages must be positive, -history not negative, -seed not empty")
	}
	sea := data.SeaNetwork()
	n, err := sim.New(sim.Options{SCACs: scacs, Router: func(from, to geo.Point) ([]geo.Point, float64, error) {
		p, err := sea.Route(from, to, searoute.Options{})
		return p.Points, p.DistanceNM, err
	}})
	if err != nil {
		return err
	}
	replays := func(prefix string, count int) []sim.Replay {
		var out []sim.Replay
		for i := 0; len(out) < count && i < count*4; i++ {
			number := fmt.Sprintf("%s%08d", prefix, i)
			anchor := periodStart.Add(time.Duration((i*7919)%(periodDays*24)) * time.Hour)
			if r, ok := n.Replay(scacs[i%len(scacs)], number, anchor); ok {
				out = append(out, r)
			}
		}
		return out
	}
	graded := replays(*seed, *voyages)
	var waits eta.Waits
	for _, r := range append(replays("HIST"+*seed, *voyages**history), graded...) {
		learn(&waits, r)
	}

	rows := map[string][]row{} // by lane, one per horizon; "" for all lanes
	for _, r := range graded {
		for _, lane := range []string{"", r.Lane()} {
			if rows[lane] == nil {
				rows[lane] = make([]row, len(horizons))
			}
		}
		for h, horizon := range horizons {
			g, status := grade(sea, &waits, r, horizon)
			for _, lane := range []string{"", r.Lane()} {
				rows[lane][h].add(g, status)
			}
		}
	}
	print(stdout, rows, len(graded), *voyages**history, *laneMin)
	return nil
}

// status is whether a voyage was graded at a horizon.
type status int

const (
	graded       status = iota
	notAtSea            // not yet at sea on the last leg: boxwatch shows the carrier's ETA
	noPrediction        // at sea, but boxwatch predicts nothing
)

// errors are one voyage's absolute errors at a horizon, in hours: boxwatch's prediction, the
// carrier's ETA, the great circle at service speed, the route still to sail at the speed made
// good over the last eta.Window (what the map's predicted_arrival_at showed before it used
// eta.Predict).
type errors struct{ boxwatch, carrier, greatCircle, trackSpeed float64 }

// row sums the errors of a lane at a horizon.
type row struct {
	n, closer, notAtSea, none int
	sum                       errors
}

func (r *row) add(e errors, s status) {
	switch s {
	case notAtSea:
		r.notAtSea++
		return
	case noPrediction:
		r.none++
		return
	}
	r.n++
	r.sum.boxwatch += e.boxwatch
	r.sum.carrier += e.carrier
	r.sum.greatCircle += e.greatCircle
	r.sum.trackSpeed += e.trackSpeed
	if e.boxwatch < e.carrier {
		r.closer++
	}
}

// grade predicts a voyage's arrival horizon before it and returns the three errors.
func grade(sea *searoute.Network, waits *eta.Waits, r sim.Replay, horizon time.Duration) (errors, status) {
	actual := r.Arrived()
	at := actual.Add(-horizon)
	if at.Before(r.Departed().Add(time.Hour)) {
		return errors{}, notAtSea
	}
	carrier, _, ok := r.CarrierETA(at)
	if !ok {
		return errors{}, notAtSea
	}
	track := r.Track(at.Add(-stopLookback), at, trackEvery)
	if len(track) == 0 {
		return errors{}, noPrediction
	}
	last := track[len(track)-1]
	here := geo.Point{Lat: last.Latitude, Lon: last.Longitude}
	path, err := sea.Route(here, r.Port(), searoute.Options{})
	if err != nil {
		return errors{}, noPrediction
	}
	v := eta.Voyage{At: at, Track: track, Port: r.LOCODE(), PortPoint: r.Port(), RemainingNM: path.DistanceNM,
		InCanal: canalAt(here), CarrierETA: carrier}
	for _, p := range path.Passages {
		// A port within a canal's approaches (Manzanillo, Panama) is reached without queueing.
		if slices.Contains(queueing, p) && canalAt(r.Port()) != string(p) && v.InCanal != string(p) {
			v.Canals = append(v.Canals, string(p))
		}
	}
	predicted, ok := eta.Predict(v, waits)
	if !ok {
		return errors{}, noPrediction
	}
	gc := at.Add(time.Duration(geo.DistanceNM(here, r.Port()) / serviceSpeed(track) * float64(time.Hour)))
	plain := at // a vessel stopped has no speed: the plain prediction says "now"
	if knots, ok := eta.Speed(track); ok {
		if t, ok := eta.Arrival(at, path.DistanceNM, knots); ok {
			plain = t
		}
	}
	return errors{
		boxwatch:    math.Abs(predicted.Sub(actual).Hours()),
		carrier:     math.Abs(carrier.Sub(actual).Hours()),
		greatCircle: math.Abs(gc.Sub(actual).Hours()),
		trackSpeed:  math.Abs(plain.Sub(actual).Hours()),
	}, graded
}

// canalAt is the queueing passage a point lies in, or "".
func canalAt(p geo.Point) string {
	if c := searoute.PassageAt(p, p); slices.Contains(queueing, c) {
		return string(c)
	}
	return ""
}

// serviceSpeed is the median speed a vessel reported under way (8 knots or more) on its track, or
// a typical 18 knots when it reported none.
func serviceSpeed(track []boxwatch.VesselPosition) float64 {
	var speeds []float64
	for _, p := range track {
		if p.SpeedKnots != nil && *p.SpeedKnots >= 8 {
			speeds = append(speeds, *p.SpeedKnots)
		}
	}
	if len(speeds) == 0 {
		return 18
	}
	slices.Sort(speeds)
	return speeds[len(speeds)/2]
}

// learn records the waits a voyage shows, as the service would see them once it has berthed: its
// stops at a canal on the way (AIS) and its stop off the port until the carrier's arrival
// milestone.
func learn(waits *eta.Waits, r sim.Replay) {
	waits.Learn(r.Track(r.Departed(), r.Arrived(), learnEvery), r.LOCODE(), r.Port(), r.Arrived(), canalAt)
}

func print(w io.Writer, rows map[string][]row, graded, history, laneMin int) {
	fmt.Fprintf(w, "%d voyages graded (%v), waits learned from them and %d more; positions every %v\n\n", graded, scacs, history, trackEvery)
	fmt.Fprintln(w, "| lane | days out | voyages at sea on the last leg | boxwatch MAE (h) | carrier ETA MAE (h) | great circle MAE (h) | track speed only MAE (h) | boxwatch / carrier | boxwatch closer | not at sea yet | no prediction |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	lanes := make([]string, 0, len(rows))
	for l := range rows {
		lanes = append(lanes, l)
	}
	slices.SortFunc(lanes, func(a, b string) int { return cmp.Compare(a, b) })
	var short []string
	for _, lane := range lanes {
		name := lane
		if name == "" {
			name = "all lanes"
		}
		for h, horizon := range horizons {
			r := rows[lane][h]
			if r.n == 0 {
				fmt.Fprintf(w, "| %s | %.0f | 0 | – | – | – | – | – | – | %d | %d |\n", name, horizon.Hours()/24, r.notAtSea, r.none)
				continue
			}
			n := float64(r.n)
			ratio := r.sum.boxwatch / r.sum.carrier
			mark := ""
			if r.n < laneMin {
				mark = " (few)"
			} else if horizon > 2*24*time.Hour && ratio > 0.7 {
				short = append(short, fmt.Sprintf("%s at %.0f days", name, horizon.Hours()/24))
			}
			fmt.Fprintf(w, "| %s | %.0f | %d%s | %.1f | %.1f | %.1f | %.1f | %.2f | %.0f %% | %d | %d |\n", name, horizon.Hours()/24, r.n, mark,
				r.sum.boxwatch/n, r.sum.carrier/n, r.sum.greatCircle/n, r.sum.trackSpeed/n, ratio, 100*float64(r.closer)/n, r.notAtSea, r.none)
		}
	}
	fmt.Fprintln(w)
	if len(short) == 0 {
		fmt.Fprintf(w, "Goal met: at 7 and 3 days out, boxwatch's MAE is at most 0.7 × the carrier's on every lane with %d voyages or more.\n", laneMin)
		return
	}
	fmt.Fprintf(w, "Goal (boxwatch MAE ≤ 0.7 × the carrier's at 7 and 3 days out) missed on: %v\n", short)
}
