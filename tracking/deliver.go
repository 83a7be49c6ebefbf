package tracking

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

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
	// Timeout is the client's limit on one delivery (default 10 s): a claim outlasts it.
	Timeout time.Duration
	// Workers bounds deliveries in flight in this process (default 50); PerWebhook bounds them
	// per webhook (default 4), so one slow receiver cannot hold up the others.
	Workers    int
	PerWebhook int
}

// Delivery timing.
const (
	// failingWindow is how long every delivery of a webhook may fail before it is deactivated.
	failingWindow = 72 * time.Hour
	// pollEvery is how often a dispatcher looks for due notifications it was not told about:
	// retries coming due, and events written by other replicas.
	pollEvery = 100 * time.Millisecond
	// claimBatch bounds the notifications claimed at once.
	claimBatch = 100
	// slotWait is how long a delivery waits for its webhook's slot: a receiver answering in
	// milliseconds frees one well within it; a slow one does not, and its deliveries are then
	// put back to wait instead of holding workers other webhooks need.
	slotWait = 25 * time.Millisecond
)

// dispatcher delivers notifications. It claims due ones from the database in batches (a claim
// lapses if its process dies, so nothing is lost), sends them concurrently, and records each
// outcome in its own transaction. Jobs per notification would cost more in queue bookkeeping
// than the delivery itself.
type dispatcher struct {
	e      *Engine
	wake   chan struct{}
	free   chan struct{} // one token per idle worker
	mu     sync.Mutex
	slots  map[string]chan struct{}
	wg     sync.WaitGroup
	cancel context.CancelFunc
}

func newDispatcher(e *Engine) *dispatcher {
	d := &dispatcher{e: e, wake: make(chan struct{}, 1), free: make(chan struct{}, e.cfg.Deliveries.Workers), slots: map[string]chan struct{}{}}
	for range e.cfg.Deliveries.Workers {
		d.free <- struct{}{}
	}
	return d
}

// notify wakes the dispatcher: new notifications are due.
func (d *dispatcher) notify() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// claimFor is how long a claim lasts: longer than any delivery takes.
func (d *dispatcher) claimFor() time.Duration {
	return d.e.cfg.Deliveries.Timeout + d.e.cfg.JobTimeout
}

func (d *dispatcher) start(ctx context.Context) {
	ctx, d.cancel = context.WithCancel(ctx)
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		d.run(ctx)
	}()
}

