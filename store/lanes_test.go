package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// TestRequestsHaveTheirOwnConnections: on PostgreSQL, with every connection of background work's
// pool held (transactions left open, as a burst of jobs holds them), an API request's reads and
// its transaction still run, and background work waits for its own pool.
func TestRequestsHaveTheirOwnConnections(t *testing.T) {
	storetest.RequirePostgres(t)
	db := storetest.Postgres.Open(t)
	ctx := context.Background()
	var held []pgx.Tx
	defer func() {
		for _, tx := range held {
			tx.Rollback(ctx)
		}
	}()
	for range db.Pool().Config().MaxConns {
		tx, err := db.Pool().Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, tx)
	}
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
	err := db.InTx(req, func(tx boxwatch.Tx) error {
		_, err := tx.LockShipment(req, boxwatch.NewID(now))
		if errors.Is(err, boxwatch.ErrNotFound) {
			return nil
		}
		return err
	})
	if err != nil {
		t.Fatalf("a request's transaction: %v", err)
	}
	var names []string
	for _, p := range db.PoolStats() {
		names = append(names, p.Name)
		if p.Name == "postgres" && p.InUse != len(held) {
			t.Errorf("background pool: %d in use, want the %d held", p.InUse, len(held))
		}
	}
	if len(names) != 2 || names[0] != "postgres" || names[1] != "postgres_requests" {
		t.Errorf("pools %v, want postgres and postgres_requests", names)
	}
}
