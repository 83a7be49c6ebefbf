package api_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/tracking"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
	"github.com/boxwatch/boxwatch/webhook"

	"github.com/boxwatch/boxwatch/api"
	"github.com/boxwatch/boxwatch/jsonapi"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// The HTTP benchmarks run client and server on loopback in one process. Each group has a
// "baseline": a bare net/http handler answering the same bytes, measured in the same run, so
// make bench can print the API's throughput as a ratio to it (machines here are shared and noisy).

func benchClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConns: 64, MaxIdleConnsPerHost: 64}}
}

// hammer issues requests from parallel clients until b.N are done and reports requests/s, and
// the CPU time each request cost (cpu-ns/op): this process's (client and server) and, for the
// stores given, their PostgreSQL server processes'. On the shared machines the benchmarks run
// on, CPU per request holds steady where throughput follows the neighbours' load.
func hammer(b *testing.B, newReq func() *http.Request, wantStatus int, dbs ...*store.DB) {
	client := benchClient()
	b.SetParallelism(8)
	b.ReportAllocs()
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		t := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		for _, db := range dbs {
			t += backendCPU(b, db)
		}
		return t
	}
	before := cpu()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			res, err := client.Do(newReq())
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != wantStatus {
				b.Errorf("status %d, want %d", res.StatusCode, wantStatus)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	b.ReportMetric(float64(cpu()-before)/float64(b.N), "cpu-ns/op")
}

// backendCPU is the CPU time the PostgreSQL server processes behind db's pool have used, read
// from /proc (the server runs on this machine in the benchmarks); 0 on SQLite. Call it while the
// pool is idle: it holds every connection for a moment.
func backendCPU(b *testing.B, db *store.DB) time.Duration {
	pool := db.Pool()
	if pool == nil {
		return 0
	}
	var t time.Duration
	for _, c := range pool.AcquireAllIdle(context.Background()) {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", c.Conn().PgConn().PID()))
		c.Release()
		if err != nil {
			b.Skipf("the PostgreSQL server's CPU time is unreadable (%v): is it on another machine?", err)
		}
		ns, err := strconv.ParseInt(strings.Fields(string(raw))[0], 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		t += time.Duration(ns)
	}
	return t
}

// bare serves fixed bytes with the headers the API sends.
func bare(status int, body []byte) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil {
			io.Copy(io.Discard, r.Body)
		}
		w.Header().Set("Content-Type", api.MediaType)
		w.Header().Set("X-Request-Id", "0123456789abcdef01234567")
		w.WriteHeader(status)
		w.Write(body)
	}))
	return srv
}

func BenchmarkGetTrackingRequest(b *testing.B) {
	// The bytes the bare handler returns are a real answer of the API.
	ref := newTestServer(b, storetest.SQLite, withLimits(api.Limits{}))
	id := ref.mustCreate(b, ref.acme, "bill_of_lading", "MEDUFR030802", "MSCU", `"ref_numbers":["PO12345"]`)
	body := ref.do(b, "GET", "/v2/tracking_requests/"+id, ref.acme, "").want(b, 200).raw

	b.Run("baseline", func(b *testing.B) {
		srv := bare(200, body)
		defer srv.Close()
		hammer(b, func() *http.Request {
			req, _ := http.NewRequest("GET", srv.URL+"/v2/tracking_requests/"+id, nil)
			req.Header.Set("Authorization", "Token "+ref.acme)
			return req
		}, 200)
	})
	for _, run := range []struct {
		be   storetest.Backend
		name string
		opts store.Options
	}{
		{storetest.SQLite, "sqlite", store.Options{}},
		{storetest.Postgres, "postgres_nocache", store.Options{DisableReadCache: true}},
		{storetest.Postgres, "postgres", store.Options{}},
	} {
		b.Run(run.name, func(b *testing.B) {
			be := run.be
			if be.Name == "postgres" {
				storetest.RequirePostgres(b)
			}
			// Limits stay on (set high) so each request pays for its rate-limit check.
			db, err := store.OpenWith(context.Background(), be.DSN(b), run.opts)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { db.Close() })
			stmts := db.CountStatements()
			ts := serveOn(b, db, production)
			id := ts.mustCreate(b, ts.acme, "bill_of_lading", "MEDUFR030802", "MSCU", `"ref_numbers":["PO12345"]`)
			before := stmts.Load()
			hammer(b, func() *http.Request {
				req, _ := http.NewRequest("GET", ts.URL+"/v2/tracking_requests/"+id, nil)
				req.Header.Set("Authorization", "Token "+ts.acme)
				return req
			}, 200, ts.db)
			b.ReportMetric(float64(stmts.Load()-before)/float64(b.N), "stmts/op")
		})
	}
}

