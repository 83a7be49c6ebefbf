package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// DefaultLease is how long a running job stays its process's without a heartbeat.
const DefaultLease = 15 * time.Second

// lease keeps a short hold on every job this process runs, renewed by heartbeats, and gives the
// jobs whose hold lapsed (their process died) back to the queue. River's own rescuer only looks
// every 30 s and waits longer than the job timeout, since it cannot tell a dead process from a
// slow job; the heartbeat can, so a dead process's jobs resume within a lease and a sweep.
//
// The hold is River's attempted_at, which River's rescuer reads the same way: a job whose
// heartbeat runs is never rescued while it works. One heartbeat renews every job the process
// holds, in one statement, so a busy process costs the database one write a period, not one a
// job (per-job renewals were what timed out on a saturated database).
type lease struct {
	length time.Duration
	// settle bounds how long after its work a run stays held while River records its outcome.
	settle  time.Duration
	db      leaseDB
	log     *slog.Logger
	metrics *metrics // nil counts nothing

	mu sync.Mutex
	// held are the runs this process holds, each with the time its work returned (zero while it
	// works). A run stays held after its work until River has recorded the outcome in its row:
	// the row is running until then, and a sweep that gave it back meanwhile would have the job
	// worked twice, and changed its state under River's completer (River 0.47 panicked on that;
	// 0.48 skips the job's completion instead).
	held map[run]time.Time

	wg sync.WaitGroup
}

// run is one attempt at a job: River counts an attempt each time a process takes the job up, so
// a run taken back and taken up again elsewhere is another run.
type run struct {
	ID      int64 `json:"id"`
	Attempt int   `json:"attempt"`
}

// leaseDB writes River's job table in the dialect's own time format.
type leaseDB struct {
	pool   *pgxpool.Pool
	sqlite *sql.DB
}

