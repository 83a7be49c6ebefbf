package tracking

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/webhook"
)

// Renderer renders the document a notification delivers.
type Renderer interface {
	Notification(ctx context.Context, n boxwatch.Notification) ([]byte, error)
}

// Deliveries configures webhook delivery. Without a Renderer notifications are created but not
// sent (an engine that only tracks).
type Deliveries struct {
	Renderer Renderer
	// Client sends deliveries; it must refuse private addresses unless the service allows them
	// (webhook.NewClient).
	Client *http.Client
	// Workers bounds deliveries in flight in this process (default 50); PerWebhook bounds them
	// per webhook (default 4), so one slow receiver cannot hold up the others.
	Workers    int
	PerWebhook int
}

// failingWindow is how long every delivery of a webhook may fail before it is deactivated.
const failingWindow = 72 * time.Hour

// deliveryQueue is the River queue of deliveries, apart from lookups and refreshes.
const deliveryQueue = "webhooks"

type deliverArgs struct {
	NotificationID string `json:"notification_id"`
	// Round tells a redelivery from the first delivery: the job that delivered the notification
	// before may not be marked completed yet, and must not swallow the new one as a duplicate.
	Round string `json:"round,omitempty"`
}

func (deliverArgs) Kind() string { return "deliver" }

func (deliverArgs) InsertOpts() river.InsertOpts {
	// One delivery job per notification at a time; a redelivery while one is queued is a no-op.
	return river.InsertOpts{Queue: deliveryQueue, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{
		rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
		rivertype.JobStateScheduled, rivertype.JobStateRetryable,
	}}}
}

type deliverWorker struct {
	river.WorkerDefaults[deliverArgs]
	e *Engine
	// slots holds a semaphore per webhook: deliveries in flight to it.
	mu    sync.Mutex
	slots map[string]chan struct{}
}

// slotWait is how long a delivery waits for its webhook's slot before giving its worker back:
// a receiver that answers in milliseconds frees one well within it; a slow one does not, and its
// deliveries then wait in the queue instead of holding workers other webhooks need.
const slotWait = 25 * time.Millisecond

