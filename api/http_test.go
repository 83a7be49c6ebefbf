package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/api"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

func decodeJSON(r io.Reader, v any) error { return json.NewDecoder(r).Decode(v) }

func TestAuthentication(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, storetest.SQLite)
	wrongSecret := ts.acme[:len(ts.acme)-4] + "0000"
	if wrongSecret == ts.acme {
		wrongSecret = ts.acme[:len(ts.acme)-4] + "1111"
	}
	for name, header := range map[string]string{
		"ErrMissing":     "",
		"ErrBearerWrong": "Bearer " + wrongSecret,
		"ErrNoScheme":    ts.acme,
		"ErrEmptyToken":  "Token ",
		"ErrMalformed":   "Token not-a-key",
		"ErrUnknownKey":  "Token bw_0123456789abcdef_0123456789abcdef0123456789abcdef",
		"ErrWrongSecret": "Token " + wrongSecret,
		"ErrHuge":        "Token " + strings.Repeat("a", 8000),
	} {
		t.Run(name, func(t *testing.T) {
			var r response
			if header == "" {
				r = ts.do(t, "GET", "/v2/tracking_requests", "", "")
			} else {
				r = ts.do(t, "GET", "/v2/tracking_requests", "", "", "Authorization", header)
			}
			e := r.wantError(t, 401, "unauthorized", "", "")
			if e["detail"] != "Invalid or missing API token." {
				t.Fatalf("detail = %v", e["detail"])
			}
		})
	}
	// The scheme is case-insensitive, as HTTP schemes are; Bearer carries the same key as Token.
	ts.do(t, "GET", "/v2/tracking_requests", "", "", "Authorization", "token "+ts.acme).want(t, 200)
	ts.do(t, "GET", "/v2/tracking_requests", "", "", "Authorization", "Bearer "+ts.acme).want(t, 200)
	ts.do(t, "GET", "/v2/tracking_requests", "", "", "Authorization", "bearer "+ts.acme).want(t, 200)
	// Keys never reach the logs, whether they work or not.
	if logs := ts.log.String(); strings.Contains(logs, ts.acme[3:]) || strings.Contains(logs, wrongSecret[20:]) {
		t.Fatal("an API key appears in the logs")
	}
	if !strings.Contains(ts.log.String(), `"status":401`) {
		t.Fatal("requests are not logged")
	}
}

func TestRoutingErrors(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, storetest.SQLite)
	ts.do(t, "GET", "/v2/nowhere", ts.acme, "").wantError(t, 404, "route_not_found", "", "")
	ts.do(t, "GET", "/", "", "").wantError(t, 404, "route_not_found", "", "")
	r := ts.do(t, "DELETE", "/v2/tracking_requests", ts.acme, "")
	r.wantError(t, 405, "method_not_allowed", "", "")
	if allow := r.header.Get("Allow"); !strings.Contains(allow, "GET") || !strings.Contains(allow, "POST") {
		t.Fatalf("Allow = %q", allow)
	}
	ts.do(t, "PUT", "/v2/tracking_requests/01936e3a-0000-7000-8000-000000000000", ts.acme, "").wantError(t, 405, "method_not_allowed", "", "")
	ts.do(t, "POST", "/v2/shipping_lines", ts.acme, "").wantError(t, 405, "method_not_allowed", "", "")
	// A fixed path under a route with an id is not an id: the wrong method there is a 405 that
	// names the path's own methods.
	for path, allow := range map[string]string{
		"/v2/tracking_requests/infer_number": "POST", "/v2/webhooks/trigger": "POST",
		"/v2/webhooks/events": "GET, HEAD", "/v2/webhook_notifications/examples": "GET, HEAD",
	} {
		method := "GET"
		if strings.HasPrefix(allow, "GET") {
			method = "DELETE"
		}
		r := ts.do(t, method, path, ts.acme, "")
		r.wantError(t, 405, "method_not_allowed", "", "")
		if got := r.header.Get("Allow"); got != allow {
			t.Errorf("%s %s: Allow = %q, want %q", method, path, got, allow)
		}
	}
	// Without a key the answer is the same: the route decides before authentication.
	ts.do(t, "GET", "/v2/webhooks/trigger", "", "").wantError(t, 405, "method_not_allowed", "", "")
}

func TestHealth(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, storetest.SQLite)
	if r := ts.do(t, "GET", "/healthz", "", "").want(t, 200); r.body["status"] != "ok" {
		t.Fatalf("healthz: %s", r.raw)
	}
	ts.do(t, "GET", "/readyz", "", "").want(t, 200)
	ts.db.Close()
	if r := ts.do(t, "GET", "/readyz", "", "").want(t, 503); r.body["status"] != "unavailable" {
		t.Fatalf("readyz with the database closed: %s", r.raw)
	}
}

