package storetest

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
)

// The rate limiter's tolerance across replicas (see store.leaseLimiter): a replica takes a
// fiftieth of the limit at a time, so at most that many tokens minus one sit in one idle
// replica's lease; it gives them back with its next batch once its lease ends, a sixtieth of the
// period later. Every admitted request holds a token of the shared bucket.

// openReplicas opens n stores on one new database, as n replicas would: each with its own pool
// and its own limiter.
func openReplicas(t *testing.T, b Backend, n int) []*store.DB {
	t.Helper()
	dsn := b.DSN(t)
	dbs := make([]*store.DB, n)
	for i := range dbs {
		db, err := store.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs[i] = db
	}
	return dbs
}

// refill is how many tokens a bucket of limit per period gains in d, rounded up.
func refill(d time.Duration, limit int, period time.Duration) int {
	interval := period / time.Duration(limit)
	return int((d + interval - 1) / interval)
}

// testLimiterReplicas hammers one bucket from four replicas, four clients each, until every
// client is refused: together they admit the limit, give or take what the bucket refilled
// meanwhile, however the tokens were leased.
func testLimiterReplicas(t *testing.T, b Backend) {
	if b.Name != "postgres" {
		t.Skip("SQLite serves one process: its limiter is in process, and exact")
	}
	const limit, period = 1000, time.Hour
	dbs := openReplicas(t, b, 4)
	var admitted, refused atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for _, db := range dbs {
		l := db.Limiter()
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					ok, retry, err := l.Allow(ctx, "acct:hot:default", limit, period)
					if err != nil {
						t.Error(err)
						return
					}
					if !ok {
						if retry <= 0 || retry > period/limit {
							t.Errorf("retryAfter %v, want within (0, %v]", retry, period/limit)
						}
						refused.Add(1)
						return
					}
					admitted.Add(1)
				}
			}()
		}
	}
	wg.Wait()
	elapsed := time.Since(start)
	got, most := int(admitted.Load()), limit+refill(elapsed, limit, period)
	t.Logf("4 replicas × 4 clients: %d admitted of a limit of %d in %v (refill allows %d)", got, limit, elapsed, most)
	if got < limit || got > most {
		t.Fatalf("%d admitted, want between %d and %d", got, limit, most)
	}
}

// testLimiterIdleReplica: a replica that took a batch and went quiet holds back at most a batch
// less one; once its lease ends, its next request gives the rest back, and the replicas together
// have admitted the limit.
func testLimiterIdleReplica(t *testing.T, b Backend) {
	if b.Name != "postgres" {
		t.Skip("SQLite serves one process: its limiter is in process, and exact")
	}
	const limit, period, batch = 1000, time.Hour, 1000 / 50
	dbs := openReplicas(t, b, 2)
	quietClock := &manualClock{t: time.Now()}
	quiet, busy := dbs[0].NewLimiter(quietClock.now), dbs[1].Limiter()
	start := time.Now()
	drain := func(l boxwatch.RateLimiter) (n int, retry time.Duration) {
		for {
			ok, retry, err := l.Allow(ctx, "acct:a:default", limit, period)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				return n, retry
			}
			n++
		}
	}
	if ok, _, err := quiet.Allow(ctx, "acct:a:default", limit, period); err != nil || !ok {
		t.Fatalf("first request: ok=%v err=%v", ok, err)
	}
	busyN, _ := drain(busy)
	if most := limit - batch + refill(time.Since(start), limit, period); busyN < limit-batch || busyN > most {
		t.Fatalf("the busy replica admitted %d while the quiet one held a lease, want between %d and %d", busyN, limit-batch, most)
	}
	// Once its lease ends, the quiet replica gives back what it left and takes afresh: together
	// the replicas admit the limit.
	quietClock.add(period / 60)
	quietN, _ := drain(quiet)
	got := 1 + busyN + quietN
	if most := limit + refill(time.Since(start), limit, period); got < limit || got > most {
		t.Fatalf("%d admitted in all (busy %d, quiet 1+%d), want between %d and %d", got, busyN, quietN, limit, most)
	}
}

// testLimiterRollover: a drained bucket admits again once Retry-After has passed, on every
// replica, and is full again a period later.
func testLimiterRollover(t *testing.T, b Backend) {
	const limit, period = 4, 400 * time.Millisecond
	dbs := openReplicas(t, b, 2)
	if b.Name != "postgres" {
		dbs = dbs[:1] // SQLite: one process
	}
	a, z := dbs[0].Limiter(), dbs[len(dbs)-1].Limiter()
	start := time.Now()
	for i := 0; ; i++ {
		l := []boxwatch.RateLimiter{a, z}[i%2]
		ok, retry, err := l.Allow(ctx, "acct:r:default", limit, period)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			if most := limit + refill(time.Since(start), limit, period); i+1 > most {
				t.Fatalf("%d requests admitted in %v against a limit of %d (refill allows %d)", i+1, time.Since(start), limit, most)
			}
			continue
		}
		if i < limit {
			t.Fatalf("refused after %d of %d", i, limit)
		}
		if retry <= 0 || retry > period/limit {
			t.Fatalf("retryAfter %v, want within (0, %v]", retry, period/limit)
		}
		time.Sleep(retry)
		if ok, _, err := l.Allow(ctx, "acct:r:default", limit, period); err != nil || !ok {
			t.Fatalf("after Retry-After (%v): ok=%v err=%v; want admitted", retry, ok, err)
		}
		break
	}
	time.Sleep(period)
	for j := range limit {
		if ok, _, err := []boxwatch.RateLimiter{a, z}[j%2].Allow(ctx, "acct:r:default", limit, period); err != nil || !ok {
			t.Fatalf("a period later, request %d of %d: ok=%v err=%v; want admitted", j+1, limit, ok, err)
		}
	}
}

// manualClock is a clock tests move by hand.
type manualClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *manualClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *manualClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
