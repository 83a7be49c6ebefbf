package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/queue"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// adminServer is a running serve --demo with its admin listener.
type adminServer struct {
	api, admin, key string
	client          *http.Client
}

// startAdminServer runs serve --demo on dsn with the admin listener on a free port and flags,
// and stops it when the test ends.
func startAdminServer(t *testing.T, dsn string, flags ...string) adminServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	args := append([]string{"serve", "--demo", "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0", "--db", dsn,
		"--webhook-allow-private", "--sim-speed", "1000", "--retry-scale", "0.0001"}, flags...)
	go func() {
		done <- run(ctx, args, func(string) string { return "" }, strings.NewReader(""), pw, io.Discard)
		pw.Close()
	}()
	s := adminServer{client: &http.Client{Transport: &http.Transport{}, Timeout: 30 * time.Second}}
	sc := bufio.NewScanner(pr)
	for sc.Scan() && s.key == "" {
		line := sc.Text()
		if m := regexp.MustCompile(`serving the API at (http://\S+)`).FindStringSubmatch(line); m != nil {
			s.api = m[1]
		}
		if m := regexp.MustCompile(`admin listener at (http://\S+)`).FindStringSubmatch(line); m != nil {
			s.admin = m[1]
		}
		if m := regexp.MustCompile(`^\s+(bw_[0-9a-f_]+)$`).FindStringSubmatch(line); m != nil {
			s.key = m[1]
		}
	}
	go io.Copy(io.Discard, pr)
	if s.api == "" || s.admin == "" || s.key == "" {
		cancel()
		t.Fatalf("serve printed no API URL, admin URL or key: %+v", s)
	}
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve returned %v after shutdown", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("serve did not stop")
		}
		s.client.CloseIdleConnections()
	})
	return s
}

// call makes an API request with the demo key and returns the status and the body.
func (s adminServer) call(t *testing.T, method, path, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, s.api+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Token "+s.key)
	req.Header.Set("Content-Type", "application/vnd.api+json")
	return s.do(t, req)
}

func (s adminServer) get(t *testing.T, url string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	return s.do(t, req)
}

func (s adminServer) do(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	res, err := s.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, string(b)
}

// series is a scrape of /metrics: every sample by its name and labels as written
// (`name{a="x",b="y"}`), and the families' names.
type series struct {
	values   map[string]float64
	families map[string]bool
}

func (s adminServer) scrape(t *testing.T) series {
	t.Helper()
	status, body := s.get(t, s.admin+"/metrics")
	if status != 200 {
		t.Fatalf("GET /metrics: %d", status)
	}
	return parseExposition(t, body)
}

