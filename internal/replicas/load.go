package replicas

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Load is a steady mixed load through the load balancer: creates of tracking requests, reads of
// requests, shipments and the shipments list, and container refreshes. It remembers every
// acknowledged create so that the test can check each one afterwards.
type Load struct {
	URL, Key string
	// CreatesPerSecond and ReadsPerSecond are the steady rates; RefreshEvery the gap between
	// two container refreshes (the API allows 10 a minute per account).
	CreatesPerSecond, ReadsPerSecond float64
	RefreshEvery                     time.Duration
	// Prefix makes this run's numbers unique: Maersk bills of lading are nine digits, and
	// Prefix gives the first three (100–899).
	Prefix int

	client *http.Client
	next   atomic.Int64

	mu         sync.Mutex
	acked      []Created              // every 201, in order
	ambiguous  map[string]bool        // numbers whose create got no answer at least once
	resolved   map[string]bool        // such numbers a later attempt found already created
	statuses   map[string]map[int]int // op → HTTP status (0: no answer) → count
	latencies  map[string][]time.Duration
	began      time.Time
	slow       map[string][]time.Duration // op → when each answer slower than SlowAfter began, since began
	shipments  []string
	containers []string
	unexpected []string // the first few answers no client should get
	transport  []string // the first few requests that got no HTTP answer at all
}

// Created is an acknowledged tracking request.
type Created struct{ ID, Number string }

func (l *Load) init() {
	// Idle connections are dropped well before the balancer's keep-alive timeout, so that a
	// request never races the balancer closing its connection.
	l.client = &http.Client{Timeout: 70 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: 20 * time.Second}}
	l.ambiguous, l.resolved = map[string]bool{}, map[string]bool{}
	l.statuses, l.latencies, l.slow = map[string]map[int]int{}, map[string][]time.Duration{}, map[string][]time.Duration{}
	l.began = time.Now()
}

// SlowAfter is the latency past which the load notes when an answer's request began (Slow).
const SlowAfter = 100 * time.Millisecond

// Know adds shipments the load may read (and, once read, refresh the containers of) besides
// those its own creates make: the seeded ones, so that reads reach the whole table.
func (l *Load) Know(shipments []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.shipments = append(l.shipments, shipments...)
}

// Run drives the load until ctx ends, then waits for the requests in flight.
func (l *Load) Run(ctx context.Context) {
	l.init()
	var wg sync.WaitGroup
	inflight := make(chan struct{}, 64) // beyond this the load waits: it never piles up
	tick := func(rate float64, op func()) {
		if rate <= 0 {
			return
		}
		wg.Go(func() {
			t := time.NewTicker(time.Duration(float64(time.Second) / rate))
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
				select {
				case inflight <- struct{}{}:
				case <-ctx.Done():
					return
				}
				wg.Go(func() {
					defer func() { <-inflight }()
					op()
				})
			}
		})
	}
	tick(l.CreatesPerSecond, l.create)
	tick(l.ReadsPerSecond, l.read)
	if l.RefreshEvery > 0 {
		tick(float64(time.Second)/float64(l.RefreshEvery), l.refresh)
	}
	<-ctx.Done()
	wg.Wait()
}

// Number returns the i-th bill of lading of this run. The last digit places the journey in the
// simulator (docs/carriers.md, "Demo and test numbers"): 1–8, so every shipment is tracked and none ends
// in 0000 or 9999, which the simulator treats as unknown or unreachable.
func (l *Load) Number(i int64) string {
	return fmt.Sprintf("MAEU%03d%05d%d", l.Prefix, i/8%100000, 1+i%8)
}

// create posts a new tracking request. When no answer comes back (the replica died, or the
// balancer answered 502/503/504) it tries again with the same number, as a careful client would:
// the first attempt may have been committed, in which case the retry finds a duplicate.
func (l *Load) create() {
	number := l.Number(l.next.Add(1))
	body := fmt.Sprintf(`{"data":{"type":"tracking_request","attributes":{"request_type":"bill_of_lading","request_number":%q,"scac":"MAEU"}}}`, number)
	for attempt := 0; attempt < 20; attempt++ {
		status, doc := l.do("create", "POST", "/v2/tracking_requests", body)
		switch {
		case status == http.StatusCreated:
			l.mu.Lock()
			l.acked = append(l.acked, Created{ID: dataID(doc), Number: number})
			l.mu.Unlock()
			return
		case noAnswer(status):
			l.mu.Lock()
			l.ambiguous[number] = true
			l.mu.Unlock()
			time.Sleep(time.Duration(100*(attempt+1)) * time.Millisecond) // a client's backoff, not synchronisation
		default:
			l.mu.Lock()
			if l.ambiguous[number] && status == http.StatusUnprocessableEntity && errorCode(doc) == "duplicate" {
				l.resolved[number] = true
			} else {
				l.note(fmt.Sprintf("create %s: %d %v", number, status, doc["errors"]))
			}
			l.mu.Unlock()
			return
		}
	}
	l.mu.Lock()
	l.note("create " + number + ": no answer after 20 attempts")
	l.mu.Unlock()
}

