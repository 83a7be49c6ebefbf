package api

import (
	"net/http"
	"strings"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
	"github.com/boxwatch/boxwatch/webhook"
)

// triggerBody documents the trigger request: plain JSON, as the reference API takes it.
type triggerBody struct {
	URL    string `json:"url" format:"uri"`
	Event  string `json:"event"`
	Secret string `json:"secret,omitempty" doc:"Signs the sample; a new random secret when absent."`
}

// triggerResult is what the trigger saw, in the reference API's shape.
type triggerResult struct {
	URL             string            `json:"url"`
	Succeeded       bool              `json:"succeeded"`
	Error           *string           `json:"error"`
	StatusCode      *int              `json:"status_code"`
	RequestHeaders  map[string]string `json:"request_headers"`
	RequestBody     string            `json:"request_body"`
	ResponseHeaders map[string]string `json:"response_headers"`
	ResponseBody    string            `json:"response_body"`
}

func decodeTrigger(body []byte) (triggerBody, error) {
	var t triggerBody
	doc, err := parseJSON(body)
	if err != nil {
		return t, err
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return t, boxwatch.Invalid("/", boxwatch.CodeInvalid, `The body must be a JSON object such as {"url": "https://…", "event": "tracking_request.succeeded"}.`)
	}
	o := object{m: m}
	if err := o.only("url", "event", "secret"); err != nil {
		return t, err
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"url", &t.URL}, {"event", &t.Event}, {"secret", &t.Secret}} {
		if *f.dst, _, err = o.str(f.name); err != nil {
			return t, err
		}
	}
	if t.URL == "" {
		return t, boxwatch.Invalid("/url", boxwatch.CodeBlank, "url is required")
	}
	if !webhook.Known(t.Event) {
		return t, boxwatch.Invalid("/event", boxwatch.CodeInvalid, "event must name an event boxwatch sends; GET /v2/webhooks/events lists them.")
	}
	return t, nil
}

func handleWebhookTrigger(rd jsonapi.Renderer, policy webhook.Policy, client *http.Client, now boxwatch.Clock) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		body, err := readBody(w, r)
		if err != nil {
			return err
		}
		t, err := decodeTrigger(body)
		if err != nil {
			return err
		}
		if err := webhook.CheckURL(r.Context(), t.URL, policy); err != nil {
			for _, e := range boxwatch.AllErrors(err) {
				e.Pointer = "/url"
			}
			return err
		}
		secret := t.Secret
		if secret == "" {
			if secret, err = webhook.NewSecret(); err != nil {
				return err
			}
		}
		at := now()
		doc := rd.ExampleNotification(t.Event, at)
		payload := mustJSON(doc)
		ex := webhook.Deliver(r.Context(), client, webhook.Request{URL: t.URL, Secret: secret, NotificationID: doc.Data.ID, Body: payload, Now: at})
		res := triggerResult{URL: t.URL, Succeeded: ex.Outcome == webhook.Succeeded, Error: optString(ex.Err),
			RequestHeaders: flattenHeaders(ex.RequestHeaders), RequestBody: string(payload), ResponseHeaders: flattenHeaders(ex.ResponseHeaders), ResponseBody: ex.ResponseSnippet}
		if ex.StatusCode != 0 {
			code := ex.StatusCode
			res.StatusCode = &code
		}
		writeJSONAs(w, http.StatusOK, "application/json", res)
		return nil
	}
}

// flattenHeaders turns headers into the reference API's name → value object; repeated values join
// with ", " as HTTP allows.
func flattenHeaders(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for name, values := range h {
		out[name] = strings.Join(values, ", ")
	}
	return out
}
