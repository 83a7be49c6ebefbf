package replicas_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/internal/replicas"
	"github.com/boxwatch/boxwatch/store/storetest"
)

func TestMain(m *testing.M) { replicas.Main(m) }

// recoveryBound is the bound on the recovery window: from a replica's death until none of
// the tracking requests it was looking up is left pending.
const recoveryBound = 60 * time.Second

// jobTimeout is the replicas' --job-timeout: the jobs of a dead replica must resume on the
// survivors within it. The lease (15 s) is shorter, so it decides.
const jobTimeout = 45 * time.Second

// scenario is one run of the kill test: a steady load, with kills and restarts spread evenly.
type scenario struct {
	replicas        int
	load            time.Duration
	kills           int
	creates, reads  float64
	refreshEvery    time.Duration
	seed            int // shipments written to the database before the load (soak)
	seedContainers  int // or, when not 0, as many shipments as make about this many containers
	refreshInterval time.Duration
	simSpeed        int           // how much faster the simulated world runs: more milestones, and more AIS
	seedSpread      time.Duration // the seeded shipments' refreshes come due evenly over this
	flags           []string      // more serve flags
	// sqlite runs one replica on a SQLite file, with no balancer in front (and no kills).
	sqlite bool
	// watchMemory samples each replica's memory and heap profile while the load runs, and
	// judges its growth (memory_test.go).
	watchMemory bool
	// receiverDelay is how long the receiver takes to answer a delivery: long enough, and a kill
	// finds the victim holding delivery claims whose recovery it measures.
	receiverDelay time.Duration
}

// TestKillReplica runs three replicas behind HAProxy under a mixed load, kills one with SIGKILL
// while it holds jobs and delivery claims, and starts it again, then counts: every acknowledged
// create readable, none left pending, no shipment or notification twice, every notification
// delivered. The dead replica's delivery claims must come back to a survivor within their lease.
func TestKillReplica(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three replicas behind HAProxy for about a minute; skipped with -short")
	}
	runScenario(t, scenario{replicas: 3, load: 40 * time.Second, kills: 1, creates: 8, reads: 30,
		refreshEvery: 7 * time.Second, refreshInterval: time.Minute, simSpeed: 10, receiverDelay: 300 * time.Millisecond})
}

