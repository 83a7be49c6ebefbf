package api

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/webhook"
)

type notificationAttributes struct {
	ID             string  `json:"id" format:"uuid"`
	Event          string  `json:"event"`
	DeliveryStatus string  `json:"delivery_status" enum:"pending,succeeded,failed"`
	CreatedAt      string  `json:"created_at" format:"date-time"`
	Attempts       int     `json:"attempts" doc:"Delivery attempts so far: the entries of the notification's log (a boxwatch extension)."`
	NextAttemptAt  *string `json:"next_attempt_at" format:"date-time" doc:"When a pending notification is next sent; null once it succeeded or failed (a boxwatch extension)."`
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
			CreatedAt: n.CreatedAt.UTC().Format(boxwatch.TimeFormat), Attempts: n.Attempts, NextAttemptAt: optTime(n.NextAttemptAt)},
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
		one := rd.Example(name, now())
		// The reference answers a list holding the one example.
		writeJSON(w, http.StatusOK, notificationListDocument{Data: []notificationResource{one.Data}, Included: one.Included,
			Links: &links{Self: base(r) + r.URL.Path + "?event=" + name}})
		return nil
	}
}

var notificationListParams = []param{
	paramPageNumber, paramPageSize, paramInclude("reference_object", "webhook", "webhook_notification_logs"),
	{name: "filter[webhook_id]", typ: "string", format: "uuid", doc: "Only notifications of this webhook."},
	{name: "filter[delivery_status]", typ: "string", enum: []string{"pending", "succeeded", "failed"}, doc: "Only notifications with this status."},
	{name: "filter[event]", typ: "string", doc: "Only notifications of this event."},
}

// renderNotifications renders notifications with their events and, when withLogs, their delivery
// logs, which it also returns as included resources. It reads each kind of related row once for
// the whole list.
func renderNotifications(r *http.Request, st boxwatch.Store, list []boxwatch.Notification, withLogs bool) ([]notificationResource, []any, error) {
	acct := account(r).ID
	events, err := st.EventsByID(r.Context(), acct, idsOf(list, func(n boxwatch.Notification) string { return n.EventID }))
	if err != nil {
		return nil, nil, err
	}
	logs := map[string][]boxwatch.DeliveryAttempt{}
	if withLogs {
		if logs, err = st.DeliveryAttemptsOf(r.Context(), acct, idsOf(list, func(n boxwatch.Notification) string { return n.ID })); err != nil {
			return nil, nil, err
		}
	}
	data, included := make([]notificationResource, len(list)), []any{}
	for i, n := range list {
		for _, l := range logs[n.ID] {
			included = append(included, notificationLogOut(l))
		}
		data[i] = notificationOut(n, events[n.EventID], logs[n.ID])
	}
	return data, included, nil
}

// includeWebhooks adds the webhooks of notifications, each once: a read per webhook, and a page
// of notifications names few.
func includeWebhooks(r *http.Request, st boxwatch.Store, list []boxwatch.Notification, included []any) ([]any, error) {
	for _, id := range idsOf(list, func(n boxwatch.Notification) string { return n.WebhookID }) {
		w, err := st.Webhook(r.Context(), account(r).ID, id)
		if boxwatch.IsKind(err, boxwatch.KindNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		included = append(included, webhookOut(w))
	}
	return included, nil
}

func handleNotificationList(st boxwatch.Store, rd *Renderer, pageLinks pageLinker) handlerFunc {
	return handleList(pageLinks, func(r *http.Request, page boxwatch.Page) (listPage[notificationResource], error) {
		var lp listPage[notificationResource]
		q := r.URL.Query()
		inc, err := includes(q, "reference_object", "webhook", "webhook_notification_logs")
		if err != nil {
			return lp, err
		}
		f := boxwatch.NotificationFilter{WebhookID: q.Get("filter[webhook_id]"), DeliveryStatus: q.Get("filter[delivery_status]"), Event: q.Get("filter[event]")}
		if f.WebhookID != "" && !boxwatch.IsUUID(f.WebhookID) {
			return lp, boxwatch.BadParameter("filter[webhook_id]", "filter[webhook_id] must be a webhook id.")
		}
		if s := f.DeliveryStatus; s != "" && s != boxwatch.DeliveryPending && s != boxwatch.DeliverySucceeded && s != boxwatch.DeliveryFailed {
			return lp, boxwatch.BadParameter("filter[delivery_status]", "filter[delivery_status] must be pending, succeeded or failed.")
		}
		list, total, err := st.Notifications(r.Context(), account(r).ID, f, page)
		if err != nil {
			return lp, err
		}
		lp.data, lp.included, err = renderNotifications(r, st, list, inc["webhook_notification_logs"])
		lp.total = total
		if err == nil && inc["webhook"] {
			lp.included, err = includeWebhooks(r, st, list, lp.included)
		}
		if err == nil && inc["reference_object"] {
			lp.included, err = includeReferenceObjects(r, rd, list, lp.included)
		}
		return lp, err
	})
}

// includeReferenceObjects adds what each notification's payload includes (its reference object
// and the resources around it), each resource once. It renders every notification of the page in
// turn: a page costs queries in proportion to its size with this include.
func includeReferenceObjects(r *http.Request, rd *Renderer, list []boxwatch.Notification, included []any) ([]any, error) {
	seen := map[[2]string]bool{}
	for _, res := range included {
		if k, ok := resourceKey(res); ok {
			seen[k] = true
		}
	}
	for _, n := range list {
		doc, err := rd.referenceDocument(r.Context(), n)
		if err != nil {
			return nil, err
		}
		for _, res := range doc.Included {
			k, ok := resourceKey(res)
			if ok && seen[k] {
				continue
			}
			seen[k] = true
			included = append(included, res)
		}
	}
	return included, nil
}

// resourceKey is the type and id of a rendered resource decoded from JSON.
func resourceKey(res any) ([2]string, bool) {
	m, ok := res.(map[string]any)
	if !ok {
		return [2]string{}, false
	}
	typ, _ := m["type"].(string)
	id, _ := m["id"].(string)
	return [2]string{typ, id}, typ != "" && id != ""
}

func handleNotificationGet(st boxwatch.Store, rd *Renderer, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		inc, err := includes(r.URL.Query(), "reference_object", "webhook", "webhook_notification_logs")
		if err != nil {
			return err
		}
		n, err := st.Notification(r.Context(), account(r).ID, r.PathValue("id"))
		if err != nil {
			return err
		}
		data, included, err := renderNotifications(r, st, []boxwatch.Notification{n}, inc["webhook_notification_logs"])
		if err != nil {
			return err
		}
		res := data[0]
		if inc["webhook"] {
			if included, err = includeWebhooks(r, st, []boxwatch.Notification{n}, included); err != nil {
				return err
			}
		}
		if inc["reference_object"] {
			doc, err := rd.referenceDocument(r.Context(), n)
			if err != nil {
				return err
			}
			included = append(included, doc.Included...)
		}
		writeResource(w, http.StatusOK, base(r)+res.Links.Self, res, included)
		return nil
	}
}

func handleNotificationRedeliver(deliveries boxwatch.Redeliverer, st boxwatch.Store, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		n, err := deliveries.Redeliver(r.Context(), account(r).ID, r.PathValue("id"))
		if err != nil {
			return err
		}
		data, _, err := renderNotifications(r, st, []boxwatch.Notification{n}, false)
		if err != nil {
			return err
		}
		res := data[0]
		writeResource(w, http.StatusAccepted, base(r)+res.Links.Self, res, nil)
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
