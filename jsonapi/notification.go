package jsonapi

import "github.com/boxwatch/boxwatch"

// NotificationAttributes is the wire form of a webhook notification.
type NotificationAttributes struct {
	ID             string  `json:"id" format:"uuid"`
	Event          string  `json:"event"`
	DeliveryStatus string  `json:"delivery_status" enum:"pending,succeeded,failed"`
	CreatedAt      string  `json:"created_at" format:"date-time"`
	Attempts       int     `json:"attempts" doc:"Delivery attempts so far: the entries of the notification's log (a boxwatch extension)."`
	NextAttemptAt  *string `json:"next_attempt_at" format:"date-time" doc:"When a pending notification is next sent; null once it succeeded or failed (a boxwatch extension)."`
}

// NotificationRelationships link a notification to what it reports, its webhook and its log.
type NotificationRelationships struct {
	ReferenceObject         ToOne  `json:"reference_object"`
	Webhook                 ToOne  `json:"webhook"`
	WebhookNotificationLogs ToMany `json:"webhook_notification_logs"`
}

// NotificationResource is a webhook notification as a JSON:API resource.
type NotificationResource struct {
	ID            string                    `json:"id" format:"uuid"`
	Type          string                    `json:"type" enum:"webhook_notification"`
	Attributes    NotificationAttributes    `json:"attributes"`
	Relationships NotificationRelationships `json:"relationships"`
	Links         ResourceLinks             `json:"links"`
}

// NotificationDocument is the body a webhook receives, and the answer for one notification;
// NotificationListDocument answers a page of them.
type NotificationDocument = Document[NotificationResource]
type NotificationListDocument = Document[[]NotificationResource]

// NotificationLogAttributes is the wire form of one delivery attempt.
type NotificationLogAttributes struct {
	AttemptedAt     string  `json:"attempted_at" format:"date-time"`
	StatusCode      *int    `json:"status_code" doc:"The receiver's HTTP status; null when no response came."`
	LatencyMS       int64   `json:"latency_ms"`
	Error           *string `json:"error"`
	ResponseSnippet *string `json:"response_snippet" doc:"The first bytes of the response body."`
}

// NotificationLogResource is a delivery attempt as a JSON:API resource.
type NotificationLogResource struct {
	ID         string                    `json:"id" format:"uuid"`
	Type       string                    `json:"type" enum:"webhook_notification_log"`
	Attributes NotificationLogAttributes `json:"attributes"`
}

// NotificationLog renders a delivery attempt.
func NotificationLog(a boxwatch.DeliveryAttempt) NotificationLogResource {
	res := NotificationLogResource{ID: a.ID, Type: "webhook_notification_log", Attributes: NotificationLogAttributes{
		AttemptedAt: timestamp(a.At), LatencyMS: a.Latency.Milliseconds(),
		Error: optString(a.Error), ResponseSnippet: optString(a.ResponseSnippet),
	}}
	if a.StatusCode != 0 {
		code := a.StatusCode
		res.Attributes.StatusCode = &code
	}
	return res
}

// Notification renders a notification of event ev with its delivery log.
func Notification(n boxwatch.Notification, ev boxwatch.Event, logs []boxwatch.DeliveryAttempt) NotificationResource {
	res := NotificationResource{ID: n.ID, Type: "webhook_notification",
		Attributes: NotificationAttributes{ID: n.ID, Event: n.Event, DeliveryStatus: n.DeliveryStatus,
			CreatedAt: timestamp(n.CreatedAt), Attempts: n.Attempts, NextAttemptAt: optTime(n.NextAttemptAt)},
		Relationships: NotificationRelationships{ReferenceObject: linkTo(ev.ObjectID, ev.ObjectType), Webhook: linkTo(n.WebhookID, "webhook"),
			WebhookNotificationLogs: ToMany{Data: []ResourceIdentifier{}}},
		Links: ResourceLinks{Self: "/v2/webhook_notifications/" + n.ID}}
	for _, l := range logs {
		res.Relationships.WebhookNotificationLogs.Data = append(res.Relationships.WebhookNotificationLogs.Data,
			ResourceIdentifier{ID: l.ID, Type: "webhook_notification_log"})
	}
	return res
}
