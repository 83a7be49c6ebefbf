package queue

import (
	"context"
	"time"
)

// Orphan makes the oldest job look like one its process died working on an hour ago: running,
// due and last renewed then.
func Orphan(ctx context.Context, db Database) error {
	hourAgo := time.Now().Add(-time.Hour)
	_, err := leaseDB{pool: db.Pool(), sqlite: db.SQLWriter()}.exec(ctx,
		`UPDATE river_job SET state = 'running', attempt = 1, attempted_at = $1, scheduled_at = $2 WHERE id = (SELECT min(id) FROM river_job)`,
		`UPDATE river_job SET state = 'running', attempt = 1, attempted_at = ?, scheduled_at = ? WHERE id = (SELECT min(id) FROM river_job)`,
		hourAgo, hourAgo)
	return err
}

// Sweep runs one sweep of a lease of length d, as a process with workers does every third of it.
func Sweep(ctx context.Context, db Database, d time.Duration) (int64, error) {
	l := &lease{length: d, db: leaseDB{pool: db.Pool(), sqlite: db.SQLWriter()}}
	return l.sweep(ctx)
}
