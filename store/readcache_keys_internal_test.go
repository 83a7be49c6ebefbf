package store

import (
	"os"
	"regexp"
	"testing"
)

// TestSQLiteHookNamesEveryCachedKey: every key prefix the read cache stores under (each
// `func …Key(…) string { return "prefix:" + … }` of readcache.go) is named by SQLite's pre-update
// hook (cachedColumns), or a write on SQLite would leave the cached object behind. PostgreSQL's
// triggers name the same prefixes; full_shipments is evicted with its shipment's key.
func TestSQLiteHookNamesEveryCachedKey(t *testing.T) {
	src, err := os.ReadFile("readcache.go")
	if err != nil {
		t.Fatal(err)
	}
	keys := regexp.MustCompile(`func \w+Key\(\w+ string\) string\s*\{\s*return "([a-z_]+:)" \+`).FindAllSubmatch(src, -1)
	if len(keys) < 10 {
		t.Fatalf("found %d key functions in readcache.go; the pattern no longer matches them", len(keys))
	}
	named := map[string]bool{"full_shipments:": true}
	for _, cols := range cachedColumns {
		for _, c := range cols {
			named[c[1]] = true
		}
	}
	for _, k := range keys {
		if !named[string(k[1])] {
			t.Errorf("the read cache stores under %q, which SQLite's hook (cachedColumns) never names", k[1])
		}
	}
}
