package storetest

import (
	"errors"
	"testing"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
)

func testAccounts(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme", boxwatch.FeatureMap)
	got, err := db.AccountByName(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != a.ID || got.Name != "acme" || !got.Has(boxwatch.FeatureMap) || !got.CreatedAt.Equal(base) {
		t.Fatalf("AccountByName = %+v, want %+v", got, a)
	}
	err = db.CreateAccount(ctx, boxwatch.Account{ID: boxwatch.NewID(base), Name: "acme", CreatedAt: base})
	if !boxwatch.IsKind(err, boxwatch.KindConflict) {
		t.Fatalf("second account named acme: err = %v, want KindConflict", err)
	}
	if _, err := db.AccountByName(ctx, "nobody"); !errors.Is(err, boxwatch.ErrNotFound) {
		t.Fatalf("unknown account: err = %v, want ErrNotFound", err)
	}
}

func testAPIKeys(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	key, rec, err := boxwatch.NewAPIKey(a.ID, base)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.CreateAPIKey(ctx, rec); err != nil {
		t.Fatal(err)
	}
	id, ok := boxwatch.ParseAPIKey(key)
	if !ok {
		t.Fatalf("ParseAPIKey(%q) failed", key)
	}
	got, acct, err := db.APIKey(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if acct.ID != a.ID || got.AccountID != a.ID || !got.Matches(key) || got.Matches(key[:len(key)-1]+"x") {
		t.Fatalf("APIKey = %+v, %+v", got, acct)
	}
	if _, _, err := db.APIKey(ctx, "0000000000000000"); !errors.Is(err, boxwatch.ErrNotFound) {
		t.Fatalf("unknown key: err = %v, want ErrNotFound", err)
	}
	_, orphan, _ := boxwatch.NewAPIKey(boxwatch.NewID(base), base)
	if err := db.CreateAPIKey(ctx, orphan); !errors.Is(err, boxwatch.ErrNotFound) {
		t.Fatalf("key for an unknown account: err = %v, want ErrNotFound", err)
	}
}

func testMigrateTwice(t *testing.T, b Backend) {
	dsn := b.DSN(t)
	for range 2 {
		db, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		v, err := db.SchemaVersion(ctx)
		db.Close()
		if err != nil || v < 1 {
			t.Fatalf("schema version %d, err %v", v, err)
		}
	}
}

func testPingAndClose(t *testing.T, b Backend) {
	db := b.Open(t)
	if want := store.Dialect(b.Name); db.Dialect() != want {
		t.Errorf("Dialect() = %q, want %q", db.Dialect(), want)
	}
	if err := db.Ping(ctx); err != nil {
		t.Fatalf("Ping on an open store: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := db.Ping(ctx); err == nil {
		t.Fatal("Ping after Close succeeded, want an error")
	}
	if _, err := db.AccountByName(ctx, "acme"); err == nil || errors.Is(err, boxwatch.ErrNotFound) {
		t.Fatalf("read after Close: err = %v, want a failure that is not ErrNotFound", err)
	}
}
