package queue

import (
	"context"
	"time"

	"github.com/riverqueue/river/rivertype"
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

// State returns the state of the oldest job.
func State(ctx context.Context, db Database) (rivertype.JobState, error) {
	var state string
	var err error
	const q = `SELECT state FROM river_job WHERE id = (SELECT min(id) FROM river_job)`
	if pool := db.Pool(); pool != nil {
		err = pool.QueryRow(ctx, q).Scan(&state)
	} else {
		err = db.SQLWriter().QueryRowContext(ctx, q).Scan(&state)
	}
	return rivertype.JobState(state), err
}

// NewAround builds a queue whose jobs run inside outer, which wraps the queue's own middleware:
// what outer does after a job's work, River does after the queue's lease saw the work return.
func NewAround(db Database, cfg Config, outer rivertype.Middleware) (*Queue, error) {
	return newQueue(db, cfg, outer)
}
