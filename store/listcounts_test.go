package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// TestListCountWritersDoNotWait: on PostgreSQL, while one transaction that inserted a tracking
// request for an account is still open, another create for the same account commits: it waits for
// no lock the first holds (as it did when the account's count was one row). Twice: before the
// account has a count row, and once it has one.
func TestListCountWritersDoNotWait(t *testing.T) {
	storetest.RequirePostgres(t)
	db := storetest.Postgres.Open(t)
	ctx := context.Background()
	a := storetest.MustCreateAccount(t, db, "acme")
	for round := range 2 {
		held, err := db.Pool().Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var pid uint32
		if err := held.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
			t.Fatal(err)
		}
		insertRequest(t, held, a.ID, fmt.Sprintf("HELD%04d", round))

		now := time.Now().UTC()
		tr := boxwatch.TrackingRequest{ID: boxwatch.NewID(now), AccountID: a.ID, RequestType: boxwatch.RequestBillOfLading,
			RequestNumber: fmt.Sprintf("FREE%04d", round), SCAC: "MSCU", Status: boxwatch.StatusPending, CreatedAt: now, UpdatedAt: now}
		done := make(chan error, 1)
		go func() { done <- db.CreateTrackingRequest(ctx, tr) }()
		// The create either commits, or waits on a lock the held transaction's backend holds.
		var waited bool
		for created := false; !created && !waited; {
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
				created = true
			case <-time.After(5 * time.Millisecond):
				var blocked int
				if err := db.Pool().QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))", pid).Scan(&blocked); err != nil {
					t.Fatal(err)
				}
				waited = blocked > 0
			}
		}
		if err := held.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if waited {
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			t.Fatalf("round %d: a create waited for another transaction inserting for the same account", round)
		}
		if _, total, err := db.TrackingRequests(ctx, a.ID, boxwatch.TrackingRequestFilter{}, boxwatch.Page{Number: 1, Size: 1}); err != nil || total.N != 2*(round+1) {
			t.Fatalf("round %d: total %+v, %v; want %d", round, total, err, 2*(round+1))
		}
	}
}

// TestFoldListCountsHeld: a fold leaves the count rows an open transaction holds and merges the
// others; the totals read before, during and after are the rows the tables hold.
func TestFoldListCountsHeld(t *testing.T) {
	storetest.RequirePostgres(t)
	db := storetest.Postgres.Open(t)
	ctx := context.Background()
	a := storetest.MustCreateAccount(t, db, "acme")
	total := func() int {
		t.Helper()
		_, total, err := db.TrackingRequests(ctx, a.ID, boxwatch.TrackingRequestFilter{}, boxwatch.Page{Number: 1, Size: 1})
		if err != nil {
			t.Fatal(err)
		}
		return total.N
	}
	countRows := func() int {
		t.Helper()
		var n int
		if err := db.Pool().QueryRow(ctx, "SELECT count(*) FROM list_counts WHERE account_id = $1 AND kind = 'tracking_requests'", a.ID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	fold := func(want int64) {
		t.Helper()
		if n, err := db.FoldListCounts(ctx, 100); err != nil || n != want {
			t.Fatalf("fold: %d rows, %v; want %d", n, err, want)
		}
	}

	// Three transactions open at once, each adding to a row of its own.
	var held []pgx.Tx
	for i := range 3 {
		tx, err := db.Pool().Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		// A writer that waited for another (one count row per account) would wait for ever here.
		if _, err := tx.Exec(ctx, "SET LOCAL lock_timeout = '10s'"); err != nil {
			t.Fatal(err)
		}
		insertRequest(t, tx, a.ID, fmt.Sprintf("HELD%04d", i))
		held = append(held, tx)
	}
	for _, tx := range held {
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	insertRequest(t, db.Pool(), a.ID, "FREE0001")
	if got := countRows(); got != 3 || total() != 4 {
		t.Fatalf("after three writers at once: %d count rows, total %d; want 3 rows, total 4", got, total())
	}
	// A writer holds the first row; the fold merges the two others.
	tx, err := db.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	insertRequest(t, tx, a.ID, "HELD0004")
	fold(1)
	if got := countRows(); got != 2 || total() != 4 {
		t.Fatalf("after a fold with one row held: %d count rows, total %d; want 2 rows, total 4", got, total())
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	fold(1)
	fold(0)
	if got := countRows(); got != 1 || total() != 5 {
		t.Fatalf("after folding everything: %d count rows, total %d; want 1 row, total 5", got, total())
	}
}

// TestMigrateListCountSlots: the counts kept in one row per account and table carry over exactly
// into the rows of migration 0020, including rows written under the old triggers, and are kept
// from then on.
func TestMigrateListCountSlots(t *testing.T) {
	storetest.RequirePostgres(t)
	ctx := context.Background()
	dsn := storetest.Postgres.DSN(t)
	db, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	acme, globex := storetest.MustCreateAccount(t, db, "acme"), storetest.MustCreateAccount(t, db, "globex")
	// Two rows for acme's count before the rollback, which must merge them.
	held, err := db.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	insertRequest(t, held, acme.ID, "BEFORE0001")
	insertRequest(t, db.Pool(), acme.ID, "BEFORE0002")
	if err := held.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	rollBack(t, db, "list_count_slots")
	insertRequest(t, db.Pool(), acme.ID, "OLD0001")
	insertRequest(t, db.Pool(), globex.ID, "OLD0002")
	insertRequest(t, db.Pool(), globex.ID, "OLD0003")
	if _, err := db.Pool().Exec(ctx, "DELETE FROM tracking_requests WHERE request_number = 'OLD0003'"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if db, err = store.Open(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	insertRequest(t, db.Pool(), globex.ID, "NEW0001")
	for _, tt := range []struct {
		a    boxwatch.Account
		want int
	}{{acme, 3}, {globex, 2}} {
		_, total, err := db.TrackingRequests(ctx, tt.a.ID, boxwatch.TrackingRequestFilter{}, boxwatch.Page{Number: 1, Size: 1})
		if err != nil || total != (boxwatch.Total{N: tt.want}) {
			t.Errorf("%s after the migration: total %+v, %v; want %d", tt.a.Name, total, err, tt.want)
		}
	}
}

// insertRequest inserts a pending tracking request by SQL, in tx or on its own.
func insertRequest(t *testing.T, tx interface {
	Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
}, accountID, number string) {
	t.Helper()
	now := time.Now().UTC()
	_, err := tx.Exec(context.Background(), `INSERT INTO tracking_requests (id, account_id, request_type, request_number, scac, status, created_at, updated_at)
		VALUES ($1, $2, 'bill_of_lading', $3, 'MSCU', 'pending', $4, $4)`, boxwatch.NewID(now), accountID, number, now)
	if err != nil {
		t.Fatal(err)
	}
}