// stop ends claiming and waits for deliveries in flight, up to ctx's deadline; their claims
// lapse if they outlive it.
func (d *dispatcher) stop(ctx context.Context) error {
	d.cancel()
	done := make(chan struct{})
	go func() { d.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (d *dispatcher) run(ctx context.Context) {
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		// Claim as many as there are idle workers.
		n := 0
		for n < claimBatch {
			select {
			case <-d.free:
				n++
				continue
			default:
			}
			break
		}
		if n == 0 {
			select { // every worker is busy: wait for one
			case <-d.free:
				n = 1
			case <-ctx.Done():
				return
			}
		}
		now := d.e.cfg.Clock()
		ids, err := d.e.cfg.DB.ClaimDue(ctx, now, now.Add(d.claimFor()), n)
		if err != nil && ctx.Err() == nil {
			d.e.log.Warn("claiming deliveries", "error", err.Error())
		}
		for i := range n {
			if i < len(ids) {
				d.wg.Add(1)
				go func(id string) {
					defer func() { d.free <- struct{}{}; d.wg.Done() }()
					if err := d.deliver(ctx, id); err != nil && ctx.Err() == nil {
						d.e.log.Warn("delivering a notification", "notification_id", id, "error", err.Error())
					}
				}(ids[i])
			} else {
				d.free <- struct{}{}
			}
		}
		if len(ids) == n {
			continue // there may be more due
		}
		select {
		case <-d.wake:
		case <-tick.C:
		case <-ctx.Done():
			return
		}
	}
}

func (d *dispatcher) acquire(ctx context.Context, webhookID string) bool {
	d.mu.Lock()
	sem, ok := d.slots[webhookID]
	if !ok {
		sem = make(chan struct{}, d.e.cfg.Deliveries.PerWebhook)
		d.slots[webhookID] = sem
	}
	d.mu.Unlock()
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

func (d *dispatcher) release(webhookID string) {
	d.mu.Lock()
	sem := d.slots[webhookID]
	d.mu.Unlock()
	<-sem
}

// deliver sends a claimed notification once and records the attempt: success, a retry after
// backoff, or the end (the last retry failed, or the receiver said 410 Gone, which deactivates
// the webhook).
func (d *dispatcher) deliver(ctx context.Context, id string) error {
	e := d.e
	n, hook, err := e.cfg.DB.NotificationToSend(ctx, id)
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
			n.DeliveryStatus, n.NextAttemptAt, n.UpdatedAt = boxwatch.DeliveryFailed, time.Time{}, now
			if err := tx.AddDeliveryAttempt(ctx, boxwatch.DeliveryAttempt{ID: boxwatch.NewID(now), NotificationID: n.ID, At: now,
				Error: "not sent: the webhook is inactive"}); err != nil {
				return err
			}
			return tx.SaveNotification(ctx, n)
		})
	}
	if !d.acquire(ctx, hook.ID) {
		back := e.cfg.Clock().Add(time.Duration(250+rand.IntN(500)) * time.Millisecond)
		return e.cfg.DB.Unclaim(ctx, n.ID, back)
	}
	defer d.release(hook.ID)

	if len(n.Body) == 0 {
		// The body is rendered once and kept: every retry sends the same bytes.
		body, err := e.cfg.Deliveries.Renderer.Notification(ctx, n)
		if err != nil {
			return fmt.Errorf("render notification %s: %w", n.ID, err)
		}
		n.Body = body
	}
	attempt := webhook.Deliver(ctx, e.cfg.Deliveries.Client, webhook.Request{URL: hook.URL, Headers: hook.Headers, Secret: hook.Secret,
		NotificationID: n.ID, Body: n.Body, Now: e.cfg.Clock()})
	if ctx.Err() != nil {
		return nil // shutting down: the claim lapses and the notification is sent again
	}
	ctx, cancel := writeContext(ctx)
	defer cancel()
	return e.cfg.DB.InTx(ctx, func(tx *store.Tx) error {
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
		cur.NextAttemptAt = time.Time{}
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
				cur.NextAttemptAt = now.Add(attempt.NextDelay(cur.Attempts, e.cfg.RetryScale, rand.Float64))
			}
		}
		return tx.SaveNotification(ctx, cur)
	})
}

// Redeliver sends one of the account's notifications again, with the same id and body. A
// notification still pending is already on its way and is left as it is.
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
			return nil
		}
		now := e.cfg.Clock()
		n.DeliveryStatus, n.Attempts, n.NextAttemptAt, n.UpdatedAt = boxwatch.DeliveryPending, 0, now, now
		return tx.SaveNotification(ctx, n)
	})
	if err == nil {
		e.wakeDeliveries()
	}
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
		ids, err := tx.Redeliverable(ctx, hook.ID, since, e.cfg.Clock())
		count = len(ids)
		return err
	})
	if err == nil && count > 0 {
		e.wakeDeliveries()
	}
	return count, err
}

// wakeDeliveries tells this process's dispatcher that notifications are due.
func (e *Engine) wakeDeliveries() {
	if e.deliveries != nil {
		e.deliveries.notify()
	}
}

func inactive(w boxwatch.Webhook) error {
	return &boxwatch.Error{Kind: boxwatch.KindConflict, Code: "webhook_inactive",
		Message: "The webhook is inactive: set active to true (PATCH /v2/webhooks/" + w.ID + ") before redelivering."}
}
