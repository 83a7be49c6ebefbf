package api

import (
	"net/http"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
	"github.com/boxwatch/boxwatch/webhook"
)

// notificationRoutes are the webhook notification endpoints.
func (s *server) notificationRoutes(rd jsonapi.Renderer, nr *jsonapi.NotificationRenderer) []route {
	st, now := s.cfg.Store, s.cfg.Clock
	return []route{
		{
			method: "GET", path: "/v2/webhook_notifications", tag: "Webhooks",
			summary: "List webhook notifications", doc: "Returns the account's notifications, newest first.",
			auth: true, bucket: bucketDefault, params: notificationListParams,
			status: http.StatusOK, resp: jsonapi.NotificationListDocument{},
			errors:  []int{400, 401, 429},
			handler: handleNotificationList(st, nr, s.listLinks),
		},
		{
			method: "GET", path: "/v2/webhook_notifications/examples", tag: "Webhooks",
			summary: "Get a sample notification", doc: "Returns a sample payload of an event: data is a list holding one notification.",
			auth: true, bucket: bucketDefault, params: []param{{name: "event", typ: "string", doc: "Required: an event name."}},
			status: http.StatusOK, resp: jsonapi.NotificationListDocument{},
			errors:  []int{400, 401, 429},
			handler: handleNotificationExample(rd, now, s.baseURL),
		},
		{
			method: "GET", path: "/v2/webhook_notifications/{id}", tag: "Webhooks",
			summary: "Get a webhook notification",
			doc:     "Returns one notification with its delivery status; include=webhook_notification_logs adds each attempt.",
			auth:    true, bucket: bucketDefault, params: []param{paramInclude("reference_object", "webhook", "webhook_notification_logs")},
			status: http.StatusOK, resp: jsonapi.NotificationDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handleNotificationGet(st, nr, s.baseURL),
		},
		{
			method: "POST", path: "/v2/webhook_notifications/{id}/redeliver", tag: "Webhooks",
			summary: "Redeliver a notification", doc: "Sends the notification again, with the same id and body. The webhook must be active.",
			auth: true, bucket: bucketDefault,
			status: http.StatusAccepted, resp: jsonapi.NotificationDocument{},
			errors:  []int{400, 401, 404, 409, 429},
			handler: handleNotificationRedeliver(s.cfg.Redeliverer, st, s.baseURL),
		},
	}
}

func handleNotificationExample(rd jsonapi.Renderer, now boxwatch.Clock, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		name := r.URL.Query().Get("event")
		if !webhook.Known(name) {
			return boxwatch.BadParameter("event", "event must name an event boxwatch sends; GET /v2/webhooks/events lists them.")
		}
		one := rd.ExampleNotification(name, referenceType(name), now())
		// The reference answers a list holding the one example.
		writeJSON(w, http.StatusOK, jsonapi.NotificationListDocument{Data: []jsonapi.NotificationResource{one.Data}, Included: one.Included,
			Links: &jsonapi.Links{Self: base(r) + r.URL.Path + "?event=" + name}})
		return nil
	}
}

// referenceType is the type of the reference object of an event's notifications.
func referenceType(event string) string {
	e, _ := webhook.Lookup(event)
	return e.ReferenceType
}

var notificationListParams = []param{
	paramPageNumber, paramPageSize, paramInclude("reference_object", "webhook", "webhook_notification_logs"),
	{name: "filter[webhook_id]", typ: "string", format: "uuid", doc: "Only notifications of this webhook."},
	{name: "filter[delivery_status]", typ: "string", enum: []string{"pending", "succeeded", "failed"}, doc: "Only notifications with this status."},
	{name: "filter[event]", typ: "string", doc: "Only notifications of this event."},
}

// notificationEventStores reads notifications with their delivery logs and the events they report.
type notificationEventStores interface {
	boxwatch.NotificationStore
	boxwatch.EventStore
}

// notificationStores also reads the webhooks of notifications, for include=webhook.
type notificationStores interface {
	notificationEventStores
	boxwatch.WebhookStore
}

// renderNotifications renders notifications with their events and, when withLogs, their delivery
// logs, which it also returns as included resources. It reads each kind of related row once for
// the whole list.
func renderNotifications(r *http.Request, st notificationEventStores, list []boxwatch.Notification, withLogs bool) ([]jsonapi.NotificationResource, []any, error) {
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
	data, included := make([]jsonapi.NotificationResource, len(list)), []any{}
	for i, n := range list {
		for _, l := range logs[n.ID] {
			included = append(included, jsonapi.NotificationLog(l))
		}
		data[i] = jsonapi.Notification(n, events[n.EventID], logs[n.ID])
	}
	return data, included, nil
}

// includeWebhooks adds the webhooks of notifications, each once: a read per webhook, and a page
// of notifications names few.
func includeWebhooks(r *http.Request, st boxwatch.WebhookStore, list []boxwatch.Notification, included []any) ([]any, error) {
	for _, id := range idsOf(list, func(n boxwatch.Notification) string { return n.WebhookID }) {
		w, err := st.Webhook(r.Context(), account(r).ID, id)
		if boxwatch.IsKind(err, boxwatch.KindNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		included = append(included, jsonapi.Webhook(w))
	}
	return included, nil
}

func handleNotificationList(st notificationStores, nr *jsonapi.NotificationRenderer, pageLinks pageLinker) handlerFunc {
	return handleList(pageLinks, func(r *http.Request, page boxwatch.Page) (listPage[jsonapi.NotificationResource], error) {
		var lp listPage[jsonapi.NotificationResource]
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
		lp.total = boxwatch.Total{N: total}
		if err == nil && inc["webhook"] {
			lp.included, err = includeWebhooks(r, st, list, lp.included)
		}
		if err == nil && inc["reference_object"] {
			lp.included, err = nr.ReferenceIncludes(r.Context(), list, lp.included)
		}
		return lp, err
	})
}

func handleNotificationGet(st notificationStores, nr *jsonapi.NotificationRenderer, base func(*http.Request) string) handlerFunc {
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
			if included, err = nr.ReferenceIncludes(r.Context(), []boxwatch.Notification{n}, included); err != nil {
				return err
			}
		}
		writeResource(w, http.StatusOK, base(r)+res.Links.Self, res, included)
		return nil
	}
}

func handleNotificationRedeliver(deliveries boxwatch.Redeliverer, st notificationEventStores, base func(*http.Request) string) handlerFunc {
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