func TestInternalErrorsHideTheirCause(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, storetest.SQLite)
	// Prime the key cache, then lose the database: the next query fails inside the store.
	ts.do(t, "GET", "/v2/tracking_requests", ts.acme, "").want(t, 200)
	ts.db.Close()
	r := ts.do(t, "GET", "/v2/tracking_requests", ts.acme, "")
	e := r.wantError(t, 500, "internal", "", "")
	reqID := r.header.Get("X-Request-Id")
	if get(e, "meta", "request_id") != reqID || reqID == "" {
		t.Fatalf("500 carries request id %v, header %q", get(e, "meta", "request_id"), reqID)
	}
	if strings.Contains(strings.ToLower(string(r.raw)), "sql") || strings.Contains(string(r.raw), "closed") {
		t.Fatalf("500 body leaks internals: %s", r.raw)
	}
	if logs := ts.log.String(); !strings.Contains(logs, `"internal error"`) || !strings.Contains(logs, reqID) {
		t.Fatalf("the cause is not logged with the request id:\n%s", logs)
	}
}

func TestRequestIDs(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, storetest.SQLite)
	if id := ts.do(t, "GET", "/healthz", "", "", "X-Request-Id", "abc-123").header.Get("X-Request-Id"); id != "abc-123" {
		t.Fatalf("caller's request id not kept: %q", id)
	}
	if id := ts.do(t, "GET", "/healthz", "", "", "X-Request-Id", "<script>").header.Get("X-Request-Id"); id == "<script>" || id == "" {
		t.Fatalf("hostile request id kept: %q", id)
	}
}

func TestRateLimits(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		db := b.Open(t)
		limits := withLimits(api.Limits{CreateTrackingRequest: 3, InferNumber: 5, Default: 4})
		ts := serveOn(t, db, limits)
		for i := range 3 {
			ts.mustCreate(t, ts.acme, "bill_of_lading", fmt.Sprintf("RL%d", i), "MSCU")
		}
		r := ts.do(t, "POST", "/v2/tracking_requests", ts.acme, createBody("bill_of_lading", "RL9", "MSCU"))
		e := r.wantError(t, 429, "rate_limited", "", "")
		if ra := r.header.Get("Retry-After"); ra == "" || ra == "0" || strings.ContainsAny(ra, ".-") {
			t.Fatalf("Retry-After = %q, want whole seconds >= 1", ra)
		}
		if !strings.Contains(e["detail"].(string), "create tracking requests limit") {
			t.Fatalf("detail = %v", e["detail"])
		}
		// The detail says what Retry-After says.
		if ra := r.header.Get("Retry-After"); !strings.Contains(e["detail"].(string), "try again in "+ra+" second") {
			t.Fatalf("detail %q disagrees with Retry-After %s", e["detail"], ra)
		}
		// Other buckets and other accounts are untouched.
		for range 4 {
			ts.do(t, "GET", "/v2/shipping_lines", ts.acme, "").want(t, 200)
		}
		ts.do(t, "GET", "/v2/shipping_lines", ts.acme, "").wantError(t, 429, "rate_limited", "", "")
		ts.mustCreate(t, ts.globex, "bill_of_lading", "RL0", "MSCU")

		if b.Name == "postgres" {
			// A second replica on the same database, with a limiter of its own, shares the buckets.
			replica := serveOn(t, db, limits, func(_ testing.TB, c *api.Config, db *store.DB) { c.Limiter = db.NewLimiter(boxwatch.SystemClock) })
			replica.do(t, "GET", "/v2/shipping_lines", ts.acme, "").wantError(t, 429, "rate_limited", "", "")
		}

		// A limit of 0 lifts it.
		lifted := serveOn(t, db, withLimits(api.Limits{}))
		for range 20 {
			lifted.do(t, "GET", "/v2/shipping_lines", lifted.acme, "").want(t, 200)
		}
	})
}

// TestRevokedKey: a revoked key is refused at once by the replica whose store revoked it, even
// though it just served the key, and by another within the key cache's TTL.
func TestRevokedKey(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		dsn := b.DSN(t)
		var replicas []*testServer
		for range 2 {
			db, err := store.Open(context.Background(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			replicas = append(replicas, serveOn(t, db))
		}
		here, there := replicas[0], replicas[1]
		key := here.acme
		for _, ts := range replicas {
			ts.do(t, "GET", "/v2/shipping_lines", key, "").want(t, 200)
		}
		id, _ := boxwatch.ParseAPIKey(key)
		if err := here.db.RevokeAPIKey(context.Background(), id); err != nil {
			t.Fatal(err)
		}
		revoked := time.Now()
		here.do(t, "GET", "/v2/shipping_lines", key, "").wantError(t, 401, "", "", "")
		trackingtest.Eventually(t, store.KeyCacheTTL+time.Second, "the other replica still accepts the revoked key", func() bool {
			return there.do(t, "GET", "/v2/shipping_lines", key, "").status == 401
		})
		t.Logf("the other replica refused the key %v after its revocation (TTL %v)", time.Since(revoked).Round(time.Millisecond), store.KeyCacheTTL)
		there.do(t, "GET", "/v2/shipping_lines", there.acme, "").want(t, 200) // its own key still works
	})
}

