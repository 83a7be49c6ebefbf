package storetest

import (
	"maps"
	"slices"
	"testing"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/cache"
	"github.com/boxwatch/boxwatch/store"
)

// testCacheStats: the store reports each of its caches, within its bound, at the defaults: the
// statements and the API keys on both databases, and PostgreSQL's read cache.
func testCacheStats(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	_, rec, err := boxwatch.NewAPIKey(a.ID, base)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.CreateAPIKey(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.APIKey(ctx, rec.ID); err != nil {
		t.Fatal(err)
	}
	s := mustCreateShipment(t, db, a.ID, "MAEU123456789", base)
	if _, err := db.ShipmentsByID(ctx, a.ID, []string{s.ID}); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"statements": store.DefaultStatementCacheBytes, "api_keys": store.DefaultKeyCacheBytes,
		"read": store.DefaultReadCacheBytes}
	got := map[string]cache.Stats{}
	for _, stats := range db.CacheStats() {
		st := stats()
		if st.Name == "" {
			t.Errorf("a cache without a name: %+v", st)
		}
		got[st.Name] = st
	}
	for name, max := range want {
		st, ok := got[name]
		if !ok {
			t.Errorf("CacheStats has no %s cache: %v", name, got)
			continue
		}
		if st.MaxBytes != max || st.Bytes > st.MaxBytes || st.Bytes < 0 {
			t.Errorf("%s: %+v, want a bound of %d holding no more", name, st, max)
		}
	}
	if len(got) != len(want) {
		t.Errorf("caches %v, want %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
	if st := got["statements"]; st.Entries == 0 || st.Bytes == 0 {
		t.Errorf("statements after a few: %+v, want them held", st)
	}
	if st := got["api_keys"]; st.Entries != 1 {
		t.Errorf("api_keys after one lookup: %+v, want one", st)
	}
}

// testKeyCacheBound: the API keys verified are held to their byte bound, and a key evicted is
// read again, correctly.
func testKeyCacheBound(t *testing.T, b Backend) {
	const max = 4 << 10
	db, err := store.OpenWith(ctx, b.DSN(t), store.Options{KeyCacheBytes: max})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	a := MustCreateAccount(t, db, "acme")
	var ids []string
	for range 50 {
		_, rec, err := boxwatch.NewAPIKey(a.ID, base)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.CreateAPIKey(ctx, rec); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, rec.ID)
	}
	for range 2 {
		for _, id := range ids {
			k, acct, err := db.APIKey(ctx, id)
			if err != nil || k.ID != id || acct.ID != a.ID {
				t.Fatalf("APIKey(%s) = %+v, %+v, %v", id, k, acct, err)
			}
		}
	}
	for _, stats := range db.CacheStats() {
		if st := stats(); st.Name == "api_keys" {
			if st.Bytes > max || st.MaxBytes != max || st.Evictions == 0 || st.Entries >= len(ids) {
				t.Errorf("api_keys after %d keys looked up twice: %+v, want evictions within %d bytes", len(ids), st, max)
			}
			return
		}
	}
	t.Error("no api_keys cache")
}
