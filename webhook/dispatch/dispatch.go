// Package dispatch delivers the notifications the store holds to their webhooks: it claims due
// ones in batches, sends each with the webhook package, and records every outcome: a success, a
// retry after backoff, or the end (retries exhausted, or 410 Gone, which deactivates the webhook).
// It also redelivers on request.
//
// It depends on the domain's store interfaces and on a Renderer for notification bodies; it never
// decides what a document contains and never calls a carrier.
package dispatch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/webhook"
)

// Renderer renders the document a notification delivers.
type Renderer interface {
	Notification(ctx context.Context, n boxwatch.Notification) ([]byte, error)
}

// RedeliveryStore answers the account-scoped reads of redelivery: the notification, or the
// webhook, to send again.
type RedeliveryStore interface {
	boxwatch.NotificationStore
	boxwatch.WebhookStore
}

// Config is what a dispatcher needs; Store and Work are required.
type Config struct {
	// Store answers the account-scoped reads of redelivery; Work claims and records deliveries.
	Store RedeliveryStore
	Work  boxwatch.WorkStore
	// Renderer renders bodies; without one the dispatcher sends nothing (Start does nothing) and
	// only marks redeliveries due, for a dispatcher running elsewhere.
	Renderer Renderer
	// Client sends deliveries; it must refuse private addresses unless the service allows them
	// (webhook.NewClient). Default: webhook.NewClient with the default policy.
	Client *http.Client
	// Timeout is the client's limit on one delivery (default webhook.DefaultTimeout).
	Timeout time.Duration
	// ClaimFor is the lease of a claim: the dispatcher renews every claim it holds, in one
	// statement, every third of it, so a claim outlives a slow delivery while its process lives
	// and lapses within ClaimFor of the process's death; another process then sends the
	// notification again. Default DefaultClaimFor.
	ClaimFor time.Duration
	// Workers bounds the deliveries this process starts and that have not run SlowAfter yet
	// (default DefaultWorkers). A delivery unanswered after SlowAfter (default DefaultSlowAfter)
	// gives its worker back and marks its webhook failing, as a failed attempt does, until it
	// answers. PerWebhook (default DefaultPerWebhook) and PerAccount (default DefaultPerAccount)
	// bound the deliveries in flight to a healthy webhook and to an account's healthy webhooks,
	// across every process sharing the store; a failing webhook gets one at a time, and an
	// account's failing webhooks together PerAccountFailing (default DefaultPerAccountFailing),
	// apart from the healthy ones' budget. So receivers that hang or fail hold neither the
	// workers nor the budget that healthy receivers, of their account or another, need.
	Workers           int
	PerWebhook        int
	PerAccount        int
	PerAccountFailing int
	SlowAfter         time.Duration
	// RetryScale multiplies every retry delay and the failing window (tests use a small value);
	// default 1.
	RetryScale float64
	Clock      boxwatch.Clock
	Logger     *slog.Logger
	// Metrics receives the dispatcher's metrics (deliveries, latency, backlog); nil registers
	// none.
	Metrics prometheus.Registerer
}

// Defaults of Config, shared with the command line.
const (
	DefaultWorkers           = 50
	DefaultPerWebhook        = 16
	DefaultPerAccount        = 32
	DefaultPerAccountFailing = 8
	DefaultSlowAfter         = time.Second
	DefaultClaimFor          = 15 * time.Second
	// PollEvery is how often a dispatcher looks for due notifications it was not told about:
	// retries coming due, events written by other replicas, and the claims of a process that
	// died, once they lapse.
	PollEvery = 100 * time.Millisecond
)

// Delivery timing.
const (
	// failingWindow is how long every delivery of a webhook may fail before it is deactivated.
	failingWindow = 72 * time.Hour
	// claimBatch bounds the notifications claimed at once.
	claimBatch = 100
	// slotWait is how long a delivery waits for its webhook's slot: a receiver answering in
	// milliseconds frees one well within it; a slow one does not, and its deliveries are then
	// put back to wait instead of holding workers other webhooks need.
	slotWait = 25 * time.Millisecond
	// recordTimeout bounds recording an outcome after the delivery's own context has ended.
	recordTimeout = 30 * time.Second
)

// Dispatcher delivers notifications. A claim lapses if its process dies, so nothing is lost; the
// notification is then sent again with the same id. Jobs per notification would cost more in
// queue bookkeeping than the delivery itself. Start, Stop and Wake are safe in any order.
type Dispatcher struct {
	cfg     Config
	log     *slog.Logger
	metrics *metrics
	wake    chan struct{}
	free    chan struct{} // one token per idle worker

	mu    sync.Mutex
	slots map[string]*slot // per webhook with deliveries in flight or waiting; removed when idle
	held  map[string]bool  // the notifications this process holds a claim on

	lifecycle sync.Mutex
	cancel    context.CancelFunc // nil unless running
	wg        sync.WaitGroup
}