func runScenario(t *testing.T, sc scenario) {
	ctx := context.Background()
	o := replicas.Options{Replicas: sc.replicas, Flags: append([]string{
		"--sim-latency", "1s", "--sim-speed", strconv.Itoa(sc.simSpeed), "--refresh-interval", sc.refreshInterval.String(),
		"--job-timeout", jobTimeout.String(), "--retry-scale", "0.01", "--limit-create", "0", "--limit-default", "0",
	}, sc.flags...)}
	if sc.sqlite {
		o.DSN, o.NoBalancer = filepath.Join(t.TempDir(), "boxwatch.db"), true
	} else {
		o.DSN = storetest.Postgres.DSN(t)
	}
	c := replicas.Start(t, o)
	open := func() database {
		var db database
		if sc.sqlite {
			db = openSQLiteFile(t, o.DSN)
		} else {
			db = openPostgres(t, o.DSN)
		}
		t.Cleanup(db.close)
		return db
	}
	db := open()

	receiver := replicas.NewSlowReceiver(t, sc.receiverDelay)
	webhookID := registerWebhook(t, c, receiver.URL)
	var seeded time.Time
	if sc.seed > 0 || sc.seedContainers > 0 {
		seeded = seedShipments(t, c, db, sc.seed, sc.seedContainers, sc.seedSpread)
	}

	load := &replicas.Load{URL: c.URL, Key: c.Key, CreatesPerSecond: sc.creates, ReadsPerSecond: sc.reads,
		RefreshEvery: sc.refreshEvery, Prefix: 100 + int(time.Now().Unix()%800)}
	if !seeded.IsZero() {
		// Reads of shipments reach the seeded ones too, wherever they lie in the table.
		load.Know(queryStrings(t, db, `SELECT CAST(id AS TEXT) FROM shipments WHERE bill_of_lading LIKE 'MAEU90%' ORDER BY random() LIMIT 10000`))
	}
	loadCtx, stopLoad := context.WithCancel(ctx)
	loadDone := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(loadDone)
		load.Run(loadCtx)
	}()
	defer func() {
		stopLoad()
		<-loadDone
	}()
	probe := startProbe(t, c, open()) // a connection of its own: a pgx.Conn serves one goroutine
	var memory *memoryWatch
	if sc.watchMemory {
		memory = startMemoryWatch(t, c, sc.load)
	}
	// What was measured is reported however the scenario ends: a soak stopped by a failure (a
	// replica that does not come back) still shows the load, memory and verdicts until then.
	var (
		elapsed time.Duration
		counted *counts // nil when the run stopped before counting
		windows []time.Duration
		killsAt []string // minute of the load each kill began at
	)
	defer func() {
		stopLoad()
		<-loadDone
		if elapsed == 0 {
			elapsed = time.Since(start)
			t.Logf("the scenario stopped early, %v into the load: the figures below are of that much", elapsed.Round(time.Second))
		}
		probe.stop()
		if memory != nil {
			memory.stop()
		}
		front := "through HAProxy to"
		if sc.sqlite {
			front = "straight to"
		}
		t.Logf("load for %v %s %d replica(s), %d kill(s) and restart(s):\n%s", elapsed.Round(time.Second), front,
			sc.replicas, len(windows), load.Report(elapsed))
		t.Logf("answers slower than %v, by the minute of the load their request began in (kills began at minutes %s):\n%s",
			replicas.SlowAfter, strings.Join(killsAt, ", "), load.Slow())
		if errs := load.TransportErrors(); len(errs) > 0 {
			t.Logf("requests without any HTTP answer (retried by the load as a client would): %s", strings.Join(errs, "; "))
		}
		for i, w := range windows {
			t.Logf("kill %d: recovery window %v (bound %v; jobs resumed on the survivors within the job timeout %v)", i+1,
				w.Round(100*time.Millisecond), recoveryBound, jobTimeout)
		}
		probe.report(t)
		if memory == nil {
			return
		}
		verdicts := memory.report(t)
		if !seeded.IsZero() {
			t.Logf("database at the end:\n%s", db.sizes())
		}
		reportVerdicts(t, append(verdicts, loadVerdicts(load, probe, counted)...))
	}()

	phase := sc.load / time.Duration(sc.kills+1)
	for k := range sc.kills {
		// The load runs for a phase before each kill: the pace of the scenario, not a wait on state.
		time.Sleep(time.Until(start.Add(time.Duration(k+1) * phase)))
		victim := (k + 1) % sc.replicas // r1, r2, …, r0, r1: each replica in turn
		killsAt = append(killsAt, fmt.Sprintf("%.1f", time.Since(start).Minutes()))
		windows = append(windows, killAndRestart(t, c, db, receiver, victim))
	}
	time.Sleep(time.Until(start.Add(sc.load)))
	stopLoad()
	<-loadDone
	elapsed = time.Since(start)
	probe.stop()
	if memory != nil {
		memory.stop()
	}

	// No tracking request stays pending once the load stops: each is looked up within the bound.
	end := time.Now()
	pending := waitCount(t, db, recoveryBound+30*time.Second, "tracking requests still pending",
		`SELECT count(*) FROM tracking_requests WHERE status = 'pending'`)
	drain := time.Since(end)
	t.Logf("after the load stopped, the last pending tracking request left pending in %v", drain.Round(100*time.Millisecond))
	if pending > 0 {
		t.Errorf("%d tracking requests still pending %v after the load stopped", pending, drain.Round(time.Second))
	}

	// Every notification is delivered: none left pending for the receiver.
	undelivered := waitCount(t, db, 2*time.Minute, "notifications not delivered",
		`SELECT count(*) FROM webhook_notifications WHERE webhook_id = $1 AND delivery_status <> 'succeeded'`, webhookID)
	if undelivered > 0 {
		t.Errorf("%d notifications not delivered two minutes after the load stopped", undelivered)
	}
	// Terminal checks and refreshes go on after the load: the invariants hold for what was
	// there, and delivered, by now.
	settled := time.Now()

	if !seeded.IsZero() {
		// The copies are real shipments: their refreshes come due and run like any other.
		refreshed := queryCount(t, db, `SELECT count(*) FROM shipments WHERE bill_of_lading LIKE 'MAEU90%' AND last_succeeded_at > $1`,
			db.at(seeded))
		copies := queryCount(t, db, `SELECT count(*) FROM shipments WHERE bill_of_lading LIKE 'MAEU9%'`)
		expected := float64(copies) * float64(elapsed) / float64(sc.seedSpread)
		t.Logf("seeded shipments refreshed during the run: %d (about %.0f came due)", refreshed, expected)
		if refreshed == 0 && expected >= 20 {
			t.Errorf("no seeded shipment refreshed, where about %.0f came due", expected)
		}
	}
	acked := load.Acked()
	counts := checkInvariants(t, c, db, receiver, load, acked, webhookID, settled)
	counted = &counts
	ambiguous, committed := load.Resolved()
	t.Logf("counts: %d creates acknowledged (201), all readable: %d; %d creates without an answer at first, of which "+
		"%d had been committed (a retry found the duplicate); tracking requests by status: %s; "+
		"shipments: %d, created twice for one request: %d; events: %d, notifications: %d (to the receiver: %d distinct, %d repeats "+
		"with the same webhook-id), lost: %d, duplicated: %d; AIS positions stored: %d",
		len(acked), counts.readable, ambiguous, committed, counts.byStatus, counts.shipments, counts.twice, counts.events,
		counts.notifications, counts.received, counts.repeats, counts.lost, counts.duplicated, counts.positions)
}

