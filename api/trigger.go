package api

import (
	"net/http"
	"strings"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
	"github.com/boxwatch/boxwatch/webhook"
)

// triggerBody is the body of POST /v2/webhooks/trigger: plain JSON, as the reference API takes it.
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

func (triggerBody) example() string {
	return `{"url": "https://…", "event": "tracking_request.succeeded"}`
}

func decodeTrigger(body []byte) (triggerBody, error) {
	t, err := decodeBody[triggerBody](body, "")
	switch {
	case err != nil:
		return t, err
	case t.URL == "":
		return t, boxwatch.Invalid("/url", boxwatch.CodeBlank, "url is required")
	case !webhook.Known(t.Event):
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
			// CheckURL points into a webhook's attributes; this body has the URL at its top. The
			// errors are CheckURL's: answer with copies.
			errs := boxwatch.AllErrors(err)
			if len(errs) == 0 {
				return err
			}
			moved := make(boxwatch.Errors, len(errs))
			for i, e := range errs {
				c := *e
				c.Pointer = "/url"
				moved[i] = &c
			}
			return moved
		}
		secret := t.Secret
		if secret == "" {
			if secret, err = webhook.NewSecret(); err != nil {
				return err
			}
		}
		at := now()
		doc := rd.ExampleNotification(t.Event, referenceType(t.Event), at)
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
