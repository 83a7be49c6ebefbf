package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/internal/pgcluster"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// outcome is one request of the load, as the client saw it.
type outcome struct {
	create  bool
	status  int // 0: no answer (a transport error)
	err     string
	took    time.Duration
	id      string // a 201's tracking request
	raw     []byte
	problem string // what is wrong with the answer, if anything
}

// TestDatabaseRestart runs serve on a private PostgreSQL cluster under a steady load of creates and
// reads, stops the cluster mid-load for a few seconds and starts it again. boxwatch must keep
// running; /readyz must say 503 while the database is away and 200 after; requests during the
// outage must fail fast with a JSON:API 503 carrying Retry-After (never a 500, never a hang);
// every acknowledged create must be readable afterwards and be looked up; and a request created
// after the restart must go through the job queue and reach its webhook.
func TestDatabaseRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts, stops and restarts a private PostgreSQL server under load; skipped with -short")
	}
	for _, mode := range []string{pgcluster.Fast, pgcluster.Immediate} {
		t.Run(mode, func(t *testing.T) { testDatabaseRestart(t, mode) })
	}
}

func testDatabaseRestart(t *testing.T, mode string) {
	cluster := pgcluster.Start(t)
	cluster.CreateDatabase(t, "boxwatch")

	var hooks sync.Map // tracking request id → deliveries of its tracking_request.succeeded
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n struct {
			Data struct {
				Relationships struct {
					ReferenceObject struct {
						Data struct{ ID string } `json:"data"`
					} `json:"reference_object"`
				} `json:"relationships"`
			} `json:"data"`
		}
		json.NewDecoder(r.Body).Decode(&n)
		v, _ := hooks.LoadOrStore(n.Data.Relationships.ReferenceObject.Data.ID, new(atomic.Int32))
		v.(*atomic.Int32).Add(1)
	}))
	defer receiver.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	stderr := &lockedBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--demo", "--addr", "127.0.0.1:0", "--admin-addr", "off", "--db", cluster.URL("boxwatch"),
			"--webhook-allow-private", "--sim-speed", "1000", "--job-timeout", "2s", "--retry-scale", "0.001",
			"--limit-create", "0", "--limit-default", "0"}, func(string) string { return "" }, strings.NewReader(""), pw, stderr)
		pw.Close()
	}()
	url, key := readDemo(t, pr)
	go io.Copy(io.Discard, pr)

	// A request may take the database's connect timeout (5 s) but never hang.
	client := &http.Client{Timeout: 20 * time.Second}
	defer client.CloseIdleConnections()
	send := func(method, path, body string) outcome {
		req, _ := http.NewRequest(method, url+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Token "+key)
		if body != "" {
			req.Header.Set("Content-Type", "application/vnd.api+json")
		}
		start := time.Now()
		res, err := client.Do(req)
		o := outcome{create: method == "POST", took: time.Since(start)}
		if err != nil {
			o.err = err.Error()
			o.problem = "no answer: " + err.Error()
			return o
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		o.took, o.status, o.raw = time.Since(start), res.StatusCode, raw
		var doc struct {
			Data struct {
				ID string `json:"id"`
			} `json:"data"`
			Errors []struct {
				Status, Code, Detail string
			} `json:"errors"`
		}
		jsonErr := json.Unmarshal(raw, &doc)
		switch {
		case res.StatusCode < 300:
			o.id = doc.Data.ID
		case res.StatusCode != http.StatusServiceUnavailable:
			o.problem = fmt.Sprintf("status %d: %s", res.StatusCode, raw)
		case jsonErr != nil || len(doc.Errors) == 0 || doc.Errors[0].Code != "unavailable" || res.Header.Get("Content-Type") != "application/vnd.api+json":
			o.problem = fmt.Sprintf("a 503 that is not a JSON:API unavailable error: %s", raw)
		case res.Header.Get("Retry-After") == "":
			o.problem = "a 503 without Retry-After"
		}
		return o
	}
	if o := send("POST", "/v2/webhooks", `{"data":{"type":"webhook","attributes":{"url":"`+receiver.URL+`/hook","events":["tracking_request.succeeded"]}}}`); o.status != 201 {
		t.Fatalf("creating the webhook: %+v", o)
	}

	// The load: creates and reads of acknowledged requests, from a few clients, until stopped.
	var (
		mu       sync.Mutex
		outcomes []outcome
		acked    []string
		seq      atomic.Int64
	)
	stopLoad := make(chan struct{})
	var load sync.WaitGroup
	for range 4 {
		load.Go(func() {
			for {
				select {
				case <-stopLoad:
					return
				case <-time.After(50 * time.Millisecond):
				}
				n := seq.Add(1)
				o := send("POST", "/v2/tracking_requests", fmt.Sprintf(
					`{"data":{"type":"tracking_request","attributes":{"request_type":"bill_of_lading","request_number":"MAEU%08d%d","scac":"MAEU"}}}`, n, n%8+1))
				mu.Lock()
				outcomes = append(outcomes, o)
				if o.status == 201 {
					acked = append(acked, o.id)
				}
				var read string
				if len(acked) > 0 {
					read = acked[int(n)%len(acked)]
				}
				mu.Unlock()
				if read != "" {
					o := send("GET", "/v2/tracking_requests/"+read, "")
					mu.Lock()
					outcomes = append(outcomes, o)
					mu.Unlock()
				}
			}
		})
	}
	ready := func() int {
		res, err := client.Get(url + "/readyz")
		if err != nil {
			return 0
		}
		res.Body.Close()
		if res.StatusCode == http.StatusServiceUnavailable && res.Header.Get("Retry-After") == "" {
			t.Error("/readyz answered 503 without Retry-After")
		}
		return res.StatusCode
	}

	time.Sleep(2 * time.Second) // load before the outage
	mu.Lock()
	before := len(outcomes)
	mu.Unlock()
	cluster.Stop(t, mode)
	stopped := time.Now()
	if s := ready(); s != http.StatusServiceUnavailable {
		t.Errorf("/readyz answered %d with the database stopped, want 503", s)
	}
	time.Sleep(3 * time.Second) // the outage, under load
	if s := ready(); s != http.StatusServiceUnavailable {
		t.Errorf("/readyz answered %d with the database stopped, want 503", s)
	}
	mu.Lock()
	during := len(outcomes)
	mu.Unlock()
	cluster.Restart(t)
	restarted := time.Now()
	trackingtest.Eventually(t, 30*time.Second, "/readyz did not answer 200 after the database came back", func() bool {
		return ready() == http.StatusOK
	})
	readyAfter := time.Since(restarted)
	// Load after the restart, until creates succeed again.
	trackingtest.Eventually(t, 30*time.Second, "creates did not succeed again after the restart", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(outcomes) > during && outcomes[len(outcomes)-1].status < 300
	})
	time.Sleep(2 * time.Second)
	close(stopLoad)
	load.Wait()

	select {
	case err := <-done:
		t.Fatalf("serve stopped during the database restart: %v", err)
	default:
	}

	// Count, and check each answer.
	var unavailable, ok, problems int
	var slowest time.Duration
	for i, o := range outcomes {
		if o.problem != "" {
			problems++
			if problems <= 10 {
				t.Errorf("request %d: %s", i, o.problem)
			}
		}
		switch {
		case o.status == http.StatusServiceUnavailable:
			unavailable++
		case o.status > 0 && o.status < 300:
			ok++
		}
		if i >= before && i < during {
			slowest = max(slowest, o.took)
		}
	}
	t.Logf("%s stop: %d requests (%d before the stop, %d during the outage), %d answered 2xx, %d answered 503, %d wrong; %d creates acknowledged; slowest answer during the outage %v; outage %v; /readyz 200 again %v after the start",
		mode, len(outcomes), before, during-before, ok, unavailable, problems, len(acked), slowest.Round(time.Millisecond),
		restarted.Sub(stopped).Round(time.Millisecond), readyAfter.Round(time.Millisecond))
	if unavailable == 0 {
		t.Error("no request answered 503 during the outage: the test saw no outage")
	}

	// Nothing acknowledged is lost, and every acknowledged request is looked up.
	for _, id := range acked {
		if o := send("GET", "/v2/tracking_requests/"+id, ""); o.status != 200 {
			t.Errorf("acknowledged tracking request %s: %+v", id, o)
		}
	}
	trackingtest.Eventually(t, 90*time.Second, "acknowledged requests stayed pending after the restart", func() bool {
		o := send("GET", "/v2/tracking_requests?filter[status]=pending&page[size]=1", "")
		var doc struct{ Meta struct{ Total *int } }
		return o.status == 200 && json.Unmarshal(o.raw, &doc) == nil && doc.Meta.Total != nil && *doc.Meta.Total == 0
	})

	// Lookups whose completion was lost in the outage are taken up again, not doubled: one
	// shipment per looked-up request (every number is different).
	total := func(path string) int {
		t.Helper()
		o := send("GET", path, "")
		var doc struct{ Meta struct{ Total int } }
		if o.status != 200 || json.Unmarshal(o.raw, &doc) != nil {
			t.Fatalf("GET %s: %d %s", path, o.status, o.raw)
		}
		return doc.Meta.Total
	}
	// (At --sim-speed 1000 some journeys end within the test: their tracking stops.)
	lookedUp := total("/v2/tracking_requests?filter[status]=created&page[size]=1") +
		total("/v2/tracking_requests?filter[status]=tracking_stopped&page[size]=1")
	failed := total("/v2/tracking_requests?filter[status]=failed&page[size]=1")
	shipments := total("/v2/shipments?page[size]=1")
	t.Logf("%d acknowledged creates: %d looked up, %d failed; %d shipments", len(acked), lookedUp, failed, shipments)
	if lookedUp != len(acked) || shipments != lookedUp {
		t.Errorf("%d acknowledged creates, %d looked up, %d shipments: want all equal", len(acked), lookedUp, shipments)
	}

	// The job queue and the webhook dispatcher work again: a request created now is looked up
	// and its webhook called.
	after := send("POST", "/v2/tracking_requests", `{"data":{"type":"tracking_request","attributes":{"request_type":"bill_of_lading","request_number":"TEST-TR-SUCCEEDED","scac":"TEST"}}}`)
	if after.status != 201 {
		t.Fatalf("a create after the restart: %+v", after)
	}
	trackingtest.Eventually(t, 60*time.Second, "the request created after the restart never reached its webhook", func() bool {
		v, ok := hooks.Load(after.id)
		return ok && v.(*atomic.Int32).Load() > 0
	})

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop after the test")
	}
	if log := stderr.String(); strings.Contains(log, `"status":500`) || strings.Contains(log, "panic") {
		t.Errorf("serve logged a 500 or a panic during the restart:\n%s", log)
	}
}

// lockedBuffer collects a process's log from several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
