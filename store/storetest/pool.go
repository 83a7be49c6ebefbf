package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/store"
)

func testPoolStats(t *testing.T, db *store.DB) {
	// A read of background work, and one of a request (on PostgreSQL, a pool each).
	for _, c := range []context.Context{ctx, store.ForRequest(ctx)} {
		if _, err := db.DueShipments(c, time.Now(), 1); err != nil {
			t.Fatal(err)
		}
	}
	pools := db.PoolStats()
	want := map[store.Dialect][]string{store.SQLite: {"sqlite_writer", "sqlite_readers", "sqlite_request_readers"}, store.Postgres: {"postgres", "postgres_requests"}}[db.Dialect()]
	var names []string
	for _, p := range pools {
		names = append(names, p.Name)
		if p.MaxOpen < 1 || p.Open < 1 || p.Open > p.MaxOpen || p.InUse+p.Idle != p.Open || p.Waits < 0 {
			t.Errorf("pool %+v: want 1 ≤ open ≤ max, open = in use + idle, after a read", p)
		}
	}
	if !slices.Equal(names, want) {
		t.Errorf("pools %v, want %v", names, want)
	}
}
