package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/eta"
	"github.com/boxwatch/boxwatch/journey/journeytest"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// serve learns the waits at ports from the database on start: the arrivals its shipments
// recorded in the last weeks and their vessels' stored tracks, each call once, and reports them,
// bounded, in the cache metrics.
func TestServeLearnsWaitsOnStart(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		dsn := b.DSN(t)
		db, err := store.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC().Truncate(time.Hour)
		var calls []journeytest.PastCall
		for k := range 5 {
			calls = append(calls, journeytest.PastCall{IMO: journeytest.IMO(960000 + k), MMSI: fmt.Sprint(244200000 + k),
				ATA: now.Add(-time.Duration(30-5*k) * 24 * time.Hour), SuezWait: 10 * time.Hour, PortWait: 40 * time.Hour})
		}
		// One call before the window learned from: not learned.
		calls = append(calls, journeytest.PastCall{IMO: journeytest.IMO(960010), MMSI: "244200010",
			ATA: now.Add(-70 * 24 * time.Hour), SuezWait: 10 * time.Hour, PortWait: 40 * time.Hour})
		journeytest.MustSeedPastCalls(t, db, calls)
		db.Close()

		s := startAdminServer(t, dsn)
		var m series
		trackingtest.Eventually(t, 60*time.Second, "the waits were not learned", func() bool {
			m = s.scrape(t)
			n, _ := m.sum("boxwatch_cache_entries", `cache="eta_waits"`)
			return n >= 10
		})
		for _, c := range []struct {
			name, cache string
			want        float64
		}{
			{"boxwatch_cache_entries", "eta_waits", 10}, // a wait at Suez and one at Rotterdam per call
			{"boxwatch_cache_max_bytes", "eta_waits", eta.MaxBytes},
			{"boxwatch_cache_entries", "learned_arrivals", 5},
		} {
			if got, _ := m.sum(c.name, `cache="`+c.cache+`"`); got != c.want {
				t.Errorf("%s{cache=%q} = %v, want %v", c.name, c.cache, got, c.want)
			}
		}
		if got, _ := m.sum("boxwatch_cache_bytes", `cache="eta_waits"`); got <= 0 || got > eta.MaxBytes {
			t.Errorf("eta_waits weighs %v bytes", got)
		}
	})
}
