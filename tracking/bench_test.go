package tracking_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// The benchmarks run the engine against the simulator with 100 ms of carrier latency, 20 workers,
// on each database. The baseline makes the same carrier calls from 20 goroutines with no engine
// and no database: the most the latency allows.

const (
	benchLatency = 100 * time.Millisecond
	benchWorkers = 20
)

var benchSerial atomic.Int64

// benchNumber is a fresh bill-of-lading number at sea (last digit 3), so refreshes find work.
func benchNumber() string { return fmt.Sprintf("MAEU%08d3", benchSerial.Add(1)) }

func benchBaseline(b *testing.B) {
	db := storetest.SQLite.Open(b)
	stack := trackingtest.Start(b, db, trackingtest.Options{SimLatency: benchLatency, Workers: -1})
	maersk := stack.Carriers["MAEU"]
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	for range benchWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				if _, err := maersk.Lookup(ctx, boxwatch.CarrierReference{Type: boxwatch.RequestBillOfLading, Number: benchNumber(), SCAC: "MAEU"}); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lookups/s")
}

// createShipments tracks n numbers and waits until every lookup settled.
func createShipments(b *testing.B, f *fixture, n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = f.track(b, boxwatch.RequestBillOfLading, benchNumber(), "MAEU").ID
	}
	for _, id := range ids {
		trackingtest.Eventually(b, 5*time.Minute, "lookups did not finish", func() bool {
			tr, err := f.db.TrackingRequest(ctx, f.account.ID, id)
			return err == nil && tr.Status != boxwatch.StatusPending
		})
	}
	return ids
}

func benchFixture(b *testing.B, be storetest.Backend, clock *trackingtest.Clock) *fixture {
	if be.Name == "postgres" {
		storetest.RequirePostgres(b)
	}
	db := be.Open(b)
	f := &fixture{db: db, clock: clock, account: storetest.MustCreateAccount(b, db, "bench")}
	f.stack = trackingtest.Start(b, db, trackingtest.Options{Clock: clock, SimLatency: benchLatency, Workers: benchWorkers,
		RefreshInterval: time.Hour, ScheduleEvery: 100 * time.Millisecond})
	return f
}

func BenchmarkLookup(b *testing.B) {
	b.Run("baseline", benchBaseline)
	for _, be := range storetest.Backends {
		b.Run(be.Name, func(b *testing.B) {
			f := benchFixture(b, be, trackingtest.NewClock(time.Now()))
			b.ResetTimer()
			createShipments(b, f, b.N)
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lookups/s")
		})
	}
}

func BenchmarkRefresh(b *testing.B) {
	b.Run("baseline", benchBaseline)
	for _, be := range storetest.Backends {
		b.Run(be.Name, func(b *testing.B) {
			clock := trackingtest.NewClock(time.Now())
			f := benchFixture(b, be, clock)
			ids := createShipments(b, f, b.N)
			shipments := make([]string, len(ids))
			for i, id := range ids {
				tr, _ := f.db.TrackingRequest(ctx, f.account.ID, id)
				shipments[i] = tr.ShipmentID
			}
			// Every shipment falls due at once; time until each has been refreshed.
			mark := clock.Now()
			clock.Advance(2 * time.Hour)
			b.ResetTimer()
			for _, id := range shipments {
				trackingtest.Eventually(b, 5*time.Minute, "refreshes did not finish", func() bool {
					s, err := f.db.Shipment(ctx, f.account.ID, id)
					return err == nil && s.LastSucceededAt.After(mark)
				})
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "refreshes/s")
		})
	}
}
