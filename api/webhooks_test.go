package api_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/api"
	"github.com/boxwatch/boxwatch/jsonapi/payloadtest"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
	"github.com/boxwatch/boxwatch/webhook"
)

// delivery is what a receiver got.
type delivery struct {
	id, event     string
	t49OK, stdOK  bool
	extraHeader   string
	includedTypes []string
	body          []byte
}

// receiver is a webhook endpoint on loopback. It checks both signatures itself, from the raw body,
// with the secret the API returned (set after registration).
type receiver struct {
	*httptest.Server
	mu      sync.Mutex
	secret  string
	calls   int
	got     []delivery
	respond func(call int) int // status for the nth call (from 1); 0 hangs until the client gives up
}

func newReceiver(t *testing.T, respond func(call int) int) *receiver {
	rc := &receiver{respond: respond}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.calls++
		call, secret := rc.calls, rc.secret
		rc.mu.Unlock()
		var doc struct {
			Data struct {
				ID         string
				Attributes struct{ Event string }
			}
			Included []struct{ Type string }
		}
		json.Unmarshal(body, &doc)
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write(body)
		key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
		std := hmac.New(sha256.New, key)
		std.Write([]byte(r.Header.Get("webhook-id") + "." + r.Header.Get("webhook-timestamp") + "."))
		std.Write(body)
		d := delivery{id: r.Header.Get("webhook-id"), event: doc.Data.Attributes.Event, extraHeader: r.Header.Get("X-Team"), body: body,
			t49OK: hmac.Equal([]byte(hex.EncodeToString(mac.Sum(nil))), []byte(r.Header.Get("X-T49-Webhook-Signature"))),
			stdOK: strings.Contains(" "+r.Header.Get("webhook-signature")+" ", " v1,"+base64.StdEncoding.EncodeToString(std.Sum(nil))+" ")}
		if doc.Data.ID != d.id {
			d.id = "MISMATCH " + d.id + " vs body " + doc.Data.ID
		}
		for _, inc := range doc.Included {
			d.includedTypes = append(d.includedTypes, inc.Type)
		}
		status := rc.respond(call)
		if status == 0 {
			<-r.Context().Done() // never answers
			return
		}
		rc.mu.Lock()
		if status >= 200 && status < 300 {
			rc.got = append(rc.got, d)
		}
		rc.mu.Unlock()
		w.WriteHeader(status)
		io.WriteString(w, "thanks")
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) deliveries() []delivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]delivery(nil), rc.got...)
}

func (rc *receiver) callCount() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.calls
}

// register creates a webhook for key to the receiver and returns its id.
func (ts *testServer) register(t *testing.T, key string, rc *receiver, events ...string) string {
	t.Helper()
	evs, _ := json.Marshal(events)
	r := ts.do(t, "POST", "/v2/webhooks", key, `{"data":{"type":"webhook","attributes":{"url":"`+rc.URL+`/hook","events":`+string(evs)+
		`,"headers":[{"name":"X-Team","value":"ops"}]}}}`).want(t, 201)
	rc.mu.Lock()
	rc.secret = get(r.body, "data", "attributes", "secret").(string)
	rc.mu.Unlock()
	return get(r.body, "data", "id").(string)
}

func always(status int) func(int) int { return func(int) int { return status } }

