package tracking_test

import (
	"context"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking"
)

// Start and Stop are safe in any order and idempotent: Stop before Start used to panic.
func TestEngineStartStopAnyOrder(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		db := b.Open(t)
		if err := tracking.Migrate(ctx, db); err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{0, 2} {
			e, err := tracking.New(tracking.Config{DB: db, Registry: data.Carriers(), Workers: workers, ScheduleEvery: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			stopCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
			for i, step := range []func(context.Context) error{e.Stop, e.Stop, e.Start, e.Start, e.Stop, e.Stop, e.Start, e.Stop} {
				if err := step(stopCtx); err != nil {
					t.Fatalf("workers %d, step %d: %v", workers, i, err)
				}
			}
			cancel()
		}
	})
}
