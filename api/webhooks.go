package api

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
	"github.com/boxwatch/boxwatch/webhook"
)

// webhookRoutes are the webhook endpoints, the sample trigger included.
func (s *server) webhookRoutes(rd jsonapi.Renderer) []route {
	st, now, policy := s.cfg.Store, s.cfg.Clock, s.cfg.Webhooks
	return []route{
		{
			method: "POST", path: "/v2/webhooks", tag: "Webhooks",
			summary: "Register a webhook",
			doc: "Subscribes a URL to events. The URL must be https and resolve to public addresses (checked again at every " +
				"delivery). The secret that signs deliveries is generated and returned.",
			auth: true, bucket: bucketDefault, body: webhookCreateBody{},
			status: http.StatusCreated, resp: jsonapi.WebhookDocument{},
			errors:  []int{400, 401, 409, 413, 415, 422, 429},
			handler: handleWebhookCreate(st, policy, now, s.baseURL),
		},
		{
			method: "GET", path: "/v2/webhooks", tag: "Webhooks",
			summary: "List webhooks", doc: "Returns the account's webhooks, newest first.",
			auth: true, bucket: bucketDefault, params: []param{paramPageNumber, paramPageSize},
			status: http.StatusOK, resp: jsonapi.WebhookListDocument{},
			errors:  []int{400, 401, 429},
			handler: handleWebhookList(st, s.listLinks),
		},
		{
			method: "GET", path: "/v2/webhooks/events", tag: "Webhooks",
			summary: "List the events webhooks can subscribe to", doc: "Every event name with a description, grouped by category.",
			auth: true, bucket: bucketDefault,
			status: http.StatusOK, resp: eventCategoryListDocument{},
			errors:  []int{400, 401, 429},
			handler: handleWebhookEvents(),
		},
		{
			method: "POST", path: "/v2/webhooks/trigger", tag: "Webhooks",
			summary: "Send a sample delivery now",
			doc: "Sends one sample notification of an event to a URL and returns the request sent and the response seen. " +
				"The body is plain JSON: {\"url\", \"event\", \"secret\"}.",
			auth: true, bucket: bucketDefault, body: triggerBody{},
			status: http.StatusOK, resp: triggerResult{},
			errors:  []int{400, 401, 413, 415, 422, 429},
			handler: handleWebhookTrigger(rd, policy, s.cfg.WebhookClient, now),
		},
		{
			method: "GET", path: "/v2/webhooks/ips", tag: "Webhooks",
			summary: "List the addresses webhooks are sent from",
			doc: "The operator's list of the addresses deliveries leave from (serve --webhook-egress-ips), for receivers that allow " +
				"callers by address; empty when the operator gave none. Plain JSON, as the reference answers it.",
			auth: true, bucket: bucketDefault,
			status: http.StatusOK, resp: webhookIPs{},
			errors:  []int{400, 401, 429},
			handler: handleWebhookIPs(s.cfg.WebhookEgressIPs, now),
		},
		{
			method: "GET", path: "/v2/webhooks/{id}", tag: "Webhooks",
			summary: "Get a webhook", doc: "Returns one webhook with its secret.",
			auth: true, bucket: bucketDefault,
			status: http.StatusOK, resp: jsonapi.WebhookDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handleWebhookGet(st, s.baseURL),
		},
		{
			method: "PATCH", path: "/v2/webhooks/{id}", tag: "Webhooks",
			summary: "Update a webhook",
			doc:     "Changes url, active, events or headers. Setting active to true clears a deactivation.",
			auth:    true, bucket: bucketDefault, body: webhookUpdateBody{},
			status: http.StatusOK, resp: jsonapi.WebhookDocument{},
			errors:  []int{400, 401, 404, 409, 413, 415, 422, 429},
			handler: handleWebhookUpdate(st, policy, now, s.baseURL),
		},
		{
			method: "DELETE", path: "/v2/webhooks/{id}", tag: "Webhooks",
			summary: "Delete a webhook", doc: "Removes the webhook and its notifications. Answers 200 without a body, as the reference does.",
			auth: true, bucket: bucketDefault,
			status:  http.StatusOK,
			errors:  []int{400, 401, 404, 429},
			handler: handleWebhookDelete(st),
		},
		{
			method: "POST", path: "/v2/webhooks/{id}/redeliver", tag: "Webhooks",
			summary: "Redeliver failed notifications since a time",
			doc: "Queues every failed notification of the webhook created at or after since for delivery again, with " +
				"their original ids: recovery after an outage. The webhook must be active.",
			auth: true, bucket: bucketDefault, params: []param{{name: "since", typ: "string", format: "date-time", doc: "Required."}},
			status: http.StatusAccepted, resp: redeliveredDocument{},
			errors:  []int{400, 401, 404, 409, 429},
			handler: handleWebhookRedeliver(s.cfg.Redeliverer),
		},
	}
}

