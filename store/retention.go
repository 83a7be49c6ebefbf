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
	n, err := db.write.exec(ctx, `DELETE FROM webhook_notifications WHERE id IN (
		SELECT id FROM webhook_notifications WHERE delivery_status <> 'pending' AND updated_at < ? LIMIT ?`+db.skipLocked()+`)`,
		db.ts(t), limit)
	return n, db.internal("delete finished notifications", err)
}

// DeleteEventsBefore deletes up to limit events created before t that no notification refers to
// and whose shipment, if any, stopped before t.
func (db *DB) DeleteEventsBefore(ctx context.Context, t time.Time, limit int) (int64, error) {
	n, err := db.write.exec(ctx, `DELETE FROM events WHERE id IN (
		SELECT e.id FROM events e WHERE e.created_at < ?
			AND NOT EXISTS (SELECT 1 FROM webhook_notifications n WHERE n.event_id = e.id)
			AND (e.shipment_id IS NULL OR EXISTS (SELECT 1 FROM shipments s WHERE s.id = e.shipment_id AND s.stopped_at < ?))
		LIMIT ?`+db.skipLocked()+`)`, db.ts(t), db.ts(t), limit)
	return n, db.internal("delete events", err)
}

// DeletePositionsBefore deletes up to limit stored positions older than t.
func (db *DB) DeletePositionsBefore(ctx context.Context, t time.Time, limit int) (int64, error) {
	n, err := db.write.exec(ctx, `DELETE FROM vessel_positions WHERE (mmsi, at) IN (
		SELECT mmsi, at FROM vessel_positions WHERE at < ? LIMIT ?)`, db.ts(t), limit)
	return n, db.internal("delete positions", err)
}
