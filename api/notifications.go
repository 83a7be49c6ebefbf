package api

import (
	"net/http"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
	"github.com/boxwatch/boxwatch/webhook"
)

func handleNotificationExample(rd jsonapi.Renderer, now boxwatch.Clock, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		name := r.URL.Query().Get("event")
		if !webhook.Known(name) {
			return boxwatch.BadParameter("event", "event must name an event boxwatch sends; GET /v2/webhooks/events lists them.")
		}
		one := rd.ExampleNotification(name, now())
		// The reference answers a list holding the one example.
		writeJSON(w, http.StatusOK, jsonapi.NotificationListDocument{Data: []jsonapi.NotificationResource{one.Data}, Included: one.Included,
			Links: &jsonapi.Links{Self: base(r) + r.URL.Path + "?event=" + name}})
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
func renderNotifications(r *http.Request, st boxwatch.Store, list []boxwatch.Notification, withLogs bool) ([]jsonapi.NotificationResource, []any, error) {
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
func includeWebhooks(r *http.Request, st boxwatch.Store, list []boxwatch.Notification, included []any) ([]any, error) {
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

func handleNotificationList(st boxwatch.Store, nr *jsonapi.NotificationRenderer, pageLinks pageLinker) handlerFunc {
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
		lp.total = total
		if err == nil && inc["webhook"] {
			lp.included, err = includeWebhooks(r, st, list, lp.included)
		}
		if err == nil && inc["reference_object"] {
			lp.included, err = nr.ReferenceIncludes(r.Context(), list, lp.included)
		}
		return lp, err
	})
}

func handleNotificationGet(st boxwatch.Store, nr *jsonapi.NotificationRenderer, base func(*http.Request) string) handlerFunc {
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