// webhookCreateBody is the body of POST /v2/webhooks.
type webhookCreateBody struct {
	Data struct {
		Type       string         `json:"type" enum:"webhook"`
		Attributes webhookChanges `json:"attributes"`
		resourceMeta
	} `json:"data"`
	documentMeta
}

// webhookUpdateBody is the body of PATCH /v2/webhooks/{id}.
type webhookUpdateBody struct {
	Data struct {
		Type       string         `json:"type" enum:"webhook"`
		ID         string         `json:"id,omitempty" format:"uuid"`
		Attributes webhookChanges `json:"attributes"`
		resourceMeta
	} `json:"data"`
	documentMeta
}

// webhookChanges are what a body sets of a webhook; a member left out is kept (on create, url
// and events are required).
type webhookChanges struct {
	URL     *string                  `json:"url,omitempty" format:"uri" doc:"https, resolving to public addresses."`
	Active  *bool                    `json:"active,omitempty" doc:"Default true on create."`
	Events  []string                 `json:"events,omitempty" doc:"At least one, each a name from GET /v2/webhooks/events."`
	Headers []boxwatch.WebhookHeader `json:"headers,omitempty" invalid:"headers must be an array of {name, value} objects." items:"Each header is an object with a name and a value." doc:"Extra headers sent with each delivery."`
}

func (webhookChanges) refused() ([]string, string) {
	return []string{"secret"}, "The secret is generated by the service and cannot be set."
}

// decodeWebhook reads a create body (id "") or an update of webhook id.
func decodeWebhook(body []byte, id string) (webhookChanges, error) {
	if id == "" {
		b, err := decodeBody[webhookCreateBody](body, "")
		return b.Data.Attributes, err
	}
	b, err := decodeBody[webhookUpdateBody](body, id)
	return b.Data.Attributes, err
}

// maxWebhookHeaders bounds the extra headers of one webhook.
const maxWebhookHeaders = 20

// apply validates changes onto w; URL checks resolve the host (and refuse private addresses
// unless the service allows them).
func (c webhookChanges) apply(ctx context.Context, w *boxwatch.Webhook, policy webhook.Policy, creating bool) error {
	p := "/data/attributes/"
	var errs boxwatch.Errors
	if c.URL != nil {
		if err := webhook.CheckURL(ctx, *c.URL, policy); err != nil {
			errs = append(errs, boxwatch.AllErrors(err)...)
		} else {
			w.URL = *c.URL
		}
	} else if creating {
		errs = append(errs, boxwatch.Invalid(p+"url", boxwatch.CodeBlank, "Url can't be blank"))
	}
	if c.Active != nil {
		w.Active = *c.Active
		if w.Active {
			w.DeactivatedReason, w.FailingSince = "", time.Time{}
		}
	}
	if c.Events != nil || creating {
		switch {
		case len(c.Events) == 0:
			errs = append(errs, boxwatch.Invalid(p+"events", boxwatch.CodeBlank, "events must list at least one event name."))
		default:
			for i, name := range c.Events {
				if !webhook.Known(name) {
					errs = append(errs, boxwatch.Invalid(fmt.Sprintf("%sevents/%d", p, i), boxwatch.CodeInvalid,
						"'%s' is not an event boxwatch sends; GET /v2/webhooks/events lists them.", name))
				} else if slices.Index(c.Events, name) != i {
					errs = append(errs, boxwatch.Invalid(fmt.Sprintf("%sevents/%d", p, i), boxwatch.CodeInvalid, "'%s' is listed twice.", name))
				}
			}
			w.Events = c.Events
		}
	}
	if c.Headers != nil {
		if len(c.Headers) > maxWebhookHeaders {
			errs = append(errs, boxwatch.Invalid(p+"headers", boxwatch.CodeTooLong, "At most %d headers.", maxWebhookHeaders))
		}
		for i, h := range c.Headers {
			if problem := webhook.CheckHeader(h.Name, h.Value); problem != "" {
				errs = append(errs, boxwatch.Invalid(fmt.Sprintf("%sheaders/%d", p, i), boxwatch.CodeInvalid, "%s", problem))
			}
		}
		w.Headers = c.Headers
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

func handleWebhookCreate(st boxwatch.WebhookStore, policy webhook.Policy, now boxwatch.Clock, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		body, err := readBody(w, r)
		if err != nil {
			return err
		}
		c, err := decodeWebhook(body, "")
		if err != nil {
			return err
		}
		t := now()
		secret, err := webhook.NewSecret()
		if err != nil {
			return err
		}
		hook := boxwatch.Webhook{ID: boxwatch.NewID(t), AccountID: account(r).ID, Active: true, Secret: secret,
			Headers: []boxwatch.WebhookHeader{}, CreatedAt: t, UpdatedAt: t}
		if err := c.apply(r.Context(), &hook, policy, true); err != nil {
			return err
		}
		if err := st.CreateWebhook(r.Context(), hook); err != nil {
			return err
		}
		res := jsonapi.Webhook(hook)
		w.Header().Set("Location", base(r)+res.Links.Self)
		writeResource(w, http.StatusCreated, base(r)+res.Links.Self, res, nil)
		return nil
	}
}

func handleWebhookUpdate(st boxwatch.WebhookStore, policy webhook.Policy, now boxwatch.Clock, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		hook, err := st.Webhook(r.Context(), account(r).ID, r.PathValue("id"))
		if err != nil {
			return err
		}
		body, err := readBody(w, r)
		if err != nil {
			return err
		}
		c, err := decodeWebhook(body, hook.ID)
		if err != nil {
			return err
		}
		if err := c.apply(r.Context(), &hook, policy, false); err != nil {
			return err
		}
		hook.UpdatedAt = now()
		if err := st.UpdateWebhook(r.Context(), hook); err != nil {
			return err
		}
		res := jsonapi.Webhook(hook)
		writeResource(w, http.StatusOK, base(r)+res.Links.Self, res, nil)
		return nil
	}
}

