package api

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/webhook"
)

type notificationAttributes struct {
	ID             string `json:"id" format:"uuid"`
	Event          string `json:"event"`
	DeliveryStatus string `json:"delivery_status" enum:"pending,succeeded,failed"`
	CreatedAt      string `json:"created_at" format:"date-time"`
	Attempts       int    `json:"attempts" doc:"Delivery attempts so far (a boxwatch extension)."`
}

type notificationRelationships struct {
	ReferenceObject         toOne  `json:"reference_object"`
	Webhook                 toOne  `json:"webhook"`
	WebhookNotificationLogs toMany `json:"webhook_notification_logs"`
}

type notificationResource struct {
	ID            string                    `json:"id" format:"uuid"`
	Type          string                    `json:"type" enum:"webhook_notification"`
	Attributes    notificationAttributes    `json:"attributes"`
	Relationships notificationRelationships `json:"relationships"`
	Links         resourceLinks             `json:"links"`
}

type notificationDocument = document[notificationResource]
type notificationListDocument = document[[]notificationResource]

type notificationLogAttributes struct {
	AttemptedAt     string  `json:"attempted_at" format:"date-time"`
	StatusCode      *int    `json:"status_code" doc:"The receiver's HTTP status; null when no response came."`
	LatencyMS       int64   `json:"latency_ms"`
	Error           *string `json:"error"`
	ResponseSnippet *string `json:"response_snippet" doc:"The first bytes of the response body."`
}

type notificationLogResource struct {
	ID         string                    `json:"id" format:"uuid"`
	Type       string                    `json:"type" enum:"webhook_notification_log"`
	Attributes notificationLogAttributes `json:"attributes"`
}

func notificationLogOut(a boxwatch.DeliveryAttempt) notificationLogResource {
	res := notificationLogResource{ID: a.ID, Type: "webhook_notification_log", Attributes: notificationLogAttributes{
		AttemptedAt: a.At.UTC().Format(boxwatch.TimeFormat), LatencyMS: a.Latency.Milliseconds(),
		Error: optString(a.Error), ResponseSnippet: optString(a.ResponseSnippet),
	}}
	if a.StatusCode != 0 {
		code := a.StatusCode
		res.Attributes.StatusCode = &code
	}
	return res
}

func notificationOut(n boxwatch.Notification, ev boxwatch.Event, logs []boxwatch.DeliveryAttempt) notificationResource {
	res := notificationResource{ID: n.ID, Type: "webhook_notification",
		Attributes: notificationAttributes{ID: n.ID, Event: n.Event, DeliveryStatus: n.DeliveryStatus,
			CreatedAt: n.CreatedAt.UTC().Format(boxwatch.TimeFormat), Attempts: n.Attempts},
		Relationships: notificationRelationships{ReferenceObject: linkTo(ev.ObjectID, ev.ObjectType), Webhook: linkTo(n.WebhookID, "webhook"),
			WebhookNotificationLogs: toMany{Data: []resourceIdentifier{}}},
		Links: resourceLinks{Self: "/v2/webhook_notifications/" + n.ID}}
	for _, l := range logs {
		res.Relationships.WebhookNotificationLogs.Data = append(res.Relationships.WebhookNotificationLogs.Data,
			resourceIdentifier{ID: l.ID, Type: "webhook_notification_log"})
	}
	return res
}

func handleNotificationExample(rd *Renderer, now boxwatch.Clock, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		name := r.URL.Query().Get("event")
		if !webhook.Known(name) {
			return boxwatch.BadParameter("event", "event must name an event boxwatch sends; GET /v2/webhooks/events lists them.")
		}
		doc := rd.Example(name, now())
		doc.Links = &links{Self: base(r) + r.URL.Path + "?event=" + name}
		writeJSON(w, http.StatusOK, doc)
		return nil
	}
}

var notificationListParams = []param{
	paramPageNumber, paramPageSize, paramInclude("webhook_notification_logs"),
	{name: "filter[webhook_id]", typ: "string", format: "uuid", doc: "Only notifications of this webhook."},
	{name: "filter[delivery_status]", typ: "string", enum: []string{"pending", "succeeded", "failed"}, doc: "Only notifications with this status."},
	{name: "filter[event]", typ: "string", doc: "Only notifications of this event."},
}

