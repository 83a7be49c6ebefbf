package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
)

func testInTx(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	errBoom := errors.New("boom")
	tests := []struct {
		name       string
		fnErr      error
		wantStored bool
	}{
		{"OK", nil, true},
		{"ErrorRollsBack", errBoom, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTR(a.ID, "N-"+tt.name, "MSCU", base)
			afterCommit := 0
			var sawCommitted bool
			err := db.InTx(ctx, func(tx boxwatch.Tx) error {
				tx.AfterCommit(func() {
					afterCommit++
					// Runs once the data is visible to everyone, not merely to the transaction.
					_, err := db.TrackingRequest(ctx, a.ID, tr.ID)
					sawCommitted = err == nil
				})
				if err := tx.CreateTrackingRequest(ctx, tr); err != nil {
					return err
				}
				if afterCommit != 0 {
					t.Error("AfterCommit ran inside the transaction")
				}
				return tt.fnErr
			})
			if !errors.Is(err, tt.fnErr) {
				t.Fatalf("InTx = %v, want fn's error %v returned as is", err, tt.fnErr)
			}
			_, err = db.TrackingRequest(ctx, a.ID, tr.ID)
			if stored := err == nil; stored != tt.wantStored {
				t.Fatalf("stored = %v (err %v), want %v", stored, err, tt.wantStored)
			}
			wantRuns := 0
			if tt.wantStored {
				wantRuns = 1
			}
			if afterCommit != wantRuns || sawCommitted != tt.wantStored {
				t.Fatalf("AfterCommit ran %d times (saw the commit: %v), want %d", afterCommit, sawCommitted, wantRuns)
			}
		})
	}
}

// testInTxPanic is a regression test: SQLite used to leave its single writer connection inside
// the open transaction after a panic, so every later write hung.
func testInTxPanic(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	tr := newTR(a.ID, "PANIC", "MSCU", base)
	ran := false
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Fatalf("recovered %v, want the panic to continue out of InTx", r)
			}
		}()
		db.InTx(ctx, func(tx boxwatch.Tx) error {
			tx.AfterCommit(func() { ran = true })
			if err := tx.CreateTrackingRequest(ctx, tr); err != nil {
				return err
			}
			panic("boom")
		})
		t.Fatal("InTx returned after its function panicked")
	}()
	if ran {
		t.Error("AfterCommit ran after a panic")
	}
	if _, err := db.TrackingRequest(ctx, a.ID, tr.ID); !errors.Is(err, boxwatch.ErrNotFound) {
		t.Fatalf("the panicking transaction's write: err = %v, want ErrNotFound (rolled back)", err)
	}

	// The next transaction must neither hang nor fail.
	next, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	again := newTR(a.ID, "PANIC", "MSCU", base)
	if err := db.InTx(next, func(tx boxwatch.Tx) error { return tx.CreateTrackingRequest(next, again) }); err != nil {
		t.Fatalf("transaction after a panic: %v", err)
	}
	if err := db.CreateTrackingRequest(next, newTR(a.ID, "AFTER", "MSCU", base)); err != nil {
		t.Fatalf("write after a panic: %v", err)
	}
}
