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
	length  time.Duration
	db      leaseDB
	log     *slog.Logger
	metrics *metrics // nil counts nothing

	mu   sync.Mutex
	held map[int64]int // job id → the runs of it this process holds (a retry may overlap its timed-out run)

	wg sync.WaitGroup
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
	vals := make([]any, len(args))
	for i, a := range args {
		vals[i] = a
		if t, ok := a.(time.Time); ok {
			vals[i] = t.UTC().Round(time.Millisecond).Format("2006-01-02 15:04:05.000") // River's SQLite format
		}
	}
	res, err := db.sqlite.ExecContext(ctx, sqliteQuery, vals...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// every is how often heartbeats renew the holds and sweeps look for lapsed ones: a third of the
// lease, so two heartbeats may be late before a live job could be taken.
func (l *lease) every() time.Duration { return l.length / 3 }

// hold adds a job to those the heartbeat renews; the returned function takes it off.
func (l *lease) hold(id int64) (release func()) {
	l.mu.Lock()
	if l.held == nil {
		l.held = map[int64]int{}
	}
	l.held[id]++
	l.mu.Unlock()
	return func() {
		l.mu.Lock()
		if l.held[id]--; l.held[id] <= 0 {
			delete(l.held, id)
		}
		l.mu.Unlock()
	}
}

// heartbeat renews the hold of every job this process runs, in one statement.
func (l *lease) heartbeat(ctx context.Context) error {
	l.mu.Lock()
	ids := make([]int64, 0, len(l.held))
	for id := range l.held {
		ids = append(ids, id)
	}
	l.mu.Unlock()
	if len(ids) == 0 {
		return nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, l.every())
	defer cancel()
	var arg any = string(list)
	if l.db.pool != nil {
		arg = ids
	}
	_, err = l.db.exec(ctx, `UPDATE river_job SET attempted_at = $1 WHERE state = 'running' AND id = ANY($2)`,
		`UPDATE river_job SET attempted_at = ? WHERE state = 'running' AND id IN (SELECT value FROM json_each(?))`, time.Now(), arg)
	return err
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

// middleware heartbeats every job this process works.
type leaseMiddleware struct {
	river.MiddlewareDefaults
	l *lease
}

func (m *leaseMiddleware) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	defer m.l.hold(job.ID)()
	return doInner(ctx)
}
