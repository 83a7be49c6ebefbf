package tracking_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// The engine hands over every vessel arrival a shipment's route records, once, after the
// transaction recording it commits: those already past at the first lookup, and those a refresh
// brings.
func TestArrivalsHandedOver(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		var mu sync.Mutex
		var handed []boxwatch.VesselArrival
		clock := trackingtest.NewClock(time.Now())
		f := newFixture(t, b, trackingtest.Options{Clock: clock, RefreshInterval: time.Hour, Arrived: func(as []boxwatch.VesselArrival) {
			mu.Lock()
			defer mu.Unlock()
			handed = append(handed, as...)
		}})
		// Arriving next (7), discharged (8), at a stage between (5).
		var ids []string
		for _, d := range "578" {
			ids = append(ids, f.settled(t, f.track(t, boxwatch.RequestBillOfLading, "ONEYSH12345"+string(d), "ONEY").ID).ShipmentID)
		}
		recorded := func() []boxwatch.VesselArrival {
			var out []boxwatch.VesselArrival
			for _, id := range ids {
				s, err := f.db.Shipment(ctx, f.account.ID, id)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, s.Arrivals()...)
			}
			return out
		}
		same := func() bool {
			mu.Lock()
			defer mu.Unlock()
			want := recorded()
			if len(handed) != len(want) {
				return false
			}
			for _, a := range want {
				if slices.IndexFunc(handed, func(h boxwatch.VesselArrival) bool {
					return h.VesselIMO == a.VesselIMO && h.LOCODE == a.LOCODE && h.Arrived.Equal(a.Arrived) && h.Departed.Equal(a.Departed)
				}) < 0 {
					return false
				}
			}
			return true
		}
		trackingtest.Eventually(t, 20*time.Second, "the arrivals recorded at the first lookups were not handed over", same)
		before := len(recorded())
		if before == 0 {
			t.Fatal("no arrival recorded at the first lookups: the discharged shipment has one")
		}
		// A day after the estimated arrival of the vessel arriving next (7), it has arrived: the
		// refresh hands its arrival over.
		arriving, err := f.db.Shipment(ctx, f.account.ID, ids[1])
		if err != nil {
			t.Fatal(err)
		}
		pod, _ := arriving.POD()
		clock.Advance(max(24*time.Hour, pod.ETA.Sub(clock.Now())+24*time.Hour))
		trackingtest.Eventually(t, 30*time.Second, "the new arrival was not handed over", func() bool {
			return len(recorded()) > before && same()
		})
		// Later refreshes with nothing new hand nothing again.
		s, _ := f.db.Shipment(ctx, f.account.ID, ids[0])
		clock.Advance(2 * time.Hour)
		trackingtest.Eventually(t, 30*time.Second, "no further refresh", func() bool {
			s2, _ := f.db.Shipment(ctx, f.account.ID, ids[0])
			return s2.LastSucceededAt.After(s.LastSucceededAt)
		})
		if !same() {
			mu.Lock()
			defer mu.Unlock()
			t.Errorf("handed %v, recorded %v", handed, recorded())
		}
	})
}