// parseExposition reads Prometheus's text format, enough for our own exposition: one sample a
// line, label values without spaces or escaped quotes.
func parseExposition(t *testing.T, body string) series {
	t.Helper()
	out := series{values: map[string]float64{}, families: map[string]bool{}}
	for line := range strings.SplitSeq(body, "\n") {
		if strings.HasPrefix(line, "# TYPE ") {
			out.families[strings.Fields(line)[2]] = true
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		out.values[line[:i]] = v
	}
	return out
}

// sum adds the samples of name whose labels contain every one of labels, written as in the
// exposition (`scac="TEST"`, or a prefix of one: `source="tcp://`).
func (s series) sum(name string, labels ...string) (float64, bool) {
	total, found := 0.0, false
	for k, v := range s.values {
		n, rest, _ := strings.Cut(k, "{")
		if n != name {
			continue
		}
		ok := true
		for _, l := range labels {
			ok = ok && strings.Contains(rest, l)
		}
		if ok {
			total += v
			found = true
		}
	}
	return total, found
}

// activity drives every family of metrics: a tracked shipment found and one not found, a webhook
// delivery that fails once and then succeeds, a request refused by the rate limit, and the
// simulator's AIS feed heard. It returns once all of it shows in /metrics.
func (s adminServer) activity(t *testing.T) series {
	t.Helper()
	var calls atomic.Int32
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	t.Cleanup(receiver.Close)
	if status, body := s.call(t, "POST", "/v2/webhooks", `{"data":{"type":"webhook","attributes":{"url":"`+receiver.URL+
		`","active":true,"events":["tracking_request.succeeded","tracking_request.failed"]}}}`); status != 201 {
		t.Fatalf("create webhook: %d %s", status, body)
	}
	for _, number := range []string{"TEST-TR-SUCCEEDED", "TEST-TR-FAILED"} {
		if status, body := s.call(t, "POST", "/v2/tracking_requests", `{"data":{"type":"tracking_request","attributes":{"request_type":"bill_of_lading","request_number":"`+
			number+`","scac":"TEST"}}}`); status != 201 {
			t.Fatalf("create %s: %d %s", number, status, body)
		}
	}
	// --limit-create 2: the third create is refused.
	if status, _ := s.call(t, "POST", "/v2/tracking_requests", `{"data":{"type":"tracking_request","attributes":{"request_type":"bill_of_lading","request_number":"TEST-TR-SUCCEEDED-2","scac":"TEST"}}}`); status != 429 {
		t.Fatalf("third create in a minute: %d, want 429", status)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		m := s.scrape(t)
		okLookups, _ := m.sum("boxwatch_carrier_lookups_total", `scac="TEST"`, `outcome="ok"`)
		notFound, _ := m.sum("boxwatch_carrier_lookups_total", `scac="TEST"`, `outcome="not_found"`)
		delivered, _ := m.sum("boxwatch_webhook_deliveries_total", `outcome="succeeded"`, `status_class="2xx"`)
		failed, _ := m.sum("boxwatch_webhook_deliveries_total", `outcome="failed"`, `status_class="5xx"`)
		messages, _ := m.sum("boxwatch_ais_messages_total")
		if okLookups >= 1 && notFound >= 1 && delivered >= 2 && failed >= 1 && messages >= 1 {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 60s: lookups ok %v not found %v, deliveries succeeded %v failed %v, AIS messages %v", okLookups, notFound, delivered, failed, messages)
		}
		time.Sleep(50 * time.Millisecond) // polling /metrics for the work to happen
	}
}

func TestAdminMetrics(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		s := startAdminServer(t, b.DSN(t), "--limit-create", "2")
		m := s.activity(t)
		atLeast := func(min float64, name string, labels ...string) {
			t.Helper()
			v, found := m.sum(name, labels...)
			if !found || v < min {
				t.Errorf("%s%v = %v (found %v), want at least %v", name, labels, v, found, min)
			}
		}
		atLeast(2, "boxwatch_jobs_enqueued_total", `kind="lookup"`)
		atLeast(2, "boxwatch_job_runs_total", `kind="lookup"`, `outcome="completed"`)
		atLeast(2, "boxwatch_job_run_duration_seconds_count", `kind="lookup"`)
		atLeast(0, "boxwatch_jobs_running", `kind="lookup"`)
		atLeast(0, "boxwatch_jobs_rescued_total")
		atLeast(0, "boxwatch_jobs_oldest_available_age_seconds")
		atLeast(2, "boxwatch_carrier_lookup_duration_seconds_count", `scac="TEST"`)
		atLeast(0, "boxwatch_carrier_lookups_in_flight", `scac="TEST"`)
		atLeast(3, "boxwatch_webhook_deliveries_total")
		atLeast(3, "boxwatch_webhook_delivery_duration_seconds_count")
		atLeast(0, "boxwatch_webhook_deliveries_in_flight")
		atLeast(0, "boxwatch_webhook_notifications_pending")
		atLeast(0, "boxwatch_webhook_notifications_due")
		atLeast(0, "boxwatch_webhook_oldest_due_age_seconds")
		atLeast(1, "boxwatch_ais_lines_total", `source="tcp://127.0.0.1:`)
		atLeast(0, "boxwatch_ais_invalid_lines_total")
		atLeast(0, "boxwatch_ais_last_message_age_seconds")
		atLeast(1, "boxwatch_ais_positions_total")
		atLeast(1, "boxwatch_rate_limited_total", `bucket="create_tracking_request"`)
		atLeast(3, "boxwatch_rate_limit_checks_total", `bucket="create_tracking_request"`)
		atLeast(1, "boxwatch_http_requests_total", `status="429"`)
		pools := map[store.Dialect]string{store.SQLite: `pool="sqlite_readers"`, store.Postgres: `pool="postgres"`}[dialectOf(b.DSN(t))]
		atLeast(1, "boxwatch_db_connections_max", pools)
		atLeast(1, "boxwatch_db_connections", pools)
		atLeast(0, "boxwatch_db_acquire_waits_total", pools)
		atLeast(0, "boxwatch_db_acquire_wait_seconds_total", pools)
		caches := []string{"statements", "api_keys", "maps", "sea_routes", "tracks", "ais_identities", "read"}
		for _, name := range caches {
			label := `cache="` + name + `"`
			atLeast(1, "boxwatch_cache_max_bytes", label)
			atLeast(0, "boxwatch_cache_bytes", label)
			atLeast(0, "boxwatch_cache_entries", label)
			atLeast(0, "boxwatch_cache_lookups_total", label, `result="hit"`)
			atLeast(0, "boxwatch_cache_evictions_total", label)
		}
		atLeast(1, "boxwatch_cache_entries", `cache="statements"`)
		atLeast(1, "boxwatch_cache_lookups_total", `cache="api_keys"`)
		atLeast(1, "boxwatch_read_cache_live")
		atLeast(0, "boxwatch_read_cache_entries")
		atLeast(0, "boxwatch_read_cache_reads_total", `result="hit"`)
		atLeast(0, "boxwatch_read_cache_reads_total", `result="miss"`)
		for name := range m.families {
			if !strings.HasPrefix(name, "boxwatch_") && !strings.HasPrefix(name, "go_") && !strings.HasPrefix(name, "process_") && !strings.HasPrefix(name, "promhttp_") {
				t.Errorf("metric %s: every metric of ours is named boxwatch_*", name)
			}
		}
	})
}