// noAnswer reports an outcome that tells nothing of whether the request was applied.
func noAnswer(status int) bool {
	return status == 0 || status == http.StatusBadGateway || status == http.StatusServiceUnavailable || status == http.StatusGatewayTimeout
}

// read is one of: a tracking request, a shipment with its containers, the shipments list.
func (l *Load) read() {
	l.mu.Lock()
	var trID, shipID string
	if n := len(l.acked); n > 0 {
		trID = l.acked[rand.IntN(n)].ID
	}
	if n := len(l.shipments); n > 0 {
		shipID = l.shipments[rand.IntN(n)]
	}
	l.mu.Unlock()
	switch k := rand.IntN(3); {
	case k == 0 && trID != "":
		status, doc := l.do("get tracking request", "GET", "/v2/tracking_requests/"+trID, "")
		if status == http.StatusOK {
			if id := relID(doc, "tracked_object"); id != "" {
				l.mu.Lock()
				if !slices.Contains(l.shipments, id) {
					l.shipments = append(l.shipments, id)
				}
				l.mu.Unlock()
			}
		}
	case k == 1 && shipID != "":
		status, doc := l.do(OpGetShipment, "GET", "/v2/shipments/"+shipID+"?include=containers", "")
		if status == http.StatusOK {
			l.mu.Lock()
			for _, c := range relIDs(doc, "containers") {
				if !slices.Contains(l.containers, c) {
					l.containers = append(l.containers, c)
				}
			}
			l.mu.Unlock()
		}
	default:
		l.do(OpListShipments, "GET", "/v2/shipments?page[size]=20", "")
	}
}

// refresh asks for an immediate lookup of a known container.
func (l *Load) refresh() {
	l.mu.Lock()
	var id string
	if n := len(l.containers); n > 0 {
		id = l.containers[rand.IntN(n)]
	}
	l.mu.Unlock()
	if id != "" {
		l.do("refresh container", "PATCH", "/v2/containers/"+id+"/refresh", "")
	}
}

// do sends one request and records its status and latency under op.
func (l *Load) do(op, method, path, body string) (int, map[string]any) {
	req, err := http.NewRequest(method, l.URL+path, strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	req.Header.Set("Authorization", "Token "+l.Key)
	if body != "" {
		req.Header.Set("Content-Type", "application/vnd.api+json")
	}
	start := time.Now()
	res, err := l.client.Do(req)
	status := 0
	var doc map[string]any
	if err != nil {
		l.mu.Lock()
		if len(l.transport) < 10 {
			l.transport = append(l.transport, fmt.Sprintf("%s %s %s: %v", start.UTC().Format("15:04:05.000"), method, path, err))
		}
		l.mu.Unlock()
	} else {
		raw, rerr := io.ReadAll(res.Body)
		res.Body.Close()
		status = res.StatusCode
		if rerr != nil {
			status = 0
		}
		json.Unmarshal(raw, &doc)
	}
	took := time.Since(start)
	l.mu.Lock()
	if l.statuses[op] == nil {
		l.statuses[op] = map[int]int{}
	}
	l.statuses[op][status]++
	if status >= 200 && status < 300 {
		l.latencies[op] = append(l.latencies[op], took)
		if took > SlowAfter {
			l.slow[op] = append(l.slow[op], start.Sub(l.began))
		}
	}
	if status == http.StatusInternalServerError {
		l.note(fmt.Sprintf("%s %s: 500 %v", method, path, doc["errors"]))
	}
	l.mu.Unlock()
	return status, doc
}

// note keeps the first answers no client should get; the caller holds l.mu.
func (l *Load) note(s string) {
	if len(l.unexpected) < 20 {
		l.unexpected = append(l.unexpected, s)
	}
}

// Acked returns every acknowledged create.
func (l *Load) Acked() []Created {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.acked)
}

