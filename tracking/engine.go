// Package tracking is the tracking engine: it looks tracking requests up with carriers, creates
// shipments with their containers and route, refreshes them until the journey ends, and writes
// every change to the event log. All work runs as durable jobs (River) in the service's own
// database, enqueued in the same transaction as the state change that needs it, so a crash at any
// point loses no request and repeats no shipment.
//
// It does not call carriers inside a database transaction, and it never decides what an API
// client sees: the api package renders what the store holds.
package tracking

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
)

// Config is what the engine needs; DB, Registry and Carriers are required.
type Config struct {
	DB       *store.DB
	Registry *boxwatch.Carriers
	// Carriers maps a primary SCAC to the carrier (real or simulated) that answers for it.
	// Requests for a SCAC without one fail with shipping_line_unreachable.
	Carriers map[string]boxwatch.Carrier
	Clock    boxwatch.Clock
	Logger   *slog.Logger
	// RetryScale multiplies every retry and backoff delay (tests use a small value); default 1.
	RetryScale float64
	// RefreshInterval is how often a tracked shipment is looked up again; default 4 h.
	RefreshInterval time.Duration
	// Workers is how many jobs run at once in this process; 0 runs none (an API-only replica).
	Workers int
	// JobTimeout bounds one lookup or refresh; a job still marked running this long after its
	// process died is taken up again. Default 2 minutes.
	JobTimeout time.Duration
	// ScheduleEvery is how often the leader looks for shipments due for a refresh; default 5 s.
	ScheduleEvery time.Duration
	// Deliveries configures webhook delivery; see Deliveries.
	Deliveries Deliveries
}

// Engine runs the tracking lifecycle. Its methods are safe for concurrent use.
type Engine struct {
	cfg        Config
	log        *slog.Logger
	queue      queue
	deliveries *dispatcher // nil when this process delivers nothing
}

// Job kinds.
const (
	kindLookup   = "lookup"
	kindRefresh  = "refresh"
	kindSchedule = "schedule_refreshes"
)

type lookupArgs struct {
	TrackingRequestID string `json:"tracking_request_id"`
}

func (lookupArgs) Kind() string { return kindLookup }

type refreshArgs struct {
	ShipmentID string `json:"shipment_id"`
}

func (refreshArgs) Kind() string { return kindRefresh }

func (refreshArgs) InsertOpts() river.InsertOpts {
	// One refresh of a shipment at a time, across every replica.
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{
		rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
		rivertype.JobStateScheduled, rivertype.JobStateRetryable,
	}}}
}

type scheduleArgs struct{}

func (scheduleArgs) Kind() string { return kindSchedule }

// queue hides the transaction type River is generic over (*sql.Tx or pgx.Tx).
type queue interface {
	insertTx(ctx context.Context, tx *store.Tx, args river.JobArgs, opts *river.InsertOpts) error
	start(ctx context.Context) error
	stop(ctx context.Context) error
}

type riverQueue[TTx any] struct{ c *river.Client[TTx] }

func (q riverQueue[TTx]) insertTx(ctx context.Context, tx *store.Tx, args river.JobArgs, opts *river.InsertOpts) error {
	_, err := q.c.InsertTx(ctx, tx.Native().(TTx), args, opts)
	return err
}
func (q riverQueue[TTx]) start(ctx context.Context) error { return q.c.Start(ctx) }
func (q riverQueue[TTx]) stop(ctx context.Context) error  { return q.c.Stop(ctx) }