// notificationWithLogs renders notifications with their logs when asked.
func notificationWithLogs(r *http.Request, st boxwatch.Store, n boxwatch.Notification, inc map[string]bool, included []any) (notificationResource, []any, error) {
	var logs []boxwatch.DeliveryAttempt
	if inc["webhook_notification_logs"] {
		var err error
		if logs, err = st.DeliveryAttempts(r.Context(), n.ID); err != nil {
			return notificationResource{}, nil, err
		}
		for _, l := range logs {
			included = append(included, notificationLogOut(l))
		}
	}
	ev, err := st.Event(r.Context(), n.AccountID, n.EventID)
	if err != nil {
		return notificationResource{}, nil, err
	}
	return notificationOut(n, ev, logs), included, nil
}

func handleNotificationList(st boxwatch.Store, pageLinks func(*http.Request, boxwatch.Page, int) (*links, *meta)) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		page, err := pageParams(q)
		if err != nil {
			return err
		}
		inc, err := includes(q, "webhook_notification_logs")
		if err != nil {
			return err
		}
		f := boxwatch.NotificationFilter{WebhookID: q.Get("filter[webhook_id]"), DeliveryStatus: q.Get("filter[delivery_status]"), Event: q.Get("filter[event]")}
		if f.WebhookID != "" && !boxwatch.IsUUID(f.WebhookID) {
			return boxwatch.BadParameter("filter[webhook_id]", "filter[webhook_id] must be a webhook id.")
		}
		if s := f.DeliveryStatus; s != "" && s != boxwatch.DeliveryPending && s != boxwatch.DeliverySucceeded && s != boxwatch.DeliveryFailed {
			return boxwatch.BadParameter("filter[delivery_status]", "filter[delivery_status] must be pending, succeeded or failed.")
		}
		list, total, err := st.Notifications(r.Context(), account(r).ID, f, page)
		if err != nil {
			return err
		}
		data := make([]notificationResource, len(list))
		included := []any{}
		for i, n := range list {
			if data[i], included, err = notificationWithLogs(r, st, n, inc, included); err != nil {
				return err
			}
		}
		l, m := pageLinks(r, page, total)
		m.Size = len(data)
		writeJSON(w, http.StatusOK, notificationListDocument{Data: data, Included: included, Links: l, Meta: m})
		return nil
	}
}

func handleNotificationGet(st boxwatch.Store, rd *Renderer, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		inc, err := includes(r.URL.Query(), "reference_object", "webhook_notification_logs")
		if err != nil {
			return err
		}
		n, err := st.Notification(r.Context(), account(r).ID, r.PathValue("id"))
		if err != nil {
			return err
		}
		res, included, err := notificationWithLogs(r, st, n, inc, []any{})
		if err != nil {
			return err
		}
		if inc["reference_object"] {
			doc, err := rd.referenceDocument(r.Context(), n)
			if err != nil {
				return err
			}
			included = append(included, doc.Included...)
		}
		writeJSON(w, http.StatusOK, notificationDocument{Data: res, Included: included, Links: &links{Self: base(r) + res.Links.Self}})
		return nil
	}
}

func handleNotificationRedeliver(deliveries boxwatch.Redeliverer, st boxwatch.Store, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		n, err := deliveries.Redeliver(r.Context(), account(r).ID, r.PathValue("id"))
		if err != nil {
			return err
		}
		res, _, err := notificationWithLogs(r, st, n, nil, nil)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusAccepted, notificationDocument{Data: res, Links: &links{Self: base(r) + res.Links.Self}})
		return nil
	}
}

// referenceDocument renders a notification's document for include=reference_object.
func (rd *Renderer) referenceDocument(ctx context.Context, n boxwatch.Notification) (notificationDocument, error) {
	var doc notificationDocument
	b, err := rd.Notification(ctx, n)
	if err != nil {
		return doc, err
	}
	return doc, json.Unmarshal(b, &doc)
}