// Unexpected returns the first answers no well-behaved client should get: 500s, and creates
// refused for another reason than a duplicate after a lost answer.
func (l *Load) Unexpected() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.unexpected)
}

// TransportErrors returns the first few requests that got no HTTP answer at all.
func (l *Load) TransportErrors() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.transport)
}

// Resolved returns how many creates got no answer at first and then found, on a retry, that the
// first attempt had been committed (a duplicate).
func (l *Load) Resolved() (ambiguous, committed int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.ambiguous), len(l.resolved)
}

// Report is a summary of the load for the test log and BENCHMARKS.md: per operation the count
// of each status, the rate of successes and the p50 and p99 latency.
func (l *Load) Report(elapsed time.Duration) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var ops []string
	for op := range l.statuses {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	var b strings.Builder
	fmt.Fprintf(&b, "%-20s %-28s %8s %9s %9s\n", "operation", "statuses", "ok/s", "p50", "p99")
	for _, op := range ops {
		var st []string
		var codes []int
		for s := range l.statuses[op] {
			codes = append(codes, s)
		}
		sort.Ints(codes)
		for _, s := range codes {
			st = append(st, fmt.Sprintf("%d×%d", s, l.statuses[op][s]))
		}
		lat := slices.Clone(l.latencies[op])
		slices.Sort(lat)
		fmt.Fprintf(&b, "%-20s %-28s %8.1f %9v %9v\n", op, strings.Join(st, " "),
			float64(len(lat))/elapsed.Seconds(), quantile(lat, 0.50), quantile(lat, 0.99))
	}
	return b.String()
}

// Slow tells when the answers slower than SlowAfter came, per operation: how many began in each
// minute of the load that had any, so that they can be set beside the kills and the jobs.
func (l *Load) Slow() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	for _, op := range slices.Sorted(maps.Keys(l.slow)) {
		perMinute := map[int]int{}
		for _, at := range l.slow[op] {
			perMinute[int(at/time.Minute)]++
		}
		var parts []string
		for _, m := range slices.Sorted(maps.Keys(perMinute)) {
			parts = append(parts, fmt.Sprintf("%d:%d", m, perMinute[m]))
		}
		fmt.Fprintf(&b, "%s: %d of %d over %v (minute:count) %s\n", op, len(l.slow[op]), len(l.latencies[op]), SlowAfter, strings.Join(parts, " "))
	}
	return b.String()
}

// Latency returns the p50 and p99 of op's successful requests and how many there were.
func (l *Load) Latency(op string) (p50, p99 time.Duration, n int) {
	l.mu.Lock()
	lat := slices.Clone(l.latencies[op])
	l.mu.Unlock()
	slices.Sort(lat)
	return quantile(lat, 0.50), quantile(lat, 0.99), len(lat)
}

// The operations whose latency the soak's verdicts judge.
const (
	OpGetShipment   = "get shipment"
	OpListShipments = "list shipments"
)

func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[int(q*float64(len(sorted)-1))].Round(100 * time.Microsecond)
}

// errorCode returns the code of a JSON:API error document's first error.
func errorCode(doc map[string]any) string {
	errs, _ := doc["errors"].([]any)
	if len(errs) == 0 {
		return ""
	}
	first, _ := errs[0].(map[string]any)
	code, _ := first["code"].(string)
	return code
}

func dataID(doc map[string]any) string {
	d, _ := doc["data"].(map[string]any)
	id, _ := d["id"].(string)
	return id
}

func relData(doc map[string]any, name string) any {
	d, _ := doc["data"].(map[string]any)
	rels, _ := d["relationships"].(map[string]any)
	rel, _ := rels[name].(map[string]any)
	return rel["data"]
}

func relID(doc map[string]any, name string) string {
	one, _ := relData(doc, name).(map[string]any)
	id, _ := one["id"].(string)
	return id
}

func relIDs(doc map[string]any, name string) []string {
	many, _ := relData(doc, name).([]any)
	var ids []string
	for _, m := range many {
		if one, ok := m.(map[string]any); ok {
			if id, ok := one["id"].(string); ok {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// Request sends one request with the cluster's key and decodes the JSON answer.
func (c *Cluster) Request(method, path, body string) (int, map[string]any, error) {
	req, err := http.NewRequest(method, c.URL+path, bytes.NewBufferString(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Token "+c.Key)
	if body != "" {
		req.Header.Set("Content-Type", "application/vnd.api+json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	var doc map[string]any
	err = json.NewDecoder(res.Body).Decode(&doc)
	return res.StatusCode, doc, err
}