func TestWebhookRegistration(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, storetest.SQLite)
	body := func(url string, extra ...string) string {
		attrs := `"url":"` + url + `","events":["tracking_request.succeeded"]`
		for _, e := range extra {
			attrs += "," + e
		}
		return `{"data":{"type":"webhook","attributes":{` + attrs + `}}}`
	}
	r := ts.do(t, "POST", "/v2/webhooks", ts.acme, body("https://93.184.216.34/hook", `"headers":[{"name":"X-Team","value":"ops"}]`)).want(t, 201)
	id := get(r.body, "data", "id").(string)
	attrs := get(r.body, "data", "attributes")
	if secret, _ := get(attrs, "secret").(string); !strings.HasPrefix(secret, "whsec_") || get(attrs, "active") != true || get(attrs, "headers", 0, "name") != "X-Team" {
		t.Fatalf("created webhook: %s", r.raw)
	}

	for _, tt := range []struct {
		name, body, code, pointer string
	}{
		{"ErrNoURL", `{"data":{"type":"webhook","attributes":{"events":["tracking_request.succeeded"]}}}`, "blank", "/data/attributes/url"},
		{"ErrHTTP", body("http://93.184.216.34/hook"), "", "/data/attributes/url"},
		{"ErrLoopback", body("https://127.0.0.1/hook"), "", "/data/attributes/url"},
		{"ErrPrivate10", body("https://10.1.2.3/hook"), "", "/data/attributes/url"},
		{"ErrPrivate192", body("https://192.168.1.1/hook"), "", "/data/attributes/url"},
		{"ErrPrivate172", body("https://172.16.0.9/hook"), "", "/data/attributes/url"},
		{"ErrMetadata", body("https://169.254.169.254/latest/meta-data"), "", "/data/attributes/url"},
		{"ErrCGNAT", body("https://100.64.0.1/hook"), "", "/data/attributes/url"},
		{"ErrIPv6Loopback", body("https://[::1]/hook"), "", "/data/attributes/url"},
		{"ErrIPv4Mapped", body("https://[::ffff:10.0.0.1]/hook"), "", "/data/attributes/url"},
		{"ErrUserinfo", body("https://user:pw@93.184.216.34/hook"), "", "/data/attributes/url"},
		{"ErrNoEvents", `{"data":{"type":"webhook","attributes":{"url":"https://93.184.216.34/hook","events":[]}}}`, "blank", "/data/attributes/events"},
		{"ErrUnknownEvent", `{"data":{"type":"webhook","attributes":{"url":"https://93.184.216.34/hook","events":["shipment.teleported"]}}}`, "invalid", "/data/attributes/events/0"},
		{"ErrRepeatedEvent", `{"data":{"type":"webhook","attributes":{"url":"https://93.184.216.34/hook","events":["tracking_request.failed","tracking_request.failed"]}}}`, "invalid", "/data/attributes/events/1"},
		{"ErrWildcard", `{"data":{"type":"webhook","attributes":{"url":"https://93.184.216.34/hook","events":["*"]}}}`, "invalid", "/data/attributes/events/0"},
		{"ErrSecret", body("https://93.184.216.34/hook", `"secret":"mine"`), "invalid", "/data/attributes/secret"},
		{"ErrReservedHeader", body("https://93.184.216.34/hook", `"headers":[{"name":"X-T49-Webhook-Signature","value":"forged"}]`), "invalid", "/data/attributes/headers/0"},
		{"ErrHeaderInjection", body("https://93.184.216.34/hook", `"headers":[{"name":"X-A","value":"a\r\nX-B: b"}]`), "invalid", "/data/attributes/headers/0/value"},
		{"ErrActiveNotBool", body("https://93.184.216.34/hook", `"active":"yes"`), "invalid", "/data/attributes/active"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ts.do(t, "POST", "/v2/webhooks", ts.acme, tt.body).wantError(t, 422, tt.code, tt.pointer, "")
		})
	}

	r = ts.do(t, "PATCH", "/v2/webhooks/"+id, ts.acme, `{"data":{"type":"webhook","attributes":{"active":false,"events":["tracking_request.failed"]}}}`).want(t, 200)
	if get(r.body, "data", "attributes", "active") != false || get(r.body, "data", "attributes", "events", 0) != "tracking_request.failed" {
		t.Fatalf("after PATCH: %s", r.raw)
	}
	ts.do(t, "PATCH", "/v2/webhooks/"+id, ts.acme, `{"data":{"type":"webhook","attributes":{"url":"https://10.0.0.1/x"}}}`).wantError(t, 422, "", "/data/attributes/url", "")
	if r := ts.do(t, "GET", "/v2/webhooks", ts.acme, "").want(t, 200); get(r.body, "meta", "total") != float64(1) {
		t.Fatalf("list: %s", r.raw)
	}
	// Another account sees nothing of it.
	ts.do(t, "GET", "/v2/webhooks/"+id, ts.globex, "").wantError(t, 404, "not_found", "", "")
	ts.do(t, "PATCH", "/v2/webhooks/"+id, ts.globex, `{"data":{"type":"webhook","attributes":{"active":true}}}`).wantError(t, 404, "not_found", "", "")
	ts.do(t, "DELETE", "/v2/webhooks/"+id, ts.globex, "").wantError(t, 404, "not_found", "", "")
	if r := ts.do(t, "GET", "/v2/webhooks", ts.globex, "").want(t, 200); get(r.body, "meta", "total") != float64(0) {
		t.Fatalf("another account's list: %s", r.raw)
	}
	if r := ts.do(t, "DELETE", "/v2/webhooks/"+id, ts.acme, ""); r.status != 200 || len(r.raw) != 0 {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}
	ts.do(t, "GET", "/v2/webhooks/"+id, ts.acme, "").wantError(t, 404, "not_found", "", "")
}

