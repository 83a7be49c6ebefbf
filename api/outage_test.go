package api_test

import (
	"context"
	"database/sql"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/boxwatch/boxwatch/api"
	"github.com/boxwatch/boxwatch/internal/pgcluster"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// wantUnavailable checks a 503 as clients and load balancers need it: a JSON:API error with the
// "unavailable" code, a Retry-After in whole seconds, and nothing of the driver's error inside.
func (r response) wantUnavailable(t testing.TB) {
	t.Helper()
	r.wantError(t, http.StatusServiceUnavailable, "unavailable", "", "")
	if ra := r.header.Get("Retry-After"); ra == "" || strings.Trim(ra, "0123456789") != "" || ra == "0" {
		t.Fatalf("503 with Retry-After %q, want whole seconds", ra)
	}
	for _, internal := range []string{"SQLSTATE", "sqlite", "pgx", "127.0.0.1", "dial", "EOF", "store:", "database unavailable:"} {
		if strings.Contains(string(r.raw), internal) {
			t.Fatalf("the 503 shows internals (%q): %s", internal, r.raw)
		}
	}
}

// While PostgreSQL is down, readiness and every request that needs the database answer 503 with
// Retry-After; liveness stays 200; once the server is back everything answers again.
func TestPostgresOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and stops a private PostgreSQL server; skipped with -short")
	}
	c := pgcluster.Start(t)
	c.CreateDatabase(t, "outage")
	db, err := store.Open(context.Background(), c.URL("outage"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ts := serveOn(t, db)
	id := ts.mustCreate(t, ts.acme, "bill_of_lading", "MEDUFR030802", "MSCU")

	for _, mode := range []string{pgcluster.Fast, pgcluster.Immediate} {
		t.Run(mode, func(t *testing.T) {
			c.Stop(t, mode)
			ts.do(t, "GET", "/healthz", "", "").want(t, 200)
			ready := ts.do(t, "GET", "/readyz", "", "").want(t, 503)
			if ready.header.Get("Retry-After") == "" || ready.body["status"] != "unavailable" {
				t.Fatalf("readiness during the outage: %s, Retry-After %q", ready.raw, ready.header.Get("Retry-After"))
			}
			for range 2 { // first on the pool's dead connections, then on new ones that cannot connect
				ts.do(t, "GET", "/v2/tracking_requests/"+id, ts.acme, "").wantUnavailable(t)
				ts.do(t, "GET", "/v2/shipments", ts.acme, "").wantUnavailable(t)
				ts.do(t, "POST", "/v2/tracking_requests", ts.acme, createBody("bill_of_lading", "MEDUFR030803", "MSCU")).wantUnavailable(t)
			}
			c.Restart(t)
			ts.do(t, "GET", "/readyz", "", "").want(t, 200)
			ts.do(t, "GET", "/v2/tracking_requests/"+id, ts.acme, "").want(t, 200)
		})
	}
	if strings.Contains(ts.log.String(), `"status":500`) {
		t.Fatalf("the outage logged a 500:\n%s", ts.log.String())
	}
}

// A SQLite write that cannot get the lock (another process holds it past the busy timeout) answers
// 503 with Retry-After, and the next one after the lock is released succeeds.
func TestSQLiteBusy(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out SQLite's 10 s busy timeout; skipped with -short")
	}
	path := filepath.Join(t.TempDir(), "boxwatch.db")
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ts := serveOn(t, db)
	ts.mustCreate(t, ts.acme, "bill_of_lading", "MEDUFR030802", "MSCU")

	ctx := context.Background()
	other, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	ts.do(t, "POST", "/v2/tracking_requests", ts.acme, createBody("bill_of_lading", "MEDUFR030803", "MSCU")).wantUnavailable(t)
	ts.do(t, "GET", "/v2/shipments", ts.acme, "").want(t, 200) // WAL: readers are not blocked
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	ts.do(t, "POST", "/v2/tracking_requests", ts.acme, createBody("bill_of_lading", "MEDUFR030803", "MSCU")).want(t, 201)
}

// A database that stops answering without refusing (a partition: connections stay open, no byte
// passes) holds a request only until the request timeout, which then answers 503 with
// Retry-After; once the network is back, requests succeed again.
func TestPostgresPartition(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a private PostgreSQL server; skipped with -short")
	}
	c := pgcluster.Start(t)
	c.CreateDatabase(t, "partition")
	proxy := c.Proxy(t)
	db, err := store.Open(context.Background(), proxy.URL("partition"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ts := serveOn(t, db, func(_ testing.TB, c *api.Config, _ *store.DB) { c.RequestTimeout = time.Second })
	id := ts.mustCreate(t, ts.acme, "bill_of_lading", "MEDUFR030802", "MSCU")

	proxy.Freeze()
	start := time.Now()
	ts.do(t, "GET", "/v2/tracking_requests/"+id, ts.acme, "").wantUnavailable(t)
	ts.do(t, "POST", "/v2/tracking_requests", ts.acme, createBody("bill_of_lading", "MEDUFR030803", "MSCU")).wantUnavailable(t)
	t.Logf("two requests during the partition answered 503 in %v (request timeout 1s)", time.Since(start).Round(time.Millisecond))
	proxy.Thaw()
	trackingtest.Eventually(t, 30*time.Second, "requests did not succeed after the partition healed", func() bool {
		return ts.do(t, "GET", "/v2/tracking_requests/"+id, ts.acme, "").status == 200
	})
}
