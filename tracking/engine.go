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
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/queue"
)

// Database is the store as the engine uses it: transactions and work queries, and the handles the
// job queue runs on.
type Database interface {
	boxwatch.WorkStore
	boxwatch.TerminalStore
	boxwatch.RetentionStore
	queue.Database
}

// Config is what the engine needs; DB, Registry and Carriers are required.
type Config struct {
	DB       Database
	Registry *boxwatch.Carriers
	// Carriers maps a primary SCAC to the carrier (real or simulated) that answers for it.
	// Requests for a SCAC without one fail with shipping_line_unreachable.
	Carriers map[string]boxwatch.Carrier
	// Lines ranks the lines a request without SCAC (auto_detect_vocc_scac) is looked up with;
	// without it such requests fail with scac_auto_detect_failed.
	Lines boxwatch.LineRanker
	// Terminals finds the source that reports on a container at its terminal of discharge; nil
	// checks no terminal (see terminal.go).
	Terminals boxwatch.TerminalDirectory
	// Railways names the railway of a rail leg from its rail terminal's name, for the containers'
	// pod_rail_carrier_scac and ind_rail_carrier_scac; nil leaves them null.
	Railways *boxwatch.Railways
	// TerminalInterval is how often a container is checked with its terminal while it is there;
	// default DefaultTerminalInterval.
	TerminalInterval time.Duration
	Clock            boxwatch.Clock
	Logger           *slog.Logger
	// RetryScale multiplies every retry and backoff delay (tests use a small value); default 1.
	RetryScale float64
	// RefreshInterval is how often a tracked shipment is looked up again; default DefaultRefreshInterval.
	RefreshInterval time.Duration
	// Workers is how many lookups, refreshes and housekeeping jobs run at once in this process;
	// 0 runs no job at all (an API-only replica). First lookups go before refreshes.
	Workers int
	// TerminalWorkers is how many terminal checks run at once in this process, in a queue of
	// their own so that slow or hanging terminals never hold the workers carriers' lookups need;
	// default DefaultTerminalWorkers. Used only when Workers is above 0.
	TerminalWorkers int
	// JobTimeout bounds one lookup or refresh. Default DefaultJobTimeout. A job of a process that
	// died is taken up again once its lease lapses (queue.DefaultLease, or JobTimeout if shorter).
	JobTimeout time.Duration
	// ScheduleEvery is how often the leader looks for shipments due for a refresh; default 5 s.
	ScheduleEvery time.Duration
	// Notified is called after a transaction that created notifications commits (the webhook
	// dispatcher's Wake); nil calls nothing.
	Notified func()
	// RoutesChanged is called after a transaction that created a shipment or applied a carrier's
	// answer to one commits (AIS ingest's Wake: the vessels of active legs may have changed); nil
	// calls nothing.
	RoutesChanged func()
	// Arrived is called after a transaction that recorded vessels' arrivals at ports (an ATA new
	// in a shipment's route) commits, with those arrivals: the journey engine learns the waits at
	// the ports from them (journey.Engine.LearnArrivals). It runs on the job's goroutine; nil
	// calls nothing.
	Arrived func([]boxwatch.VesselArrival)
	// Metrics receives the job queue's metrics and the engine's own (boxwatch_refresh_failures_total);
	// nil registers none.
	Metrics prometheus.Registerer
	// Retention says how long history is kept before the retention job deletes it (retention.go).
	Retention Retention
}

// Defaults of Config, shared with the command line.
const (
	DefaultRefreshInterval = 4 * time.Hour
	DefaultJobTimeout      = 2 * time.Minute
	// DefaultTerminalWorkers: a check waits on the terminal rather than computing, so workers =
	// checks a second × answer time (docs/deploy.md); 50 keep up with about 35 checks a second
	// (a replica's share of 300,000 tracked containers, two in five near or at their terminal) at
	// a second an answer, with room for slower terminals.
	DefaultTerminalWorkers = 50
	defaultScheduleEvery   = 5 * time.Second
)

// Engine runs the tracking lifecycle. Its methods are safe for concurrent use; Start and Stop are
// safe in any order and idempotent.
type Engine struct {
	cfg   Config
	log   *slog.Logger
	queue *queue.Queue
	// refreshFailures counts the refreshes carriers did not answer, terminalFailures the
	// terminal checks terminals did not; nil without Metrics.
	refreshFailures, terminalFailures *prometheus.CounterVec
}

// refreshFailureReasons are the reason label's values: the failed_reason each failure would give
// a lookup.
var refreshFailureReasons = []string{boxwatch.ReasonNotFound, boxwatch.ReasonInvalidNumber, boxwatch.ReasonUnreachable,
	boxwatch.ReasonUnrecognizedResponse, boxwatch.ReasonDataUnavailable, boxwatch.ReasonInternalProcessingError}