// fakeResolver answers every name with the same address.
type fakeResolver struct{ addr netip.Addr }

func (f fakeResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{f.addr}, nil
}

func TestWebhookHostResolvingToPrivateAddress(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"10.0.0.7", "127.0.0.1", "169.254.169.254", "fd00::1"} {
		t.Run(addr, func(t *testing.T) {
			ts := newTestServer(t, storetest.SQLite, func(_ testing.TB, c *api.Config, _ *store.DB) {
				c.Webhooks = webhook.Policy{Resolver: fakeResolver{netip.MustParseAddr(addr)}}
			})
			ts.do(t, "POST", "/v2/webhooks", ts.acme, `{"data":{"type":"webhook","attributes":{"url":"https://hooks.example.com/x","events":["tracking_request.failed"]}}}`).
				wantError(t, 422, "", "/data/attributes/url", "")
		})
	}
}

func TestWebhookCatalogueAndExamples(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, storetest.SQLite)
	r := ts.do(t, "GET", "/v2/webhooks/events", ts.acme, "").want(t, 200)
	names := map[string]bool{}
	for _, c := range r.body["data"].([]any) {
		if get(c, "type") != "webhook_event_category" {
			t.Fatalf("category: %v", c)
		}
		for _, e := range get(c, "attributes", "events").([]any) {
			names[get(e, "name").(string)] = get(e, "description") != ""
		}
	}
	for _, want := range []string{"tracking_request.succeeded", "tracking_request.failed", "tracking_request.awaiting_manifest",
		"tracking_request.tracking_stopped", "container.transport.vessel_departed", "container.transport.full_out",
		"shipment.estimated.arrival", "container.updated", "container.created"} {
		if !names[want] {
			t.Errorf("catalogue lacks %s (or its description)", want)
		}
	}
	for _, tt := range []struct{ event, refType string }{
		{"tracking_request.succeeded", "tracking_request"}, {"container.transport.vessel_departed", "transport_event"},
		{"shipment.estimated.arrival", "estimated_event"}, {"container.updated", "container_updated_event"},
	} {
		r := ts.do(t, "GET", "/v2/webhook_notifications/examples?event="+tt.event, ts.acme, "").want(t, 200)
		if len(asList(r.body["data"])) != 1 || get(r.body, "data", 0, "type") != "webhook_notification" || get(r.body, "data", 0, "relationships", "reference_object", "data", "type") != tt.refType ||
			get(r.body, "included", 0, "type") != tt.refType || get(r.body, "links", "self") == nil {
			t.Errorf("example of %s: %s", tt.event, r.raw)
		}
	}
	// Every event but the document ones is rendered with its own reference object, in the shape
	// the reference sends it.
	for name := range payloadtest.Shapes() {
		r := ts.do(t, "GET", "/v2/webhook_notifications/examples?event="+name, ts.acme, "").want(t, 200)
		one, _ := json.Marshal(map[string]any{"data": get(r.body, "data", 0), "included": r.body["included"]})
		if _, problems := payloadtest.Check(one); len(problems) > 0 {
			t.Errorf("example: %s\n%s", payloadtest.Summary(name, problems), r.raw)
		}
	}
	ts.do(t, "GET", "/v2/webhook_notifications/examples?event=nope", ts.acme, "").wantError(t, 400, "invalid", "", "event")
	ts.do(t, "GET", "/v2/webhook_notifications/examples", ts.acme, "").wantError(t, 400, "invalid", "", "event")
}