// Migrate creates or updates the job queue's tables in the store's database.
func Migrate(ctx context.Context, db *store.DB) error {
	var err error
	if db.Dialect() == store.Postgres {
		var m *rivermigrate.Migrator[pgx.Tx]
		if m, err = rivermigrate.New(riverpgxv5.New(db.Pool()), nil); err == nil {
			_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
		}
	} else {
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

// New builds an engine; Start runs its workers.
func New(cfg Config) (*Engine, error) {
	if cfg.DB == nil || cfg.Registry == nil {
		return nil, errors.New("tracking: DB and Registry are required")
	}
	if cfg.Clock == nil {
		cfg.Clock = boxwatch.SystemClock
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.RetryScale <= 0 {
		cfg.RetryScale = 1
	}
	if cfg.RefreshInterval <= 0 {
		cfg.RefreshInterval = 4 * time.Hour
	}
	if cfg.JobTimeout <= 0 {
		cfg.JobTimeout = 2 * time.Minute
	}
	if cfg.ScheduleEvery <= 0 {
		cfg.ScheduleEvery = 5 * time.Second
	}
	if cfg.Deliveries.Workers <= 0 {
		cfg.Deliveries.Workers = 50
	}
	if cfg.Deliveries.PerWebhook <= 0 {
		cfg.Deliveries.PerWebhook = 4
	}
	if cfg.Deliveries.Timeout <= 0 {
		cfg.Deliveries.Timeout = 10 * time.Second
	}
	e := &Engine{cfg: cfg, log: cfg.Logger}
	if cfg.Workers > 0 && cfg.Deliveries.Renderer != nil {
		e.deliveries = newDispatcher(e)
	}

	workers := river.NewWorkers()
	river.AddWorker(workers, &lookupWorker{e: e})
	river.AddWorker(workers, &refreshWorker{e: e})
	river.AddWorker(workers, &scheduleWorker{e: e})
	rc := &river.Config{
		Logger:               cfg.Logger.With("component", "jobs"),
		Workers:              workers,
		JobTimeout:           cfg.JobTimeout,
		RescueStuckJobsAfter: 2 * cfg.JobTimeout,
		FetchCooldown:        50 * time.Millisecond,
		FetchPollInterval:    250 * time.Millisecond,
		MaxAttempts:          10,
	}
	if cfg.Workers > 0 {
		rc.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: cfg.Workers}}
		rc.PeriodicJobs = []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(cfg.ScheduleEvery),
			func() (river.JobArgs, *river.InsertOpts) { return scheduleArgs{}, nil }, &river.PeriodicJobOpts{RunOnStart: true})}
	}
	var err error
	if cfg.DB.Dialect() == store.Postgres {
		var c *river.Client[pgx.Tx]
		c, err = river.NewClient(riverpgxv5.New(cfg.DB.Pool()), rc)
		e.queue = riverQueue[pgx.Tx]{c}
	} else {
		var c *river.Client[*sql.Tx]
		c, err = river.NewClient(riversqlite.New(cfg.DB.SQLWriter()), rc)
		e.queue = riverQueue[*sql.Tx]{c}
	}
	if err != nil {
		return nil, fmt.Errorf("tracking: job queue: %w", err)
	}
	return e, nil
}

// Start runs the workers until Stop; an engine with no workers only enqueues.
func (e *Engine) Start(ctx context.Context) error {
	if e.cfg.Workers == 0 {
		return nil
	}
	if err := e.queue.start(ctx); err != nil {
		return err
	}
	if e.deliveries != nil {
		e.deliveries.start(context.WithoutCancel(ctx))
	}
	return nil
}

// Stop waits for running jobs to finish, up to ctx's deadline.
func (e *Engine) Stop(ctx context.Context) error {
	if e.cfg.Workers == 0 {
		return nil
	}
	var derr error
	if e.deliveries != nil {
		derr = e.deliveries.stop(ctx)
	}
	return errors.Join(derr, e.queue.stop(ctx))
}

// CreateTrackingRequest stores a new request and its lookup job in one transaction.
func (e *Engine) CreateTrackingRequest(ctx context.Context, tr boxwatch.TrackingRequest) error {
	return e.cfg.DB.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.CreateTrackingRequest(ctx, tr); err != nil {
			return err
		}
		return e.queue.insertTx(ctx, tx, lookupArgs{TrackingRequestID: tr.ID}, nil)
	})
}

