package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// Webhook is a URL the service posts events to, signed with its secret.
type Webhook struct {
	ID      string   `json:"id"`
	URL     string   `json:"url"`
	Active  bool     `json:"active"`
	Events  []string `json:"events"`
	Headers []Header `json:"headers"`
	// Secret keys the signatures of deliveries.
	Secret    string    `json:"secret"`
	CreatedAt time.Time `json:"created_at"`
	// DeactivatedReason says why the service turned the webhook off, if it did.
	DeactivatedReason *string `json:"deactivated_reason"`
}

// Header is an extra header sent with every delivery of a webhook.
type Header struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

func webhookOf(r resource, w *Webhook) { w.ID = r.ID }

// WebhookChange is what CreateWebhook and UpdateWebhook send; nil and empty members are left
// out (on update, they stay as they are).
type WebhookChange struct {
	URL     string   `json:"url,omitempty"`
	Active  *bool    `json:"active,omitempty"`
	Events  []string `json:"events,omitempty"`
	Headers []Header `json:"headers,omitempty"`
}

func webhookBody(id string, ch WebhookChange) map[string]any {
	data := map[string]any{"type": "webhook", "attributes": ch}
	if id != "" {
		data["id"] = id
	}
	return map[string]any{"data": data}
}

func oneWebhook(method, path string, d document) (Webhook, error) {
	var w Webhook
	r, err := decodeOne(method, path, d, "webhook", &w)
	webhookOf(r, &w)
	return w, err
}

// CreateWebhook registers a URL for events (names from GET /v2/webhooks/events). The service
// refuses URLs that are not https or resolve to private addresses, unless it runs with
// --webhook-allow-private.
func (c *Client) CreateWebhook(ctx context.Context, ch WebhookChange) (Webhook, error) {
	const path = "/v2/webhooks"
	d, err := c.send(ctx, http.MethodPost, path, nil, webhookBody("", ch))
	if err != nil {
		return Webhook{}, err
	}
	return oneWebhook(http.MethodPost, path, d)
}

// UpdateWebhook changes the members ch sets; Active true turns a deactivated webhook back on.
func (c *Client) UpdateWebhook(ctx context.Context, id string, ch WebhookChange) (Webhook, error) {
	path := "/v2/webhooks/" + escape(id)
	d, err := c.send(ctx, http.MethodPatch, path, nil, webhookBody(id, ch))
	if err != nil {
		return Webhook{}, err
	}
	return oneWebhook(http.MethodPatch, path, d)
}

// Webhook returns one of the account's webhooks.
func (c *Client) Webhook(ctx context.Context, id string) (Webhook, error) {
	path := "/v2/webhooks/" + escape(id)
	d, err := c.get(ctx, path, nil)
	if err != nil {
		return Webhook{}, err
	}
	return oneWebhook(http.MethodGet, path, d)
}

// Webhooks returns every webhook of the account, newest first.
func (c *Client) Webhooks(ctx context.Context) ([]Webhook, error) {
	const path = "/v2/webhooks"
	return all(ctx, func(ctx context.Context, p Page) (List[Webhook], error) {
		d, err := c.get(ctx, path, p.values(nil))
		if err != nil {
			return List[Webhook]{}, err
		}
		items, err := decodeList(http.MethodGet, path, d, "webhook", webhookOf)
		return listOf(d, items), err
	})
}

// EventCategory is a group of the events a webhook may subscribe to.
type EventCategory struct {
	ID     string      `json:"id"`
	Name   string      `json:"name"`
	Events []EventInfo `json:"events"`
}

// EventInfo is an event a webhook may subscribe to, and what it means.
type EventInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Emitted reports whether the service sends the event today (a boxwatch extension).
	Emitted bool `json:"emitted"`
}

// WebhookEvents returns the catalogue of events, by category.
func (c *Client) WebhookEvents(ctx context.Context) ([]EventCategory, error) {
	const path = "/v2/webhooks/events"
	d, err := c.get(ctx, path, nil)
	if err != nil {
		return nil, err
	}
	return decodeList(http.MethodGet, path, d, "webhook_event_category", func(r resource, ec *EventCategory) { ec.ID = r.ID })
}

// DeleteWebhook removes a webhook and its notifications.
func (c *Client) DeleteWebhook(ctx context.Context, id string) error {
	_, err := c.do(ctx, http.MethodDelete, "/v2/webhooks/"+escape(id), nil, nil)
	return err
}

