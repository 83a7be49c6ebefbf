package store

import (
	"context"
	"errors"
	"math"
	"sync"
	"time"

	"github.com/boxwatch/boxwatch"
)

// The limiters implement GCRA (the generic cell rate algorithm): each bucket keeps one theoretical
// arrival time (tat). A bucket admitting limit requests per period spaces requests by
// period/limit and allows a burst of limit; a request is admitted when tat - period <= now.

// memoryLimiter keeps buckets in process: right for SQLite, where one process owns the database.
type memoryLimiter struct {
	now    boxwatch.Clock
	mu     sync.Mutex
	tat    map[string]time.Time
	lastGC time.Time
}

func newMemoryLimiter(now boxwatch.Clock) *memoryLimiter {
	return &memoryLimiter{now: now, tat: map[string]time.Time{}}
}

func (l *memoryLimiter) Allow(_ context.Context, key string, limit int, period time.Duration) (bool, time.Duration, error) {
	now := l.now()
	interval := period / time.Duration(limit)
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.lastGC) > time.Minute {
		// Buckets whose tat has passed are full again: forgetting them changes nothing.
		for k, t := range l.tat {
			if t.Before(now) {
				delete(l.tat, k)
			}
		}
		l.lastGC = now
	}
	tat := l.tat[key]
	if tat.Before(now) {
		tat = now
	}
	next := tat.Add(interval)
	if allowAt := next.Add(-period); allowAt.After(now) {
		return false, allowAt.Sub(now), nil
	}
	l.tat[key] = next
	return true, 0, nil
}

// leaseLimiter keeps buckets in the rate_limits table, so every replica shares them, and spares
// the database a write per request: a replica takes tokens from a shared bucket in small batches
// (a lease) and spends them in process. The database's own clock runs the buckets, so replicas
// with skewed clocks still agree; the local clock only times the leases.
//
// The tolerance, for a bucket of limit requests per period and R replicas serving it:
//   - Never more in total: every admitted request spends a token taken from the shared bucket.
//   - In any window, at most limit*leaseLife/period more than one shared bucket would admit (a
//     token is spent at most leaseLife after it was taken; 1.7 % of the limit).
//   - At most R*(batch-1) tokens sit unspent in other replicas' leases at a time: a request may
//     be refused while they do. A replica gives its unspent tokens back with its next batch once
//     the lease ends (leaseLife), and a refused replica asks again only when the bucket said a
//     token would be free.
type leaseLimiter struct {
	db  *DB
	now boxwatch.Clock
	mu  sync.Mutex
	m   map[string]*lease
	gc  time.Time
}

// lease is one replica's share of a bucket. It is held (a semaphore, so that waiting respects
// the request's context) while a batch is taken: one request per bucket and replica waits on the
// database, and the others on it.
type lease struct {
	held         chan struct{}
	tokens       int       // unspent
	ends         time.Time // tokens unspent by then go back to the bucket
	refusedUntil time.Time // the bucket had no token until then
}

func newLeaseLimiter(db *DB, now boxwatch.Clock) *leaseLimiter {
	return &leaseLimiter{db: db, now: now, m: map[string]*lease{}}
}

// batchFor is how many tokens a replica takes at a time: a fiftieth of the limit, between 1 and
// 100, so the tokens parked in replicas' leases stay a small share of the limit.
func batchFor(limit int) int { return max(1, min(limit/50, 100)) }

// leaseLife bounds how long a replica keeps tokens: a sixtieth of the period (1 s per minute).
func leaseLife(period time.Duration) time.Duration { return period / 60 }

