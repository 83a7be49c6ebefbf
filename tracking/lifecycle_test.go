package tracking_test

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/internal/promtest"
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

// The leader's pass over due shipments is enqueued every ScheduleEvery, but at most one pass
// waits or runs at a time: ticks far quicker than one worker can take jobs up (River fetches at
// most every 100 ms) used to pile passes up, and as each goes before any refresh (priority 1
// against 2), a refresh asked for waited behind them indefinitely.
func TestSchedulePassesNeverPileUp(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		db := b.Open(t)
		if err := tracking.Migrate(ctx, db); err != nil {
			t.Fatal(err)
		}
		reg := prometheus.NewRegistry()
		e, err := tracking.New(tracking.Config{DB: db, Registry: data.Carriers(), Workers: 1, ScheduleEvery: 2 * time.Millisecond, Metrics: reg})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Stop(ctx) }) //nolint:errcheck // the test is over
		const passes = "boxwatch_job_runs_total kind=schedule_refreshes outcome=completed"
		most := 0
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			counts, err := e.Queue().Counts(ctx)
			if err != nil {
				t.Fatal(err)
			}
			unfinished := 0
			for _, c := range counts {
				if c.Kind == "schedule_refreshes" {
					unfinished += int(c.Jobs)
				}
			}
			most = max(most, unfinished)
			if most > 1 {
				t.Fatalf("%d passes over due shipments waiting or running at once (%v), want at most one", unfinished, counts)
			}
			if promtest.Gather(t, reg)[passes] >= 20 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("only %v passes in 30 s", promtest.Gather(t, reg)[passes])
			}
		}
	})
}