func handleWebhookGet(st boxwatch.WebhookStore, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		hook, err := st.Webhook(r.Context(), account(r).ID, r.PathValue("id"))
		if err != nil {
			return err
		}
		res := jsonapi.Webhook(hook)
		writeResource(w, http.StatusOK, base(r)+res.Links.Self, res, nil)
		return nil
	}
}

func handleWebhookList(st boxwatch.WebhookStore, pageLinks pageLinker) handlerFunc {
	return handleList(pageLinks, func(r *http.Request, page boxwatch.Page) (listPage[jsonapi.WebhookResource], error) {
		list, total, err := st.Webhooks(r.Context(), account(r).ID, page)
		if err != nil {
			return listPage[jsonapi.WebhookResource]{}, err
		}
		data := make([]jsonapi.WebhookResource, len(list))
		for i, hook := range list {
			data[i] = jsonapi.Webhook(hook)
		}
		return listPage[jsonapi.WebhookResource]{data: data, total: boxwatch.Total{N: total}}, nil
	})
}

func handleWebhookDelete(st boxwatch.WebhookStore) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := st.DeleteWebhook(r.Context(), account(r).ID, r.PathValue("id")); err != nil {
			return err
		}
		writeEmpty(w, http.StatusOK)
		return nil
	}
}

type eventCategoryResource struct {
	ID         string `json:"id"`
	Type       string `json:"type" enum:"webhook_event_category"`
	Attributes struct {
		Name   string                 `json:"name"`
		Events []webhook.EventSummary `json:"events"`
	} `json:"attributes"`
}

type eventCategoryListDocument = jsonapi.Document[[]eventCategoryResource]

func handleWebhookEvents() handlerFunc {
	var doc eventCategoryListDocument
	doc.Data = []eventCategoryResource{}
	for _, c := range webhook.Categories() {
		res := eventCategoryResource{ID: c.ID, Type: "webhook_event_category"}
		res.Attributes.Name, res.Attributes.Events = c.Name, c.Events
		doc.Data = append(doc.Data, res)
	}
	return func(w http.ResponseWriter, r *http.Request) error {
		writeJSON(w, http.StatusOK, doc)
		return nil
	}
}

type redeliveredDocument struct {
	Meta struct {
		Redelivered int    `json:"redelivered" doc:"Failed notifications queued for delivery again."`
		Since       string `json:"since" format:"date-time"`
	} `json:"meta"`
}

func handleWebhookRedeliver(deliveries boxwatch.Redeliverer) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if r.URL.Query().Get("since") == "" {
			return boxwatch.BadParameter("since", "since is required: an ISO 8601 time such as 2026-04-28T00:00:00Z.")
		}
		since, err := timeParam(r.URL.Query(), "since")
		if err != nil {
			return err
		}
		n, err := deliveries.RedeliverSince(r.Context(), account(r).ID, r.PathValue("id"), since)
		if err != nil {
			return err
		}
		var doc redeliveredDocument
		doc.Meta.Redelivered, doc.Meta.Since = n, since.Format(boxwatch.TimeFormat)
		writeJSON(w, http.StatusAccepted, doc)
		return nil
	}
}