func (db leaseDB) exec(ctx context.Context, pgQuery, sqliteQuery string, args ...any) (int64, error) {
	if db.pool != nil {
		tag, err := db.pool.Exec(ctx, pgQuery, args...)
		return tag.RowsAffected(), err
	}
	res, err := db.sqlite.ExecContext(ctx, sqliteQuery, db.args(args)...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// args converts times to River's SQLite format on SQLite.
func (db leaseDB) args(args []any) []any {
	if db.pool != nil {
		return args
	}
	vals := make([]any, len(args))
	for i, a := range args {
		vals[i] = a
		if t, ok := a.(time.Time); ok {
			vals[i] = t.UTC().Round(time.Millisecond).Format("2006-01-02 15:04:05.000") // River's SQLite format
		}
	}
	return vals
}

// runs runs a statement of the dialect that returns (id, attempt) rows.
func (db leaseDB) runs(ctx context.Context, query string, args ...any) ([]run, error) {
	var rows interface {
		Next() bool
		Scan(...any) error
		Err() error
	}
	if db.pool != nil {
		r, err := db.pool.Query(ctx, query, args...)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		rows = r
	} else {
		r, err := db.sqlite.QueryContext(ctx, query, db.args(args)...)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		rows = r
	}
	var out []run
	for rows.Next() {
		var r run
		if err := rows.Scan(&r.ID, &r.Attempt); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// every is how often heartbeats renew the holds and sweeps look for lapsed ones: a third of the
// lease, so two heartbeats may be late before a live job could be taken.
func (l *lease) every() time.Duration { return l.length / 3 }

// hold adds a run to those the heartbeat renews; the returned function records that its work
// returned. The heartbeat renews it until River has recorded its outcome (its row is no longer
// running, or no longer this run's), or for settle after its work at most.
func (l *lease) hold(r run) (worked func()) {
	l.mu.Lock()
	if l.held == nil {
		l.held = map[run]time.Time{}
	}
	l.held[r] = time.Time{}
	l.mu.Unlock()
	return func() {
		l.mu.Lock()
		l.held[r] = time.Now()
		l.mu.Unlock()
	}
}

// heartbeat renews the hold of every run this process holds, in one statement, and lets go of
// the runs whose work returned and whose row River has since finalized.
func (l *lease) heartbeat(ctx context.Context) error {
	now := time.Now()
	l.mu.Lock()
	runs := make([]run, 0, len(l.held))
	for r, worked := range l.held {
		if !worked.IsZero() && now.Sub(worked) > l.settle {
			delete(l.held, r) // River never recorded it: the sweeps may give it back
			continue
		}
		runs = append(runs, r)
	}
	l.mu.Unlock()
	if len(runs) == 0 {
		return nil
	}
	// Twice a period: a renewal that lands late still holds, and the lease is three periods.
	ctx, cancel := context.WithTimeout(ctx, 2*l.every())
	defer cancel()
	var renewed []run
	var err error
	if l.db.pool != nil {
		ids, attempts := make([]int64, len(runs)), make([]int32, len(runs))
		for i, r := range runs {
			ids[i], attempts[i] = r.ID, int32(r.Attempt)
		}
		renewed, err = l.db.runs(ctx, `UPDATE river_job SET attempted_at = $1 FROM unnest($2::bigint[], $3::int[]) AS h(id, attempt)
			WHERE river_job.id = h.id AND river_job.attempt = h.attempt AND river_job.state = 'running' RETURNING river_job.id, river_job.attempt`,
			now, ids, attempts)
	} else {
		list, jerr := json.Marshal(runs)
		if jerr != nil {
			return jerr
		}
		renewed, err = l.db.runs(ctx, `UPDATE river_job SET attempted_at = ?
			FROM (SELECT json_extract(value, '$.id') AS id, json_extract(value, '$.attempt') AS attempt FROM json_each(?)) AS h
			WHERE river_job.id = h.id AND river_job.attempt = h.attempt AND river_job.state = 'running' RETURNING river_job.id, river_job.attempt`,
			now, string(list))
	}
	if err != nil {
		return err
	}
	still := make(map[run]bool, len(renewed))
	for _, r := range renewed {
		still[r] = true
	}
	l.mu.Lock()
	for _, r := range runs {
		if worked, ok := l.held[r]; ok && !worked.IsZero() && !still[r] {
			delete(l.held, r) // its outcome is recorded (or another process runs the job now)
		}
	}
	l.mu.Unlock()
	return nil
}

// sweep gives every running job whose hold lapsed back to the queue and reports how many. Each
// keeps its time due, already past, so it runs before the jobs enqueued since: a backlog that built
// up meanwhile does not hold a dead process's work back further.
func (l *lease) sweep(ctx context.Context) (int64, error) {
	return l.db.exec(ctx, `UPDATE river_job SET state = 'available' WHERE state = 'running' AND attempted_at < $1`,
		`UPDATE river_job SET state = 'available' WHERE state = 'running' AND attempted_at < ?`, time.Now().Add(-l.length))
}

// run heartbeats and sweeps until ctx ends.
func (l *lease) run(ctx context.Context) {
	l.wg.Add(2)
	go func() {
		defer l.wg.Done()
		t := time.NewTicker(l.every())
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if err := l.heartbeat(ctx); err != nil && ctx.Err() == nil {
				l.log.Warn("renewing the leases of running jobs", "error", err.Error())
			}
		}
	}()
	go func() {
		defer l.wg.Done()
		t := time.NewTicker(l.every())
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			n, err := l.sweep(ctx)
			switch {
			case err != nil && ctx.Err() == nil:
				l.log.Warn("taking up the jobs of dead processes", "error", err.Error())
			case n > 0:
				l.log.Info("took up the jobs of a dead process", "jobs", n)
				if l.metrics != nil {
					l.metrics.rescued.Add(float64(n))
				}
			}
		}
	}()
}

// leaseMiddleware holds every run this process works.
type leaseMiddleware struct {
	river.MiddlewareDefaults
	l *lease
}

func (m *leaseMiddleware) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	defer m.l.hold(run{ID: job.ID, Attempt: job.Attempt})()
	return doInner(ctx)
}