func dialectOf(dsn string) store.Dialect {
	if store.IsPostgresURL(dsn) {
		return store.Postgres
	}
	return store.SQLite
}

// probeArgs is a job kind no worker runs: the queue fails it, which gives the admin page a
// failure to show, with markup in its kind to show that the page escapes it.
type probeArgs struct {
	Note string `json:"note"`
}

func (probeArgs) Kind() string { return "probe<b>unknown</b>" }

func TestAdminPage(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		dsn := b.DSN(t)
		s := startAdminServer(t, dsn)
		enqueueProbe(t, dsn, &river.InsertOpts{MaxAttempts: 1})

		var doc struct {
			Jobs struct {
				States []string `json:"states"`
				ByKind []struct {
					Kind  string `json:"kind"`
					Total int64  `json:"total"`
				} `json:"by_kind"`
				Failures []struct {
					Kind, State, Error string
				} `json:"failures"`
			} `json:"jobs"`
			Webhooks *struct {
				Pending int64 `json:"pending"`
			} `json:"webhooks"`
			AIS []struct {
				Source string `json:"source"`
			} `json:"ais_sources"`
			Pools []struct {
				Name    string `json:"name"`
				MaxOpen int    `json:"max_open"`
			} `json:"database_pools"`
			Errors []string `json:"errors"`
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			status, body := s.get(t, s.admin+"/status.json")
			if status != 200 {
				t.Fatalf("GET /status.json: %d %s", status, body)
			}
			if err := json.Unmarshal([]byte(body), &doc); err != nil {
				t.Fatalf("status.json: %v\n%s", err, body)
			}
			if len(doc.Jobs.Failures) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the failed probe job never showed:\n%s", body)
			}
			time.Sleep(50 * time.Millisecond) // polling for the queue to fail the job
		}
		f := doc.Jobs.Failures[0]
		if f.Kind != (probeArgs{}).Kind() || f.State != "discarded" || !strings.Contains(f.Error, "probe<b>unknown</b>") {
			t.Errorf("failure %+v: want the probe, discarded, with River's error naming its kind", f)
		}
		if len(doc.Errors) != 0 || doc.Webhooks == nil || len(doc.AIS) != 1 || !strings.HasPrefix(doc.AIS[0].Source, "tcp://127.0.0.1:") ||
			len(doc.Pools) == 0 || doc.Pools[0].MaxOpen < 1 || len(doc.Jobs.States) != 5 {
			t.Errorf("status.json: %+v; want every part read, the simulator's AIS source, the pools", doc)
		}

		status, page := s.get(t, s.admin+"/")
		if status != 200 {
			t.Fatalf("GET /: %d", status)
		}
		for _, want := range []string{"Jobs by state", "Running jobs", "Recent failures", "Webhook backlog", "AIS sources", "Database pools",
			"probe&lt;b&gt;unknown&lt;/b&gt;", "discarded"} {
			if !strings.Contains(page, want) {
				t.Errorf("the page lacks %q", want)
			}
		}
		if strings.Contains(page, "<b>unknown") {
			t.Error("the page shows a job's kind unescaped")
		}

		// The page is read-only and takes only its own parameters; hostile ones get a clean 400.
		for _, tc := range []struct {
			method, path string
			want         int
		}{
			{"GET", "/?limit=10&kind=lookup", 200},
			{"GET", "/status.json?limit=1", 200},
			{"GET", "/?limit=0", 400},
			{"GET", "/?limit=-1", 400},
			{"GET", "/?limit=99999999999999999999", 400},
			{"GET", "/?limit=1e3", 400},
			{"GET", "/?limit=%00", 400},
			{"GET", "/?limit=1&limit=2", 400},
			{"GET", "/?kind=%3Cscript%3E", 400},
			{"GET", "/?kind=%FF%FE", 400},
			{"GET", "/?kind=" + strings.Repeat("a", 65), 400},
			{"GET", "/?q=" + strings.Repeat("x", 2000), 400},
			{"GET", "/?unknown=1", 400},
			{"GET", "/?%zz", 400},
			{"GET", "/status.json?kind=%00", 400},
			{"GET", "/nowhere", 404},
			{"POST", "/", 405},
			{"DELETE", "/status.json", 405},
		} {
			req, _ := http.NewRequest(tc.method, s.admin+tc.path, nil)
			status, body := s.do(t, req)
			if status != tc.want {
				t.Errorf("%s %s: %d, want %d (%s)", tc.method, tc.path, status, tc.want, body)
			}
			if status == 400 && (strings.Contains(body, "<script") || strings.Contains(body, "\x00")) {
				t.Errorf("%s %s: the error echoes the parameter: %q", tc.method, tc.path, body)
			}
		}
		// The public API listener does not serve the admin page or the metrics.
		for _, path := range []string{"/metrics", "/status.json"} {
			if status, _ := s.get(t, s.api+path); status != 404 {
				t.Errorf("API listener GET %s: %d, want 404", path, status)
			}
		}
	})
}

