package store_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/internal/pgcluster"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// wantUnavailable fails the test unless err is the domain's "unavailable" error.
func wantUnavailable(t *testing.T, what string, err error) {
	t.Helper()
	if !boxwatch.IsKind(err, boxwatch.KindUnavailable) {
		t.Fatalf("%s during the outage: %v (%T), want a KindUnavailable error", what, err, err)
	}
}

// A PostgreSQL server that goes away turns every store call into KindUnavailable (never a raw
// driver error, which the API would answer 500), and the store serves again once it is back.
func TestPostgresOutageIsUnavailable(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and stops a private PostgreSQL server; skipped with -short")
	}
	c := pgcluster.Start(t)
	c.CreateDatabase(t, "outage")
	ctx := context.Background()
	db, err := store.Open(ctx, c.URL("outage"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	a := storetest.MustCreateAccount(t, db, "before")

	for _, mode := range []string{pgcluster.Fast, pgcluster.Immediate} {
		t.Run(mode, func(t *testing.T) {
			c.Stop(t, mode)
			// The pool still holds connections the server has closed: the first call on each
			// finds out mid-statement, later ones cannot connect. Both are outages.
			for i := range 3 {
				_, err := db.AccountByName(ctx, a.Name)
				wantUnavailable(t, "AccountByName", err)
				err = db.CreateAccount(ctx, newAccount("during-"+mode+string(rune('a'+i))))
				wantUnavailable(t, "CreateAccount", err)
				err = db.InTx(ctx, func(tx boxwatch.Tx) error {
					_, err := tx.LockAccountShipment(ctx, a.ID, "none")
					return err
				})
				wantUnavailable(t, "InTx", err)
			}
			pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			if err := db.Ping(pingCtx); err == nil {
				t.Fatal("Ping succeeded with the server down")
			}
			c.Restart(t)
			if _, err := db.AccountByName(ctx, a.Name); err != nil {
				t.Fatalf("after the restart: %v", err)
			}
		})
	}
}

// A SQLite write that cannot get the lock within its deadline (another process holds it) is
// KindUnavailable, not an internal error.
func TestSQLiteLockedIsUnavailable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "boxwatch.db")
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	other, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	err = db.CreateAccount(short, newAccount("locked-out"))
	wantUnavailable(t, "CreateAccount", err)
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateAccount(ctx, newAccount("after")); err != nil {
		t.Fatalf("after the lock is released: %v", err)
	}
}

func newAccount(name string) boxwatch.Account {
	now := time.Now()
	return boxwatch.Account{ID: boxwatch.NewID(now), Name: name, Features: []boxwatch.Feature{}, CreatedAt: now}
}
