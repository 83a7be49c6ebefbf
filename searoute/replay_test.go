package searoute_test

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/carrier/sim"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/searoute"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// Replays of the demo world: the positions a vessel's last leg reports are where a predicted
// arrival starts, and each must route to the port no longer than what the vessel still sails.
const (
	// replayEvery is how far apart the positions are that boxwatch stores of a vessel (the AIS
	// ingest keeps one every five minutes); the short form takes one in replayShortEvery.
	replayEvery      = 5 * time.Minute
	replayShortEvery = 12 * time.Hour
	// replayFactor and replaySlackNM are the margin over the vessel's remaining sailed track: the
	// simulator's vessels sail the router's own path from the port before, so a route from a
	// position on it differs from what is left of it only where the position lies between two
	// edges and returns to the network (the same margin as TestPositionsOnLegs).
	replayFactor  = 1.01
	replaySlackNM = 5.0
)

// replayAnchor is when the demo numbers are first looked up: the simulator lays a journey out
// from it, the geometry of its legs not.
var replayAnchor = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// TestReplayLastLegs replays the last ocean leg of every demo number's journey in the simulated
// world (trackingtest.DemoNumbers, carrier/sim with the vessels sailing this router's paths, as
// cmd/boxwatch runs it) and routes from every position the vessel reports on it, as boxwatch
// stores them, to its port of discharge: every position snaps and routes, and no route is longer
// than the vessel's remaining sailed track (from that position along the later positions, then
// straight to the port) times replayFactor plus replaySlackNM. The short form takes a position
// every replayShortEvery and also checks each route against land (checkPath); BOXWATCH_ROUTES_FULL=1
// (make test-routes) routes every stored position.
func TestReplayLastLegs(t *testing.T) {
	n := data.SeaNetwork()
	world, err := sim.New(sim.Options{Router: func(from, to geo.Point) ([]geo.Point, float64, error) {
		p, err := n.Route(from, to, searoute.Options{})
		return p.Points, p.DistanceNM, err
	}})
	if err != nil {
		t.Fatal(err)
	}
	full := os.Getenv("BOXWATCH_ROUTES_FULL") == "1"
	every := replayShortEvery
	if full {
		every = replayEvery
	}
	type start struct {
		voyage string
		p      geo.Point
		port   geo.Point
		leftNM float64 // the vessel's remaining sailed track
	}
	var starts []start
	seen := map[[2]geo.Point]bool{}
	voyages := 0
	for _, d := range trackingtest.DemoNumbers(t) {
		r, ok := world.Replay(d.SCAC, d.Number, replayAnchor)
		if !ok {
			continue
		}
		voyages++
		track := r.Track(r.Departed(), r.Arrived(), replayEvery)
		if len(track) == 0 {
			t.Errorf("%s %s: no position on the last leg to %s", d.SCAC, d.Number, r.LOCODE())
			continue
		}
		port := r.Port()
		left := geo.DistanceNM(trackPoint(track[len(track)-1]), port)
		for i := len(track) - 1; i >= 0; i-- {
			p := trackPoint(track[i])
			if i < len(track)-1 {
				left += geo.DistanceNM(p, trackPoint(track[i+1]))
			}
			if !full && i%int(every/replayEvery) != 0 {
				continue
			}
			if seen[[2]geo.Point{p, port}] {
				continue
			}
			seen[[2]geo.Point{p, port}] = true
			starts = append(starts, start{fmt.Sprintf("%s %s to %s", d.SCAC, d.Number, r.LOCODE()), p, port, left})
		}
	}
	if voyages == 0 {
		t.Fatal("no demo number has a last leg to replay")
	}

	var mu sync.Mutex
	var failures []string
	jobs := make(chan start)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for s := range jobs {
				path, err := n.Route(s.p, s.port, searoute.Options{})
				var msg string
				switch {
				case err != nil:
					msg = fmt.Sprintf("%s: from %v, %.1f nm out: %v", s.voyage, s.p, s.leftNM, err)
				case path.DistanceNM > s.leftNM*replayFactor+replaySlackNM:
					msg = fmt.Sprintf("%s: from %v, %.1f nm left to sail: routed %.1f nm", s.voyage, s.p, s.leftNM, path.DistanceNM)
				}
				if msg != "" {
					mu.Lock()
					failures = append(failures, msg)
					mu.Unlock()
				}
				if err == nil && !full {
					checkPath(t, fmt.Sprintf("%s from %v", s.voyage, s.p), s.p, s.port, path)
				}
			}
		})
	}
	for _, s := range starts {
		jobs <- s
	}
	close(jobs)
	wg.Wait()
	slices.Sort(failures)
	for i, f := range failures {
		if i == 50 {
			t.Errorf("and %d more", len(failures)-i)
			break
		}
		t.Error(f)
	}
	t.Logf("%d voyages of %d demo numbers: %d positions routed to their port, %d failed", voyages, len(trackingtest.DemoNumbers(t)), len(starts), len(failures))
}

func trackPoint(p boxwatch.VesselPosition) geo.Point {
	return geo.Point{Lat: p.Latitude, Lon: p.Longitude}
}