func (l *leaseLimiter) Allow(ctx context.Context, key string, limit int, period time.Duration) (bool, time.Duration, error) {
	now := l.now()
	le := l.lease(key, now)
	select {
	case le.held <- struct{}{}:
	default: // another request is taking a batch for this bucket: wait for it, or give up
		select {
		case le.held <- struct{}{}:
		case <-ctx.Done():
			return false, 0, l.db.internal("rate limit", ctx.Err())
		}
	}
	defer func() { <-le.held }()
	if now.Before(le.refusedUntil) {
		return false, le.refusedUntil.Sub(now), nil
	}
	if le.tokens > 0 && now.Before(le.ends) {
		le.tokens--
		return true, 0, nil
	}
	// Take a new batch, giving back what the ended lease left.
	got, retry, err := l.take(ctx, key, le.tokens, batchFor(limit), period/time.Duration(limit), period)
	if err != nil {
		return false, 0, err
	}
	le.tokens, le.ends = got, now.Add(leaseLife(period))
	if got == 0 {
		le.refusedUntil = now.Add(retry)
		return false, retry, nil
	}
	le.tokens--
	return true, 0, nil
}

// lease returns the key's lease, forgetting every minute the leases that ended over an hour ago
// (longer than any period here: their unspent tokens are long refilled).
func (l *leaseLimiter) lease(key string, now time.Time) *lease {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.gc) > time.Minute {
		for k, le := range l.m {
			select {
			case le.held <- struct{}{}:
				if now.Sub(le.ends) > time.Hour && now.After(le.refusedUntil) {
					delete(l.m, k)
				}
				<-le.held
			default: // in use
			}
		}
		l.gc = now
	}
	le := l.m[key]
	if le == nil {
		le = &lease{held: make(chan struct{}, 1)}
		l.m[key] = le
	}
	return le
}

// pgTake gives back tokens worth $2 microseconds and takes up to $3 tokens from the bucket $1
// (period $4, token interval $5, in microseconds), in one statement. The row lock taken by old
// serialises replicas, and the time is read once the lock is held. The bucket is GCRA's: a token
// is free while tat - period <= now.
const pgTake = `
WITH old AS (SELECT tat FROM rate_limits WHERE key = ? FOR UPDATE),
base AS (SELECT greatest(old.tat - ? * interval '1 microsecond', c.now) AS tat, c.now
         FROM old, LATERAL (SELECT clock_timestamp() AS now) c),
grant_ AS (SELECT base.tat, base.now, least(?, greatest(0, floor(
    (EXTRACT(EPOCH FROM base.now - base.tat) * 1000000 + ?) / ?)))::int AS n FROM base)
UPDATE rate_limits r SET tat = g.tat + g.n * ? * interval '1 microsecond'
FROM grant_ g WHERE r.key = ?
RETURNING g.n, (EXTRACT(EPOCH FROM g.tat - g.now) * 1000000 + ? - ?)::float8`

// take runs pgTake, creating the bucket first when it is missing: a missing bucket is full.
func (l *leaseLimiter) take(ctx context.Context, key string, giveBack, want int, interval, period time.Duration) (got int, retry time.Duration, err error) {
	// The database counts in microseconds. The sweep may delete a bucket created between the
	// two statements, hence the retries.
	iv, pv := max(1, interval.Microseconds()), period.Microseconds()
	for range 3 {
		var waitUS float64
		err = l.db.write.queryRow(ctx, pgTake, key, int64(giveBack)*iv, want, pv, iv, iv, key, iv, pv).Scan(&got, &waitUS)
		if err == nil {
			return got, time.Duration(math.Ceil(waitUS)) * time.Microsecond, nil
		}
		if !errors.Is(err, errNoRows) {
			break
		}
		if _, err = l.db.write.exec(ctx, "INSERT INTO rate_limits (key, tat) VALUES (?, clock_timestamp()) ON CONFLICT (key) DO NOTHING", key); err != nil {
			break
		}
	}
	if err == nil || errors.Is(err, errNoRows) {
		err = errors.New("rate limit bucket vanished three times")
	}
	return 0, 0, l.db.internal("rate limit", err)
}

// SweepRateLimits deletes buckets that are full again (their tat has passed); they carry no
// information. Only the PostgreSQL store keeps such rows.
func (db *DB) SweepRateLimits(ctx context.Context) error {
	if db.dialect != Postgres {
		return nil
	}
	_, err := db.write.exec(ctx, "DELETE FROM rate_limits WHERE tat < clock_timestamp()")
	return db.internal("sweep rate limits", err)
}