// killAndRestart kills replica victim and measures the recovery window: from the kill until
// every job running at that moment (the victim's among them) has been taken up and finished, and
// none of the tracking requests those jobs were looking up is still pending. It checks that the
// delivery claims the victim held come back to a survivor within their lease (claimRecovery).
// Then it starts the victim again and waits until the balancer sends it traffic.
func killAndRestart(t *testing.T, c *replicas.Cluster, db database, receiver *replicas.Receiver, victim int) time.Duration {
	t.Helper()
	name := c.Replicas()[victim].Name
	seen := make([]int, len(c.Replicas())) // each survivor's log lines before the kill
	for i := range seen {
		seen[i] = len(c.Log(i))
	}
	// Kill the victim while it works: wait until it holds a running job. River's client id,
	// logged at start, is the last of a job's attempted_by.
	client := riverClientID(t, c, victim)
	deadline := time.Now().Add(time.Minute)
	for queryCount(t, db, `SELECT count(*) FROM river_job WHERE state = 'running' AND attempted_by[array_length(attempted_by, 1)] = $1`, client) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%s ran no job for a minute under the load", name)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// And while it has deliveries in flight (a receiver that answers at once has none to wait
	// for), so that it dies holding their claims.
	var inFlight, victims int
	for wait := time.Now().Add(30 * time.Second); time.Now().Before(wait); time.Sleep(10 * time.Millisecond) {
		if inFlight, victims = receiver.InFlight(c.LocalPorts(victim)); victims > 0 {
			break
		}
	}
	c.Kill(victim)
	killed := time.Now()
	claims := liveClaims(t, db)
	held := queryCount(t, db, `SELECT count(*) FROM river_job WHERE state = 'running' AND attempted_by[array_length(attempted_by, 1)] = $1`, client)
	jobs := queryStrings(t, db, `SELECT id::text FROM river_job WHERE state = 'running'`)
	requests := queryStrings(t, db, `SELECT j.args->>'tracking_request_id' FROM river_job j
		JOIN tracking_requests tr ON tr.id::text = j.args->>'tracking_request_id'
		WHERE j.state = 'running' AND j.kind = 'lookup' AND tr.status = 'pending'`)
	backlog := queryStrings(t, db, `SELECT id::text FROM tracking_requests WHERE status = 'pending'`)
	t.Logf("killed %s (SIGKILL) holding %d running jobs: %d jobs running in all replicas, looking up %d tracking requests; %d tracking requests pending in all; "+
		"%d deliveries in flight to the receiver, %d of them from %s; %d live delivery claims in all replicas", name, held, len(jobs), len(requests), len(backlog),
		inFlight, victims, name, len(claims))
	recovery := newClaimRecovery(claims, killed)
	c.WaitBalancer(name, "DOWN")
	t.Logf("haproxy marked %s down %v after the kill", name, time.Since(killed).Round(100*time.Millisecond))

	var window time.Duration
	deadline = killed.Add(recoveryBound + 30*time.Second)
	for {
		recovery.poll(t, db, receiver.Abandoned())
		left := queryCount(t, db, `SELECT count(*) FROM river_job WHERE id::text = ANY($1) AND state IN ('running', 'available')`, jobs)
		left += queryCount(t, db, `SELECT count(*) FROM tracking_requests WHERE status = 'pending' AND id::text = ANY($1)`, requests)
		if left == 0 && window == 0 {
			window = time.Since(killed)
		}
		if window > 0 && recovery.done() {
			break
		}
		if time.Now().After(deadline) {
			if window == 0 {
				t.Fatalf("%d jobs running at the kill of %s, or the tracking requests they looked up, are not done %v later",
					left, name, time.Since(killed).Round(time.Second))
			}
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	recovery.check(t, name)
	if window >= recoveryBound {
		t.Errorf("recovery window %v, want under %v", window, recoveryBound)
	}
	if window >= jobTimeout {
		t.Errorf("the dead replica's jobs resumed after %v, want within the job timeout %v", window, jobTimeout)
	}
	taken := 0
	for i := range c.Replicas() {
		if i == victim {
			continue
		}
		for _, line := range c.Log(i)[seen[i]:] {
			if m := tookUp.FindStringSubmatch(line); m != nil {
				n, _ := strconv.Atoi(m[1])
				taken += n
			}
		}
	}
	if taken == 0 && held > 0 {
		t.Errorf("%s died holding %d running jobs, and no survivor logged taking any up", name, held)
	}
	// The backlog is every request pending at the kill, wherever it was: what is left of it says
	// how loaded the replicas are, not what the kill cost.
	left := queryCount(t, db, `SELECT count(*) FROM tracking_requests WHERE status = 'pending' AND id::text = ANY($1)`, backlog)
	t.Logf("%s: recovery window %v: the survivors took up %d jobs of the dead replica and finished them; "+
		"of the %d tracking requests pending at the kill, %d were still pending then (the backlog)", name,
		window.Round(100*time.Millisecond), taken, len(backlog), left)

	c.Start(victim)
	c.WaitBalancer(name, "UP")
	t.Logf("restarted %s; haproxy marked it up %v after the kill", name, time.Since(killed).Round(100*time.Millisecond))
	return window
}

// riverClientID returns the job queue's client id of replica i's current run, from its log.
func riverClientID(t *testing.T, c *replicas.Cluster, i int) string {
	t.Helper()
	for _, line := range c.Log(i) {
		if m := clientStarted.FindStringSubmatch(line); m != nil {
			return m[1]
		}
	}
	t.Fatalf("replica %s never logged its job queue's client id", c.Replicas()[i].Name)
	return ""
}

var clientStarted = regexp.MustCompile(`"msg":"River client started".*"client_id":"([^"]+)"`)

// tookUp matches a replica's log line of the jobs it took back from a dead process.
var tookUp = regexp.MustCompile(`"msg":"took up the jobs of a dead process".*"jobs":(\d+)`)

type counts struct {
	readable, shipments, twice, events, notifications, received, repeats, lost, duplicated, positions int
	// announcedTwice counts events the receiver got under more than one webhook-id.
	announcedTwice int
	byStatus       string
}

// checkInvariants counts what the issue asks and fails the test on any loss or duplicate.
func checkInvariants(t *testing.T, c *replicas.Cluster, db database, receiver *replicas.Receiver, load *replicas.Load,
	acked []replicas.Created, webhookID string, settled time.Time) counts {
	t.Helper()
	var n counts

	// Every 201 is readable through the balancer, and no longer pending.
	var mu sync.Mutex
	var wg sync.WaitGroup
	work := make(chan replicas.Created)
	var unreadable []string
	for range 8 {
		wg.Go(func() {
			for a := range work {
				status, doc, err := c.Request("GET", "/v2/tracking_requests/"+a.ID, "")
				mu.Lock()
				if err != nil || status != http.StatusOK {
					unreadable = append(unreadable, fmt.Sprintf("%s (%s): %d %v", a.ID, a.Number, status, err))
				} else if st := attr(doc, "status"); st == "pending" {
					unreadable = append(unreadable, fmt.Sprintf("%s (%s): still pending", a.ID, a.Number))
				} else {
					n.readable++
				}
				mu.Unlock()
			}
		})
	}
	for _, a := range acked {
		work <- a
	}
	close(work)
	wg.Wait()
	if len(unreadable) > 0 {
		t.Errorf("%d of %d acknowledged creates are not readable or still pending, such as %s", len(unreadable), len(acked),
			strings.Join(unreadable[:min(5, len(unreadable))], "; "))
	}

	// Every tracking request in the database was acknowledged, or was a create whose answer was lost
	// and whose retry found it: none appeared from nowhere, none twice.
	_, committed := load.Resolved()
	loadRequests := queryCount(t, db, `SELECT count(*) FROM tracking_requests WHERE request_number LIKE $1`,
		fmt.Sprintf("MAEU%03d%%", load.Prefix))
	if want := len(acked) + committed; loadRequests != want {
		t.Errorf("%d tracking requests of the load in the database, want %d (%d acknowledged + %d committed without an answer)",
			loadRequests, want, len(acked), committed)
	}
	n.byStatus = strings.Join(queryStrings(t, db, `SELECT status || ' ' || count(*) FROM tracking_requests GROUP BY status ORDER BY status`), ", ")
	if failed := queryCount(t, db, `SELECT count(*) FROM tracking_requests WHERE status NOT IN ('created', 'tracking_stopped') AND request_number LIKE $1`,
		fmt.Sprintf("MAEU%03d%%", load.Prefix)); failed > 0 {
		t.Errorf("%d of the load's tracking requests did not end created or tracking_stopped (%s): the simulator accepts every one", failed, n.byStatus)
	}

	// One shipment per created request, none twice; a number tracked once.
	n.shipments = queryCount(t, db, `SELECT count(*) FROM shipments`)
	n.twice = queryCount(t, db, `SELECT count(*) FROM tracking_requests tr WHERE tr.status = 'created'
		AND (SELECT count(*) FROM shipments s WHERE s.tracking_request_id = tr.id) <> 1`)
	n.twice += queryCount(t, db, `SELECT count(*) FROM (SELECT scac, bill_of_lading FROM shipments
		GROUP BY account_id, scac, bill_of_lading HAVING count(*) > 1) d`)
	if n.twice > 0 {
		t.Errorf("%d tracking requests or numbers with other than one shipment", n.twice)
	}

	// Every subscribed event has exactly one notification for the webhook, and reached the receiver.
	// NOT IN over the webhook's notifications, not a correlated NOT EXISTS: SQLite has no index on
	// event_id, and an ephemeral one built once keeps the count linear in the events.
	n.events = queryCount(t, db, `SELECT count(*) FROM events e JOIN webhooks w ON w.id = $1
		WHERE e.created_at >= w.created_at AND e.created_at <= $2 AND `+db.subscribed(), webhookID, db.at(settled))
	n.lost = queryCount(t, db, `SELECT count(*) FROM events e JOIN webhooks w ON w.id = $1
		WHERE e.created_at >= w.created_at AND e.created_at <= $2 AND `+db.subscribed()+`
		AND e.id NOT IN (SELECT event_id FROM webhook_notifications WHERE webhook_id = $1)`, webhookID, db.at(settled))
	n.duplicated = queryCount(t, db, `SELECT count(*) FROM (SELECT event_id FROM webhook_notifications WHERE webhook_id = $1
		GROUP BY event_id HAVING count(*) > 1) d`, webhookID)
	ids := queryStrings(t, db, `SELECT CAST(id AS TEXT) FROM webhook_notifications WHERE webhook_id = $1 AND created_at <= $2`,
		webhookID, db.at(settled))
	n.notifications = len(ids)
	got := receiver.WebhookIDs()
	for _, id := range ids {
		if !got[id] {
			n.lost++
		}
	}
	var problems []string
	n.received, n.repeats, n.announcedTwice, problems = receiver.Check()
	if n.received < n.notifications { // more may have come since settled, for events of after it
		problems = append(problems, fmt.Sprintf("the receiver got %d distinct webhook-ids for %d notifications", n.received, n.notifications))
	}
	if n.lost > 0 || n.duplicated > 0 || len(problems) > 0 {
		t.Errorf("notifications: %d lost, %d duplicated; %s", n.lost, n.duplicated, strings.Join(problems[:min(5, len(problems))], "; "))
	}
	if n.notifications == 0 {
		t.Error("no notification at all: the webhook check proved nothing")
	}
	n.positions = queryCount(t, db, `SELECT count(*) FROM vessel_positions`)

	if bad := load.Unexpected(); len(bad) > 0 {
		t.Errorf("answers no client should get: %s", strings.Join(bad, "; "))
	}
	return n
}

func attr(doc map[string]any, name string) any {
	d, _ := doc["data"].(map[string]any)
	a, _ := d["attributes"].(map[string]any)
	return a[name]
}

// registerWebhook subscribes the receiver to every event boxwatch emits and returns its id.
func registerWebhook(t *testing.T, c *replicas.Cluster, url string) string {
	t.Helper()
	status, doc, err := c.Request("GET", "/v2/webhooks/events", "")
	if err != nil || status != http.StatusOK {
		t.Fatalf("GET /v2/webhooks/events: %d %v", status, err)
	}
	var events []string
	for _, cat := range doc["data"].([]any) {
		for _, e := range cat.(map[string]any)["attributes"].(map[string]any)["events"].([]any) {
			if e := e.(map[string]any); e["emitted"] == true {
				events = append(events, strconv.Quote(e["name"].(string)))
			}
		}
	}
	body := fmt.Sprintf(`{"data":{"type":"webhook","attributes":{"url":%q,"events":[%s]}}}`, url, strings.Join(events, ","))
	status, doc, err = c.Request("POST", "/v2/webhooks", body)
	if err != nil || status != http.StatusCreated {
		t.Fatalf("POST /v2/webhooks: %d %v %v", status, err, doc)
	}
	return doc["data"].(map[string]any)["id"].(string)
}

func queryCount(t *testing.T, db database, q string, args ...any) int {
	t.Helper()
	list, err := db.query(q, args...)
	if err != nil || len(list) != 1 {
		t.Fatalf("%s: %v (%d rows)", q, err, len(list))
	}
	n, ok := list[0].(int64)
	if !ok {
		t.Fatalf("%s: a count of type %T", q, list[0])
	}
	return int(n)
}

func queryStrings(t *testing.T, db database, q string, args ...any) []string {
	t.Helper()
	list, err := db.query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	var strs []string
	for _, v := range list {
		if b, ok := v.([]byte); ok {
			v = string(b)
		}
		strs = append(strs, fmt.Sprint(v))
	}
	return strs
}

// waitCount polls q until it counts 0 or limit passes, and returns the last count.
func waitCount(t *testing.T, db database, limit time.Duration, what string, q string, args ...any) int {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		n := queryCount(t, db, q, args...)
		if n == 0 || time.Now().After(deadline) {
			return n
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// soakEnv reads a duration from the environment, or def.
func soakEnv(t *testing.T, name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return d
}
