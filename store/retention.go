package store

import (
	"context"
	"time"

	"github.com/boxwatch/boxwatch"
)

var _ boxwatch.RetentionStore = (*DB)(nil)

// skipLocked leaves out, on PostgreSQL, rows another transaction holds (a redelivery taking a
// notification up again): retention takes them at its next pass instead of waiting.
func (db *DB) skipLocked() string {
	if db.dialect == Postgres {
		return " FOR UPDATE SKIP LOCKED"
	}
	return ""
}

// DeleteFinishedNotifications deletes up to limit notifications delivered or failed for good
// before t; their logs go with them (ON DELETE CASCADE).
func (db *DB) DeleteFinishedNotifications(ctx context.Context, t time.Time, limit int) (int64, error) {
	// The statuses are written out: the partial index webhook_notifications_finished applies.
	return db.deleteCached(ctx, "delete finished notifications", notificationKey, `DELETE FROM webhook_notifications WHERE id IN (
		SELECT id FROM webhook_notifications WHERE delivery_status <> 'pending' AND updated_at < ? LIMIT ?`+db.skipLocked()+`)`,
		db.ts(t), limit)
}

// deleteCached runs a DELETE of rows the read cache holds by id (keyOf) and returns how many it
// deleted. On PostgreSQL it reads their ids back to evict them (SQLite's hook names them).
func (db *DB) deleteCached(ctx context.Context, what string, keyOf func(string) string, q string, args ...any) (int64, error) {
	if db.dialect != Postgres || db.cache == nil {
		n, err := db.write.exec(ctx, q, args...)
		return n, db.internal(what, err)
	}
	ids, err := scanStrings(db.write.query(ctx, q+" RETURNING id", args...))
	for _, id := range ids {
		db.cache.evict(keyOf(id))
	}
	return int64(len(ids)), db.internal(what, err)
}

// DeleteEventsBefore deletes up to limit events created before t that no notification refers to
// and whose shipment, if any, stopped before t.
func (db *DB) DeleteEventsBefore(ctx context.Context, t time.Time, limit int) (int64, error) {
	return db.deleteCached(ctx, "delete events", eventKey, `DELETE FROM events WHERE id IN (
		SELECT e.id FROM events e WHERE e.created_at < ?
			AND NOT EXISTS (SELECT 1 FROM webhook_notifications n WHERE n.event_id = e.id)
			AND (e.shipment_id IS NULL OR EXISTS (SELECT 1 FROM shipments s WHERE s.id = e.shipment_id AND s.stopped_at < ?))
		LIMIT ?`+db.skipLocked()+`)`, db.ts(t), db.ts(t), limit)
}

// DeletePositionsBefore deletes up to limit stored positions older than t.
func (db *DB) DeletePositionsBefore(ctx context.Context, t time.Time, limit int) (int64, error) {
	n, err := db.write.exec(ctx, `DELETE FROM vessel_positions WHERE (mmsi, at) IN (
		SELECT mmsi, at FROM vessel_positions WHERE at < ? LIMIT ?)`, db.ts(t), limit)
	return n, db.internal("delete positions", err)
}

// FoldListCounts folds the rows of up to limit list counts (list_counts, per account and table)
// back into one row each, and returns how many counts it folded. On PostgreSQL a count is the sum
// of as many rows as the account had writers at once, each writer adding to a row no other
// transaction held (migration 0020); folding keeps them few, so that a list page sums one or two.
// Rows a writer holds are left for the next call; no total changes. SQLite keeps one row per
// count and has nothing to fold.
func (db *DB) FoldListCounts(ctx context.Context, limit int) (int64, error) {
	if db.dialect != Postgres {
		return 0, nil
	}
	// The rows taken are locked, so the sum moved to each count's first row is theirs; every
	// other taken row of the count goes. Readers see the rows before or after: the same sum.
	var n int64
	err := db.write.queryRow(ctx, `WITH taken AS MATERIALIZED (
			SELECT account_id, kind, slot, n FROM list_counts
			WHERE (account_id, kind) IN (SELECT account_id, kind FROM list_counts GROUP BY account_id, kind HAVING count(*) > 1 LIMIT ?)
			FOR UPDATE SKIP LOCKED
		), folded AS (
			SELECT account_id, kind, min(slot) AS slot, sum(n) AS n FROM taken GROUP BY account_id, kind HAVING count(*) > 1
		), gone AS (
			DELETE FROM list_counts l USING taken t, folded f
			WHERE l.account_id = t.account_id AND l.kind = t.kind AND l.slot = t.slot
				AND f.account_id = t.account_id AND f.kind = t.kind AND t.slot <> f.slot
		), kept AS (
			UPDATE list_counts l SET n = f.n FROM folded f WHERE l.account_id = f.account_id AND l.kind = f.kind AND l.slot = f.slot
		)
		SELECT count(*) FROM folded`, limit).Scan(&n)
	return n, db.internal("fold list counts", err)
}
