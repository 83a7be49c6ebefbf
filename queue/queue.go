// Package queue runs boxwatch's durable jobs on River, in the service's own database: it owns
// River's client, its drivers, its migrations and the choice of dialect. Jobs are enqueued inside
// a store transaction, so a job exists exactly when the change that needs it committed.
//
// Workers live with the code whose work they do and use River's job API; no other package
// chooses a River driver or runs River's migrator.
package queue

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/boxwatch/boxwatch"
)

// Database is the store's connection handles: exactly one of them is non-nil (store.DB
// implements it). The queue runs on the same connections as the data, so jobs commit with it.
type Database interface {
	// SQLWriter is the SQLite writer pool, nil on PostgreSQL.
	SQLWriter() *sql.DB
	// Pool is the PostgreSQL pool, nil on SQLite.
	Pool() *pgxpool.Pool
}

// nativeTx is what the store's transactions expose to the queue alone.
type nativeTx interface{ Native() any }

// Config says what a queue runs.
type Config struct {
	// Workers are the job kinds this process can run; required.
	Workers *river.Workers
	// Periodic jobs are enqueued by the elected leader.
	Periodic []*river.PeriodicJob
	// MaxWorkers is how many jobs of the default queue run at once in this process; 0 only
	// enqueues (an API-only replica) and Start does nothing, whatever Queues says.
	MaxWorkers int
	// Queues are named queues besides the default, each with how many of its jobs run at once
	// in this process (at least 1): work that waits on another party than the default queue's
	// goes in a queue of its own (river.InsertOpts.Queue), so that a slow party holds only its
	// queue's workers. Any registered kind runs in any queue.
	Queues map[string]int
	// JobTimeout bounds one job. Default 2 minutes.
	JobTimeout time.Duration
	// Lease is how long a running job stays its process's without a heartbeat (every third of
	// it): a job left running by a dead process is taken up again within about 1.3 leases.
	// Default DefaultLease, and never more than JobTimeout.
	Lease time.Duration
	// MaxAttempts bounds the tries of a job that keeps failing; default 10.
	MaxAttempts int
	Logger      *slog.Logger
	// Metrics receives the queue's metrics (runs, durations, the job table's depth); nil
	// registers none.
	Metrics prometheus.Registerer
}

// Queue enqueues jobs and, when it has workers, runs them. Start and Stop are safe in any order
// and idempotent.
type Queue struct {
	client  client
	workers int
	lease   *lease
	stop    context.CancelFunc // ends the lease sweeps; nil unless running

	mu      sync.Mutex
	running bool
}

// client hides the transaction type River is generic over (*sql.Tx or pgx.Tx).
type client interface {
	insertTx(ctx context.Context, tx any, args river.JobArgs, opts *river.InsertOpts) error
	insertManyTx(ctx context.Context, tx any, params []river.InsertManyParams) error
	start(ctx context.Context) error
	stop(ctx context.Context) error
	list(ctx context.Context, params *river.JobListParams) ([]*rivertype.JobRow, error)
}

type riverClient[TTx any] struct{ c *river.Client[TTx] }

func (r riverClient[TTx]) list(ctx context.Context, params *river.JobListParams) ([]*rivertype.JobRow, error) {
	res, err := r.c.JobList(ctx, params)
	if err != nil {
		return nil, err
	}
	return res.Jobs, nil
}

func (r riverClient[TTx]) insertTx(ctx context.Context, tx any, args river.JobArgs, opts *river.InsertOpts) error {
	t, ok := tx.(TTx)
	if !ok {
		return fmt.Errorf("queue: a %T transaction on a %T queue", tx, *new(TTx))
	}
	_, err := r.c.InsertTx(ctx, t, args, opts)
	return err
}

func (r riverClient[TTx]) insertManyTx(ctx context.Context, tx any, params []river.InsertManyParams) error {
	t, ok := tx.(TTx)
	if !ok {
		return fmt.Errorf("queue: a %T transaction on a %T queue", tx, *new(TTx))
	}
	_, err := r.c.InsertManyTx(ctx, t, params)
	return err
}

func (r riverClient[TTx]) start(ctx context.Context) error { return r.c.Start(ctx) }
func (r riverClient[TTx]) stop(ctx context.Context) error  { return r.c.Stop(ctx) }

// migrationLockID is the PostgreSQL advisory lock that makes replicas starting together migrate
// the queue one at a time ("boxqueue" in ASCII): River's migrator takes no lock of its own, and
// two replicas creating its tables at once fail.
const migrationLockID = 0x626f787175657565

// Migrate creates or updates the queue's tables in the database. On PostgreSQL it holds an
// advisory lock meanwhile (on a connection of its own, released with it if the process dies):
// replicas that start together wait for the first, then find nothing left to do.
func Migrate(ctx context.Context, db Database) error {
	var err error
	if pool := db.Pool(); pool != nil {
		err = withLock(ctx, pool, func() error {
			m, err := rivermigrate.New(riverpgxv5.New(pool), nil)
			if err == nil {
				_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
			}
			return err
		})
	} else {
		// SQLite serves one process, which migrates once.
		var m *rivermigrate.Migrator[*sql.Tx]
		if m, err = rivermigrate.New(riversqlite.New(db.SQLWriter()), nil); err == nil {
			_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
		}
	}
	if err != nil {
		return fmt.Errorf("migrating the job queue: %w", err)
	}
	return nil
}

