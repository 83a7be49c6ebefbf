package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// TestUnchangedTerminalTakesNoLock: every lookup and refresh saves the terminals its route
// mentions. On PostgreSQL a save that changes nothing must not wait for the terminal's row lock,
// or every transaction through a busy terminal queues behind the others (with 1,000,000
// containers, most of background work's connections waited there). A save that does change the
// terminal still waits for the lock, as it must.
func TestUnchangedTerminalTakesNoLock(t *testing.T) {
	storetest.RequirePostgres(t)
	db := storetest.Postgres.Open(t)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	term := boxwatch.Terminal{ID: boxwatch.TerminalID("SGSIN", "PSAPP"), LOCODE: "SGSIN", SMDGCode: "PSAPP", Name: "Pasir Panjang",
		CreatedAt: now, UpdatedAt: now}
	save := func(ctx context.Context, term boxwatch.Terminal) error {
		return db.InTx(ctx, func(tx boxwatch.Tx) error { return tx.SaveTerminal(ctx, term) })
	}
	if err := save(ctx, term); err != nil {
		t.Fatal(err)
	}
	holder, err := db.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback(ctx) //nolint:errcheck // released either way
	if _, err := holder.Exec(ctx, "SELECT 1 FROM terminals WHERE id = $1 FOR UPDATE", term.ID); err != nil {
		t.Fatal(err)
	}
	later := term
	later.CreatedAt, later.UpdatedAt = now.Add(time.Hour), now.Add(time.Hour)
	nameless := later
	nameless.Name = ""
	for name, again := range map[string]boxwatch.Terminal{"the same terminal": later, "the terminal without a name": nameless} {
		short, cancel := context.WithTimeout(ctx, 2*time.Second)
		if err := save(short, again); err != nil {
			t.Errorf("saving %s while its row is locked: %v", name, err)
		}
		cancel()
	}
	renamed := later
	renamed.Name = "PSA Pasir Panjang"
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if err := save(short, renamed); err == nil {
		t.Error("a rename went through while the terminal's row was locked elsewhere")
	}
	holder.Rollback(ctx) //nolint:errcheck // the lock is released
	if err := save(ctx, renamed); err != nil {
		t.Fatal(err)
	}
	if got, err := db.Terminal(ctx, term.ID); err != nil || got.Name != renamed.Name || !got.UpdatedAt.Equal(renamed.UpdatedAt) {
		t.Errorf("after the rename: %+v, %v", got, err)
	}
}
