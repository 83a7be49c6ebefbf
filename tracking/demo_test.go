package tracking_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// TestDemoKeepsRefreshing runs the simulated world as the demo does (the lines refuse what fits
// none of their formats) for four simulated days, with a bill of lading, a booking and a
// container number at every line that tracks them, and checks that every shipment's refreshes
// succeed: its last success advances each day until its journey ends, and no refresh fails.
func TestDemoKeepsRefreshing(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		clock := trackingtest.NewClock(time.Now())
		reg := prometheus.NewRegistry()
		// At full scale, so that no journey's end window closes on a shipment that still moves.
		f := newFixture(t, b, trackingtest.Options{Clock: clock, RetryScale: 1, RefreshInterval: time.Hour, CheckFormats: true, Metrics: reg})
		var requests []boxwatch.TrackingRequest
		for _, n := range trackingtest.DemoNumbers(t) {
			requests = append(requests, f.track(t, n.Type, n.Number, n.SCAC))
		}
		byType := map[boxwatch.RequestType]int{}
		for i, tr := range requests {
			tr = f.settled(t, tr.ID)
			if tr.ShipmentID == "" {
				t.Fatalf("%s %s at %s: %s (%s), want a shipment", tr.RequestType, tr.RequestNumber, tr.SCAC, tr.Status, tr.FailedReason)
			}
			requests[i] = tr
			byType[tr.RequestType]++
		}
		t.Logf("%d shipments: %v", len(requests), byType)

		// A day at a time: every shipment is due once a round (the interval is an hour), and has
		// been refreshed once none is due any more.
		for day := 1; day <= 4; day++ {
			clock.Advance(24 * time.Hour)
			now := clock.Now()
			trackingtest.Eventually(t, 5*time.Minute, fmt.Sprintf("day %d: shipments still due", day), func() bool {
				due, err := f.db.DueShipments(ctx, now, 1)
				if err != nil {
					t.Fatal(err)
				}
				return len(due) == 0
			})
			for _, tr := range requests {
				s := f.shipmentOf(t, tr)
				switch {
				case s.StoppedAt.IsZero() && s.LastSucceededAt.Before(now):
					t.Errorf("day %d: %s %s at %s was last refreshed at %v", day, tr.RequestType, tr.RequestNumber, tr.SCAC, s.LastSucceededAt)
				case !s.StoppedAt.IsZero() && s.StoppedReason != boxwatch.StopAllContainersTerminated:
					t.Errorf("day %d: %s %s at %s stopped with %s", day, tr.RequestType, tr.RequestNumber, tr.SCAC, s.StoppedReason)
				}
			}
		}
		if n := counter(t, reg, "boxwatch_refresh_failures_total", nil); n != 0 {
			t.Errorf("%v refreshes failed", n)
		}
	})
}
