package api_test

import (
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// TestProductionEnvelopes: what the reference's notes record of production answers beyond the
// OpenAPI document (../shared/reference/terminal49.md): the list envelope's links and
// pagination, the notification's own id in its attributes and its three relationships, the
// tracking request's pending answer to a create, and infer_number's members.
func TestProductionEnvelopes(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, storetest.SQLite, delivering(nil))
	rc := newReceiver(t, always(200))
	ts.register(t, ts.acme, rc, "tracking_request.succeeded")
	for _, n := range []string{"MEDUFR030801", "MEDUFR030802", "MEDUFR030803"} {
		ts.mustCreate(t, ts.acme, "bill_of_lading", n, "MSCU")
	}
	ts.waitShipment(t, ts.acme, "HLCU123456785", "HLCU")

	r := ts.do(t, "GET", "/v2/tracking_requests?page[size]=2", ts.acme, "").want(t, 200)
	for _, k := range []string{"self", "current", "next", "last"} {
		if get(r.body, "links", k) == nil {
			t.Errorf("list links lack %s: %s", k, r.raw)
		}
	}
	if get(r.body, "links", "prev") != nil {
		t.Errorf("first page has a prev link: %s", r.raw)
	}
	for _, k := range []string{"current", "next", "last", "records"} {
		if get(r.body, "meta", "pagination", k) == nil {
			t.Errorf("meta.pagination lacks %s: %s", k, r.raw)
		}
	}
	if get(r.body, "meta", "size") != float64(2) || get(r.body, "meta", "total") != float64(4) {
		t.Errorf("meta size/total: %s", r.raw)
	}

	trackingtest.Eventually(t, 30*time.Second, "no delivery", func() bool { return len(rc.deliveries()) > 0 })
	r = ts.do(t, "GET", "/v2/webhook_notifications/"+rc.deliveries()[0].id, ts.acme, "").want(t, 200)
	if get(r.body, "data", "attributes", "id") != get(r.body, "data", "id") {
		t.Errorf("notification attributes lack their id: %s", r.raw)
	}
	for _, k := range []string{"reference_object", "webhook", "webhook_notification_logs"} {
		if get(r.body, "data", "relationships", k) == nil {
			t.Errorf("notification lacks relationship %s: %s", k, r.raw)
		}
	}

	r = ts.do(t, "POST", "/v2/tracking_requests", ts.acme, createBody("bill_of_lading", "MEDUFR030804", "MSCU")).want(t, 201)
	if get(r.body, "data", "attributes", "status") != "pending" || get(r.body, "data", "relationships", "tracked_object", "data") != nil ||
		get(r.body, "data", "links", "self") != "/v2/tracking_requests/"+get(r.body, "data", "id").(string) {
		t.Errorf("create answer: %s", r.raw)
	}

	r = ts.do(t, "POST", "/v2/tracking_requests/infer_number", ts.acme, `{"number":"MSCU1234566"}`).want(t, 200)
	if get(r.body, "data", "type") != "infer_number_results" {
		t.Errorf("infer type: %s", r.raw)
	}
	for _, path := range [][]any{{"number_type"}, {"validation", "is_valid"}, {"validation", "check_digit_passed"}, {"shipping_line", "decision"},
		{"shipping_line", "candidates"}} {
		if get(r.body, append([]any{"data", "attributes"}, path...)...) == nil {
			t.Errorf("infer_number lacks %v: %s", path, r.raw)
		}
	}
}
