package store

import (
	"context"
	"fmt"
	"time"

	"github.com/boxwatch/boxwatch"
)

// Hooks for the read cache's tests (readcache_test.go).

// ReadCacheLive reports whether the read cache answers: its listener is connected.
func (db *DB) ReadCacheLive() bool { return db.cache.isLive() }

// ReadCacheListenerPID is the backend process of the cache's listener connection.
func (db *DB) ReadCacheListenerPID() uint32 { return db.listenerPID.Load() }

// ReadCacheNotified counts the notifications the listener has handled.
func (db *DB) ReadCacheNotified() int64 { return db.cache.notified.Load() }

// SetReadCacheHooks sets fetched, run by each read between the database's answer and storing
// it, and reconnecting, run before the listener connects again. Set them before any read.
func (db *DB) SetReadCacheHooks(fetched func(key string), reconnecting func()) {
	db.cache.mu.Lock()
	defer db.cache.mu.Unlock()
	db.cache.testHooks.fetched, db.cache.testHooks.reconnecting = fetched, reconnecting
}

// RunStatement runs q (with ? placeholders) on the reader and returns the one integer it selects:
// the statement cache's tests run many distinct statements through it.
func (db *DB) RunStatement(ctx context.Context, q string, args ...any) (int64, error) {
	var n int64
	err := db.read.queryRow(ctx, q, args...).Scan(&n)
	return n, err
}

// RunMigration runs the SQL of the dialect's migration named name again, in a transaction, as
// it ran when the database was migrated; its test checks what it did to the rows already there.
func (db *DB) RunMigration(ctx context.Context, name string) error {
	ms, err := migrations(db.dialect)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if m.name == name {
			return db.inTx(ctx, func(c conn) error {
				_, err := c.exec(ctx, m.sql)
				return err
			})
		}
	}
	return fmt.Errorf("no migration %q", name)
}

// ClaimPlan is how the database runs ClaimDueNotifications' statement: on SQLite the lines of
// its query plan; on PostgreSQL the rows it read from webhook_notifications, run with EXPLAIN
// ANALYZE in a transaction rolled back.
func (db *DB) ClaimPlan(ctx context.Context, now, until time.Time, limit int, b boxwatch.ClaimBounds) (plan []string, rowsRead float64, err error) {
	q, args := db.claimStatement(now, until, limit, b)
	if db.dialect != Postgres {
		rs, err := db.read.query(ctx, "EXPLAIN QUERY PLAN "+q, args...)
		if err != nil {
			return nil, 0, err
		}
		defer rs.Close()
		for rs.Next() {
			var id, parent, unused int
			var detail string
			if err := rs.Scan(&id, &parent, &unused, &detail); err != nil {
				return nil, 0, err
			}
			plan = append(plan, detail)
		}
		return plan, 0, rs.Err()
	}
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return nil, 0, err
	}
	defer tx.Rollback(ctx)
	var doc []struct{ Plan planNode }
	if err := tx.QueryRow(ctx, "EXPLAIN (ANALYZE, FORMAT JSON) "+(pgConn{db.pool, db.rebound}).rebind(q), args...).Scan(&doc); err != nil {
		return nil, 0, err
	}
	var walk func(n planNode)
	walk = func(n planNode) {
		plan = append(plan, n.NodeType+" "+n.Relation+" "+n.Index)
		if n.Relation == "webhook_notifications" {
			rowsRead += (n.Rows + n.RemovedByFilter) * n.Loops
		}
		for _, c := range n.Plans {
			walk(c)
		}
	}
	walk(doc[0].Plan)
	return plan, rowsRead, nil
}

type planNode struct {
	NodeType        string     `json:"Node Type"`
	Relation        string     `json:"Relation Name"`
	Index           string     `json:"Index Name"`
	Rows            float64    `json:"Actual Rows"`
	Loops           float64    `json:"Actual Loops"`
	RemovedByFilter float64    `json:"Rows Removed by Filter"`
	Plans           []planNode `json:"Plans"`
}

// ActiveLegVesselsFromRoutes answers as ActiveLegVessels did before active_legs: by reading the
// legs out of every tracked shipment's route. The benchmark compares both in one run, and a test
// holds the table to it.
func (db *DB) ActiveLegVesselsFromRoutes(ctx context.Context) (map[string]string, error) {
	// A leg is a stop's outbound vessel up to the next stop; it has not arrived while that stop has
	// no ATA, which the route's JSON holds as Go's zero time (year 1) or not at all. A shipment
	// not looked up yet has the route null.
	legs := `SELECT leg.value ->> 'OutboundVesselIMO' AS imo FROM shipments s, json_each(s.route) leg
		WHERE s.stopped_at IS NULL AND leg.key < json_array_length(s.route) - 1
		AND coalesce(substr(s.route ->> ('$[' || (leg.key + 1) || '].ATA'), 1, 4), '') < '0002'`
	if db.dialect == Postgres {
		legs = `SELECT leg.value ->> 'OutboundVesselIMO' AS imo FROM shipments s,
		jsonb_array_elements(CASE jsonb_typeof(s.route) WHEN 'array' THEN s.route ELSE '[]' END) WITH ORDINALITY AS leg(value, n)
		WHERE s.stopped_at IS NULL AND leg.n < jsonb_array_length(s.route)
		AND coalesce(substr(s.route -> leg.n::int ->> 'ATA', 1, 4), '') < '0002'`
	}
	list, err := batch(ctx, db, "active leg vessels", `WITH active AS (SELECT DISTINCT imo FROM (`+legs+`) l WHERE imo <> '')
		SELECT mmsi, imo FROM vessels WHERE mmsi <> '' AND imo IN (SELECT imo FROM active)
		UNION SELECT mmsi, imo FROM vessel_identities WHERE imo IN (SELECT imo FROM active)`, nil,
		func(r row) (boxwatch.VesselIdentity, error) {
			var id boxwatch.VesselIdentity
			return id, r.Scan(&id.MMSI, &id.IMO)
		})
	out := map[string]string{}
	for _, id := range list {
		out[id.MMSI] = id.IMO
	}
	return out, err
}

// DeafenReadCache gives a store opened without a read cache one that answers though no
// notification reaches it: only the store's own evictions keep it fresh. Call it before any read.
func (db *DB) DeafenReadCache() {
	c := newReadCache(DefaultReadCacheBytes)
	c.reset(true)
	db.cache = c
}

// HoldBackgroundConnections takes every connection background work reads with (on PostgreSQL
// its pool, on SQLite its readers), as a burst of jobs would, until release is called.
func (db *DB) HoldBackgroundConnections(ctx context.Context) (held int, release func(), err error) {
	var done []func()
	release = func() {
		for _, f := range done {
			f()
		}
	}
	if db.pool != nil {
		for range db.lanes.work.Config().MaxConns {
			c, err := db.lanes.work.Acquire(ctx)
			if err != nil {
				release()
				return 0, nil, err
			}
			done = append(done, c.Release)
		}
		return len(done), release, nil
	}
	for range db.sqlReader.Stats().MaxOpenConnections {
		c, err := db.sqlReader.Conn(ctx)
		if err != nil {
			release()
			return 0, nil, err
		}
		done = append(done, func() { c.Close() })
	}
	return len(done), release, nil
}
