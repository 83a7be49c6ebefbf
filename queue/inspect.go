package queue

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Count is how many unfinished jobs of a kind are in a state, and since when the oldest of them
// was due (its scheduled time).
type Count struct {
	State  rivertype.JobState
	Kind   string
	Jobs   int64
	Oldest time.Time
}

// counts reads the unfinished jobs by state and kind, with one indexed query (the job table's
// fetching index leads with the state).
func (db leaseDB) counts(ctx context.Context) ([]Count, error) {
	const pg = `SELECT state::text, kind, count(*), COALESCE(EXTRACT(EPOCH FROM min(scheduled_at)), 0)::float8
		FROM river_job WHERE state IN ('available', 'pending', 'retryable', 'running', 'scheduled') GROUP BY state, kind ORDER BY state, kind`
	const lite = `SELECT state, kind, count(*), CAST(COALESCE(unixepoch(min(scheduled_at), 'subsec'), 0) AS REAL)
		FROM river_job WHERE state IN ('available', 'pending', 'retryable', 'running', 'scheduled') GROUP BY state, kind ORDER BY state, kind`
	var out []Count
	scan := func(state, kind string, n int64, oldest float64) {
		c := Count{State: rivertype.JobState(state), Kind: kind, Jobs: n}
		if oldest > 0 {
			c.Oldest = time.UnixMilli(int64(oldest * 1000))
		}
		out = append(out, c)
	}
	var state, kind string
	var n int64
	var oldest float64
	// pgx's rows and database/sql's read the same way.
	var rows interface {
		Next() bool
		Scan(...any) error
		Err() error
	}
	if db.pool != nil {
		r, err := db.pool.Query(ctx, pg)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		rows = r
	} else {
		r, err := db.sqlite.QueryContext(ctx, lite)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		rows = r
	}
	for rows.Next() {
		if err := rows.Scan(&state, &kind, &n, &oldest); err != nil {
			return nil, err
		}
		scan(state, kind, n, oldest)
	}
	return out, rows.Err()
}

// Counts returns the unfinished jobs of the whole queue (every process's) by state and kind.
func (q *Queue) Counts(ctx context.Context) ([]Count, error) {
	c, err := q.lease.db.counts(ctx)
	if err != nil {
		return nil, fmt.Errorf("queue: counting jobs: %w", err)
	}
	return c, nil
}

// LeaseLength is how long a running job stays its process's without a heartbeat: a running
// job whose AttemptedAt is older than this belongs to a process that died.
func (q *Queue) LeaseLength() time.Duration { return q.lease.length }

// Running returns up to limit running jobs of the whole queue (of kind, unless it is empty),
// oldest first. Each one's AttemptedBy ends with the process running it and AttemptedAt is its
// last heartbeat.
func (q *Queue) Running(ctx context.Context, kind string, limit int) ([]*rivertype.JobRow, error) {
	return q.client.list(ctx, listParams(kind, limit).States(rivertype.JobStateRunning).
		OrderBy(river.JobListOrderByID, river.SortOrderAsc))
}

// Failures returns up to limit jobs (of kind, unless it is empty) whose last run failed: waiting
// for a retry, or discarded after their last attempt. The latest failure comes first.
func (q *Queue) Failures(ctx context.Context, kind string, limit int) ([]*rivertype.JobRow, error) {
	var all []*rivertype.JobRow
	for _, s := range []rivertype.JobState{rivertype.JobStateRetryable, rivertype.JobStateDiscarded} {
		jobs, err := q.client.list(ctx, listParams(kind, limit).States(s).
			OrderBy(river.JobListOrderByID, river.SortOrderDesc))
		if err != nil {
			return nil, err
		}
		all = append(all, jobs...)
	}
	slices.SortFunc(all, func(a, b *rivertype.JobRow) int { return lastErrorAt(b).Compare(lastErrorAt(a)) })
	return all[:min(limit, len(all))], nil
}

func listParams(kind string, limit int) *river.JobListParams {
	p := river.NewJobListParams().First(limit)
	if kind != "" {
		p = p.Kinds(kind)
	}
	return p
}

func lastErrorAt(j *rivertype.JobRow) time.Time {
	if len(j.Errors) == 0 {
		return time.Time{}
	}
	return j.Errors[len(j.Errors)-1].At
}
