package store

import (
	"context"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/boxwatch/boxwatch"
)

const webhookColumns = `id, account_id, url, active, events, headers, secret, deactivated_reason, failing_since, created_at, updated_at`

func scanWebhook(r row) (boxwatch.Webhook, error) {
	var w boxwatch.Webhook
	err := r.Scan(webhookDest(&w)...)
	if w.Headers == nil {
		w.Headers = []boxwatch.WebhookHeader{}
	}
	return w, err
}

// webhookDest is where webhookColumns scan to.
func webhookDest(w *boxwatch.Webhook) []any {
	return []any{nullString{&w.ID}, nullString{&w.AccountID}, &w.URL, &w.Active, listCol{&w.Events}, jsonCol{&w.Headers},
		&w.Secret, nullString{&w.DeactivatedReason}, nullTimeCol{&w.FailingSince}, timeCol{&w.CreatedAt}, timeCol{&w.UpdatedAt}}
}

func (db *DB) webhookArgs(w boxwatch.Webhook) ([]any, error) {
	headers := w.Headers
	if headers == nil {
		headers = []boxwatch.WebhookHeader{}
	}
	h, err := jsonArg(headers)
	if err != nil {
		return nil, err
	}
	return []any{w.URL, w.Active, listArg(w.Events), h, w.Secret, nullIfEmpty(w.DeactivatedReason), db.nullTime(w.FailingSince), db.ts(w.UpdatedAt)}, nil
}