func (w *deliverWorker) acquire(ctx context.Context, webhookID string) bool {
	w.mu.Lock()
	sem, ok := w.slots[webhookID]
	if !ok {
		sem = make(chan struct{}, w.e.cfg.Deliveries.PerWebhook)
		w.slots[webhookID] = sem
	}
	w.mu.Unlock()
	select {
	case sem <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(slotWait)
	defer t.Stop()
	select {
	case sem <- struct{}{}:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

func (w *deliverWorker) release(webhookID string) {
	w.mu.Lock()
	sem := w.slots[webhookID]
	w.mu.Unlock()
	<-sem
}

// Work sends a notification once and records the attempt: success, a retry after backoff, or the
// end (the last retry failed, or the receiver said 410 Gone, which deactivates the webhook).
func (w *deliverWorker) Work(ctx context.Context, job *river.Job[deliverArgs]) error {
	e := w.e
	n, hook, err := e.cfg.DB.NotificationToSend(ctx, job.Args.NotificationID)
	if err != nil {
		if errors.Is(err, boxwatch.ErrNotFound) {
			return nil // its webhook was deleted
		}
		return err
	}
	if n.DeliveryStatus != boxwatch.DeliveryPending {
		return nil
	}
	if !hook.Active {
		return e.cfg.DB.InTx(ctx, func(tx *store.Tx) error {
			now := e.cfg.Clock()
			n.DeliveryStatus, n.UpdatedAt = boxwatch.DeliveryFailed, now
			if err := tx.AddDeliveryAttempt(ctx, boxwatch.DeliveryAttempt{ID: boxwatch.NewID(now), NotificationID: n.ID, At: now,
				Error: "not sent: the webhook is inactive"}); err != nil {
				return err
			}
			return tx.SaveNotification(ctx, n)
		})
	}
	if !w.acquire(ctx, hook.ID) {
		return river.JobSnooze(time.Duration(250+rand.IntN(500)) * time.Millisecond)
	}
	defer w.release(hook.ID)

	if len(n.Body) == 0 {
		// The body is rendered once and kept: every retry sends the same bytes.
		body, err := e.cfg.Deliveries.Renderer.Notification(ctx, n)
		if err != nil {
			return fmt.Errorf("render notification %s: %w", n.ID, err)
		}
		n.Body = body
	}
	now := e.cfg.Clock()
	attempt := webhook.Deliver(ctx, e.cfg.Deliveries.Client, webhook.Request{URL: hook.URL, Headers: hook.Headers, Secret: hook.Secret,
		NotificationID: n.ID, Body: n.Body, Now: now})
	if errors.Is(ctx.Err(), context.Canceled) {
		return river.JobSnooze(0) // shutting down: send it again at the next start
	}
	ctx, cancel := writeContext(ctx)
	defer cancel()

	var retryIn time.Duration
	err = e.cfg.DB.InTx(ctx, func(tx *store.Tx) error {
		// A success that finds the webhook healthy changes only the notification; every other
		// outcome may change the webhook too, so it is read again under lock.
		var cur boxwatch.Notification
		var err error
		if attempt.Outcome == webhook.Succeeded && hook.FailingSince.IsZero() {
			cur, err = tx.NotificationForUpdate(ctx, n.ID)
		} else {
			cur, hook, err = tx.NotificationForWork(ctx, n.ID)
		}
		if err != nil {
			return err
		}
		now := e.cfg.Clock()
		cur.Body, cur.Attempts, cur.UpdatedAt = n.Body, cur.Attempts+1, now
		if err := tx.AddDeliveryAttempt(ctx, boxwatch.DeliveryAttempt{ID: boxwatch.NewID(now), NotificationID: n.ID, At: attempt.At,
			StatusCode: attempt.StatusCode, Latency: attempt.Latency, Error: attempt.Err, ResponseSnippet: attempt.ResponseSnippet}); err != nil {
			return err
		}
		switch attempt.Outcome {
		case webhook.Succeeded:
			cur.DeliveryStatus = boxwatch.DeliverySucceeded
			if !hook.FailingSince.IsZero() {
				hook.FailingSince, hook.UpdatedAt = time.Time{}, now
				if err := tx.SaveWebhookState(ctx, hook); err != nil {
					return err
				}
			}
		case webhook.Gone:
			cur.DeliveryStatus = boxwatch.DeliveryFailed
			hook.Active, hook.DeactivatedReason, hook.UpdatedAt = false, fmt.Sprintf("deactivated at %s: the receiver answered 410 Gone", now.Format(time.RFC3339)), now
			if err := tx.SaveWebhookState(ctx, hook); err != nil {
				return err
			}
		default:
			if hook.FailingSince.IsZero() {
				hook.FailingSince = now
			}
			hook.UpdatedAt = now
			if now.Sub(hook.FailingSince) >= e.scaled(failingWindow) {
				hook.Active = false
				hook.DeactivatedReason = fmt.Sprintf("deactivated at %s: every delivery since %s failed", now.Format(time.RFC3339), hook.FailingSince.Format(time.RFC3339))
			}
			if err := tx.SaveWebhookState(ctx, hook); err != nil {
				return err
			}
			if cur.Attempts > webhook.MaxRetries || !hook.Active {
				cur.DeliveryStatus = boxwatch.DeliveryFailed
			} else {
				retryIn = attempt.NextDelay(cur.Attempts, e.cfg.RetryScale, rand.Float64)
			}
		}
		return tx.SaveNotification(ctx, cur)
	})
	if err != nil || retryIn == 0 {
		return err
	}
	return river.JobSnooze(retryIn)
}

// Redeliver sends one of the account's notifications again, with the same id and body.
func (e *Engine) Redeliver(ctx context.Context, accountID, notificationID string) (boxwatch.Notification, error) {
	n, err := e.cfg.DB.Notification(ctx, accountID, notificationID)
	if err != nil {
		return n, err
	}
	err = e.cfg.DB.InTx(ctx, func(tx *store.Tx) error {
		cur, hook, err := tx.NotificationForWork(ctx, n.ID)
		if err != nil {
			return err
		}
		if !hook.Active {
			return inactive(hook)
		}
		n = cur
		if cur.DeliveryStatus == boxwatch.DeliveryPending {
			return nil // already on its way
		}
		now := e.cfg.Clock()
		n.DeliveryStatus, n.Attempts, n.UpdatedAt = boxwatch.DeliveryPending, 0, now
		if err := tx.SaveNotification(ctx, n); err != nil {
			return err
		}
		return e.queue.insertTx(ctx, tx, deliverArgs{NotificationID: n.ID, Round: boxwatch.NewID(now)}, nil)
	})
	return n, err
}

// RedeliverSince sends again every failed notification of one of the account's webhooks
// created at or after since.
func (e *Engine) RedeliverSince(ctx context.Context, accountID, webhookID string, since time.Time) (int, error) {
	hook, err := e.cfg.DB.Webhook(ctx, accountID, webhookID)
	if err != nil {
		return 0, err
	}
	if !hook.Active {
		return 0, inactive(hook)
	}
	var count int
	err = e.cfg.DB.InTx(ctx, func(tx *store.Tx) error {
		now := e.cfg.Clock()
		ids, err := tx.Redeliverable(ctx, hook.ID, since, now)
		if err != nil {
			return err
		}
		count = len(ids)
		if count == 0 {
			return nil
		}
		round := boxwatch.NewID(now)
		jobs := make([]river.JobArgs, count)
		for i, id := range ids {
			jobs[i] = deliverArgs{NotificationID: id, Round: round}
		}
		return e.queue.insertManyTx(ctx, tx, jobs)
	})
	return count, err
}

func inactive(w boxwatch.Webhook) error {
	return &boxwatch.Error{Kind: boxwatch.KindConflict, Code: "webhook_inactive",
		Message: "The webhook is inactive: set active to true (PATCH /v2/webhooks/" + w.ID + ") before redelivering."}
}
