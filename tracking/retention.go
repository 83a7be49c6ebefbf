package tracking

import (
	"context"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Retention says how long history is kept. A zero duration keeps that kind for ever.
type Retention struct {
	// Notifications is how long a webhook notification delivered, or failed for good, stays
	// after its last change (with its delivery logs): GET /v2/webhook_notifications lists it
	// until then. Pending notifications, retrying or not, are never deleted.
	Notifications time.Duration
	// Events is how long a logged event stays: it goes once older, no notification refers to it
	// any more, and its shipment (if any) stopped longer ago.
	Events time.Duration
	// Positions is how long stored AIS positions of vessels stay.
	Positions time.Duration
	// Every is how often the job runs; default DefaultRetentionEvery.
	Every time.Duration
	// Batch is how many rows one statement deletes; default DefaultRetentionBatch.
	Batch int
}

// Defaults of Retention, shared with the command line.
const (
	DefaultNotificationRetention = 30 * 24 * time.Hour
	DefaultEventRetention        = 90 * 24 * time.Hour
	DefaultPositionRetention     = 120 * 24 * time.Hour
	DefaultRetentionEvery        = time.Hour
	DefaultRetentionBatch        = 1000
)

type retentionArgs struct{}

func (retentionArgs) Kind() string { return kindRetain }

func (retentionArgs) InsertOpts() river.InsertOpts {
	// One run at a time across every replica: the leader enqueues it, and not again while it is
	// queued or running.
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByState: []rivertype.JobState{
		rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
		rivertype.JobStateScheduled, rivertype.JobStateRetryable,
	}}}
}

type retentionWorker struct {
	river.WorkerDefaults[retentionArgs]
	e *Engine
}

// Work deletes what is past its retention: notifications first, whose deletion frees their
// events, then events, then positions. Each statement deletes one batch in its own short
// transaction, so that no lock is held for long and the other writers go on between batches. A
// run stops after half the job timeout; the next one goes on from where it stopped.
func (w *retentionWorker) Work(ctx context.Context, job *river.Job[retentionArgs]) error {
	e := w.e
	r := e.cfg.Retention
	now := e.cfg.Clock()
	// The run's own duration, not the domain's time: the wall clock, whatever Clock says.
	budget := time.Now().Add(e.cfg.JobTimeout / 2)
	// The list totals' rows first: quick, and whatever the retention of history.
	for {
		n, err := e.cfg.DB.FoldListCounts(ctx, r.Batch)
		if err != nil {
			return err
		}
		if n < int64(r.Batch) || time.Now().After(budget) {
			break
		}
	}
	for _, kind := range []struct {
		name string
		keep time.Duration
		del  func(context.Context, time.Time, int) (int64, error)
	}{
		{"notifications", r.Notifications, e.cfg.DB.DeleteFinishedNotifications},
		{"events", r.Events, e.cfg.DB.DeleteEventsBefore},
		{"positions", r.Positions, e.cfg.DB.DeletePositionsBefore},
	} {
		if kind.keep <= 0 {
			continue
		}
		var deleted int64
		for {
			if time.Now().After(budget) {
				e.log.Info("retention continues at the next run", "kind", kind.name, "deleted", deleted)
				return nil
			}
			n, err := kind.del(ctx, now.Add(-kind.keep), r.Batch)
			if err != nil {
				return err
			}
			deleted += n
			if n < int64(r.Batch) {
				break
			}
		}
		if deleted > 0 {
			e.log.Info("history past retention deleted", "kind", kind.name, "count", deleted)
		}
	}
	return nil
}