func TestDeliveryRetriesUntilAccepted(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ts := newTestServer(t, b, delivering(nil))
		rc := newReceiver(t, func(call int) int {
			if call <= 2 {
				return 500
			}
			return 200
		})
		ts.register(t, ts.acme, rc, "tracking_request.succeeded")
		other := newReceiver(t, always(200))
		ts.register(t, ts.globex, other, "tracking_request.succeeded")

		ts.mustCreate(t, ts.acme, "bill_of_lading", "TEST-TR-SUCCEEDED", "TEST")
		trackingtest.Eventually(t, 30*time.Second, "no successful delivery", func() bool { return len(rc.deliveries()) > 0 })
		// Notifications are written with the change that causes them, so once none of the
		// account's is pending, no further delivery can come: the counts below are final.
		trackingtest.Eventually(t, 30*time.Second, "a notification is still pending", func() bool {
			r := ts.do(t, "GET", "/v2/webhook_notifications", ts.acme, "").want(t, 200)
			for _, n := range r.body["data"].([]any) {
				if get(n, "attributes", "delivery_status") == "pending" {
					return false
				}
			}
			return true
		})
		got := rc.deliveries()
		if len(got) != 1 || rc.callCount() != 3 {
			t.Fatalf("%d successes after %d calls, want 1 after 3", len(got), rc.callCount())
		}
		d := got[0]
		if d.event != "tracking_request.succeeded" || !d.t49OK || !d.stdOK || d.extraHeader != "ops" || strings.HasPrefix(d.id, "MISMATCH") {
			t.Fatalf("delivery %+v", d)
		}
		if len(d.includedTypes) < 3 || strings.Join(d.includedTypes[:2], ",") != "tracking_request,shipment" ||
			slices.ContainsFunc(d.includedTypes[2:], func(typ string) bool { return typ != "container" }) {
			t.Fatalf("included %v, want the tracking request, its shipment and the shipment's containers", d.includedTypes)
		}
		// The log shows the three attempts of one notification, with the id the receiver saw.
		r := ts.do(t, "GET", "/v2/webhook_notifications/"+d.id+"?include=webhook_notification_logs,reference_object", ts.acme, "").want(t, 200)
		var codes []any
		for _, inc := range r.body["included"].([]any) {
			if get(inc, "type") == "webhook_notification_log" {
				codes = append(codes, get(inc, "attributes", "status_code"))
			}
		}
		if get(r.body, "data", "attributes", "delivery_status") != "succeeded" || len(codes) != 3 || codes[0] != float64(500) || codes[2] != float64(200) {
			t.Fatalf("notification log: %s", r.raw)
		}
		// The list includes each notification's reference object, each resource once.
		r = ts.do(t, "GET", "/v2/webhook_notifications?include=reference_object", ts.acme, "").want(t, 200)
		kinds := map[string]int{}
		for _, inc := range r.body["included"].([]any) {
			kinds[get(inc, "type").(string)+"/"+get(inc, "id").(string)]++
		}
		if n := kinds["tracking_request/"+get(r.body, "data", 0, "relationships", "reference_object", "data", "id").(string)]; n != 1 {
			t.Fatalf("the list includes the notification's tracking request %d times: %s", n, r.raw)
		}
		// The other account's receiver heard nothing of this account's request.
		if n := len(other.deliveries()); n != 0 {
			t.Fatalf("another account's webhook got %d deliveries", n)
		}
		ts.do(t, "GET", "/v2/webhook_notifications/"+d.id, ts.globex, "").wantError(t, 404, "not_found", "", "")

		// A redelivery sends the same notification id again.
		ts.do(t, "POST", "/v2/webhook_notifications/"+d.id+"/redeliver", ts.acme, "").want(t, 202)
		trackingtest.Eventually(t, 30*time.Second, "no redelivery", func() bool { return len(rc.deliveries()) == 2 })
		if again := rc.deliveries()[1]; again.id != d.id || !again.t49OK || !again.stdOK {
			t.Fatalf("redelivery %+v, want id %s", again, d.id)
		}
	})
}

