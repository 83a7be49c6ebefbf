package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/api"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/jsonapi"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
	"github.com/boxwatch/boxwatch/webhook"
	"github.com/boxwatch/boxwatch/webhook/dispatch"
)

// testServer is the real API on a loopback listener, over a real database.
type testServer struct {
	*httptest.Server
	db  *store.DB
	log *syncBuffer
	// keys of the accounts "acme" (every feature) and "globex".
	acme, globex string
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type option func(testing.TB, *api.Config, *store.DB)

func withLimits(l api.Limits) option {
	return func(_ testing.TB, c *api.Config, _ *store.DB) { c.Limits = l }
}

// withClock makes the API read the time from clock: creation and update times come from it.
func withClock(clock *trackingtest.Clock) option {
	return func(_ testing.TB, c *api.Config, _ *store.DB) { c.Clock = clock.Now }
}

// production logs every request as JSON (to nowhere) and counts it in Prometheus metrics, as
// serve does, so benchmarks pay what a real deployment pays.
func production(_ testing.TB, c *api.Config, _ *store.DB) {
	c.Logger = slog.New(slog.NewJSONHandler(io.Discard, nil))
	c.Metrics = prometheus.NewRegistry()
}

// tracked runs the tracking engine with its workers behind the API, on the simulated carriers.
func tracked(t testing.TB, c *api.Config, db *store.DB) {
	stack := trackingtest.Start(t, db, trackingtest.Options{})
	c.Tracker, c.Redeliverer = stack.Engine, stack.Deliveries
}

// delivering is tracked with webhook deliveries on, to receivers on loopback (private addresses
// allowed, a short receiver timeout), with the engine's clock.
func delivering(clock *trackingtest.Clock) option {
	return func(t testing.TB, c *api.Config, db *store.DB) {
		c.Webhooks = webhook.Policy{AllowPrivate: true, Timeout: 300 * time.Millisecond}
		stack := trackingtest.Start(t, db, trackingtest.Options{Clock: clock, Webhooks: c.Webhooks,
			Renderer: jsonapi.NewNotificationRenderer(db, c.Carriers, c.Ports)})
		c.Tracker, c.Redeliverer = stack.Engine, stack.Deliveries
		if clock != nil {
			c.Clock = clock.Now
		}
	}
}

func newTestServer(t testing.TB, b storetest.Backend, opts ...option) *testServer {
	t.Helper()
	return serveOn(t, b.Open(t), opts...)
}

// serveOn starts an API server over an existing store; accounts are created if missing. Its
// tracking engine enqueues lookups but runs no workers: requests stay pending.
func serveOn(t testing.TB, db *store.DB, opts ...option) *testServer {
	t.Helper()
	logs := &syncBuffer{}
	cfg := api.Config{
		Store: db, Limiter: db.Limiter(), Carriers: data.Carriers(), Ports: data.Ports(),
		Logger: slog.New(slog.NewJSONHandler(logs, nil)),
		Limits: api.Limits{CreateTrackingRequest: 1 << 20, InferNumber: 1 << 20, Default: 1 << 20},
	}
	for _, o := range opts {
		o(t, &cfg, db)
	}
	withEngines(t, &cfg, db)
	if cfg.Tracker == nil {
		if err := tracking.Migrate(context.Background(), db); err != nil {
			t.Fatal(err)
		}
		engine, err := tracking.New(tracking.Config{DB: db, Registry: cfg.Carriers}) // enqueues, runs nothing
		if err != nil {
			t.Fatal(err)
		}
		deliveries, err := dispatch.New(dispatch.Config{Store: db, Work: db}) // marks redeliveries due, sends nothing
		if err != nil {
			t.Fatal(err)
		}
		cfg.Tracker, cfg.Redeliverer = engine, deliveries
	}
	h, err := api.NewHandler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	ts := &testServer{Server: srv, db: db, log: logs}
	ts.acme = mustKey(t, db, "acme", boxwatch.Features...)
	ts.globex = mustKey(t, db, "globex")
	return ts
}

func mustKey(t testing.TB, db *store.DB, name string, features ...boxwatch.Feature) string {
	t.Helper()
	a, err := db.AccountByName(context.Background(), name)
	if boxwatch.IsKind(err, boxwatch.KindNotFound) {
		a = storetest.MustCreateAccount(t, db, name, features...)
	} else if err != nil {
		t.Fatal(err)
	}
	key, rec, err := boxwatch.NewAPIKey(a.ID, boxwatch.SystemClock())
	if err != nil {
		t.Fatal(err)
	}
	if err := db.CreateAPIKey(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	return key
}

// response is a decoded answer.
type response struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any
}

// do sends a request with the key (if any) and, for a body, the JSON:API content type.
func (ts *testServer) do(t testing.TB, method, path, key, body string, headers ...string) response {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, ts.URL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Token "+key)
	}
	if body != "" {
		req.Header.Set("Content-Type", api.MediaType)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := response{status: res.StatusCode, header: res.Header, raw: raw}
	if len(raw) > 0 && method != "HEAD" {
		if err := json.Unmarshal(raw, &out.body); err != nil {
			t.Fatalf("%s %s: body is not a JSON object: %v\n%s", method, path, err, raw)
		}
	}
	return out
}

// want fails unless the status matches, printing the body.
func (r response) want(t testing.TB, status int) response {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body: %s", r.status, status, r.raw)
	}
	return r
}

// wantError checks a JSON:API error answer: status, first error's code and source.
func (r response) wantError(t testing.TB, status int, code, pointer, parameter string) map[string]any {
	t.Helper()
	r.want(t, status)
	if ct := r.header.Get("Content-Type"); ct != api.MediaType {
		t.Fatalf("error Content-Type %q, want %q", ct, api.MediaType)
	}
	errs, _ := r.body["errors"].([]any)
	if len(errs) == 0 {
		t.Fatalf("no errors member: %s", r.raw)
	}
	e := errs[0].(map[string]any)
	if e["status"] != fmt.Sprint(status) || e["title"] != http.StatusText(status) {
		t.Fatalf("error status/title = %v/%v, want %q/%q", e["status"], e["title"], fmt.Sprint(status), http.StatusText(status))
	}
	if code != "" && e["code"] != code {
		t.Fatalf("error code %v, want %q; body: %s", e["code"], code, r.raw)
	}
	src, _ := e["source"].(map[string]any)
	if pointer != "" && (src == nil || src["pointer"] != pointer) {
		t.Fatalf("error source %v, want pointer %q; body: %s", src, pointer, r.raw)
	}
	if parameter != "" && (src == nil || src["parameter"] != parameter) {
		t.Fatalf("error source %v, want parameter %q; body: %s", src, parameter, r.raw)
	}
	return e
}

// get walks a decoded document along a path of keys and indexes.
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func createBody(requestType, number, scac string, extra ...string) string {
	attrs := `"request_type":"` + requestType + `","request_number":"` + number + `","scac":"` + scac + `"`
	for _, e := range extra {
		attrs += "," + e
	}
	return `{"data":{"type":"tracking_request","attributes":{` + attrs + `}}}`
}

// mustCreate posts a tracking request and returns its id.
func (ts *testServer) mustCreate(t testing.TB, key, requestType, number, scac string, extra ...string) string {
	t.Helper()
	r := ts.do(t, "POST", "/v2/tracking_requests", key, createBody(requestType, number, scac, extra...)).want(t, 201)
	return get(r.body, "data", "id").(string)
}
