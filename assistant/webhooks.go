package assistant

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/boxwatch/boxwatch/client"
)

type failedIn struct {
	WebhookID string `json:"webhook_id,omitempty" jsonschema:"only this webhook's deliveries (default: every webhook of the account)"`
	pageIn
}

// Delivery is a webhook notification and how its delivery went.
type Delivery struct {
	ID        string `json:"id" jsonschema:"the notification's id, which redeliver_failed_deliveries takes"`
	Event     string `json:"event"`
	WebhookID string `json:"webhook_id"`
	Status    string `json:"delivery_status" jsonschema:"pending, succeeded or failed"`
	CreatedAt string `json:"created_at"`
	Attempts  int    `json:"attempts"`
	// LastAttempt is the latest attempt, when there was one.
	LastAttempt *Attempt `json:"last_attempt"`
}

// Attempt is one POST of a notification to its webhook.
type Attempt struct {
	At         string  `json:"at" jsonschema:"UTC"`
	StatusCode *int    `json:"status_code" jsonschema:"the receiver's status; null when it did not answer"`
	Error      *string `json:"error"`
	Response   *string `json:"response_snippet" jsonschema:"the first bytes of the receiver's answer"`
}

func deliveryView(n client.Notification) Delivery {
	d := Delivery{ID: n.ID, Event: n.Event, WebhookID: n.WebhookID, Status: n.DeliveryStatus, CreatedAt: utc(n.CreatedAt), Attempts: n.Attempts}
	if len(n.Log) > 0 {
		a := n.Log[len(n.Log)-1]
		d.LastAttempt = &Attempt{At: utc(a.AttemptedAt), StatusCode: a.StatusCode, Error: a.Error, Response: a.ResponseSnippet}
	}
	return d
}

// Deliveries is a page of webhook deliveries.
type Deliveries struct {
	Items []Delivery `json:"items"`
	Paging
}

func listFailedDeliveries(ctx context.Context, c *client.Client, in failedIn) (Deliveries, string, error) {
	if in.WebhookID != "" {
		if err := webhookID.check("webhook_id", in.WebhookID); err != nil {
			return Deliveries{}, "", err
		}
	}
	list, err := c.Notifications(ctx, client.NotificationQuery{WebhookID: in.WebhookID, DeliveryStatus: client.DeliveryFailed,
		WithLog: true, Page: client.Page{Number: in.Page, Size: in.size()}})
	if err != nil {
		return Deliveries{}, "", failed(err, "")
	}
	out := Deliveries{Items: []Delivery{}, Paging: pageOf(list)}
	for _, n := range list.Items {
		out.Items = append(out.Items, deliveryView(n))
	}
	if out.Total == 0 {
		return out, "No delivery failed for good: every notification reached its receiver or is still being retried.", nil
	}
	summary := listSummary("failed deliveries", out.Paging, len(out.Items), nil)
	if last := out.Items[0].LastAttempt; last != nil {
		why := "no answer"
		switch {
		case last.StatusCode != nil:
			why = fmt.Sprintf("status %d", *last.StatusCode)
		case last.Error != nil:
			why = *last.Error
		}
		summary += fmt.Sprintf(" The newest, %s, last failed with %s at %s.", out.Items[0].Event, why, last.At)
	}
	return out, summary + " redeliver_failed_deliveries sends them again once the receiver is fixed.", nil
}

type redeliverIn struct {
	NotificationID string `json:"notification_id,omitempty" jsonschema:"one notification to send again"`
	WebhookID      string `json:"webhook_id,omitempty" jsonschema:"send again every failed or retrying notification of this webhook created since since"`
	Since          string `json:"since,omitempty" jsonschema:"with webhook_id: ISO 8601, such as 2026-04-28T00:00:00Z"`
}

// Redelivered is what was sent again.
type Redelivered struct {
	Redelivered int `json:"redelivered" jsonschema:"how many notifications were queued again"`
	// Notification is the one notification, when one was named.
	Notification *Delivery `json:"notification,omitempty"`
}

func redeliverFailedDeliveries(ctx context.Context, c *client.Client, in redeliverIn) (Redelivered, string, error) {
	switch {
	case in.NotificationID != "" && (in.WebhookID != "" || in.Since != ""):
		return Redelivered{}, "", errors.New("give notification_id alone, or webhook_id with since, not both")
	case in.NotificationID != "":
		if err := notificationID.check("notification_id", in.NotificationID); err != nil {
			return Redelivered{}, "", err
		}
		n, err := c.Redeliver(ctx, in.NotificationID)
		if err != nil {
			return Redelivered{}, "", failed(err, notificationID.notFound())
		}
		d := deliveryView(n)
		return Redelivered{Redelivered: 1, Notification: &d}, fmt.Sprintf("Notification %s (%s) is queued to be sent again, with the same id and body.", n.ID, n.Event), nil
	case in.WebhookID == "":
		return Redelivered{}, "", errors.New("give notification_id, or webhook_id with since: list_failed_deliveries finds both")
	}
	if err := webhookID.check("webhook_id", in.WebhookID); err != nil {
		return Redelivered{}, "", err
	}
	if in.Since == "" {
		return Redelivered{}, "", errors.New("since is required with webhook_id: an ISO 8601 time such as 2026-04-28T00:00:00Z, before the first failed delivery to send again")
	}
	since, err := time.Parse(time.RFC3339, in.Since)
	if err != nil {
		return Redelivered{}, "", fmt.Errorf("since %q is not an ISO 8601 time with its offset, such as 2026-04-28T00:00:00Z", in.Since)
	}
	n, err := c.RedeliverSince(ctx, in.WebhookID, since)
	if err != nil {
		return Redelivered{}, "", failed(err, webhookID.notFound())
	}
	return Redelivered{Redelivered: n}, fmt.Sprintf("%d notification(s) of webhook %s created since %s are queued to be sent again.", n, in.WebhookID, utc(since)), nil
}
