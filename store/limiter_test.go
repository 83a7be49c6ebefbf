package store_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// BenchmarkLimiter measures rate-limit checks per second from parallel clients. The baseline is
// the in-process limiter SQLite uses, exact by construction; postgres is four replicas (four
// pools, four limiters) sharing one bucket through the database, under a limit high enough that
// nothing is refused, so every check is an admission.
func BenchmarkLimiter(b *testing.B) {
	const limit = 1 << 24
	var runs atomic.Int64
	run := func(b *testing.B, limiters []boxwatch.RateLimiter) {
		key := fmt.Sprintf("acct:bench%d:default", runs.Add(1)) // a full bucket for each run
		var next atomic.Int64
		b.SetParallelism(4)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			l := limiters[int(next.Add(1))%len(limiters)]
			for pb.Next() {
				if ok, _, err := l.Allow(context.Background(), key, limit, time.Minute); err != nil || !ok {
					b.Errorf("ok=%v err=%v", ok, err)
					return
				}
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "allows/s")
	}
	b.Run("baseline", func(b *testing.B) {
		run(b, []boxwatch.RateLimiter{storetest.SQLite.Open(b).Limiter()})
	})
	b.Run("postgres", func(b *testing.B) {
		run(b, replicaLimiters(b, 4))
	})
}

// BenchmarkLimiterExact drains a bucket of 1,000 requests an hour from four replicas, four clients
// each, until every client is refused, and reports how many were admitted beyond the limit
// (excess; the bucket refills one token every 3.6 s, so 0 or 1 is exact) and how many fell short.
func BenchmarkLimiterExact(b *testing.B) {
	const limit, period = 1000, time.Hour
	limiters := replicaLimiters(b, 4)
	var excess, short int64
	for i := range b.N {
		key := fmt.Sprintf("acct:exact%d:default", i)
		var admitted atomic.Int64
		var wg sync.WaitGroup
		for _, l := range limiters {
			for range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						ok, _, err := l.Allow(context.Background(), key, limit, period)
						if err != nil {
							b.Error(err)
						}
						if !ok || err != nil {
							return
						}
						admitted.Add(1)
					}
				}()
			}
		}
		wg.Wait()
		excess += max(0, admitted.Load()-limit)
		short += max(0, limit-admitted.Load())
	}
	b.ReportMetric(float64(excess)/float64(b.N), "excess/op")
	b.ReportMetric(float64(short)/float64(b.N), "short/op")
}

// replicaLimiters opens n stores on one PostgreSQL database, as n replicas would, and returns
// their limiters.
func replicaLimiters(b *testing.B, n int) []boxwatch.RateLimiter {
	storetest.RequirePostgres(b)
	dsn := storetest.Postgres.DSN(b)
	var ls []boxwatch.RateLimiter
	for range n {
		db, err := store.Open(context.Background(), dsn)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		ls = append(ls, db.Limiter())
	}
	return ls
}