// StopTracking stops refreshing one of the account's shipments (cancelled_by_user).
func (e *Engine) StopTracking(ctx context.Context, accountID, shipmentID string) (boxwatch.Shipment, error) {
	var s boxwatch.Shipment
	err := e.cfg.DB.InTx(ctx, func(tx *store.Tx) error {
		var err error
		if s, err = tx.ShipmentForUpdate(ctx, accountID, shipmentID); err != nil {
			return err
		}
		if !s.StoppedAt.IsZero() {
			return nil
		}
		return e.stop(ctx, tx, &s, boxwatch.StopCancelledByUser, e.cfg.Clock())
	})
	return s, err
}

// ResumeTracking restarts refreshing a stopped shipment at once. If the account meanwhile tracks
// the same number in another live request, it is DuplicateError.
func (e *Engine) ResumeTracking(ctx context.Context, accountID, shipmentID string) (boxwatch.Shipment, error) {
	var s boxwatch.Shipment
	err := e.cfg.DB.InTx(ctx, func(tx *store.Tx) error {
		var err error
		if s, err = tx.ShipmentForUpdate(ctx, accountID, shipmentID); err != nil {
			return err
		}
		if s.StoppedAt.IsZero() {
			return nil
		}
		now := e.cfg.Clock()
		tr, err := tx.TrackingRequestForWork(ctx, s.TrackingRequestID)
		if err != nil {
			return err
		}
		tr.Status, tr.UpdatedAt = boxwatch.StatusCreated, now
		if err := tx.SaveTrackingRequestState(ctx, tr); err != nil {
			return err
		}
		s.StoppedAt, s.StoppedReason, s.NextRefreshAt, s.UpdatedAt = time.Time{}, "", now, now
		if err := tx.UpdateShipment(ctx, s); err != nil {
			return err
		}
		return e.queue.insertTx(ctx, tx, refreshArgs{ShipmentID: s.ID}, nil)
	})
	return s, err
}

// stop ends tracking of a shipment for reason, inside tx.
func (e *Engine) stop(ctx context.Context, tx *store.Tx, s *boxwatch.Shipment, reason string, now time.Time) error {
	s.StoppedAt, s.StoppedReason, s.NextRefreshAt, s.UpdatedAt = now, reason, time.Time{}, now
	if err := tx.UpdateShipment(ctx, *s); err != nil {
		return err
	}
	tr, err := tx.TrackingRequestForWork(ctx, s.TrackingRequestID)
	if err != nil {
		return err
	}
	tr.Status, tr.UpdatedAt = boxwatch.StatusTrackingStopped, now
	if err := tx.SaveTrackingRequestState(ctx, tr); err != nil {
		return err
	}
	err = e.appendEvent(ctx, tx, boxwatch.Event{
		ID: boxwatch.NewID(now), AccountID: s.AccountID, Name: "tracking_request.tracking_stopped",
		ObjectType: "tracking_request", ObjectID: tr.ID, TrackingRequestID: tr.ID, ShipmentID: s.ID,
		Key: fmt.Sprintf("tr:%s:tracking_stopped:%d", tr.ID, now.UnixMicro()), CreatedAt: now,
	})
	return err
}

// Emit logs an event with its notifications, in one transaction; an
// event whose key is already logged is ignored. The engine emits the events of tracking itself;
// Emit is for other sources of events.
func (e *Engine) Emit(ctx context.Context, ev boxwatch.Event) error {
	return e.cfg.DB.InTx(ctx, func(tx *store.Tx) error { return e.appendEvent(ctx, tx, ev) })
}

// appendEvent logs an event unless its key was logged before and creates a notification for
// every webhook that subscribes to it, in tx; the dispatcher is woken once tx commits.
func (e *Engine) appendEvent(ctx context.Context, tx *store.Tx, ev boxwatch.Event) error {
	added, err := tx.AppendEvent(ctx, ev)
	if err != nil || !added {
		return err
	}
	ids, err := tx.Notify(ctx, ev)
	if err == nil && len(ids) > 0 {
		tx.AfterCommit(e.wakeDeliveries)
	}
	return err
}

// scaled applies the retry scale to a delay.
func (e *Engine) scaled(d time.Duration) time.Duration {
	return time.Duration(float64(d) * e.cfg.RetryScale)
}
