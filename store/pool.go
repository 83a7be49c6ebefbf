package store

import (
	"database/sql"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// PoolStats describes one of the store's connection pools at a moment: on PostgreSQL background
// work's ("postgres") and API requests' ("postgres_requests"), on SQLite the writer
// ("sqlite_writer", one connection), background work's readers ("sqlite_readers") and API
// requests' ("sqlite_request_readers").
type PoolStats struct {
	Name string
	// MaxOpen bounds the connections; Open are those that exist, InUse of them serve a query or
	// a transaction, Idle wait for one.
	MaxOpen, Open, InUse, Idle int
	// Waits counts the acquisitions that found no free connection and waited for one, WaitTime
	// is their total wait, since the store opened.
	Waits    int64
	WaitTime time.Duration
}

// PoolStats returns the state of every connection pool. It runs no query: it reads the counters
// the pools keep.
func (db *DB) PoolStats() []PoolStats {
	if db.pool != nil {
		stats := func(name string, p *pgxpool.Pool) PoolStats {
			s := p.Stat()
			return PoolStats{Name: name, MaxOpen: int(s.MaxConns()), Open: int(s.TotalConns()), InUse: int(s.AcquiredConns()),
				Idle: int(s.IdleConns()), Waits: s.EmptyAcquireCount(), WaitTime: s.EmptyAcquireWaitTime()}
		}
		return []PoolStats{stats("postgres", db.lanes.work), stats("postgres_requests", db.lanes.requests)}
	}
	stats := func(name string, d *sql.DB) PoolStats {
		s := d.Stats()
		return PoolStats{Name: name, MaxOpen: s.MaxOpenConnections, Open: s.OpenConnections, InUse: s.InUse, Idle: s.Idle,
			Waits: s.WaitCount, WaitTime: s.WaitDuration}
	}
	return []PoolStats{stats("sqlite_writer", db.sqlWriter), stats("sqlite_readers", db.sqlReader),
		stats("sqlite_request_readers", db.sqlRequestReader)}
}