// enqueueProbe puts a probe job in the queue of the database at dsn.
func enqueueProbe(t *testing.T, dsn string, opts *river.InsertOpts) {
	t.Helper()
	db, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The kind is registered here, where the job is only inserted, and nowhere serve runs it.
	workers := river.NewWorkers()
	river.AddWorker(workers, river.WorkFunc(func(context.Context, *river.Job[probeArgs]) error { return nil }))
	q, err := queue.New(db, queue.Config{Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.InTx(context.Background(), func(tx boxwatch.Tx) error {
		return q.Enqueue(context.Background(), tx, probeArgs{Note: "<script>alert(1)</script>"}, opts)
	}); err != nil {
		t.Fatal(err)
	}
}

// The admin listener serves Go's profiles; the public listener serves none of them, with or
// without an API key.
func TestAdminProfiles(t *testing.T) {
	t.Parallel()
	s := startAdminServer(t, filepath.Join(t.TempDir(), "boxwatch.db"))

	status, body := s.get(t, s.admin+"/debug/pprof/heap?debug=1")
	if status != 200 || !strings.HasPrefix(body, "heap profile: ") || !strings.Contains(body, "# runtime.MemStats") {
		t.Fatalf("admin GET /debug/pprof/heap?debug=1: %d, want a heap profile in text:\n%.300s", status, body)
	}
	// The binary form is what go tool pprof fetches: a gzipped protocol buffer.
	status, body = s.get(t, s.admin+"/debug/pprof/heap")
	if status != 200 {
		t.Fatalf("admin GET /debug/pprof/heap: %d", status)
	}
	zr, err := gzip.NewReader(strings.NewReader(body))
	if err != nil {
		t.Fatalf("admin heap profile is not gzipped: %v", err)
	}
	if raw, err := io.ReadAll(zr); err != nil || len(raw) == 0 {
		t.Fatalf("admin heap profile: %d bytes, %v", len(raw), err)
	}
	status, body = s.get(t, s.admin+"/debug/pprof/")
	for _, name := range []string{"heap", "goroutine", "allocs", "profile"} {
		if status != 200 || !strings.Contains(body, name) {
			t.Errorf("admin GET /debug/pprof/: %d, want the index listing %s", status, name)
		}
	}

	for _, path := range []string{"/debug/pprof/", "/debug/pprof/heap", "/debug/pprof/heap?debug=1", "/debug/pprof/goroutine?debug=2",
		"/debug/pprof/cmdline", "/debug/pprof/symbol", "/debug/pprof/allocs"} {
		for _, key := range []string{"", s.key} {
			req, _ := http.NewRequest("GET", s.api+path, nil)
			if key != "" {
				req.Header.Set("Authorization", "Token "+key)
			}
			status, body := s.do(t, req)
			if status == 200 || strings.Contains(body, "heap profile") || strings.Contains(body, "goroutine profile") ||
				strings.Contains(body, "runtime/pprof") || strings.Contains(body, "boxwatch serve") {
				t.Errorf("public GET %s (key %v): %d serves a profile:\n%.300s", path, key != "", status, body)
			}
		}
	}
}