// slot bounds the deliveries in flight to one webhook; users counts the deliveries holding or
// waiting for it, so the entry is dropped when none does.
type slot struct {
	sem   chan struct{}
	users int
}

// New builds a dispatcher; Start runs it. A dispatcher that is not running still redelivers: it
// marks notifications due, and a running dispatcher (here or in another replica) sends them.
func New(cfg Config) (*Dispatcher, error) {
	if cfg.Store == nil || cfg.Work == nil {
		return nil, errors.New("dispatch: Store and Work are required")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = webhook.DefaultTimeout
	}
	if cfg.Client == nil {
		cfg.Client = webhook.NewClient(webhook.Policy{Timeout: cfg.Timeout})
	}
	if cfg.ClaimFor <= 0 {
		cfg.ClaimFor = DefaultClaimFor
	}
	if cfg.PerAccountFailing <= 0 {
		cfg.PerAccountFailing = DefaultPerAccountFailing
	}
	if cfg.SlowAfter <= 0 {
		cfg.SlowAfter = DefaultSlowAfter
	}
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if cfg.PerWebhook <= 0 {
		cfg.PerWebhook = DefaultPerWebhook
	}
	if cfg.PerAccount <= 0 {
		cfg.PerAccount = DefaultPerAccount
	}
	if cfg.RetryScale <= 0 {
		cfg.RetryScale = 1
	}
	if cfg.Clock == nil {
		cfg.Clock = boxwatch.SystemClock
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	m, err := newMetrics(cfg.Metrics, cfg.Work, cfg.Clock)
	if err != nil {
		return nil, fmt.Errorf("dispatch: %w", err)
	}
	d := &Dispatcher{cfg: cfg, log: cfg.Logger, metrics: m, wake: make(chan struct{}, 1), free: make(chan struct{}, cfg.Workers),
		slots: map[string]*slot{}, held: map[string]bool{}}
	for range cfg.Workers {
		d.free <- struct{}{}
	}
	return d, nil
}

// Wake tells the dispatcher that notifications are due: it claims at once instead of at its next
// poll. It never blocks.
func (d *Dispatcher) Wake() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Start claims and sends due notifications until Stop. Starting a running dispatcher, or one
// without a Renderer, does nothing.
func (d *Dispatcher) Start(ctx context.Context) {
	d.lifecycle.Lock()
	defer d.lifecycle.Unlock()
	if d.cancel != nil || d.cfg.Renderer == nil {
		return
	}
	ctx, d.cancel = context.WithCancel(context.WithoutCancel(ctx))
	d.wg.Add(2)
	go func() {
		defer d.wg.Done()
		d.run(ctx)
	}()
	go func() {
		defer d.wg.Done()
		d.renew(ctx)
	}()
}

// Stop ends claiming and waits for deliveries in flight, up to ctx's deadline; their claims lapse
// if they outlive it. Stopping a dispatcher that is not running does nothing.
func (d *Dispatcher) Stop(ctx context.Context) error {
	d.lifecycle.Lock()
	cancel := d.cancel
	d.cancel = nil
	d.lifecycle.Unlock()
	if cancel == nil {
		return nil
	}
	cancel()
	done := make(chan struct{})
	go func() { d.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (d *Dispatcher) run(ctx context.Context) {
	tick := time.NewTicker(PollEvery)
	defer tick.Stop()
	bounds := boxwatch.ClaimBounds{PerWebhook: d.cfg.PerWebhook, PerAccount: d.cfg.PerAccount,
		PerAccountFailing: d.cfg.PerAccountFailing, SlowAfter: d.cfg.SlowAfter}
	for {
		n := d.idleWorkers(ctx)
		if n == 0 {
			return // stopped
		}
		now := d.cfg.Clock()
		// A stop does not cut the claim short: its statement may commit all the same, and the
		// claims would then be nobody's until they lapse. Claimed, they are given back by work.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d.cfg.ClaimFor/3)
		claimed, err := d.cfg.Work.ClaimDueDeliveries(cctx, now, now.Add(d.cfg.ClaimFor), n, bounds)
		cancel()
		if err != nil && ctx.Err() == nil {
			d.log.Warn("claiming deliveries", "error", err.Error())
		}
		d.mu.Lock()
		for _, c := range claimed {
			d.held[c.Notification.ID] = true
		}
		d.mu.Unlock()
		for i := range n {
			if i >= len(claimed) {
				d.free <- struct{}{}
				continue
			}
			d.wg.Add(1)
			go d.work(ctx, claimed[i])
		}
		if len(claimed) == n {
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

// work delivers one claimed notification on a worker, and gives the worker back when the
// delivery ends or once it has run SlowAfter, whichever comes first: a receiver that does not
// answer holds its own request, not a worker others need. Either way the dispatcher claims
// again at once.
func (d *Dispatcher) work(ctx context.Context, c boxwatch.ClaimedDelivery) {
	id := c.Notification.ID
	var once sync.Once
	giveBack := func() {
		once.Do(func() {
			d.free <- struct{}{}
			d.Wake()
		})
	}
	slow := time.AfterFunc(d.cfg.SlowAfter, giveBack)
	defer func() {
		slow.Stop()
		d.mu.Lock()
		delete(d.held, id)
		d.mu.Unlock()
		giveBack()
		d.wg.Done()
	}()
	err := d.deliver(ctx, c.Notification, c.Webhook)
	if ctx.Err() != nil && !errors.Is(err, errRecorded) {
		// Stopping before the outcome was recorded: the claim goes back, so that another
		// replica sends the notification now rather than when the claim would lapse.
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := d.cfg.Work.UnclaimNotification(uctx, id, d.cfg.Clock()); err != nil {
			d.log.Warn("giving a claim back", "notification_id", id, "error", err.Error())
		}
		return
	}
	if err != nil && !errors.Is(err, errRecorded) {
		d.log.Warn("delivering a notification", "notification_id", id, "error", err.Error())
	}
}

// errRecorded is what deliver returns once the attempt's outcome is recorded: the claim has
// ended with it.
var errRecorded = errors.New("recorded")

// renew extends the claims this process holds, all in one statement, every third of ClaimFor,
// so that one late or failed renewal still leaves a live delivery its claim.
func (d *Dispatcher) renew(ctx context.Context) {
	every := d.cfg.ClaimFor / 3
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		d.mu.Lock()
		ids := make([]string, 0, len(d.held))
		for id := range d.held {
			ids = append(ids, id)
		}
		d.mu.Unlock()
		if len(ids) == 0 {
			continue
		}
		rctx, cancel := context.WithTimeout(ctx, every)
		err := d.cfg.Work.RenewClaims(rctx, ids, d.cfg.Clock().Add(d.cfg.ClaimFor))
		cancel()
		if err != nil && ctx.Err() == nil {
			d.log.Warn("renewing delivery claims", "claims", len(ids), "error", err.Error())
		}
		d.metrics.renewed(err)
	}
}

// idleWorkers takes the tokens of every idle worker, up to claimBatch, waiting for one if all are
// busy; 0 when ctx ends first.
func (d *Dispatcher) idleWorkers(ctx context.Context) int {
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
	if n > 0 {
		return n
	}
	select {
	case <-d.free:
		return 1
	case <-ctx.Done():
		return 0
	}
}

// acquire takes one of the webhook's slots, waiting up to slotWait; false if none came free.
func (d *Dispatcher) acquire(ctx context.Context, webhookID string) bool {
	d.mu.Lock()
	s, ok := d.slots[webhookID]
	if !ok {
		s = &slot{sem: make(chan struct{}, d.cfg.PerWebhook)}
		d.slots[webhookID] = s
	}
	s.users++
	d.mu.Unlock()
	got := false
	select {
	case s.sem <- struct{}{}:
		got = true
	default:
		t := time.NewTimer(slotWait)
		select {
		case s.sem <- struct{}{}:
			got = true
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	if !got {
		d.leave(webhookID, s)
	}
	return got
}

// release gives back a slot taken by acquire.
func (d *Dispatcher) release(webhookID string) {
	d.mu.Lock()
	s := d.slots[webhookID]
	d.mu.Unlock()
	<-s.sem
	d.leave(webhookID, s)
}

// leave drops one user of a slot, and the slot itself when it has none.
func (d *Dispatcher) leave(webhookID string, s *slot) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if s.users--; s.users == 0 {
		delete(d.slots, webhookID)
	}
}

// deliver sends a claimed notification once and records the attempt.
func (d *Dispatcher) deliver(ctx context.Context, n boxwatch.Notification, hook boxwatch.Webhook) error {
	if !hook.Active {
		err := d.cfg.Work.InTx(ctx, func(tx boxwatch.Tx) error {
			now := d.cfg.Clock()
			n.DeliveryStatus, n.NextAttemptAt, n.UpdatedAt, n.Attempts = boxwatch.DeliveryFailed, time.Time{}, now, n.Attempts+1
			if err := tx.AddDeliveryAttempt(ctx, boxwatch.DeliveryAttempt{ID: boxwatch.NewID(now), NotificationID: n.ID, At: now,
				Error: "not sent: the webhook is inactive"}); err != nil {
				return err
			}
			return tx.SaveNotification(ctx, n)
		})
		if err == nil {
			d.metrics.gaveUp()
		}
		return err
	}
	if !d.acquire(ctx, hook.ID) {
		back := d.cfg.Clock().Add(time.Duration(250+rand.IntN(500)) * time.Millisecond)
		return d.cfg.Work.UnclaimNotification(ctx, n.ID, back)
	}
	defer d.release(hook.ID)

	if len(n.Body) == 0 {
		// The body is rendered once and kept: every retry sends the same bytes.
		body, err := d.cfg.Renderer.Notification(ctx, n)
		if err != nil {
			return fmt.Errorf("render notification %s: %w", n.ID, err)
		}
		n.Body = body
	}
	sent := d.metrics.sending()
	attempt := webhook.Deliver(ctx, d.cfg.Client, webhook.Request{URL: hook.URL, Headers: hook.Headers, Secret: hook.Secret,
		NotificationID: n.ID, Body: n.Body, Now: d.cfg.Clock()})
	sent()
	if ctx.Err() != nil {
		return ctx.Err() // stopping: the claim is given back and the notification sent again
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	var out outcome
	var err error
	if attempt.Outcome == webhook.Succeeded && hook.FailingSince.IsZero() {
		// The common case, in one round trip: nothing to read first, the webhook untouched.
		out = outcome{n: n, hook: hook}
		out.n.DeliveryStatus = boxwatch.DeliverySucceeded
		err = d.cfg.Work.RecordDelivered(ctx, d.attemptRecord(n.ID, attempt), n.Body, d.cfg.Clock())
	} else {
		err = d.cfg.Work.InTx(ctx, func(tx boxwatch.Tx) (err error) {
			out, err = d.record(ctx, tx, n, hook, attempt)
			return err
		})
	}
	if err != nil {
		return err
	}
	d.logOutcome(out, attempt)
	d.metrics.attempted(attempt, out)
	return errRecorded
}

// outcome is what recording an attempt left: the notification and its webhook as saved.
type outcome struct {
	n           boxwatch.Notification
	hook        boxwatch.Webhook
	deactivated bool
}

// logOutcome writes one line per failed attempt and one per deactivation; successes are not
// logged.
func (d *Dispatcher) logOutcome(out outcome, attempt webhook.Attempt) {
	if attempt.Outcome == webhook.Succeeded {
		return
	}
	attrs := []any{"webhook_id", out.hook.ID, "account_id", out.hook.AccountID, "notification_id", out.n.ID, "event", out.n.Event,
		"attempts", out.n.Attempts, "status_code", attempt.StatusCode, "error", attempt.Err, "delivery_status", out.n.DeliveryStatus}
	if !out.n.NextAttemptAt.IsZero() {
		attrs = append(attrs, "next_attempt_at", out.n.NextAttemptAt.UTC().Format(time.RFC3339))
	}
	d.log.Warn("webhook delivery failed", attrs...)
	if out.deactivated {
		d.log.Warn("webhook deactivated", "webhook_id", out.hook.ID, "account_id", out.hook.AccountID, "reason", out.hook.DeactivatedReason)
	}
}

// record writes the outcome of one attempt: the attempt log, the notification's state and, unless
// a success found the webhook healthy, the webhook's.
func (d *Dispatcher) record(ctx context.Context, tx boxwatch.Tx, n boxwatch.Notification, hook boxwatch.Webhook, attempt webhook.Attempt) (outcome, error) {
	var cur boxwatch.Notification
	var err error
	if attempt.Outcome == webhook.Succeeded && hook.FailingSince.IsZero() {
		cur, err = tx.LockNotification(ctx, n.ID)
	} else {
		cur, hook, err = tx.LockNotificationAndWebhook(ctx, n.ID)
	}
	if err != nil {
		return outcome{}, err
	}
	wasActive := hook.Active
	now := d.cfg.Clock()
	cur.Body, cur.Attempts, cur.UpdatedAt = n.Body, cur.Attempts+1, now
	if err := tx.AddDeliveryAttempt(ctx, d.attemptRecord(n.ID, attempt)); err != nil {
		return outcome{}, err
	}
	cur.NextAttemptAt = time.Time{}
	switch attempt.Outcome {
	case webhook.Succeeded:
		cur.DeliveryStatus = boxwatch.DeliverySucceeded
		if !hook.FailingSince.IsZero() {
			hook.FailingSince, hook.UpdatedAt = time.Time{}, now
			if err := tx.SaveWebhookState(ctx, hook); err != nil {
				return outcome{}, err
			}
		}
	case webhook.Gone:
		cur.DeliveryStatus = boxwatch.DeliveryFailed
		hook.Active, hook.DeactivatedReason, hook.UpdatedAt = false, fmt.Sprintf("deactivated at %s: the receiver answered 410 Gone", now.Format(time.RFC3339)), now
		if err := tx.SaveWebhookState(ctx, hook); err != nil {
			return outcome{}, err
		}
	default:
		if hook.FailingSince.IsZero() {
			hook.FailingSince = now
		}
		hook.UpdatedAt = now
		if now.Sub(hook.FailingSince) >= d.scaled(failingWindow) {
			hook.Active = false
			hook.DeactivatedReason = fmt.Sprintf("deactivated at %s: every delivery since %s failed", now.Format(time.RFC3339), hook.FailingSince.Format(time.RFC3339))
		}
		if err := tx.SaveWebhookState(ctx, hook); err != nil {
			return outcome{}, err
		}
		if cur.Attempts > webhook.MaxRetries || !hook.Active {
			cur.DeliveryStatus = boxwatch.DeliveryFailed
		} else {
			cur.NextAttemptAt = now.Add(attempt.NextDelay(cur.Attempts, d.cfg.RetryScale, rand.Float64))
		}
	}
	return outcome{n: cur, hook: hook, deactivated: wasActive && !hook.Active}, tx.SaveNotification(ctx, cur)
}

// attemptRecord is the log entry of an attempt at a notification.
func (d *Dispatcher) attemptRecord(notificationID string, attempt webhook.Attempt) boxwatch.DeliveryAttempt {
	return boxwatch.DeliveryAttempt{ID: boxwatch.NewID(d.cfg.Clock()), NotificationID: notificationID, At: attempt.At,
		StatusCode: attempt.StatusCode, Latency: attempt.Latency, Error: attempt.Err, ResponseSnippet: attempt.ResponseSnippet}
}

func (d *Dispatcher) scaled(t time.Duration) time.Duration {
	return time.Duration(float64(t) * d.cfg.RetryScale)
}

var _ boxwatch.Redeliverer = (*Dispatcher)(nil)

// Redeliver sends one of the account's notifications again, with the same id and body, keeping
// its attempt count: if this attempt fails too, a notification whose retries were spent fails
// again. A notification still pending is already on its way and is left as it is.
func (d *Dispatcher) Redeliver(ctx context.Context, accountID, notificationID string) (boxwatch.Notification, error) {
	n, err := d.cfg.Store.Notification(ctx, accountID, notificationID)
	if err != nil {
		return n, err
	}
	err = d.cfg.Work.InTx(ctx, func(tx boxwatch.Tx) error {
		cur, hook, err := tx.LockNotificationAndWebhook(ctx, n.ID)
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
		now := d.cfg.Clock()
		n.DeliveryStatus, n.NextAttemptAt, n.UpdatedAt = boxwatch.DeliveryPending, now, now
		return tx.SaveNotification(ctx, n)
	})
	if err == nil {
		d.Wake()
	}
	return n, err
}

// RedeliverSince sends every failed or retrying notification of one of the account's webhooks
// created at or after since, now. Each keeps its attempt count, so one whose retries were spent
// is tried once more, and one still retrying keeps the rest of its schedule.
func (d *Dispatcher) RedeliverSince(ctx context.Context, accountID, webhookID string, since time.Time) (int, error) {
	hook, err := d.cfg.Store.Webhook(ctx, accountID, webhookID)
	if err != nil {
		return 0, err
	}
	if !hook.Active {
		return 0, inactive(hook)
	}
	var count int
	err = d.cfg.Work.InTx(ctx, func(tx boxwatch.Tx) error {
		ids, err := tx.RequeueNotifications(ctx, hook.ID, since, d.cfg.Clock())
		count = len(ids)
		return err
	})
	if err == nil && count > 0 {
		d.Wake()
	}
	return count, err
}

func inactive(w boxwatch.Webhook) error {
	return &boxwatch.Error{Kind: boxwatch.KindConflict, Code: boxwatch.CodeWebhookInactive,
		Message: "The webhook is inactive: set active to true (PATCH /v2/webhooks/" + w.ID + ") before redelivering."}
}
