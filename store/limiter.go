package store

import (
	"context"
	"strconv"
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

// pgLimiter keeps buckets in the rate_limits table, so every replica shares them. The database's
// own clock decides, so replicas with skewed clocks still agree.
type pgLimiter struct{ db *DB }

const pgAllow = `
WITH admitted AS (
    INSERT INTO rate_limits AS r (key, tat) VALUES (?, clock_timestamp() + ?::interval)
    ON CONFLICT (key) DO UPDATE SET tat = greatest(r.tat, clock_timestamp()) + ?::interval
    WHERE greatest(r.tat, clock_timestamp()) + ?::interval - ?::interval <= clock_timestamp()
    RETURNING tat
)
SELECT EXISTS (SELECT 1 FROM admitted),
       COALESCE((SELECT EXTRACT(EPOCH FROM greatest(tat, clock_timestamp()) + ?::interval - ?::interval - clock_timestamp())
                 FROM rate_limits WHERE key = ? AND NOT EXISTS (SELECT 1 FROM admitted)), 0)::float8`

func (l *pgLimiter) Allow(ctx context.Context, key string, limit int, period time.Duration) (bool, time.Duration, error) {
	interval := period / time.Duration(limit)
	iv, pv := intervalText(interval), intervalText(period)
	var ok bool
	var wait float64
	err := l.db.write.queryRow(ctx, pgAllow, key, iv, iv, iv, pv, iv, pv, key).Scan(&ok, &wait)
	if err != nil {
		return false, 0, l.db.internal("rate limit", err)
	}
	return ok, time.Duration(wait * float64(time.Second)), nil
}

func intervalText(d time.Duration) string {
	return strconv.FormatInt(d.Microseconds(), 10) + " microseconds"
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