// withLock runs fn while holding the migration lock on a connection of the pool. River applies
// each migration in its own transaction (some cannot share one), so the lock is the session's.
func withLock(ctx context.Context, pool *pgxpool.Pool, fn func() error) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", int64(migrationLockID)); err != nil {
		return err
	}
	ferr := fn()
	if _, err := conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", int64(migrationLockID)); err != nil {
		// The lock must not outlive the migration: close the connection, which releases it.
		conn.Conn().Close(context.WithoutCancel(ctx))
		return errors.Join(ferr, err)
	}
	return ferr
}

// New builds a queue on db; Start runs its workers.
func New(db Database, cfg Config) (*Queue, error) { return newQueue(db, cfg) }

// newQueue builds a queue whose jobs run inside the outer middleware, around the queue's own.
func newQueue(db Database, cfg Config, outer ...rivertype.Middleware) (*Queue, error) {
	if cfg.Workers == nil {
		return nil, errors.New("queue: Workers is required")
	}
	if cfg.JobTimeout <= 0 {
		cfg.JobTimeout = 2 * time.Minute
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 10
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	ldb := leaseDB{pool: db.Pool(), sqlite: db.SQLWriter()}
	m, err := newMetrics(cfg.Metrics, ldb)
	if err != nil {
		return nil, fmt.Errorf("queue: %w", err)
	}
	l := &lease{length: min(cfg.Lease, cfg.JobTimeout), settle: cfg.JobTimeout, db: ldb, log: cfg.Logger, metrics: m}
	rc := &river.Config{
		// River's rescuer stays as a backstop; the lease takes a dead process's jobs up first.
		Logger:               slog.New(routineHandler{cfg.Logger.Handler()}),
		Workers:              cfg.Workers,
		JobTimeout:           cfg.JobTimeout,
		RescueStuckJobsAfter: 2 * cfg.JobTimeout,
		FetchCooldown:        50 * time.Millisecond,
		FetchPollInterval:    250 * time.Millisecond,
		MaxAttempts:          cfg.MaxAttempts,
		Middleware:           append(outer, &metricsMiddleware{m: m}, &leaseMiddleware{l: l}),
	}
	if cfg.MaxWorkers > 0 {
		rc.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: cfg.MaxWorkers}}
		for name, n := range cfg.Queues {
			if n < 1 || name == river.QueueDefault {
				return nil, fmt.Errorf("queue: queue %q needs a name other than the default's and at least one worker, got %d", name, n)
			}
			rc.Queues[name] = river.QueueConfig{MaxWorkers: n}
		}
		rc.PeriodicJobs = cfg.Periodic
	}
	q := &Queue{workers: cfg.MaxWorkers, lease: l}
	if pool := db.Pool(); pool != nil {
		var c *river.Client[pgx.Tx]
		c, err = river.NewClient(riverpgxv5.New(pool), rc)
		q.client = riverClient[pgx.Tx]{c}
	} else {
		var c *river.Client[*sql.Tx]
		c, err = river.NewClient(riversqlite.New(db.SQLWriter()), rc)
		q.client = riverClient[*sql.Tx]{c}
	}
	if err != nil {
		return nil, fmt.Errorf("queue: %w", err)
	}
	return q, nil
}

// Enqueue adds a job in tx: it exists once tx commits, and never if tx rolls back.
func (q *Queue) Enqueue(ctx context.Context, tx boxwatch.Tx, args river.JobArgs, opts *river.InsertOpts) error {
	native, err := native(tx)
	if err != nil {
		return err
	}
	return q.client.insertTx(ctx, native, args, opts)
}

// EnqueueMany adds several jobs in tx with one statement per batch.
func (q *Queue) EnqueueMany(ctx context.Context, tx boxwatch.Tx, jobs []river.InsertManyParams) error {
	if len(jobs) == 0 {
		return nil
	}
	native, err := native(tx)
	if err != nil {
		return err
	}
	return q.client.insertManyTx(ctx, native, jobs)
}

func native(tx boxwatch.Tx) (any, error) {
	n, ok := tx.(nativeTx)
	if !ok {
		return nil, fmt.Errorf("queue: %T is not a store transaction", tx)
	}
	return n.Native(), nil
}

// Start runs the workers until Stop; a queue without workers does nothing. Starting a running
// queue does nothing.
func (q *Queue) Start(ctx context.Context) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.workers == 0 || q.running {
		return nil
	}
	if err := q.client.start(ctx); err != nil {
		return err
	}
	var sweeps context.Context
	sweeps, q.stop = context.WithCancel(context.WithoutCancel(ctx))
	q.lease.run(sweeps)
	q.running = true
	return nil
}

// Stop waits for running jobs to finish, up to ctx's deadline. Stopping a queue that is not
// running does nothing.
func (q *Queue) Stop(ctx context.Context) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.running {
		return nil
	}
	q.running = false
	// The heartbeat goes on while running jobs finish, so none of them is taken meanwhile.
	err := q.client.stop(ctx)
	q.stop()
	q.lease.wg.Wait()
	return err
}

// Waiting returns the jobs of a kind that wait to run (available, scheduled, or to be retried),
// oldest first, at most 1,000. It answers whether the queue has workers or not.
func (q *Queue) Waiting(ctx context.Context, kind string) ([]*rivertype.JobRow, error) {
	params := river.NewJobListParams().Kinds(kind).First(1000).
		States(rivertype.JobStateAvailable, rivertype.JobStateScheduled, rivertype.JobStateRetryable)
	return q.client.list(ctx, params)
}