func BenchmarkCreateTrackingRequest(b *testing.B) {
	var n atomic.Int64
	body := func() string {
		return createBody("bill_of_lading", fmt.Sprintf("BENCH%d", n.Add(1)), "MSCU", `"ref_numbers":["PO12345"]`)
	}
	ref := newTestServer(b, storetest.SQLite)
	created := ref.do(b, "POST", "/v2/tracking_requests", ref.acme, body()).want(b, 201).raw

	b.Run("baseline", func(b *testing.B) {
		srv := bare(201, created)
		defer srv.Close()
		hammer(b, func() *http.Request {
			req, _ := http.NewRequest("POST", srv.URL+"/v2/tracking_requests", strings.NewReader(body()))
			req.Header.Set("Authorization", "Token "+ref.acme)
			req.Header.Set("Content-Type", api.MediaType)
			return req
		}, 201)
	})
	for _, be := range storetest.Backends {
		b.Run(be.Name, func(b *testing.B) {
			if be.Name == "postgres" {
				storetest.RequirePostgres(b)
			}
			ts := newTestServer(b, be, production, withLimits(api.Limits{})) // limits lifted
			hammer(b, func() *http.Request {
				req, _ := http.NewRequest("POST", ts.URL+"/v2/tracking_requests", strings.NewReader(body()))
				req.Header.Set("Authorization", "Token "+ts.acme)
				req.Header.Set("Content-Type", api.MediaType)
				return req
			}, 201)
		})
	}
}