func TestDeliveryTimeoutsAreRetried(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, storetest.SQLite, delivering(nil))
	rc := newReceiver(t, func(call int) int {
		if call == 1 {
			return 0 // hangs past the 300 ms timeout
		}
		return 204
	})
	ts.register(t, ts.acme, rc, "tracking_request.failed")
	ts.mustCreate(t, ts.acme, "bill_of_lading", "TEST-TR-FAILED", "TEST")
	trackingtest.Eventually(t, 30*time.Second, "the timed-out delivery was not retried", func() bool { return len(rc.deliveries()) == 1 })
	r := ts.do(t, "GET", "/v2/webhook_notifications?include=webhook_notification_logs", ts.acme, "").want(t, 200)
	first := r.body["included"].([]any)[0]
	if msg, _ := get(first, "attributes", "error").(string); get(first, "attributes", "status_code") != nil || msg == "" || get(first, "attributes", "latency_ms").(float64) < 300 {
		t.Fatalf("first attempt should record a timeout: %v", first)
	}
}

func TestGoneDeactivatesAndRedeliverSince(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, storetest.SQLite, delivering(nil))
	gone := true
	var mu sync.Mutex
	rc := newReceiver(t, func(int) int {
		mu.Lock()
		defer mu.Unlock()
		if gone {
			return 410
		}
		return 200
	})
	id := ts.register(t, ts.acme, rc, "tracking_request.failed")
	ts.mustCreate(t, ts.acme, "bill_of_lading", "TEST-TR-FAILED", "TEST")
	trackingtest.Eventually(t, 30*time.Second, "a 410 did not deactivate the webhook", func() bool {
		r := ts.do(t, "GET", "/v2/webhooks/"+id, ts.acme, "").want(t, 200)
		return get(r.body, "data", "attributes", "active") == false
	})
	r := ts.do(t, "GET", "/v2/webhooks/"+id, ts.acme, "").want(t, 200)
	if reason, _ := get(r.body, "data", "attributes", "deactivated_reason").(string); !strings.Contains(reason, "410") {
		t.Fatalf("deactivated_reason: %s", r.raw)
	}
	// Redelivery needs the webhook active again; then it resends what failed.
	ts.do(t, "POST", "/v2/webhooks/"+id+"/redeliver?since=2000-01-01T00:00:00Z", ts.acme, "").wantError(t, 409, "webhook_inactive", "", "")
	mu.Lock()
	gone = false
	mu.Unlock()
	ts.do(t, "PATCH", "/v2/webhooks/"+id, ts.acme, `{"data":{"type":"webhook","attributes":{"active":true}}}`).want(t, 200)
	r = ts.do(t, "POST", "/v2/webhooks/"+id+"/redeliver?since=2000-01-01T00:00:00Z", ts.acme, "").want(t, 202)
	if get(r.body, "meta", "redelivered") != float64(1) {
		t.Fatalf("redeliver since: %s", r.raw)
	}
	trackingtest.Eventually(t, 30*time.Second, "failed notification not redelivered", func() bool { return len(rc.deliveries()) == 1 })
	ts.do(t, "POST", "/v2/webhooks/"+id+"/redeliver", ts.acme, "").wantError(t, 400, "invalid", "", "since")
}

