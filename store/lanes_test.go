package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// TestRequestsHaveTheirOwnConnections: with every connection background work reads with held
// (on PostgreSQL its pool, on SQLite its readers), as a burst of jobs holds them, an API request's
// reads and its transaction still run, and background work waits for its own connections.
func TestRequestsHaveTheirOwnConnections(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		db := b.Open(t)
		ctx := context.Background()
		held, release, err := db.HoldBackgroundConnections(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		now := time.Now()
		// Background work finds no connection before its deadline.
		bg, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		if _, err := db.DueShipments(bg, now, 10); err == nil {
			t.Fatal("a background read ran with every connection of its pool held")
		}
		// A request's read and transaction run.
		req, cancel := context.WithTimeout(store.ForRequest(ctx), 30*time.Second)
		defer cancel()
		if _, err := db.DueShipments(req, now, 10); err != nil {
			t.Fatalf("a request's read: %v", err)
		}
		if err := db.Ping(req); err != nil {
			t.Fatalf("a request's readiness ping: %v", err)
		}
		err = db.InTx(req, func(tx boxwatch.Tx) error {
			_, err := tx.LockShipment(req, boxwatch.NewID(now))
			if errors.Is(err, boxwatch.ErrNotFound) {
				return nil
			}
			return err
		})
		if err != nil {
			t.Fatalf("a request's transaction: %v", err)
		}
		background := map[store.Dialect]string{store.Postgres: "postgres", store.SQLite: "sqlite_readers"}[db.Dialect()]
		for _, p := range db.PoolStats() {
			if p.Name == background && p.InUse != held {
				t.Errorf("background pool %s: %d in use, want the %d held", p.Name, p.InUse, held)
			}
		}
	})
}