// BenchmarkDeliver measures webhook deliveries per second to a receiver on loopback, and the time
// from an event being written to its delivery. Ten webhooks (ten subscribers) share the receiver,
// so each event fans out to ten notifications. The baseline POSTs the same body from as many
// goroutines as the engine has delivery workers, with no engine and no database.
func BenchmarkDeliver(b *testing.B) {
	const webhooks, workers = 10, 50
	var got atomic.Int64
	var mu sync.Mutex
	arrived := map[string]time.Time{} // webhook-id → when the delivery arrived
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if id := r.Header.Get("webhook-id"); id != "" {
			mu.Lock()
			arrived[id] = time.Now()
			mu.Unlock()
		}
		got.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()

	b.Run("baseline", func(b *testing.B) {
		body := bytes.Repeat([]byte("x"), 2500)
		client := benchClient()
		var next atomic.Int64
		var wg sync.WaitGroup
		b.ResetTimer()
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for next.Add(1) <= int64(b.N) {
					res, err := client.Post(receiver.URL, "application/json", bytes.NewReader(body))
					if err != nil {
						b.Error(err)
						return
					}
					res.Body.Close()
				}
			}()
		}
		wg.Wait()
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "deliveries/s")
	})
	// setup opens a database with an account, a tracking request and the webhooks, and returns an
	// emit function writing one event the way the engine does.
	setup := func(b *testing.B, be storetest.Backend) (*store.DB, boxwatch.Account, func(e *tracking.Engine, i int)) {
		if be.Name == "postgres" {
			storetest.RequirePostgres(b)
		}
		db := be.Open(b)
		acct := storetest.MustCreateAccount(b, db, "bench")
		now := time.Now()
		tr := boxwatch.TrackingRequest{ID: boxwatch.NewID(now), AccountID: acct.ID, RequestType: boxwatch.RequestBillOfLading,
			RequestNumber: "BENCH1", SCAC: "MAEU", Status: boxwatch.StatusFailed, FailedReason: "not_found", CreatedAt: now, UpdatedAt: now}
		if err := db.CreateTrackingRequest(context.Background(), tr); err != nil {
			b.Fatal(err)
		}
		for range webhooks {
			secret, _ := webhook.NewSecret()
			if err := db.CreateWebhook(context.Background(), boxwatch.Webhook{ID: boxwatch.NewID(now), AccountID: acct.ID,
				URL: receiver.URL, Active: true, Events: []string{"tracking_request.failed"}, Secret: secret, CreatedAt: now, UpdatedAt: now}); err != nil {
				b.Fatal(err)
			}
		}
		return db, acct, func(e *tracking.Engine, i int) {
			at := boxwatch.SystemClock()
			if err := e.Emit(context.Background(), boxwatch.Event{ID: boxwatch.NewID(at), AccountID: acct.ID,
				Name: "tracking_request.failed", ObjectType: "tracking_request", ObjectID: tr.ID, TrackingRequestID: tr.ID,
				Key: fmt.Sprintf("bench:%d", i), CreatedAt: at}); err != nil {
				b.Fatal(err)
			}
		}
	}
	deliverer := func(b *testing.B, db *store.DB) *tracking.Engine {
		return trackingtest.Start(b, db, trackingtest.Options{Webhooks: webhook.Policy{AllowPrivate: true},
			Renderer: jsonapi.NewNotificationRenderer(db, data.Carriers(), data.Ports())}).Engine
	}
	reset := func() {
		got.Store(0)
		mu.Lock()
		clear(arrived)
		mu.Unlock()
	}
	for _, be := range storetest.Backends {
		// Throughput: the queue holds b.N deliveries; time until the receiver has them all.
		b.Run(be.Name, func(b *testing.B) {
			db, _, emit := setup(b, be)
			// An engine with no workers writes the events, as a replica that only tracks would.
			writer := trackingtest.Start(b, db, trackingtest.Options{Workers: -1}).Engine
			events := (b.N + webhooks - 1) / webhooks
			for i := range events {
				emit(writer, i)
			}
			reset()
			b.ResetTimer()
			deliverer(b, db)
			trackingtest.Eventually(b, 5*time.Minute, "deliveries did not finish", func() bool { return got.Load() >= int64(events*webhooks) })
			b.StopTimer()
			b.ReportMetric(float64(events*webhooks)/b.Elapsed().Seconds(), "deliveries/s")
		})
	}
	for _, be := range storetest.Backends {
		// Latency: events written at a steady 200 deliveries a second, well under capacity, by the
		// process that delivers them; time from each event's write (its notifications'
		// creation) to its arrival.
		b.Run("latency-"+be.Name, func(b *testing.B) {
			db, acct, emit := setup(b, be)
			engine := deliverer(b, db)
			reset()
			events := (b.N + webhooks - 1) / webhooks
			tick := time.NewTicker(time.Second / 20)
			defer tick.Stop()
			b.ResetTimer()
			for i := range events {
				<-tick.C
				emit(engine, i)
			}
			trackingtest.Eventually(b, 5*time.Minute, "deliveries did not finish", func() bool { return got.Load() >= int64(events*webhooks) })
			b.StopTimer()
			list, _, err := db.Notifications(context.Background(), acct.ID, boxwatch.NotificationFilter{}, boxwatch.Page{Number: 1, Size: events * webhooks})
			if err != nil {
				b.Fatal(err)
			}
			var lat []time.Duration
			mu.Lock()
			for _, n := range list {
				if t, ok := arrived[n.ID]; ok {
					lat = append(lat, t.Sub(n.CreatedAt))
				}
			}
			mu.Unlock()
			slices.Sort(lat)
			if len(lat) > 0 {
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
			}
		})
	}
}
