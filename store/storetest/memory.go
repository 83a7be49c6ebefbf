package storetest

import (
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/store"
)

func testRateLimiter(t *testing.T, db *store.DB) {
	l := db.Limiter()
	for i := range 5 {
		ok, _, err := l.Allow(ctx, "acct:a:create", 5, time.Minute)
		if err != nil || !ok {
			t.Fatalf("request %d of 5: ok=%v err=%v; want admitted", i+1, ok, err)
		}
	}
	ok, retry, err := l.Allow(ctx, "acct:a:create", 5, time.Minute)
	if err != nil || ok {
		t.Fatalf("6th request: ok=%v err=%v; want refused", ok, err)
	}
	// One request frees up every period/limit = 12 s.
	if retry <= 0 || retry > 12*time.Second {
		t.Fatalf("retryAfter = %v, want within (0, 12s]", retry)
	}
	if ok, _, _ := l.Allow(ctx, "acct:b:create", 5, time.Minute); !ok {
		t.Fatal("another bucket must not be affected")
	}
	if err := db.SweepRateLimits(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, _, _ := l.Allow(ctx, "acct:a:create", 5, time.Minute); ok {
		t.Fatal("sweeping must keep buckets that are not yet full")
	}
}

func testFirstSeen(t *testing.T, db *store.DB) {
	first, err := db.FirstSeen(ctx, "MAEU/1", base)
	if err != nil || !first.Equal(base) {
		t.Fatalf("first call: %v, %v; want %v", first, err, base)
	}
	if again, err := db.FirstSeen(ctx, "MAEU/1", at(time.Hour)); err != nil || !again.Equal(base) {
		t.Fatalf("later call: %v, %v; want the first time %v", again, err, base)
	}
	if other, err := db.FirstSeen(ctx, "MAEU/2", at(time.Hour)); err != nil || !other.Equal(at(time.Hour)) {
		t.Fatalf("another key: %v, %v; want %v", other, err, at(time.Hour))
	}
}

func testIncrement(t *testing.T, db *store.DB) {
	for want := 1; want <= 3; want++ {
		if got, err := db.Increment(ctx, "a"); err != nil || got != want {
			t.Fatalf("Increment(a) = %d, %v; want %d", got, err, want)
		}
	}
	if got, err := db.Increment(ctx, "b"); err != nil || got != 1 {
		t.Fatalf("Increment(b) = %d, %v; want 1: counters are independent", got, err)
	}
}

func testSweepRateLimits(t *testing.T, db *store.DB) {
	l := db.Limiter()
	// A bucket that is full again a microsecond later, and one that stays drained for a minute.
	if ok, _, err := l.Allow(ctx, "short", 1, time.Microsecond); err != nil || !ok {
		t.Fatalf("short bucket: ok=%v err=%v", ok, err)
	}
	if ok, _, err := l.Allow(ctx, "long", 1, time.Minute); err != nil || !ok {
		t.Fatalf("long bucket: ok=%v err=%v", ok, err)
	}
	if err := db.SweepRateLimits(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, _, _ := l.Allow(ctx, "long", 1, time.Minute); ok {
		t.Fatal("sweeping forgot a bucket that is still drained")
	}
	if db.Dialect() != store.Postgres {
		return
	}
	var keys []string
	rows, err := db.Pool().Query(ctx, "SELECT key FROM rate_limits ORDER BY key")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	if rows.Err() != nil || len(keys) != 1 || keys[0] != "long" {
		t.Fatalf("buckets after the sweep: %v (err %v); want only long", keys, rows.Err())
	}
}