func TestShippingLines(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, storetest.SQLite)
	r := ts.do(t, "GET", "/v2/shipping_lines", ts.acme, "").want(t, 200)
	data := r.body["data"].([]any)
	if len(data) < 31 {
		t.Fatalf("%d shipping lines, want at least the top 30 and TEST", len(data))
	}
	var msc map[string]any
	scacs := map[string]bool{}
	for _, d := range data {
		scac := get(d, "attributes", "scac").(string)
		scacs[scac] = true
		if scac == "MSCU" {
			msc = d.(map[string]any)
		}
	}
	for _, want := range []string{"MSCU", "MAEU", "CMDU", "COSU", "HLCU", "ONEY", "EGLV", "HDMU", "YMLU", "ZIMU", "TEST"} {
		if !scacs[want] {
			t.Errorf("%s missing from /v2/shipping_lines", want)
		}
	}
	if msc == nil || get(msc, "type") != "shipping_line" || get(msc, "attributes", "name") != "Mediterranean Shipping Company" ||
		fmt.Sprint(get(msc, "attributes", "alternative_scacs")) != "[MEDU]" || get(msc, "attributes", "container_number_tracking_support") != true {
		t.Fatalf("MSC entry: %v", msc)
	}
	id := msc["id"].(string)
	for _, ref := range []string{id, "MSCU", "mscu", "MEDU"} {
		r := ts.do(t, "GET", "/v2/shipping_lines/"+ref, ts.acme, "").want(t, 200)
		if get(r.body, "data", "id") != id {
			t.Fatalf("GET /v2/shipping_lines/%s: %s", ref, r.raw)
		}
	}
	ts.do(t, "GET", "/v2/shipping_lines/XXXX", ts.acme, "").wantError(t, 404, "not_found", "", "")
	ts.do(t, "GET", "/v2/shipping_lines?page[size]=2", ts.acme, "").wantError(t, 400, "invalid", "", "page[size]")
}

// stallingStore holds the tracking request list until the client that asked for it has gone, so
// that the disconnect happens while the handler is inside the store.
type stallingStore struct {
	boxwatch.Store
	stalled atomic.Bool
	entered chan struct{}
}

func (s *stallingStore) TrackingRequests(ctx context.Context, accountID string, f boxwatch.TrackingRequestFilter, p boxwatch.Page) ([]boxwatch.TrackingRequest, boxwatch.Total, error) {
	if s.stalled.CompareAndSwap(false, true) {
		s.entered <- struct{}{}
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
			return nil, boxwatch.Total{}, errors.New("the server never noticed the client leave")
		}
	}
	return s.Store.TrackingRequests(ctx, accountID, f, p)
}

func TestServerSurvivesClientDisconnect(t *testing.T) {
	t.Parallel()
	stall := &stallingStore{entered: make(chan struct{})}
	ts := newTestServer(t, storetest.SQLite, func(_ testing.TB, c *api.Config, _ *store.DB) {
		stall.Store = c.Store
		c.Store = stall
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/v2/tracking_requests", nil)
	req.Header.Set("Authorization", "Token "+ts.acme)
	failed := make(chan error, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			res.Body.Close()
		}
		failed <- err
	}()
	select {
	case <-stall.entered: // the handler is running: hang up on it
	case <-time.After(10 * time.Second):
		t.Fatal("the request never reached the store")
	}
	cancel()
	if err := <-failed; !errors.Is(err, context.Canceled) {
		t.Fatalf("the abandoned request ended with %v, want it cancelled", err)
	}
	// The server finishes the abandoned request, logs it, and goes on serving.
	trackingtest.Eventually(t, 10*time.Second, "the abandoned request was not logged", func() bool {
		return strings.Contains(ts.log.String(), `"route":"/v2/tracking_requests"`)
	})
	next, cancelNext := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancelNext()
	req, _ = http.NewRequestWithContext(next, "GET", ts.URL+"/v2/tracking_requests", nil)
	req.Header.Set("Authorization", "Token "+ts.acme)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("the request after the disconnect: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("the request after the disconnect: status %d", res.StatusCode)
	}
}
