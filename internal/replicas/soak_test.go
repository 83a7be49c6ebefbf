package replicas_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/boxwatch/boxwatch/internal/replicas"
	"github.com/boxwatch/boxwatch/internal/testenv"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking"
)

// TestSoak is the long form of TestKillReplica, run by make soak: BOXWATCH_SOAK=1 turns it on,
// BOXWATCH_SOAK_DURATION sets the load's length (default 10m), BOXWATCH_SOAK_REPLICAS the
// replicas (default 2, as issue 15 asks), BOXWATCH_SOAK_KILLS the kills and restarts spread over
// it (default 4, each of another replica), BOXWATCH_SOAK_SHIPMENTS the shipments written to the
// database before the load (default 100000), or BOXWATCH_SOAK_CONTAINERS their containers
// instead (make soak-long: 1000000), BOXWATCH_SOAK_SPREAD the time over which the seeded
// shipments' refreshes come due (default 96h). Each replica's memory is sampled every minute and
// judged after warm-up (memory_test.go: BOXWATCH_SOAK_SAMPLE_EVERY, BOXWATCH_SOAK_WARMUP, and
// BOXWATCH_SOAK_PROFILES to keep the heap profiles); the slope is judged per run of a replica, so
// measure it with fewer kills (BOXWATCH_SOAK_KILLS=0) when the load is short.
func TestSoak(t *testing.T) {
	testenv.OptIn(t, "BOXWATCH_SOAK", "make soak")
	storetest.RequirePostgres(t)
	n := soakCount(t, "BOXWATCH_SOAK_REPLICAS", 2)
	if n < 1 {
		t.Fatalf("BOXWATCH_SOAK_REPLICAS=%d: want at least 1", n)
	}
	seed, containers := soakSeed(t)
	runScenario(t, scenario{replicas: n, load: soakEnv(t, "BOXWATCH_SOAK_DURATION", 10*time.Minute), kills: soakCount(t, "BOXWATCH_SOAK_KILLS", 4),
		creates: 6, reads: 30, refreshEvery: 7 * time.Second, seed: seed, seedContainers: containers, refreshInterval: 12 * time.Hour, simSpeed: 4,
		seedSpread: soakEnv(t, "BOXWATCH_SOAK_SPREAD", 4*24*time.Hour), flags: soakWebhookFlags, watchMemory: true})
}

// soakCount reads a count from the environment, or def.
func soakCount(t *testing.T, name string, def int) int {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a count", name, s)
	}
	return n
}

// soakSeed reads what to seed: BOXWATCH_SOAK_CONTAINERS, when set, wins over
// BOXWATCH_SOAK_SHIPMENTS (default 100000 shipments).
func soakSeed(t *testing.T) (shipments, containers int) {
	t.Helper()
	if c := soakCount(t, "BOXWATCH_SOAK_CONTAINERS", 0); c > 0 {
		return 0, c
	}
	return soakCount(t, "BOXWATCH_SOAK_SHIPMENTS", 100000), 0
}

// The receiver stands for a busy account's endpoint: the default bound of 4 deliveries in flight
// drains about 4 a second on the saturated soak machine (BENCHMARKS.md).
var soakWebhookFlags = []string{"--webhook-per-endpoint", "16", "--webhook-per-account", "32"}

// TestSoakSQLite is the soak on one node with SQLite, run by make soak after TestSoak: one serve
// process on a SQLite file, no balancer and no kills, the same seeded shipments and mixed load.
// BOXWATCH_SOAK_DURATION, BOXWATCH_SOAK_SHIPMENTS or BOXWATCH_SOAK_CONTAINERS (make soak-long:
// 300000) and BOXWATCH_SOAK_SPREAD tune it as they tune TestSoak.
func TestSoakSQLite(t *testing.T) {
	testenv.OptIn(t, "BOXWATCH_SOAK", "make soak")
	seed, containers := soakSeed(t)
	runScenario(t, scenario{replicas: 1, sqlite: true, load: soakEnv(t, "BOXWATCH_SOAK_DURATION", 10*time.Minute),
		creates: 6, reads: 30, refreshEvery: 7 * time.Second, seed: seed, seedContainers: containers, refreshInterval: 12 * time.Hour, simSpeed: 4,
		seedSpread: soakEnv(t, "BOXWATCH_SOAK_SPREAD", 4*24*time.Hour), flags: soakWebhookFlags, watchMemory: true})
}

