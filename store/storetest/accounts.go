package storetest

import (
	"errors"
	"testing"
	"time"

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

func testAccountList(t *testing.T, db *store.DB) {
	if list, err := db.Accounts(ctx); err != nil || len(list) != 0 {
		t.Fatalf("Accounts on an empty store = %v, %v; want none", list, err)
	}
	globex := MustCreateAccount(t, db, "globex")
	acme := MustCreateAccount(t, db, "acme", boxwatch.FeatureMap)
	list, err := db.Accounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != acme.ID || list[1].ID != globex.ID {
		t.Fatalf("Accounts = %+v, want acme then globex", list)
	}
	if !list[0].Has(boxwatch.FeatureMap) || list[1].Has(boxwatch.FeatureMap) || !list[0].CreatedAt.Equal(base) {
		t.Fatalf("Accounts lost features or times: %+v", list)
	}
}

func testRevokeAPIKey(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	b := MustCreateAccount(t, db, "globex")
	var keys []string
	var recs []boxwatch.APIKey
	for i, acct := range []boxwatch.Account{a, a, b} {
		key, rec, err := boxwatch.NewAPIKey(acct.ID, base.Add(time.Duration(i)*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if err := db.CreateAPIKey(ctx, rec); err != nil {
			t.Fatal(err)
		}
		keys, recs = append(keys, key), append(recs, rec)
	}
	list, err := db.APIKeys(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != recs[0].ID || list[1].ID != recs[1].ID || list[0].AccountID != a.ID ||
		!list[0].CreatedAt.Equal(base) || !list[1].Matches(keys[1]) {
		t.Fatalf("APIKeys(acme) = %+v, want its two keys oldest first", list)
	}
	for _, id := range []string{boxwatch.NewID(base), "not-an-account"} {
		if list, err := db.APIKeys(ctx, id); err != nil || len(list) != 0 {
			t.Fatalf("APIKeys(%q) = %v, %v; want none", id, list, err)
		}
	}

	if err := db.RevokeAPIKey(ctx, recs[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.APIKey(ctx, recs[0].ID); !errors.Is(err, boxwatch.ErrNotFound) {
		t.Fatalf("revoked key: APIKey err = %v, want ErrNotFound", err)
	}
	if err := db.RevokeAPIKey(ctx, recs[0].ID); !errors.Is(err, boxwatch.ErrNotFound) {
		t.Fatalf("revoking twice: err = %v, want ErrNotFound", err)
	}
	if err := db.RevokeAPIKey(ctx, "0000000000000000"); !errors.Is(err, boxwatch.ErrNotFound) {
		t.Fatalf("revoking an unknown key: err = %v, want ErrNotFound", err)
	}
	if list, _ := db.APIKeys(ctx, a.ID); len(list) != 1 || list[0].ID != recs[1].ID {
		t.Fatalf("after revoking: APIKeys(acme) = %+v, want only the second key", list)
	}
	for _, i := range []int{1, 2} {
		if k, _, err := db.APIKey(ctx, recs[i].ID); err != nil || !k.Matches(keys[i]) {
			t.Fatalf("key %d must survive another key's revocation: %v", i, err)
		}
	}
}

// testAPIKeyRevokedEverywhere: stores cache the keys they find (store.KeyCacheTTL). A key revoked
// through one store fails there at once, even while cached, and in another store on the same
// database (a replica, or serve while the apikey command revokes) within the TTL.
func testAPIKeyRevokedEverywhere(t *testing.T, b Backend) {
	dbs := openReplicas(t, b, 2)
	here, there := dbs[0], dbs[1]
	a := MustCreateAccount(t, here, "acme")
	_, rec, err := boxwatch.NewAPIKey(a.ID, base)
	if err != nil {
		t.Fatal(err)
	}
	if err := here.CreateAPIKey(ctx, rec); err != nil {
		t.Fatal(err)
	}
	for _, db := range dbs { // both caches hold the key
		if _, got, err := db.APIKey(ctx, rec.ID); err != nil || got.ID != a.ID {
			t.Fatalf("APIKey before revoking: %v, %v", got, err)
		}
	}
	if err := here.RevokeAPIKey(ctx, rec.ID); err != nil {
		t.Fatal(err)
	}
	revoked := time.Now()
	if _, _, err := here.APIKey(ctx, rec.ID); !errors.Is(err, boxwatch.ErrNotFound) {
		t.Fatalf("APIKey right after revoking, same store: %v, want ErrNotFound", err)
	}
	for {
		_, _, err := there.APIKey(ctx, rec.ID)
		if errors.Is(err, boxwatch.ErrNotFound) {
			t.Logf("revoked key refused by the other store after %v (TTL %v)", time.Since(revoked).Round(time.Millisecond), store.KeyCacheTTL)
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if time.Since(revoked) > store.KeyCacheTTL+time.Second {
			t.Fatalf("the other store still accepts the key %v after it was revoked (TTL %v)", time.Since(revoked), store.KeyCacheTTL)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