// RedeliverSince queues again every failed notification of a webhook created since that time,
// and returns how many.
func (c *Client) RedeliverSince(ctx context.Context, webhookID string, since time.Time) (int, error) {
	path := "/v2/webhooks/" + escape(webhookID) + "/redeliver"
	raw, err := c.do(ctx, http.MethodPost, path, url.Values{"since": {since.UTC().Format(time.RFC3339)}}, nil)
	if err != nil {
		return 0, err
	}
	var doc struct {
		Meta struct {
			Redelivered *int `json:"redelivered"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil || doc.Meta.Redelivered == nil {
		return 0, fmt.Errorf("POST %s: the answer has no meta.redelivered", path)
	}
	return *doc.Meta.Redelivered, nil
}

// Notification delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliverySucceeded = "succeeded"
	DeliveryFailed    = "failed"
)

// Notification is one event to be delivered to one webhook, and how its delivery went.
type Notification struct {
	ID             string    `json:"id"`
	Event          string    `json:"event"`
	DeliveryStatus string    `json:"delivery_status"`
	CreatedAt      time.Time `json:"created_at"`
	Attempts       int       `json:"attempts"`
	WebhookID      string    `json:"webhook_id"`
	// Log holds every delivery attempt, oldest first, where the call asked for it.
	Log []DeliveryAttempt `json:"log,omitempty"`
}

// DeliveryAttempt is one POST of a notification to its webhook.
type DeliveryAttempt struct {
	AttemptedAt time.Time `json:"attempted_at"`
	// StatusCode is the receiver's status; nil when no response came (see Error).
	StatusCode      *int    `json:"status_code"`
	LatencyMS       int64   `json:"latency_ms"`
	Error           *string `json:"error"`
	ResponseSnippet *string `json:"response_snippet"`
}

// notificationOf fills a notification's webhook and, when the document includes them, its log.
func notificationOf(d document) func(resource, *Notification) {
	return func(r resource, n *Notification) {
		n.ID, n.WebhookID = r.ID, r.one("webhook")
		for _, id := range r.many("webhook_notification_logs") {
			if lr, ok := d.included("webhook_notification_log", id); ok {
				var a DeliveryAttempt
				if json.Unmarshal(lr.Attributes, &a) == nil {
					n.Log = append(n.Log, a)
				}
			}
		}
	}
}

// NotificationQuery filters Notifications; empty members filter nothing.
type NotificationQuery struct {
	WebhookID string
	// DeliveryStatus is DeliveryPending, DeliverySucceeded or DeliveryFailed.
	DeliveryStatus string
	Event          string
	// WithLog asks for every delivery attempt of each notification.
	WithLog bool
	Page
}

// Notifications returns a page of the account's notifications, newest first.
func (c *Client) Notifications(ctx context.Context, q NotificationQuery) (List[Notification], error) {
	v := url.Values{}
	for name, val := range map[string]string{"filter[webhook_id]": q.WebhookID, "filter[delivery_status]": q.DeliveryStatus, "filter[event]": q.Event} {
		if val != "" {
			v.Set(name, val)
		}
	}
	if q.WithLog {
		v.Set("include", "webhook_notification_logs")
	}
	const path = "/v2/webhook_notifications"
	d, err := c.get(ctx, path, q.values(v))
	if err != nil {
		return List[Notification]{}, err
	}
	items, err := decodeList(http.MethodGet, path, d, "webhook_notification", notificationOf(d))
	return listOf(d, items), err
}

// Notification returns one of the account's notifications with its delivery log.
func (c *Client) Notification(ctx context.Context, id string) (Notification, error) {
	path := "/v2/webhook_notifications/" + escape(id)
	d, err := c.get(ctx, path, url.Values{"include": {"webhook_notification_logs"}})
	if err != nil {
		return Notification{}, err
	}
	var n Notification
	r, err := decodeOne(http.MethodGet, path, d, "webhook_notification", &n)
	notificationOf(d)(r, &n)
	return n, err
}

// Redeliver sends one notification again, with the same id and body, and returns it queued.
func (c *Client) Redeliver(ctx context.Context, notificationID string) (Notification, error) {
	path := "/v2/webhook_notifications/" + escape(notificationID) + "/redeliver"
	d, err := c.send(ctx, http.MethodPost, path, nil, nil)
	if err != nil {
		return Notification{}, err
	}
	var n Notification
	r, err := decodeOne(http.MethodPost, path, d, "webhook_notification", &n)
	notificationOf(d)(r, &n)
	return n, err
}