// seedShipments writes n tracked shipments, with their tracking requests and containers, in one
// transaction (with containers > 0, as many shipments as make about that many containers, the
// real lookups' containers a shipment on average): copies of shipments the simulator created for a few real lookups, each under a new
// bill of lading. It returns when it began copying. The copies' refreshes come due evenly over
// spread, and the terminal checks of their boxes that have them evenly until their template's
// next check (an interval of checks at least), as in a service that has run a while: not all at
// the template's moment. The first refresh of a copy reconciles it with what the simulator says of its new
// number, and that makes a dozen events or more, where a real refresh makes none or one: the
// spread keeps that flood of notifications to what one webhook can take (see BENCHMARKS.md).
func seedShipments(t *testing.T, c *replicas.Cluster, db database, n, containers int, spread time.Duration) (copied time.Time) {
	t.Helper()
	ctx := context.Background()
	const templates = 16
	load := &replicas.Load{Prefix: 999}
	for i := range templates {
		body := fmt.Sprintf(`{"data":{"type":"tracking_request","attributes":{"request_type":"bill_of_lading","request_number":%q,"scac":"MAEU"}}}`,
			load.Number(int64(i)))
		if status, doc, err := c.Request("POST", "/v2/tracking_requests", body); err != nil || status != 201 {
			t.Fatalf("template create: %d %v %v", status, err, doc)
		}
	}
	if left := waitCount(t, db, time.Minute, "templates pending", `SELECT count(*) FROM tracking_requests WHERE status = 'pending'`); left > 0 {
		t.Fatalf("%d template lookups still pending after a minute", left)
	}
	if containers > 0 {
		ships := queryCount(t, db, `SELECT count(*) FROM shipments WHERE stopped_at IS NULL`)
		conts := queryCount(t, db, `SELECT count(*) FROM containers c JOIN shipments s ON s.id = c.shipment_id WHERE s.stopped_at IS NULL`)
		if conts == 0 {
			t.Fatal("the real lookups found no container to copy")
		}
		n = (containers*ships + conts - 1) / conts
	}
	before := queryCount(t, db, `SELECT count(*) FROM containers`)
	start := time.Now()
	if lite, ok := db.(*sqliteDB); ok {
		seedSQLite(t, lite, n, spread)
	} else {
		seedPostgres(ctx, t, db.(*postgresDB).conn, n, spread)
	}
	took := time.Since(start)
	written := queryCount(t, db, `SELECT count(*) FROM containers`) - before
	t.Logf("seeded %d shipments (%d containers, %.0f a second; the database holds %d shipments) from %d real lookups in %v, ANALYZE included",
		n, written, float64(written)/took.Seconds(), queryCount(t, db, `SELECT count(*) FROM shipments`), templates, took.Round(100*time.Millisecond))
	t.Logf("database after seeding:\n%s", db.sizes())
	return start
}

