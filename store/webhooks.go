package store

import (
	"context"
	"math"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch"
)

const webhookColumns = `id, account_id, url, active, events, headers, secret, deactivated_reason, failing_since, created_at, updated_at`

func scanWebhook(r row) (boxwatch.Webhook, error) {
	var w boxwatch.Webhook
	err := r.Scan(nullString{&w.ID}, nullString{&w.AccountID}, &w.URL, &w.Active, listCol{&w.Events}, jsonCol{&w.Headers},
		&w.Secret, nullString{&w.DeactivatedReason}, nullTimeCol{&w.FailingSince}, timeCol{&w.CreatedAt}, timeCol{&w.UpdatedAt})
	if w.Headers == nil {
		w.Headers = []boxwatch.WebhookHeader{}
	}
	return w, err
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
	return db.updateWebhook(ctx, db.write, w)
}

// SaveWebhookState is UpdateWebhook inside a transaction (the delivery worker's view).
func (tx *txn) SaveWebhookState(ctx context.Context, w boxwatch.Webhook) error {
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
	w, err := scanWebhook(db.read.queryRow(ctx, "SELECT "+webhookColumns+" FROM webhooks WHERE account_id = ? AND id = ?", accountID, strings.ToLower(id)))
	return w, db.lookupErr("webhook", err)
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
	n, err := db.write.exec(ctx, "DELETE FROM webhooks WHERE account_id = ? AND id = ?", accountID, strings.ToLower(id))
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
// an event is never logged without its notifications.
func (tx *txn) Notify(ctx context.Context, e boxwatch.Event) ([]string, error) {
	rs, err := tx.c.query(ctx, "SELECT id, events FROM webhooks WHERE account_id = ? AND active = ?", e.AccountID, true)
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
	ids := make([]string, len(targets))
	for i, webhookID := range targets {
		ids[i] = boxwatch.NewID(e.CreatedAt)
		if _, err := tx.c.exec(ctx, `INSERT INTO webhook_notifications (id, account_id, webhook_id, event_id, event, delivery_status,
			attempts, next_attempt_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`,
			ids[i], e.AccountID, webhookID, e.ID, e.Name, boxwatch.DeliveryPending, tx.db.ts(e.CreatedAt), tx.db.ts(e.CreatedAt),
			tx.db.ts(e.CreatedAt)); err != nil {
			return nil, tx.db.internal("create notification", err)
		}
	}
	return ids, nil
}

const notificationColumns = `id, account_id, webhook_id, event_id, event, delivery_status, attempts, next_attempt_at, body,
	created_at, updated_at`

func scanNotification(r row) (boxwatch.Notification, error) {
	var n boxwatch.Notification
	var body string
	err := r.Scan(nullString{&n.ID}, nullString{&n.AccountID}, nullString{&n.WebhookID}, nullString{&n.EventID}, &n.Event,
		&n.DeliveryStatus, &n.Attempts, nullTimeCol{&n.NextAttemptAt}, nullString{&body}, timeCol{&n.CreatedAt}, timeCol{&n.UpdatedAt})
	if body != "" {
		n.Body = []byte(body)
	}
	return n, err
}

// LockNotificationAndWebhook returns a notification and its webhook whatever the account, locked for
// the transaction: the delivery worker's view.
func (tx *txn) LockNotificationAndWebhook(ctx context.Context, id string) (boxwatch.Notification, boxwatch.Webhook, error) {
	return tx.db.notificationWithWebhook(ctx, tx.c, id, tx.forUpdate())
}

// LockNotification returns a notification whatever the account, locked for the transaction.
func (tx *txn) LockNotification(ctx context.Context, id string) (boxwatch.Notification, error) {
	if !boxwatch.IsUUID(id) {
		return boxwatch.Notification{}, boxwatch.ErrNotFound
	}
	n, err := scanNotification(tx.c.queryRow(ctx, "SELECT "+notificationColumns+" FROM webhook_notifications WHERE id = ?"+tx.forUpdate(), id))
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
// any claim on it.
func (tx *txn) SaveNotification(ctx context.Context, n boxwatch.Notification) error {
	var body any
	if len(n.Body) > 0 {
		body = string(n.Body)
	}
	_, err := tx.c.exec(ctx, `UPDATE webhook_notifications SET delivery_status = ?, attempts = ?, next_attempt_at = ?, body = ?,
		claimed_until = NULL, updated_at = ? WHERE id = ?`,
		n.DeliveryStatus, n.Attempts, tx.db.nullTime(n.NextAttemptAt), body, tx.db.ts(n.UpdatedAt), n.ID)
	return tx.db.internal("save notification", err)
}

// ClaimDueNotifications claims up to limit pending notifications due at now that no live claim
// holds, until the given time, and returns their ids, the most overdue first. Replicas claiming at
// once get different notifications. Live claims count against the bounds: a webhook holds at most
// b.PerWebhook of them (one while it is failing) and an account at most b.PerAccount, so the
// notifications of one account, however many are due, never fill a claim that others are due in.
// A notification waits while an earlier one of the same webhook and subject is pending, so each
// subject's notifications reach a webhook in event order.
func (db *DB) ClaimDueNotifications(ctx context.Context, now, until time.Time, limit int, b boxwatch.ClaimBounds) ([]string, error) {
	skip := ""
	if db.dialect == Postgres {
		skip = " FOR UPDATE SKIP LOCKED"
	}
	perWebhook, perAccount := b.PerWebhook, b.PerAccount
	if perWebhook <= 0 {
		perWebhook = math.MaxInt32
	}
	if perAccount <= 0 {
		perAccount = math.MaxInt32
	}
	// held counts the live claims once. Of the pending notifications of the webhooks with any
	// due, only the first of each subject may go (one read of their backlog, not one per due
	// notification); those due are ranked within their webhook and their account after the live
	// claims, and what fits the bounds is taken, most overdue first, and locked, checking again
	// that no other replica claimed it meanwhile.
	var ids []string
	err := db.inTx(ctx, func(c conn) error {
		rs, err := c.query(ctx, `UPDATE webhook_notifications SET claimed_until = ? WHERE id IN (
			SELECT id FROM webhook_notifications WHERE id IN (
				WITH held AS (
					SELECT webhook_id, account_id, COUNT(*) AS n FROM webhook_notifications
					WHERE delivery_status = ? AND claimed_until > ? GROUP BY webhook_id, account_id
				), held_by_account AS (
					SELECT account_id, SUM(n) AS n FROM held GROUP BY account_id
				), first_of_subject AS (
					SELECT d.id, d.account_id, d.webhook_id, d.next_attempt_at, d.claimed_until,
						ROW_NUMBER() OVER (PARTITION BY d.webhook_id,
							COALESCE(CAST(e.container_id AS TEXT), CAST(e.shipment_id AS TEXT), CAST(e.tracking_request_id AS TEXT), e.object_id)
							ORDER BY d.created_at, d.id) AS subject_rank
					FROM webhook_notifications d JOIN events e ON e.id = d.event_id
					WHERE d.delivery_status = ? AND d.webhook_id IN (
						SELECT webhook_id FROM webhook_notifications WHERE delivery_status = ? AND next_attempt_at <= ?)
				), by_webhook AS (
					SELECT f.id, f.account_id, f.next_attempt_at,
						COALESCE(hw.n, 0) + ROW_NUMBER() OVER (PARTITION BY f.webhook_id ORDER BY f.next_attempt_at, f.id) AS webhook_rank,
						CASE WHEN w.failing_since IS NULL THEN ? ELSE 1 END AS webhook_bound
					FROM first_of_subject f JOIN webhooks w ON w.id = f.webhook_id
					LEFT JOIN held hw ON hw.webhook_id = f.webhook_id
					WHERE f.subject_rank = 1 AND f.next_attempt_at <= ? AND (f.claimed_until IS NULL OR f.claimed_until <= ?)
				), by_account AS (
					SELECT b.id, b.next_attempt_at,
						COALESCE(ha.n, 0) + ROW_NUMBER() OVER (PARTITION BY b.account_id ORDER BY b.next_attempt_at, b.id) AS account_rank
					FROM by_webhook b LEFT JOIN held_by_account ha ON ha.account_id = b.account_id
					WHERE b.webhook_rank <= b.webhook_bound
				)
				SELECT id FROM by_account WHERE account_rank <= ? ORDER BY next_attempt_at, id LIMIT ?
			) AND delivery_status = ? AND (claimed_until IS NULL OR claimed_until <= ?)`+skip+`) RETURNING id`,
			db.ts(until),
			boxwatch.DeliveryPending, db.ts(now),
			boxwatch.DeliveryPending, boxwatch.DeliveryPending, db.ts(now),
			perWebhook, db.ts(now), db.ts(now),
			perAccount, limit,
			boxwatch.DeliveryPending, db.ts(now))
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var id string
			if err := rs.Scan(nullString{&id}); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return rs.Err()
	})
	return ids, db.internal("claim due notifications", err)
}

// Unclaim gives a claimed notification back, due again at next.
func (db *DB) UnclaimNotification(ctx context.Context, id string, next time.Time) error {
	_, err := db.write.exec(ctx, "UPDATE webhook_notifications SET claimed_until = NULL, next_attempt_at = ? WHERE id = ?", db.ts(next), id)
	return db.internal("unclaim notification", err)
}

// AddDeliveryAttempt appends an attempt to a notification's log.
func (tx *txn) AddDeliveryAttempt(ctx context.Context, a boxwatch.DeliveryAttempt) error {
	var status any
	if a.StatusCode != 0 {
		status = a.StatusCode
	}
	_, err := tx.c.exec(ctx, `INSERT INTO webhook_notification_logs (id, notification_id, attempted_at, status_code, latency_ms, error,
		response_snippet) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		a.ID, a.NotificationID, tx.db.ts(a.At), status, a.Latency.Milliseconds(), a.Error, a.ResponseSnippet)
	return tx.db.internal("add delivery attempt", err)
}

// Notification returns one of the account's notifications, or ErrNotFound.
func (db *DB) Notification(ctx context.Context, accountID, id string) (boxwatch.Notification, error) {
	if !boxwatch.IsUUID(id) {
		return boxwatch.Notification{}, boxwatch.ErrNotFound
	}
	n, err := scanNotification(db.read.queryRow(ctx, "SELECT "+notificationColumns+" FROM webhook_notifications WHERE account_id = ? AND id = ?",
		accountID, strings.ToLower(id)))
	return n, db.lookupErr("notification", err)
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
// are pending and not claimed, due now, in one statement, and returns their ids. Their attempt
// counts stay: each is the length of the notification's log.
func (tx *txn) RequeueNotifications(ctx context.Context, webhookID string, since, now time.Time) ([]string, error) {
	rs, err := tx.c.query(ctx, `UPDATE webhook_notifications SET delivery_status = ?, next_attempt_at = ?, updated_at = ?
		WHERE webhook_id = ? AND created_at >= ?
		AND (delivery_status = ? OR delivery_status = ? AND (claimed_until IS NULL OR claimed_until <= ?)) RETURNING id`,
		boxwatch.DeliveryPending, tx.db.ts(now), tx.db.ts(now), webhookID, tx.db.ts(since),
		boxwatch.DeliveryFailed, boxwatch.DeliveryPending, tx.db.ts(now))
	if err != nil {
		return nil, tx.db.internal("requeue notifications", err)
	}
	ids, err := collect(rs, func(r row) (string, error) {
		var id string
		return id, r.Scan(nullString{&id})
	})
	return ids, tx.db.internal("requeue notifications", err)
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