func TestDeliveriesFailingForDaysDeactivate(t *testing.T) {
	t.Parallel()
	clock := trackingtest.NewClock(time.Now())
	ts := newTestServer(t, storetest.SQLite, delivering(clock))
	rc := newReceiver(t, always(503))
	id := ts.register(t, ts.acme, rc, "tracking_request.failed", "tracking_request.succeeded")
	ts.mustCreate(t, ts.acme, "bill_of_lading", "TEST-TR-FAILED", "TEST")
	// The receiver answering is not enough: the clock moves only once the failure is recorded,
	// so that the webhook's failing streak starts before the advance, not after it.
	trackingtest.Eventually(t, 30*time.Second, "no failed attempt recorded", func() bool {
		r := ts.do(t, "GET", "/v2/webhook_notifications?include=webhook_notification_logs", ts.acme, "").want(t, 200)
		logs, _ := r.body["included"].([]any)
		return len(logs) >= 1
	})
	clock.Advance(73 * time.Hour)
	ts.mustCreate(t, ts.acme, "bill_of_lading", "TEST-TR-SUCCEEDED", "TEST")
	trackingtest.Eventually(t, 30*time.Second, "three days of failures did not deactivate the webhook", func() bool {
		r := ts.do(t, "GET", "/v2/webhooks/"+id, ts.acme, "").want(t, 200)
		return get(r.body, "data", "attributes", "active") == false
	})
	r := ts.do(t, "GET", "/v2/webhooks/"+id, ts.acme, "").want(t, 200)
	if reason, _ := get(r.body, "data", "attributes", "deactivated_reason").(string); !strings.Contains(reason, "failed") {
		t.Fatalf("deactivated_reason: %s", r.raw)
	}
}

func TestWebhookTrigger(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, storetest.SQLite, delivering(nil))
	rc := newReceiver(t, always(200))
	rc.secret = "my-test-secret"
	r := ts.do(t, "POST", "/v2/webhooks/trigger", ts.acme, `{"url":"`+rc.URL+`/hook","event":"container.transport.vessel_departed","secret":"my-test-secret"}`,
		"Content-Type", "application/json").want(t, 200)
	if r.header.Get("Content-Type") != "application/json" || get(r.body, "succeeded") != true || get(r.body, "status_code") != float64(200) ||
		get(r.body, "response_body") != "thanks" || get(r.body, "request_headers", "X-T49-Webhook-Signature") == nil {
		t.Fatalf("trigger: %s", r.raw)
	}
	if d := rc.deliveries(); len(d) != 1 || !d[0].t49OK || d[0].event != "container.transport.vessel_departed" {
		t.Fatalf("receiver got %+v", d)
	}
	ts.do(t, "POST", "/v2/webhooks/trigger", ts.acme, `{"event":"tracking_request.failed"}`, "Content-Type", "application/json").wantError(t, 422, "blank", "/url", "")
	ts.do(t, "POST", "/v2/webhooks/trigger", ts.acme, `{"url":"`+rc.URL+`","event":"nope"}`, "Content-Type", "application/json").wantError(t, 422, "invalid", "/event", "")
	strict := newTestServer(t, storetest.SQLite)
	strict.do(t, "POST", "/v2/webhooks/trigger", strict.acme, `{"url":"https://127.0.0.1/hook","event":"tracking_request.failed"}`,
		"Content-Type", "application/json").wantError(t, 422, "", "/url", "")
}

func TestNotificationIncludesWebhook(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, storetest.SQLite, delivering(nil))
	rc := newReceiver(t, always(200))
	hookID := ts.register(t, ts.acme, rc, "tracking_request.succeeded")
	ts.waitShipment(t, ts.acme, "HLCU123456785", "HLCU")
	trackingtest.Eventually(t, 30*time.Second, "no delivery", func() bool { return len(rc.deliveries()) > 0 })
	webhooks := func(path string) int {
		r := ts.do(t, "GET", path, ts.acme, "").want(t, 200)
		n := 0
		for _, inc := range asList(r.body["included"]) {
			if get(inc, "type") == "webhook" {
				if get(inc, "id") != hookID {
					t.Errorf("%s included webhook %v", path, get(inc, "id"))
				}
				n++
			}
		}
		return n
	}
	if n := webhooks("/v2/webhook_notifications?include=webhook"); n != 1 {
		t.Errorf("list included %d webhooks, want 1 (once)", n)
	}
	if n := webhooks("/v2/webhook_notifications/" + rc.deliveries()[0].id + "?include=webhook,reference_object"); n != 1 {
		t.Errorf("notification included %d webhooks", n)
	}
	if n := webhooks("/v2/webhook_notifications"); n != 0 {
		t.Errorf("without include: %d webhooks", n)
	}
	ts.do(t, "GET", "/v2/webhook_notifications?include=webhooks", ts.acme, "").wantError(t, 400, "invalid", "", "include")
}