// Job kinds.
const (
	kindLookup   = "lookup"
	kindRefresh  = "refresh"
	kindSchedule = "schedule_refreshes"
	kindRetain   = "retention"
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
	// Behind first lookups (priority 1, River's default), which a user waits for: a burst of
	// due refreshes never delays a new request by more than the lookups ahead of it.
	return river.InsertOpts{Priority: priorityRefresh, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{
		rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
		rivertype.JobStateScheduled, rivertype.JobStateRetryable,
	}}}
}

// priorityRefresh ranks refreshes after every other job of the default queue (River runs the
// lowest number first).
const priorityRefresh = 2

type scheduleArgs struct{}

func (scheduleArgs) Kind() string { return kindSchedule }

func (scheduleArgs) InsertOpts() river.InsertOpts {
	// At most one pass waits or runs, across every replica: a pass slower than ScheduleEvery
	// (a busy database) skips the ticks that come meanwhile rather than piling passes up, which
	// would run ahead of every refresh (priority 1 against 2) and starve them. A pass that fails
	// is not retried: the next tick's is as good, and a pass waiting out its backoff would hold
	// every tick off meanwhile.
	return river.InsertOpts{MaxAttempts: 1, UniqueOpts: river.UniqueOpts{ByState: []rivertype.JobState{
		rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning, rivertype.JobStateScheduled,
	}}}
}

// Migrate creates or updates the job queue's tables in the store's database.
func Migrate(ctx context.Context, db Database) error { return queue.Migrate(ctx, db) }

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
		cfg.RefreshInterval = DefaultRefreshInterval
	}
	if cfg.TerminalInterval <= 0 {
		cfg.TerminalInterval = DefaultTerminalInterval
	}
	if cfg.JobTimeout <= 0 {
		cfg.JobTimeout = DefaultJobTimeout
	}
	if cfg.ScheduleEvery <= 0 {
		cfg.ScheduleEvery = defaultScheduleEvery
	}
	if cfg.Notified == nil {
		cfg.Notified = func() {}
	}
	if cfg.RoutesChanged == nil {
		cfg.RoutesChanged = func() {}
	}
	if cfg.Retention.Every <= 0 {
		cfg.Retention.Every = DefaultRetentionEvery
	}
	if cfg.Retention.Batch <= 0 {
		cfg.Retention.Batch = DefaultRetentionBatch
	}
	e := &Engine{cfg: cfg, log: cfg.Logger}
	if cfg.Metrics != nil {
		e.refreshFailures = prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "boxwatch_refresh_failures_total",
			Help: "Refreshes of tracked shipments their carrier did not answer, by SCAC and reason (the failed_reason a lookup would get). A shipment whose refreshes fail for 56 days stops with no_updates_at_line.",
		}, []string{"scac", "reason"})
		if err := cfg.Metrics.Register(e.refreshFailures); err != nil {
			return nil, fmt.Errorf("tracking: %w", err)
		}
		for scac := range cfg.Carriers {
			for _, reason := range refreshFailureReasons {
				e.refreshFailures.WithLabelValues(scac, reason)
			}
		}
		e.terminalFailures = prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "boxwatch_terminal_check_failures_total",
			Help: "Checks of containers with their terminal that failed, by reason (the container's terminal failure reason): not_found, terminal_unreachable, rate_limited, unrecognized_response, terminal_unsupported (no source answers for the terminal) or internal_processing_error.",
		}, []string{"reason"})
		if err := cfg.Metrics.Register(e.terminalFailures); err != nil {
			return nil, fmt.Errorf("tracking: %w", err)
		}
		for _, reason := range terminalFailureReasons {
			e.terminalFailures.WithLabelValues(reason)
		}
	}

	workers := river.NewWorkers()
	river.AddWorker(workers, &lookupWorker{e: e})
	river.AddWorker(workers, &refreshWorker{e: e})
	river.AddWorker(workers, &scheduleWorker{e: e})
	river.AddWorker(workers, &terminalWorker{e: e})
	river.AddWorker(workers, &retentionWorker{e: e})
	if cfg.TerminalWorkers <= 0 {
		cfg.TerminalWorkers = DefaultTerminalWorkers
	}
	q, err := queue.New(cfg.DB, queue.Config{
		Workers: workers, MaxWorkers: cfg.Workers, Queues: map[string]int{queueTerminals: cfg.TerminalWorkers},
		JobTimeout: cfg.JobTimeout, Logger: cfg.Logger.With("subsystem", "jobs"), Metrics: cfg.Metrics,
		Periodic: []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(cfg.ScheduleEvery),
			func() (river.JobArgs, *river.InsertOpts) { return scheduleArgs{}, nil }, &river.PeriodicJobOpts{RunOnStart: true}),
			river.NewPeriodicJob(river.PeriodicInterval(cfg.Retention.Every),
				func() (river.JobArgs, *river.InsertOpts) { return retentionArgs{}, nil }, &river.PeriodicJobOpts{RunOnStart: true})},
	})
	if err != nil {
		return nil, fmt.Errorf("tracking: %w", err)
	}
	e.queue = q
	return e, nil
}