func seedPostgres(ctx context.Context, t *testing.T, db *pgx.Conn, n int, spread time.Duration) {
	t.Helper()
	tx, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	// Seeded numbers are MAEU9 followed by eight digits, apart from every number the load uses
	// (its prefixes run from 100 to 899).
	steps := []string{
		`CREATE TEMP TABLE seed_template ON COMMIT DROP AS
		 SELECT row_number() OVER (ORDER BY tr.id) - 1 AS k, tr.id AS tr_id, s.id AS ship_id
		 FROM tracking_requests tr JOIN shipments s ON s.tracking_request_id = tr.id WHERE s.stopped_at IS NULL`,
		fmt.Sprintf(`CREATE TEMP TABLE seed_map ON COMMIT DROP AS
		 SELECT g.i, t.tr_id, t.ship_id, gen_random_uuid() AS new_tr, gen_random_uuid() AS new_ship,
		        'MAEU9' || lpad(g.i::text, 7, '0') || right(tr.request_number, 1) AS number,
		        now() - (g.i * interval '20 seconds') AS created
		 FROM generate_series(1, %d) g(i)
		 JOIN seed_template t ON t.k = g.i %% (SELECT count(*) FROM seed_template)
		 JOIN tracking_requests tr ON tr.id = t.tr_id`, n),
		copyRows(ctx, t, tx, "tracking_requests", "tr", "JOIN tracking_requests tr ON tr.id = m.tr_id", map[string]string{
			"id": "m.new_tr", "request_number": "m.number", "shipment_id": "m.new_ship", "created_at": "m.created", "updated_at": "m.created"}),
		copyRows(ctx, t, tx, "shipments", "s", "JOIN shipments s ON s.id = m.ship_id", map[string]string{
			"id": "m.new_ship", "tracking_request_id": "m.new_tr", "bill_of_lading": "m.number", "normalized_number": "m.number",
			"reference_number": "m.number", "created_at": "m.created", "updated_at": "m.created",
			"next_refresh_at": fmt.Sprintf("now() + random() * interval '%d seconds'", int(spread.Seconds()))}),
		copyRows(ctx, t, tx, "containers", "c", "JOIN containers c ON c.shipment_id = m.ship_id", map[string]string{
			"id": "gen_random_uuid()", "shipment_id": "m.new_ship", "created_at": "m.created", "updated_at": "m.created",
			"terminal_next_check_at": fmt.Sprintf(`CASE WHEN c.terminal_next_check_at IS NOT NULL
				THEN now() + random() * GREATEST(c.terminal_next_check_at - now(), interval '%d seconds') END`,
				int(tracking.DefaultTerminalInterval.Seconds()))}),
	}
	for _, q := range steps {
		if _, err := tx.Exec(ctx, q); err != nil {
			t.Fatalf("seeding: %v\n%s", err, q)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, `ANALYZE`); err != nil {
		t.Fatal(err)
	}
}

// seedSQLite makes the same copies as seedPostgres in SQLite's dialect: ids are random UUIDs,
// times microseconds since the epoch, as the service writes them.
func seedSQLite(t *testing.T, db *sqliteDB, n int, spread time.Duration) {
	t.Helper()
	const uuid = `lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' ||
		substr('89ab', 1 + abs(random()) % 4, 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))`
	now := time.Now().UnixMicro()
	tx, err := db.db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	columns := func(table string) []string {
		rows, err := tx.Query(`SELECT name FROM pragma_table_info(?) ORDER BY cid`, table)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var cols []string
		for rows.Next() {
			var c string
			if err := rows.Scan(&c); err != nil {
				t.Fatal(err)
			}
			cols = append(cols, c)
		}
		return cols
	}
	steps := []string{
		`CREATE TEMP TABLE seed_template AS
		 SELECT row_number() OVER (ORDER BY tr.id) - 1 AS k, tr.id AS tr_id, s.id AS ship_id
		 FROM tracking_requests tr JOIN shipments s ON s.tracking_request_id = tr.id WHERE s.stopped_at IS NULL`,
		fmt.Sprintf(`CREATE TEMP TABLE seed_map AS
		 WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < %d)
		 SELECT g.i AS i, t.tr_id AS tr_id, t.ship_id AS ship_id, %s AS new_tr, %s AS new_ship,
		        'MAEU9' || printf('%%07d', g.i) || substr(tr.request_number, -1) AS number,
		        %d - g.i * 20000000 AS created
		 FROM g JOIN seed_template t ON t.k = g.i %% (SELECT count(*) FROM seed_template)
		 JOIN tracking_requests tr ON tr.id = t.tr_id`, n, uuid, uuid, now),
		copyInsert("tracking_requests", "tr", "JOIN tracking_requests tr ON tr.id = m.tr_id", columns("tracking_requests"), map[string]string{
			"id": "m.new_tr", "request_number": "m.number", "shipment_id": "m.new_ship", "created_at": "m.created", "updated_at": "m.created"}),
		copyInsert("shipments", "s", "JOIN shipments s ON s.id = m.ship_id", columns("shipments"), map[string]string{
			"id": "m.new_ship", "tracking_request_id": "m.new_tr", "bill_of_lading": "m.number", "normalized_number": "m.number",
			"reference_number": "m.number", "created_at": "m.created", "updated_at": "m.created",
			"next_refresh_at": fmt.Sprintf("%d + abs(random()) %% %d", now, spread.Microseconds())}),
		copyInsert("containers", "c", "JOIN containers c ON c.shipment_id = m.ship_id", columns("containers"), map[string]string{
			"id": uuid, "shipment_id": "m.new_ship", "created_at": "m.created", "updated_at": "m.created",
			"terminal_next_check_at": fmt.Sprintf(`CASE WHEN c.terminal_next_check_at IS NOT NULL
				THEN %d + abs(random()) %% max(c.terminal_next_check_at - %d, %d) END`, now, now, tracking.DefaultTerminalInterval.Microseconds())}),
		`DROP TABLE temp.seed_map`,
		`DROP TABLE temp.seed_template`,
	}
	for _, q := range steps {
		if _, err := tx.Exec(q); err != nil {
			t.Fatalf("seeding: %v\n%s", err, q)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.db.Exec(`ANALYZE`); err != nil {
		t.Fatal(err)
	}
}

// copyRows returns an INSERT that copies, for every row of seed_map m, the row of table joined by
// join, with the columns named in set replaced by their expressions.
func copyRows(ctx context.Context, t *testing.T, tx pgx.Tx, table, alias, join string, set map[string]string) string {
	t.Helper()
	rows, err := tx.Query(ctx, `SELECT column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`, table)
	if err != nil {
		t.Fatal(err)
	}
	cols, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return copyInsert(table, alias, join, cols, set)
}

// copyInsert is copyRows's statement for the table's columns cols.
func copyInsert(table, alias, join string, cols []string, set map[string]string) string {
	exprs := make([]string, len(cols))
	for i, col := range cols {
		exprs[i] = alias + "." + col
		if e, ok := set[col]; ok {
			exprs[i] = e
		}
	}
	return fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM seed_map m %s", table, strings.Join(cols, ", "), strings.Join(exprs, ", "), join)
}

// probe samples, every few seconds while the load runs, each replica's resident memory and the
// refresh lag (how late the oldest due refresh is, counted from the probe's start at the
// earliest: the seeding's own time is not the service's lateness).
type probe struct {
	stopc chan struct{}
	done  chan struct{}
	once  sync.Once

	mu      sync.Mutex
	samples []string
	maxLag  time.Duration
	// maxTerminalLag is how late the oldest due terminal check ever was, maxTerminalDue the most
	// checks due at once.
	maxTerminalLag time.Duration
	maxTerminalDue int
	// maxWait is the longest the oldest runnable job of each kind waited for a worker.
	maxWait map[string]time.Duration
	rss     map[string][]int // replica → kB, in order
}

func startProbe(t *testing.T, c *replicas.Cluster, db database) *probe {
	t.Helper()
	p := &probe{stopc: make(chan struct{}), done: make(chan struct{}), rss: map[string][]int{}, maxWait: map[string]time.Duration{}}
	since := time.Now()
	go func() {
		defer close(p.done)
		tick := time.NewTicker(10 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-p.stopc:
				return
			case <-tick.C:
			}
			lag := db.refreshLag(since)
			terminalLag, terminalDue := db.terminalLag(since)
			waits := make([]string, len(probedKinds))
			for i, kind := range probedKinds {
				w := db.jobWait(kind, since)
				waits[i] = fmt.Sprintf("%s %v", kind, w.Round(time.Second))
				p.mu.Lock()
				p.maxWait[kind] = max(p.maxWait[kind], w)
				p.mu.Unlock()
			}
			p.mu.Lock()
			p.maxLag = max(p.maxLag, lag)
			p.maxTerminalLag, p.maxTerminalDue = max(p.maxTerminalLag, terminalLag), max(p.maxTerminalDue, terminalDue)
			var mem []string
			for i, r := range c.Replicas() {
				if kb := c.RSS(i); kb > 0 {
					p.rss[r.Name] = append(p.rss[r.Name], kb)
					mem = append(mem, fmt.Sprintf("%s %d MiB (heap in use %d MiB)", r.Name, kb/1024, heapInUse(r.AdminAddr)>>20))
				}
			}
			p.samples = append(p.samples, fmt.Sprintf("refresh lag %v; terminal checks %d due, the oldest %v late; waiting for a worker: %s; %s",
				lag.Round(time.Second), terminalDue, terminalLag.Round(time.Second), strings.Join(waits, ", "), strings.Join(mem, ", ")))
			p.mu.Unlock()
		}
	}()
	return p
}

// probedKinds are the job kinds whose wait for a worker the probe reports: a first lookup is
// what a user waits for; terminal checks run in a queue of their own.
var probedKinds = []string{"lookup", "refresh", "terminal_check"}

// heapInUse reads the Go heap in use from a replica's metrics, 0 when they do not answer.
func heapInUse(admin string) int {
	client := http.Client{Timeout: 5 * time.Second}
	res, err := client.Get("http://" + admin + "/metrics")
	if err != nil {
		return 0
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	for line := range strings.Lines(string(body)) {
		if rest, ok := strings.CutPrefix(line, "go_memstats_heap_inuse_bytes "); ok {
			f, _ := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			return int(f)
		}
	}
	return 0
}

// stop ends the sampling; it may be called again.
func (p *probe) stop() {
	p.once.Do(func() { close(p.stopc) })
	<-p.done
}

func (p *probe) report(t *testing.T) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var mem []string
	for name, kbs := range p.rss {
		if len(kbs) > 0 {
			mem = append(mem, fmt.Sprintf("%s first %d MiB, last %d MiB", name, kbs[0]/1024, kbs[len(kbs)-1]/1024))
		}
	}
	var waits []string
	for _, kind := range probedKinds {
		waits = append(waits, fmt.Sprintf("%s %v", kind, p.maxWait[kind].Round(time.Second)))
	}
	t.Logf("largest refresh lag %v; longest wait of a runnable job for a worker: %s; resident memory (samples of the current run of each replica): %s",
		p.maxLag.Round(time.Second), strings.Join(waits, ", "), strings.Join(mem, "; "))
	if testing.Verbose() && len(p.samples) > 0 {
		t.Logf("samples every 10 s:\n%s", strings.Join(p.samples, "\n"))
	}
}

// The bars of issue 25 the soak judges besides memory (memory_test.go).
const (
	maxReadP99    = 100 * time.Millisecond // p99 of a shipment and of the shipments list
	maxRefreshLag = 10 * time.Minute       // how late the oldest due refresh may ever be
	// maxTerminalLag is boxwatch's own bar, not the issue's: a terminal's news (availability, a
	// hold, the last free day) reaches the box at most this long after its check came due.
	maxTerminalLag = 10 * time.Minute
)

// A verdict judges one goal of issue 25 with the figure measured: PASS, FAIL, or UNDECIDED when
// the run cannot tell (too few samples).
type verdict struct {
	state        verdictState
	goal, figure string
}

type verdictState string

const (
	pass      verdictState = "PASS"
	fail      verdictState = "FAIL"
	undecided verdictState = "UNDECIDED"
)

// loadVerdicts judges the reads, the refresh lag and the deliveries (UNDECIDED when n is nil:
// the run stopped before counting them). Latency and lag are verdicts, not test failures: they
// measure the machine as much as the code, and a test does not assert timings; losses and
// duplicates fail the test in checkInvariants.
func loadVerdicts(load *replicas.Load, p *probe, n *counts) []verdict {
	var list []verdict
	for _, read := range []struct{ op, goal string }{
		{replicas.OpGetShipment, "GET /v2/shipments/{id}?include=containers p99 under 100 ms"},
		{replicas.OpListShipments, "GET /v2/shipments?page[size]=20 p99 under 100 ms"},
	} {
		p50, p99, count := load.Latency(read.op)
		state := pass
		switch {
		case count == 0:
			state = undecided
		case p99 >= maxReadP99:
			state = fail
		}
		list = append(list, verdict{state, read.goal, fmt.Sprintf("p50 %v, p99 %v over %d answers through the balancer", p50, p99, count)})
	}
	p.mu.Lock()
	lag, samples := p.maxLag, len(p.samples)
	p.mu.Unlock()
	state := pass
	if lag > maxRefreshLag {
		state = fail
	}
	list = append(list, verdict{state, "the oldest due refresh never more than 10 minutes late",
		fmt.Sprintf("largest lag %v over %d samples every 10 s", lag.Round(time.Second), samples)})
	p.mu.Lock()
	terminalLag, terminalDue := p.maxTerminalLag, p.maxTerminalDue
	p.mu.Unlock()
	state = pass
	if terminalLag > maxTerminalLag {
		state = fail
	}
	list = append(list, verdict{state, "the oldest due terminal check never more than 10 minutes late (boxwatch's own bar)",
		fmt.Sprintf("largest lag %v, at most %d checks due at once, over %d samples every 10 s", terminalLag.Round(time.Second), terminalDue, samples)})
	if n == nil {
		return append(list, verdict{undecided, "deliveries lost or duplicated: 0", "not counted: the run stopped before the load ended"})
	}
	state = pass
	if n.lost > 0 || n.duplicated > 0 || n.announcedTwice > 0 {
		state = fail
	}
	list = append(list, verdict{state, "deliveries lost or duplicated: 0",
		fmt.Sprintf("%d lost, %d events with two notifications, %d announced under two webhook-ids; %d notifications delivered "+
			"(%d repeats of one webhook-id, at-least-once retries a receiver drops)", n.lost, n.duplicated, n.announcedTwice,
			n.received, n.repeats)})
	return list
}

// reportVerdicts logs a line per verdict, and how many passed.
func reportVerdicts(t *testing.T, list []verdict) {
	t.Helper()
	var b strings.Builder
	tally := map[verdictState]int{}
	for _, v := range list {
		tally[v.state]++
		fmt.Fprintf(&b, "%-9s %s: %s\n", v.state, v.goal, v.figure)
	}
	fmt.Fprintf(&b, "%d PASS, %d FAIL, %d UNDECIDED", tally[pass], tally[fail], tally[undecided])
	t.Logf("verdicts against issue 25's goals:\n%s", b.String())
}