// CreateWebhook stores a new webhook.
func (db *DB) CreateWebhook(ctx context.Context, w boxwatch.Webhook) error {
	args, err := db.webhookArgs(w)
	if err != nil {
		return err
	}
	_, err = db.write.exec(ctx, `INSERT INTO webhooks (url, active, events, headers, secret, deactivated_reason, failing_since,
		updated_at, id, account_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, append(args, w.ID, w.AccountID, db.ts(w.CreatedAt))...)
	return db.internal("create webhook", err)
}

// UpdateWebhook writes every mutable field of one of the account's webhooks, or ErrNotFound.
func (db *DB) UpdateWebhook(ctx context.Context, w boxwatch.Webhook) error {
	err := db.updateWebhook(ctx, db.write, w)
	db.cache.evict(webhookKey(strings.ToLower(w.ID)))
	return err
}

// SaveWebhookState is UpdateWebhook inside a transaction (the delivery worker's view).
func (tx *txn) SaveWebhookState(ctx context.Context, w boxwatch.Webhook) error {
	tx.evict(webhookKey(strings.ToLower(w.ID)))
	return tx.db.updateWebhook(ctx, tx.c, w)
}

func (db *DB) updateWebhook(ctx context.Context, c conn, w boxwatch.Webhook) error {
	if !boxwatch.IsUUID(w.ID) {
		return boxwatch.ErrNotFound
	}
	args, err := db.webhookArgs(w)
	if err != nil {
		return err
	}
	n, err := c.exec(ctx, `UPDATE webhooks SET url = ?, active = ?, events = ?, headers = ?, secret = ?, deactivated_reason = ?,
		failing_since = ?, updated_at = ? WHERE id = ? AND account_id = ?`, append(args, w.ID, w.AccountID)...)
	if err := db.internal("update webhook", err); err != nil {
		return err
	}
	if n == 0 {
		return boxwatch.ErrNotFound
	}
	return nil
}

// Webhook returns one of the account's webhooks, or ErrNotFound.
func (db *DB) Webhook(ctx context.Context, accountID, id string) (boxwatch.Webhook, error) {
	if !boxwatch.IsUUID(id) {
		return boxwatch.Webhook{}, boxwatch.ErrNotFound
	}
	id = strings.ToLower(id)
	return cached(db.cache, webhookKey(id), accountID, func() (boxwatch.Webhook, error) {
		w, err := scanWebhook(db.read.queryRow(ctx, "SELECT "+webhookColumns+" FROM webhooks WHERE account_id = ? AND id = ?", accountID, id))
		return w, db.lookupErr("webhook", err)
	})
}

// Webhooks returns a page of the account's webhooks, newest first, and how many there are.
func (db *DB) Webhooks(ctx context.Context, accountID string, p boxwatch.Page) ([]boxwatch.Webhook, int, error) {
	return page(ctx, db, "webhooks", webhookColumns, "account_id = ?", []any{accountID}, p, scanWebhook)
}

// DeleteWebhook removes one of the account's webhooks and its notifications, or ErrNotFound.
func (db *DB) DeleteWebhook(ctx context.Context, accountID, id string) error {
	if !boxwatch.IsUUID(id) {
		return boxwatch.ErrNotFound
	}
	id = strings.ToLower(id)
	n, err := db.write.exec(ctx, "DELETE FROM webhooks WHERE account_id = ? AND id = ?", accountID, id)
	db.cache.evict(webhookKey(id))
	if n > 0 && db.dialect == Postgres {
		// Its notifications went with it, by cascade, under ids this store does not know (SQLite's
		// hook names them); webhooks are seldom deleted.
		db.cache.dropAll()
	}
	if err := db.internal("delete webhook", err); err != nil {
		return err
	}
	if n == 0 {
		return boxwatch.ErrNotFound
	}
	return nil
}

// Notify creates a pending notification of an event for each active webhook of its account that
// subscribes to the event's name, and returns their ids. It runs in the event's transaction, so
// an event is never logged without its notifications. A notification whose webhook has another
// pending one of the same subject queues behind it, without a time due (see joinQueue).
func (tx *txn) Notify(ctx context.Context, e boxwatch.Event) ([]string, error) {
	rs, err := tx.c.query(ctx, "SELECT id, events FROM webhooks WHERE account_id = ? AND active = ? ORDER BY id", e.AccountID, true)
	if err != nil {
		return nil, tx.db.internal("webhooks to notify", err)
	}
	var targets []string
	for rs.Next() {
		var id string
		var events []string
		if err := rs.Scan(nullString{&id}, listCol{&events}); err != nil {
			rs.Close()
			return nil, tx.db.internal("webhooks to notify", err)
		}
		for _, name := range events {
			if name == e.Name {
				targets = append(targets, id)
				break
			}
		}
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return nil, tx.db.internal("webhooks to notify", err)
	}
	subject := e.Subject()
	ids := make([]string, len(targets))
	for i, webhookID := range targets {
		ids[i] = boxwatch.NewID(e.CreatedAt)
		due, err := tx.queueTime(ctx, webhookID, subject, "", e.CreatedAt)
		if err != nil {
			return nil, tx.db.internal("create notification", err)
		}
		if _, err := tx.c.exec(ctx, `INSERT INTO webhook_notifications (id, account_id, webhook_id, event_id, event, subject, delivery_status,
			attempts, next_attempt_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`,
			ids[i], e.AccountID, webhookID, e.ID, e.Name, subject, boxwatch.DeliveryPending, due, tx.db.ts(e.CreatedAt),
			tx.db.ts(e.CreatedAt)); err != nil {
			return nil, tx.db.internal("create notification", err)
		}
	}
	return ids, nil
}

// subjectLockClass is the first key of the PostgreSQL advisory locks that serialize the changes
// to one webhook's queue of one subject (the two-key locks never meet the migration's one-key
// lock).
const subjectLockClass int32 = 0x6e71 // "nq"

// queueTime locks the queue of a webhook's notifications of one subject for the transaction and
// says when a notification joining it (other than the one with id except, if any) is due: at due
// when the queue has no head, else never (NULL), until the head leaves. On PostgreSQL the lock
// makes this and the head's leaving (promoteNext) take turns, so a notification never waits
// behind a head that already left; SQLite's single writer does the same.
func (tx *txn) queueTime(ctx context.Context, webhookID, subject, except string, due time.Time) (any, error) {
	if err := tx.lockQueue(ctx, webhookID, subject); err != nil {
		return nil, err
	}
	// 'pending' is written out so that the planner, even with a generic plan, sees the head index
	// (webhook_id, subject) applies: a parameter would leave it scanning the webhook's backlog.
	var head int
	err := tx.c.queryRow(ctx, `SELECT COUNT(*) FROM webhook_notifications WHERE webhook_id = ? AND subject = ? AND delivery_status = 'pending'
		AND next_attempt_at IS NOT NULL AND id <> ?`, webhookID, subject, nullUUID(except)).Scan(&head)
	if err != nil || head > 0 {
		return nil, err
	}
	return tx.db.ts(due), nil
}

func (tx *txn) lockQueue(ctx context.Context, webhookID, subject string) error {
	if tx.db.dialect != Postgres {
		return nil
	}
	_, err := tx.c.exec(ctx, "SELECT pg_advisory_xact_lock(?, hashtext(?))", subjectLockClass, webhookID+" "+subject)
	return err
}

// forNoKeyUpdate locks rows read for a change that keeps their keys: on PostgreSQL it lets the
// inserts that refer to them (a notification of the webhook, an attempt of the notification)
// go on, so a delivery's outcome and an event's notifications never wait for each other in a
// cycle.
func (tx *txn) forNoKeyUpdate() string {
	if tx.db.dialect == Postgres {
		return " FOR NO KEY UPDATE"
	}
	return ""
}

// nullUUID is a uuid parameter that compares unequal to every id when s is empty.
func nullUUID(s string) string {
	if s == "" {
		return "00000000-0000-0000-0000-000000000000"
	}
	return s
}

// promoteNext makes the earliest waiting notification of a webhook's subject due at now, unless
// the queue has a head: called, under the queue's lock, when its head leaves.
func (tx *txn) promoteNext(ctx context.Context, webhookID, subject string, now time.Time) error {
	promoted, err := scanStrings(tx.c.query(ctx, `UPDATE webhook_notifications SET next_attempt_at = ? WHERE id = (
			SELECT id FROM webhook_notifications WHERE webhook_id = ? AND subject = ? AND delivery_status = 'pending' AND next_attempt_at IS NULL
			ORDER BY created_at, id LIMIT 1)
		AND NOT EXISTS (SELECT 1 FROM webhook_notifications WHERE webhook_id = ? AND subject = ? AND delivery_status = 'pending'
			AND next_attempt_at IS NOT NULL) RETURNING id`,
		tx.db.ts(now), webhookID, subject, webhookID, subject))
	tx.evictNotifications(promoted)
	return err
}

// evictNotifications drops the notifications with the given ids from the read cache once the
// transaction commits.
func (tx *txn) evictNotifications(ids []string) {
	for _, id := range ids {
		tx.evict(notificationKey(id))
	}
}

const notificationColumns = `id, account_id, webhook_id, event_id, event, delivery_status, attempts, next_attempt_at, body,
	created_at, updated_at`

func scanNotification(r row) (boxwatch.Notification, error) {
	var n boxwatch.Notification
	var body string
	err := r.Scan(notificationDest(&n, &body)...)
	if body != "" {
		n.Body = []byte(body)
	}
	return n, err
}

// notificationDest is where notificationColumns scan to, the body to body.
func notificationDest(n *boxwatch.Notification, body *string) []any {
	return []any{nullString{&n.ID}, nullString{&n.AccountID}, nullString{&n.WebhookID}, nullString{&n.EventID}, &n.Event,
		&n.DeliveryStatus, &n.Attempts, nullTimeCol{&n.NextAttemptAt}, nullString{body}, timeCol{&n.CreatedAt}, timeCol{&n.UpdatedAt}}
}

// scanDelivery scans a notification's columns followed by its webhook's.
func scanDelivery(r row) (boxwatch.ClaimedDelivery, error) {
	var d boxwatch.ClaimedDelivery
	var body string
	err := r.Scan(append(notificationDest(&d.Notification, &body), webhookDest(&d.Webhook)...)...)
	if body != "" {
		d.Notification.Body = []byte(body)
	}
	if d.Webhook.Headers == nil {
		d.Webhook.Headers = []boxwatch.WebhookHeader{}
	}
	return d, err
}

// LockNotificationAndWebhook returns a notification and its webhook whatever the account, locked for
// the transaction: the delivery worker's view.
func (tx *txn) LockNotificationAndWebhook(ctx context.Context, id string) (boxwatch.Notification, boxwatch.Webhook, error) {
	return tx.db.notificationWithWebhook(ctx, tx.c, id, tx.forNoKeyUpdate())
}

// LockNotification returns a notification whatever the account, locked for the transaction.
func (tx *txn) LockNotification(ctx context.Context, id string) (boxwatch.Notification, error) {
	if !boxwatch.IsUUID(id) {
		return boxwatch.Notification{}, boxwatch.ErrNotFound
	}
	n, err := scanNotification(tx.c.queryRow(ctx, "SELECT "+notificationColumns+" FROM webhook_notifications WHERE id = ?"+tx.forNoKeyUpdate(), id))
	return n, tx.db.lookupErr("notification for update", err)
}

// NotificationAndWebhook reads a notification and its webhook without locking them, whatever the
// account: what the delivery worker needs before sending. The outcome is written under lock.
func (db *DB) NotificationAndWebhook(ctx context.Context, id string) (boxwatch.Notification, boxwatch.Webhook, error) {
	return db.notificationWithWebhook(ctx, db.read, id, "")
}

func (db *DB) notificationWithWebhook(ctx context.Context, c conn, id, lock string) (boxwatch.Notification, boxwatch.Webhook, error) {
	if !boxwatch.IsUUID(id) {
		return boxwatch.Notification{}, boxwatch.Webhook{}, boxwatch.ErrNotFound
	}
	n, err := scanNotification(c.queryRow(ctx, "SELECT "+notificationColumns+" FROM webhook_notifications WHERE id = ?"+lock, id))
	if err := db.lookupErr("notification", err); err != nil {
		return n, boxwatch.Webhook{}, err
	}
	w, err := scanWebhook(c.queryRow(ctx, "SELECT "+webhookColumns+" FROM webhooks WHERE id = ?"+lock, n.WebhookID))
	return n, w, db.lookupErr("webhook of notification", err)
}

// SaveNotification writes a notification's status, attempts, next attempt and body, and ends
// any claim on it. A notification that leaves the pending state makes the next of its subject
// due; one that becomes pending again (a redelivery) joins the end of its subject's queue, due at
// its next attempt if the queue is empty, waiting otherwise.
func (tx *txn) SaveNotification(ctx context.Context, n boxwatch.Notification) error {
	var webhookID, subject, status string
	err := tx.c.queryRow(ctx, "SELECT webhook_id, subject, delivery_status FROM webhook_notifications WHERE id = ?"+tx.forNoKeyUpdate(), n.ID).
		Scan(nullString{&webhookID}, &subject, &status)
	if err := tx.db.lookupErr("notification to save", err); err != nil {
		return err
	}
	if err := tx.lockQueue(ctx, webhookID, subject); err != nil {
		return tx.db.internal("save notification", err)
	}
	next := tx.db.nullTime(n.NextAttemptAt)
	if n.DeliveryStatus == boxwatch.DeliveryPending && status != boxwatch.DeliveryPending {
		if next, err = tx.queueTime(ctx, webhookID, subject, n.ID, n.NextAttemptAt); err != nil {
			return tx.db.internal("save notification", err)
		}
	}
	var body any
	if len(n.Body) > 0 {
		body = string(n.Body)
	}
	_, err = tx.c.exec(ctx, `UPDATE webhook_notifications SET delivery_status = ?, attempts = ?, next_attempt_at = ?, body = ?,
		claimed_until = NULL, claimed_at = NULL, updated_at = ? WHERE id = ?`,
		n.DeliveryStatus, n.Attempts, next, body, tx.db.ts(n.UpdatedAt), n.ID)
	tx.evict(notificationKey(strings.ToLower(n.ID)))
	if err == nil && status == boxwatch.DeliveryPending && n.DeliveryStatus != boxwatch.DeliveryPending {
		err = tx.promoteNext(ctx, webhookID, subject, n.UpdatedAt)
	}
	return tx.db.internal("save notification", err)
}

// ClaimDueNotifications claims up to limit pending notifications due at now that no live claim
// holds, until the given time, and returns their ids, the most overdue first. Replicas claiming at
// once get different notifications. Only the head of each webhook's queue of one subject is ever
// due, so a subject's notifications reach a webhook in event order, and a claim reads the heads
// of each webhook with pending notifications through an index, at most as many as the bounds
// leave room for: its cost grows with the webhooks that have a backlog and the claims held, not
// with the backlog.
//
// Live claims count against the bounds. A webhook that is failing (FailingSince set), or holds a
// claim older than b.SlowAfter (a request not answered yet), gets one claim at a time, counted
// against its account's b.PerAccountFailing; a healthy webhook holds at most b.PerWebhook,
// counted against its account's b.PerAccount. Within an account, each webhook's first due
// notification goes before any webhook's second.
func (db *DB) ClaimDueNotifications(ctx context.Context, now, until time.Time, limit int, b boxwatch.ClaimBounds) ([]string, error) {
	q, args := db.claimStatement(now, until, limit, b)
	rs, err := db.write.query(ctx, q, args...)
	if err != nil {
		return nil, db.internal("claim due notifications", err)
	}
	ids, err := collect(rs, func(r row) (id string, err error) { return id, r.Scan(nullString{&id}) })
	return ids, db.internal("claim due notifications", err)
}

// ClaimDueDeliveries is ClaimDueNotifications returning each claimed notification with its
// webhook as they stood at the claim: on PostgreSQL from the claim's own statement, in one round
// trip and committed lazily (see commitLazily); on SQLite with one read after it.
func (db *DB) ClaimDueDeliveries(ctx context.Context, now, until time.Time, limit int, b boxwatch.ClaimBounds) ([]boxwatch.ClaimedDelivery, error) {
	if db.dialect == Postgres {
		q, args := db.claimStatement(now, until, limit, b)
		q = "WITH c AS (" + strings.TrimSuffix(q, " RETURNING id") + " RETURNING " + notificationColumns + ") SELECT " +
			qualified("c", notificationColumns) + ", " + qualified("w", webhookColumns) + " FROM c JOIN webhooks w ON w.id = c.webhook_id"
		list, err := pipeline(ctx, db, []statement{commitLazily, {q, args}}, scanDelivery)
		return list, db.internal("claim due deliveries", err)
	}
	ids, err := db.ClaimDueNotifications(ctx, now, until, limit, b)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return batch(ctx, db, "claimed deliveries", "SELECT "+qualified("n", notificationColumns)+", "+qualified("w", webhookColumns)+
		" FROM webhook_notifications n JOIN webhooks w ON w.id = n.webhook_id WHERE n.id "+in(len(args)), pad(args), scanDelivery)
}

// qualified prefixes each of a list of columns with a table's alias.
func qualified(alias, columns string) string {
	cols := strings.Split(columns, ",")
	for i, c := range cols {
		cols[i] = alias + "." + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}

// RecordDelivered writes a successful attempt at a claimed notification whose webhook was
// healthy: the attempt's log entry, the notification succeeded (its body kept when given, its
// claim ended) and the next of its subject made due, in one transaction that PostgreSQL gets in
// one round trip and commits lazily (see commitLazily). A notification no longer pending keeps its state; the attempt is logged all
// the same.
func (db *DB) RecordDelivered(ctx context.Context, a boxwatch.DeliveryAttempt, body []byte, now time.Time) error {
	var b any
	if len(body) > 0 {
		b = string(body)
	}
	// The row first, then the queue's lock, in the order SaveNotification takes them; the
	// promotion reads the queue after the lock, in a statement of its own.
	steps := []statement{
		{`UPDATE webhook_notifications SET delivery_status = ?, attempts = attempts + 1, next_attempt_at = NULL, body = COALESCE(?, body),
			claimed_until = NULL, claimed_at = NULL, updated_at = ? WHERE id = ? AND delivery_status = 'pending'`,
			[]any{boxwatch.DeliverySucceeded, b, db.ts(now), a.NotificationID}},
	}
	if db.dialect == Postgres {
		steps = append([]statement{commitLazily}, steps...)
		steps = append(steps, statement{`SELECT pg_advisory_xact_lock(?, hashtext(CAST(webhook_id AS text) || ' ' || subject))
			FROM webhook_notifications WHERE id = ?`, []any{subjectLockClass, a.NotificationID}})
	}
	// promoteNext's statement, the queue named by the notification: each of its webhook and
	// subject a subquery the planner runs once, so that the queue is read through its indexes (a
	// join there read the webhook's whole backlog, 77 ms a delivery at 100,000 pending).
	webhookOf := "(SELECT webhook_id FROM webhook_notifications WHERE id = ?)"
	subjectOf := "(SELECT subject FROM webhook_notifications WHERE id = ?)"
	steps = append(steps, attemptStatement(db, a), statement{`UPDATE webhook_notifications SET next_attempt_at = ? WHERE id = (
			SELECT id FROM webhook_notifications WHERE webhook_id = ` + webhookOf + ` AND subject = ` + subjectOf + `
				AND delivery_status = 'pending' AND next_attempt_at IS NULL ORDER BY created_at, id LIMIT 1)
		AND NOT EXISTS (SELECT 1 FROM webhook_notifications WHERE webhook_id = ` + webhookOf + ` AND subject = ` + subjectOf + `
			AND delivery_status = 'pending' AND next_attempt_at IS NOT NULL)`,
		[]any{db.ts(now), a.NotificationID, a.NotificationID, a.NotificationID, a.NotificationID}})
	if db.delivered != nil {
		return db.internal("record a delivery", db.delivered.record(ctx, db, steps)) // SQLite: its hook evicts
	}
	last := &steps[len(steps)-1]
	last.q += " RETURNING id"
	promoted, err := pipeline(ctx, db, steps, scanString)
	// The notification and the next of its subject, made due, leave the read cache.
	db.cache.evict(notificationKey(strings.ToLower(a.NotificationID)))
	for _, id := range promoted {
		db.cache.evict(notificationKey(id))
	}
	return db.internal("record a delivery", err)
}

func scanString(r row) (string, error) {
	var s string
	return s, r.Scan(nullString{&s})
}

// deliveredQueue gathers the successes recorded at the same time on SQLite and writes them in one
// transaction on the writer, one after another in the order they came: each still commits before
// its RecordDelivered returns, and the statements of one are those it would run alone, so the
// next of a subject is made due exactly as it would be. A busy endpoint's deliveries then take
// the single writer connection once a batch, not once each (five hand-overs of it a delivery,
// each waiting for a goroutine to be scheduled on a loaded machine).
type deliveredQueue struct {
	mu      sync.Mutex
	waiting []deliveredRecord
	writing bool
}

type deliveredRecord struct {
	steps []statement
	done  chan error
}

// deliveredBatch bounds the successes one transaction records, so that the writer is not held
// from the claims for long.
const deliveredBatch = 64

// record writes steps with the successes waiting beside them and returns when they committed, or
// when ctx ends (they may commit all the same, as any statement cut short may).
func (q *deliveredQueue) record(ctx context.Context, db *DB, steps []statement) error {
	r := deliveredRecord{steps: steps, done: make(chan error, 1)}
	q.mu.Lock()
	q.waiting = append(q.waiting, r)
	if !q.writing {
		q.writing = true
		go q.write(db)
	}
	q.mu.Unlock()
	select {
	case err := <-r.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// write records batches until none waits.
func (q *deliveredQueue) write(db *DB) {
	for {
		q.mu.Lock()
		batch := q.waiting[:min(len(q.waiting), deliveredBatch)]
		if len(batch) == 0 {
			q.writing = false
			q.mu.Unlock()
			return
		}
		q.waiting = q.waiting[len(batch):]
		q.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
		err := db.inTx(ctx, func(c conn) error {
			for _, r := range batch {
				for _, st := range r.steps {
					if _, err := c.exec(ctx, st.q, st.args...); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil && len(batch) > 1 {
			// One of them failed, and took the others with it: each on its own, to say which.
			for _, r := range batch {
				_, err := pipeline(ctx, db, r.steps, noRows)
				r.done <- err
			}
		} else {
			for _, r := range batch {
				r.done <- err
			}
		}
		cancel()
	}
}

// recordTimeout bounds one transaction of deliveredQueue.
const recordTimeout = 30 * time.Second

// claimStatement is ClaimDueNotifications' statement, ending in RETURNING id, and its arguments.
func (db *DB) claimStatement(now, until time.Time, limit int, b boxwatch.ClaimBounds) (string, []any) {
	bound := func(n int) int {
		if n <= 0 {
			return math.MaxInt32
		}
		return n
	}
	slowSince := now.Add(-b.SlowAfter)
	if b.SlowAfter <= 0 {
		slowSince = time.Unix(0, 0) // no claim is that old
	}
	// 'pending' is written out, as in queueTime, so that any plan sees the partial indexes apply.
	// The limits are cast: SQLite plans with the value bound to a bare LIMIT and prepares the
	// statement again whenever it changes, which it does from one claim to the next with the idle
	// workers (preparing was two thirds of a claim's time in the drain benchmark).
	//
	// The heads of one webhook, due and not claimed, most overdue first, at most its room (and
	// the limit): an index range read. PostgreSQL reads them laterally; SQLite, which has no
	// LATERAL, through a correlated IN, its CROSS JOIN keeping the webhooks the outer loop.
	heads := `SELECT x.id FROM webhook_notifications x WHERE x.webhook_id = r.id AND x.delivery_status = 'pending' AND x.next_attempt_at IS NOT NULL
		AND x.next_attempt_at <= ? AND (x.claimed_until IS NULL OR x.claimed_until <= ?) ORDER BY x.next_attempt_at, x.id LIMIT CAST(? AS INTEGER)`
	due := `SELECT r.id AS webhook_id, r.account_id, r.failing, r.used, r.room, c.id, c.next_attempt_at
		FROM room r CROSS JOIN webhook_notifications c WHERE c.id IN (` + heads + `) AND r.room > 0`
	// The live claims are few, whatever the backlog: read them through their index, which
	// SQLite's planner would otherwise pass over for one in the order of the grouping.
	skip, claimsIndex := "", " INDEXED BY webhook_notifications_claims"
	// The first webhook with heads: a min() SQLite reads from the index, PostgreSQL (which has no
	// min of uuids) the index's first entry.
	firstHook := `SELECT MIN(webhook_id) FROM webhook_notifications WHERE delivery_status = 'pending' AND next_attempt_at IS NOT NULL`
	// The chosen ids are looked up one by one: PostgreSQL, given IN, may hash them against every
	// head instead.
	pick, pickEnd := "IN", ""
	if db.dialect == Postgres {
		pick, pickEnd = "= ANY(ARRAY", ")"
		claimsIndex = ""
		firstHook = `SELECT webhook_id FROM webhook_notifications WHERE delivery_status = 'pending' AND next_attempt_at IS NOT NULL
			ORDER BY webhook_id LIMIT 1`
		heads = strings.NewReplacer("SELECT x.id FROM", "SELECT x.id, x.next_attempt_at FROM", "LIMIT CAST(? AS INTEGER)", "LIMIT LEAST(r.room, ?)").Replace(heads)
		due = `SELECT r.id AS webhook_id, r.account_id, r.failing, r.used, r.room, c.id, c.next_attempt_at
			FROM room r CROSS JOIN LATERAL (` + heads + `) c WHERE r.room > 0`
		skip = " FOR UPDATE SKIP LOCKED"
	}
	return `UPDATE webhook_notifications SET claimed_until = ?, claimed_at = ? WHERE id IN (
			SELECT id FROM webhook_notifications WHERE id ` + pick + ` (
				WITH RECURSIVE hooks(webhook_id) AS (
					SELECT (` + firstHook + `)
					UNION ALL
					SELECT (SELECT n.webhook_id FROM webhook_notifications n WHERE n.delivery_status = 'pending' AND n.next_attempt_at IS NOT NULL
						AND n.webhook_id > h.webhook_id ORDER BY n.webhook_id LIMIT 1)
					FROM hooks h WHERE h.webhook_id IS NOT NULL
				), held AS (
					SELECT webhook_id, COUNT(*) AS n, MIN(claimed_at) AS since FROM webhook_notifications` + claimsIndex + `
					WHERE delivery_status = 'pending' AND claimed_until IS NOT NULL AND claimed_until > ? GROUP BY webhook_id
				), state AS (
					SELECT w.id, w.account_id, COALESCE(h.n, 0) AS held,
						CASE WHEN w.failing_since IS NOT NULL OR h.since <= ? THEN 1 ELSE 0 END AS failing
					FROM webhooks w LEFT JOIN held h ON h.webhook_id = w.id
					WHERE w.id IN (SELECT webhook_id FROM hooks WHERE webhook_id IS NOT NULL)
				), used AS (
					SELECT account_id, failing, SUM(held) AS n FROM state GROUP BY account_id, failing
				), room AS (
					SELECT s.id, s.account_id, s.failing, COALESCE(u.n, 0) AS used,
						CASE WHEN s.failing = 1 THEN 1 ELSE CAST(? AS INTEGER) END - s.held AS room
					FROM state s LEFT JOIN used u ON u.account_id = s.account_id AND u.failing = s.failing
				), due AS (` + due + `
				), fits AS (
					SELECT * FROM (SELECT d.*, ROW_NUMBER() OVER (PARTITION BY webhook_id ORDER BY next_attempt_at, id) AS webhook_rank FROM due d) f
					WHERE webhook_rank <= room
				), ranked AS (
					SELECT id, next_attempt_at, failing,
						used + ROW_NUMBER() OVER (PARTITION BY account_id, failing ORDER BY webhook_rank, next_attempt_at, id) AS account_rank
					FROM fits
				)
				SELECT id FROM ranked WHERE account_rank <= CASE WHEN failing = 1 THEN CAST(? AS INTEGER) ELSE CAST(? AS INTEGER) END
				ORDER BY next_attempt_at, id LIMIT CAST(? AS INTEGER)
			)` + pickEnd + ` AND delivery_status = 'pending' AND next_attempt_at IS NOT NULL AND (claimed_until IS NULL OR claimed_until <= ?)` + skip + `) RETURNING id`, []any{db.ts(until), db.ts(now),
			db.ts(now),
			db.ts(slowSince),
			bound(b.PerWebhook),
			db.ts(now), db.ts(now), limit,
			bound(b.PerAccountFailing), bound(b.PerAccount), limit,
			db.ts(now)}
}

// RenewClaims extends the live claims on the given notifications until the given time, in one
// statement: a process renews every claim it holds at once, so its claims can be short (a dead
// process's lapse soon) without a write per delivery. A notification no longer pending is left
// as it is.
func (db *DB) RenewClaims(ctx context.Context, ids []string, until time.Time) error {
	for len(ids) > 0 {
		batch := ids[:min(len(ids), renewBatch)]
		ids = ids[len(batch):]
		args := []any{db.ts(until)}
		for i := range renewBatch {
			args = append(args, batch[min(i, len(batch)-1)]) // padded: one statement text whatever the count
		}
		if _, err := db.write.exec(ctx, `UPDATE webhook_notifications SET claimed_until = ? WHERE delivery_status = 'pending'
			AND claimed_until IS NOT NULL AND id IN (`+renewPlaceholders+`)`, args...); err != nil {
			return db.internal("renew claims", err)
		}
	}
	return nil
}

const renewBatch = 64

var renewPlaceholders = strings.TrimSuffix(strings.Repeat("?, ", renewBatch), ", ")

// Unclaim gives a claimed notification back, due again at next.
func (db *DB) UnclaimNotification(ctx context.Context, id string, next time.Time) error {
	_, err := db.write.exec(ctx, `UPDATE webhook_notifications SET claimed_until = NULL, claimed_at = NULL, next_attempt_at = ?
		WHERE id = ? AND delivery_status = 'pending' AND next_attempt_at IS NOT NULL`, db.ts(next), id)
	db.cache.evict(notificationKey(strings.ToLower(id)))
	return db.internal("unclaim notification", err)
}

// AddDeliveryAttempt appends an attempt to a notification's log.
func (tx *txn) AddDeliveryAttempt(ctx context.Context, a boxwatch.DeliveryAttempt) error {
	st := attemptStatement(tx.db, a)
	_, err := tx.c.exec(ctx, st.q, st.args...)
	return tx.db.internal("add delivery attempt", err)
}

// attemptStatement inserts an attempt into its notification's log.
func attemptStatement(db *DB, a boxwatch.DeliveryAttempt) statement {
	var status any
	if a.StatusCode != 0 {
		status = a.StatusCode
	}
	return statement{`INSERT INTO webhook_notification_logs (id, notification_id, attempted_at, status_code, latency_ms, error,
		response_snippet) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		[]any{a.ID, a.NotificationID, db.ts(a.At), status, a.Latency.Milliseconds(), a.Error, a.ResponseSnippet}}
}

// Notification returns one of the account's notifications, or ErrNotFound.
func (db *DB) Notification(ctx context.Context, accountID, id string) (boxwatch.Notification, error) {
	if !boxwatch.IsUUID(id) {
		return boxwatch.Notification{}, boxwatch.ErrNotFound
	}
	id = strings.ToLower(id)
	return cached(db.cache, notificationKey(id), accountID, func() (boxwatch.Notification, error) {
		n, err := scanNotification(db.read.queryRow(ctx, "SELECT "+notificationColumns+" FROM webhook_notifications WHERE account_id = ? AND id = ?",
			accountID, id))
		return n, db.lookupErr("notification", err)
	})
}

// Notifications returns a page of the account's notifications, newest first, and how many match.
func (db *DB) Notifications(ctx context.Context, accountID string, f boxwatch.NotificationFilter, p boxwatch.Page) ([]boxwatch.Notification, int, error) {
	if f.WebhookID != "" && !boxwatch.IsUUID(f.WebhookID) {
		return []boxwatch.Notification{}, 0, nil // no webhook has that id
	}
	conds, args := []string{"account_id = ?"}, []any{accountID}
	for _, c := range []struct{ col, v string }{{"webhook_id", strings.ToLower(f.WebhookID)}, {"delivery_status", f.DeliveryStatus}, {"event", f.Event}} {
		if c.v != "" {
			conds, args = append(conds, c.col+" = ?"), append(args, c.v)
		}
	}
	return page(ctx, db, "webhook_notifications", notificationColumns, strings.Join(conds, " AND "), args, p, scanNotification)
}

// DeliveryAttempts returns a notification's log, oldest first.
func (db *DB) DeliveryAttempts(ctx context.Context, notificationID string) ([]boxwatch.DeliveryAttempt, error) {
	rs, err := db.read.query(ctx, `SELECT id, notification_id, attempted_at, status_code, latency_ms, error, response_snippet
		FROM webhook_notification_logs WHERE notification_id = ? ORDER BY attempted_at, id`, notificationID)
	if err != nil {
		return nil, db.internal("delivery attempts", err)
	}
	defer rs.Close()
	list := []boxwatch.DeliveryAttempt{}
	for rs.Next() {
		var a boxwatch.DeliveryAttempt
		var status *int64
		var ms int64
		if err := rs.Scan(nullString{&a.ID}, nullString{&a.NotificationID}, timeCol{&a.At}, &status, &ms, &a.Error, &a.ResponseSnippet); err != nil {
			return nil, db.internal("delivery attempts", err)
		}
		if status != nil {
			a.StatusCode = int(*status)
		}
		a.Latency = time.Duration(ms) * time.Millisecond
		list = append(list, a)
	}
	return list, db.internal("delivery attempts", rs.Err())
}

// RequeueNotifications makes a webhook's notifications created at or after since that failed, or
// are pending and not claimed, due now, and returns their ids. Their attempt counts stay: each is
// the length of the notification's log. A failed one joins the end of its subject's queue; a
// pending one waiting behind an earlier one of its subject keeps waiting.
func (tx *txn) RequeueNotifications(ctx context.Context, webhookID string, since, now time.Time) ([]string, error) {
	if tx.db.dialect == Postgres {
		// Every queue this changes, locked in one order (see queueTime).
		if _, err := tx.c.exec(ctx, `SELECT COUNT(pg_advisory_xact_lock(?, hashtext(CAST(? AS text) || ' ' || subject))) FROM (
				SELECT DISTINCT subject FROM webhook_notifications WHERE webhook_id = ? AND created_at >= ? AND delivery_status IN (?, ?)
				ORDER BY subject) s`,
			subjectLockClass, webhookID, webhookID, tx.db.ts(since), boxwatch.DeliveryFailed, boxwatch.DeliveryPending); err != nil {
			return nil, tx.db.internal("requeue notifications", err)
		}
	}
	heads, err := scanStrings(tx.c.query(ctx, `UPDATE webhook_notifications SET next_attempt_at = ?, updated_at = ?
		WHERE webhook_id = ? AND created_at >= ? AND delivery_status = ? AND next_attempt_at IS NOT NULL
		AND (claimed_until IS NULL OR claimed_until <= ?) RETURNING id`,
		tx.db.ts(now), tx.db.ts(now), webhookID, tx.db.ts(since), boxwatch.DeliveryPending, tx.db.ts(now)))
	if err != nil {
		return nil, tx.db.internal("requeue notifications", err)
	}
	failed, err := scanStrings(tx.c.query(ctx, `UPDATE webhook_notifications SET delivery_status = ?, next_attempt_at = NULL, updated_at = ?
		WHERE webhook_id = ? AND created_at >= ? AND delivery_status = ? RETURNING id`,
		boxwatch.DeliveryPending, tx.db.ts(now), webhookID, tx.db.ts(since), boxwatch.DeliveryFailed))
	if err != nil {
		return nil, tx.db.internal("requeue notifications", err)
	}
	tx.evictNotifications(heads)
	tx.evictNotifications(failed)
	// The earliest waiting notification of each of the webhook's subjects without a head is due.
	promoted, err := scanStrings(tx.c.query(ctx, `UPDATE webhook_notifications SET next_attempt_at = ? WHERE id IN (
			SELECT (SELECT q.id FROM webhook_notifications q WHERE q.webhook_id = s.webhook_id AND q.subject = s.subject
				AND q.delivery_status = ? AND q.next_attempt_at IS NULL ORDER BY q.created_at, q.id LIMIT 1)
			FROM (SELECT DISTINCT webhook_id, subject FROM webhook_notifications
				WHERE webhook_id = ? AND delivery_status = ? AND next_attempt_at IS NULL) s
			WHERE NOT EXISTS (SELECT 1 FROM webhook_notifications h WHERE h.webhook_id = s.webhook_id AND h.subject = s.subject
				AND h.delivery_status = ? AND h.next_attempt_at IS NOT NULL)) RETURNING id`,
		tx.db.ts(now), boxwatch.DeliveryPending, webhookID, boxwatch.DeliveryPending, boxwatch.DeliveryPending))
	tx.evictNotifications(promoted)
	return append(heads, failed...), tx.db.internal("requeue notifications", err)
}

// Event returns one of the account's logged events, or ErrNotFound.
func (db *DB) Event(ctx context.Context, accountID, id string) (boxwatch.Event, error) {
	if !boxwatch.IsUUID(id) {
		return boxwatch.Event{}, boxwatch.ErrNotFound
	}
	var e boxwatch.Event
	var data string
	err := db.read.queryRow(ctx, `SELECT id, account_id, name, object_type, object_id, tracking_request_id, shipment_id, container_id,
		data, key, created_at FROM events WHERE account_id = ? AND id = ?`, accountID, strings.ToLower(id)).
		Scan(nullString{&e.ID}, nullString{&e.AccountID}, &e.Name, &e.ObjectType, &e.ObjectID, nullString{&e.TrackingRequestID},
			nullString{&e.ShipmentID}, nullString{&e.ContainerID}, nullString{&data}, &e.Key, timeCol{&e.CreatedAt})
	e.Data = []byte(data)
	return e, db.lookupErr("event", err)
}

// NotificationBacklog reads the pending notifications through the partial index of those due.
func (db *DB) NotificationBacklog(ctx context.Context, now time.Time, limit int) (boxwatch.NotificationBacklog, error) {
	var b boxwatch.NotificationBacklog
	err := db.read.queryRow(ctx, `SELECT COUNT(*), COUNT(CASE WHEN next_attempt_at <= ? THEN 1 END),
		MIN(CASE WHEN next_attempt_at <= ? THEN next_attempt_at END)
		FROM webhook_notifications WHERE delivery_status = ?`, db.ts(now), db.ts(now), boxwatch.DeliveryPending).
		Scan(&b.Pending, &b.Due, nullTimeCol{&b.OldestDue})
	if err != nil || limit <= 0 || b.Pending == 0 {
		return b, db.internal("NotificationBacklog", err)
	}
	rs, err := db.read.query(ctx, `SELECT w.id, w.account_id, w.url, w.active, w.failing_since, p.pending, p.due, p.oldest_due
		FROM (SELECT webhook_id, COUNT(*) AS pending, COUNT(CASE WHEN next_attempt_at <= ? THEN 1 END) AS due,
				MIN(CASE WHEN next_attempt_at <= ? THEN next_attempt_at END) AS oldest_due
			FROM webhook_notifications WHERE delivery_status = ? GROUP BY webhook_id) p
		JOIN webhooks w ON w.id = p.webhook_id
		ORDER BY p.pending DESC, w.id LIMIT ?`, db.ts(now), db.ts(now), boxwatch.DeliveryPending, limit)
	if err != nil {
		return b, db.internal("NotificationBacklog", err)
	}
	defer rs.Close()
	for rs.Next() {
		var w boxwatch.WebhookBacklog
		if err := rs.Scan(&w.WebhookID, &w.AccountID, &w.URL, &w.Active, nullTimeCol{&w.FailingSince}, &w.Pending, &w.Due,
			nullTimeCol{&w.OldestDue}); err != nil {
			return b, db.internal("NotificationBacklog", err)
		}
		b.Webhooks = append(b.Webhooks, w)
	}
	return b, db.internal("NotificationBacklog", rs.Err())
}