// Queue is the engine's job queue, for reading its state (the admin page).
func (e *Engine) Queue() *queue.Queue { return e.queue }

// Start runs the workers until Stop; an engine with no workers only enqueues.
func (e *Engine) Start(ctx context.Context) error { return e.queue.Start(ctx) }

// Stop waits for running jobs to finish, up to ctx's deadline.
func (e *Engine) Stop(ctx context.Context) error { return e.queue.Stop(ctx) }

// CreateTrackingRequest stores a new request and its lookup job in one transaction.
func (e *Engine) CreateTrackingRequest(ctx context.Context, tr boxwatch.TrackingRequest) error {
	return e.cfg.DB.InTx(ctx, func(tx boxwatch.Tx) error {
		if err := tx.CreateTrackingRequest(ctx, tr); err != nil {
			return err
		}
		return e.queue.Enqueue(ctx, tx, lookupArgs{TrackingRequestID: tr.ID}, nil)
	})
}

// StopTracking stops refreshing one of the account's shipments (cancelled_by_user).
func (e *Engine) StopTracking(ctx context.Context, accountID, shipmentID string) (boxwatch.Shipment, error) {
	var s boxwatch.Shipment
	err := e.cfg.DB.InTx(ctx, func(tx boxwatch.Tx) error {
		var err error
		if s, err = tx.LockAccountShipment(ctx, accountID, shipmentID); err != nil {
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
	err := e.cfg.DB.InTx(ctx, func(tx boxwatch.Tx) error {
		var err error
		if s, err = tx.LockAccountShipment(ctx, accountID, shipmentID); err != nil {
			return err
		}
		if s.StoppedAt.IsZero() {
			return nil
		}
		now := e.cfg.Clock()
		tr, err := tx.LockTrackingRequest(ctx, s.TrackingRequestID)
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
		return e.queue.Enqueue(ctx, tx, refreshArgs{ShipmentID: s.ID}, nil)
	})
	return s, err
}

// RefreshNow schedules an immediate lookup of one of the account's shipments, unless tracking
// stopped (a stopped shipment is looked up again only by ResumeTracking).
func (e *Engine) RefreshNow(ctx context.Context, accountID, shipmentID string) error {
	return e.cfg.DB.InTx(ctx, func(tx boxwatch.Tx) error {
		s, err := tx.LockAccountShipment(ctx, accountID, shipmentID)
		if err != nil {
			return err
		}
		if !s.StoppedAt.IsZero() {
			return nil
		}
		s.NextRefreshAt = e.cfg.Clock()
		if err := tx.UpdateShipment(ctx, s); err != nil {
			return err
		}
		return e.queue.Enqueue(ctx, tx, refreshArgs{ShipmentID: s.ID}, nil)
	})
}

// stop ends tracking of a shipment for reason, inside tx, and logs it once tx commits.
func (e *Engine) stop(ctx context.Context, tx boxwatch.Tx, s *boxwatch.Shipment, reason string, now time.Time) error {
	s.StoppedAt, s.StoppedReason, s.NextRefreshAt, s.UpdatedAt = now, reason, time.Time{}, now
	id, scac := s.ID, s.SCAC
	tx.AfterCommit(func() { e.log.Info("tracking stopped", "shipment_id", id, "scac", scac, "reason", reason) })
	if err := tx.UpdateShipment(ctx, *s); err != nil {
		return err
	}
	tr, err := tx.LockTrackingRequest(ctx, s.TrackingRequestID)
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
	return e.cfg.DB.InTx(ctx, func(tx boxwatch.Tx) error { return e.appendEvent(ctx, tx, ev) })
}

// appendEvent logs an event unless its key was logged before and creates a notification for
// every webhook that subscribes to it, in tx; Notified is called once tx commits.
func (e *Engine) appendEvent(ctx context.Context, tx boxwatch.Tx, ev boxwatch.Event) error {
	added, err := tx.AppendEvent(ctx, ev)
	if err != nil || !added {
		return err
	}
	ids, err := tx.Notify(ctx, ev)
	if err == nil && len(ids) > 0 {
		tx.AfterCommit(e.cfg.Notified)
	}
	return err
}

// scaled applies the retry scale to a delay.
func (e *Engine) scaled(d time.Duration) time.Duration {
	return time.Duration(float64(d) * e.cfg.RetryScale)
}
