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
			// Each event about one of many containers (the subject): order holds per container.
			if err := e.Emit(context.Background(), boxwatch.Event{ID: boxwatch.NewID(at), AccountID: acct.ID,
				Name: "tracking_request.failed", ObjectType: "tracking_request", ObjectID: tr.ID, TrackingRequestID: tr.ID,
				ContainerID: benchSubjects[i%len(benchSubjects)], Key: fmt.Sprintf("bench:%d", i), CreatedAt: at}); err != nil {
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
	// Drain: one endpoint answering in 10 ms, its backlog spread over many subjects, held at 100
	// pending (the baseline) and at 100,000, delivered by two replicas on PostgreSQL and one on
	// SQLite. The ratio says whether a claim costs more with a larger backlog; deliveries/s is
	// the drain rate.
	for _, be := range storetest.Backends {
		for _, pending := range []int{100, 100_000} {
			name := "drain-" + be.Name + "/baseline"
			if pending != 100 {
				name = fmt.Sprintf("drain-%s/pending-%d", be.Name, pending)
			}
			b.Run(name, func(sub *testing.B) { benchDrain(sub, b, be, pending) })
		}
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

// benchSubjects are the containers BenchmarkDeliver's events are about.
var benchSubjects = func() []string {
	ids := make([]string, 10_000)
	for i := range ids {
		ids[i] = boxwatch.NewID(time.Now())
	}
	return ids
}()

// drainSetups keeps each drain benchmark's database, webhook and backlog for its later runs (a
// benchmark runs once with b.N = 1 first); drainReceiver is their receiver, which answers in
// 10 ms and counts in drainGot.
var (
	drainSetups   sync.Map
	drainReceiver = sync.OnceValue(func() *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			time.Sleep(10 * time.Millisecond)
			drainGot.Add(1)
			w.WriteHeader(http.StatusNoContent)
		}))
	})
	drainGot atomic.Int64
)

// drainSetup is one drain benchmark's database: an account, a tracking request the events
// name, a webhook, and how many events were written.
type drainSetup struct {
	dsn               string
	account, tr, hook string
	subjects, emitted int
}

// emit writes n events, each about the next of the setup's subjects in turn, in transactions
// of perTx; on PostgreSQL, four writers share a large batch. Events that come while deliveries
// run come in small transactions, as the engine writes them: a transaction holds its subjects'
// queue locks until it commits, and a large one would hold up the deliveries of hundreds of
// subjects for as long as it takes.
func (st *drainSetup) emit(b *testing.B, db *store.DB, n, perTx int) {
	writers := 1
	if db.Dialect() == store.Postgres && n > 2000 {
		writers = 4
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for from := w * perTx; from < n; from += writers * perTx {
				err := db.InTx(context.Background(), func(tx boxwatch.Tx) error {
					for i := from; i < min(from+perTx, n); i++ {
						at := time.Now()
						seq := st.emitted + i
						e := boxwatch.Event{ID: boxwatch.NewID(at), AccountID: st.account, Name: "tracking_request.failed",
							ObjectType: "tracking_request", ObjectID: st.tr, TrackingRequestID: st.tr, ContainerID: benchSubjects[seq%st.subjects],
							Key: fmt.Sprintf("drain:%d", seq), CreatedAt: at}
						if _, err := tx.AppendEvent(context.Background(), e); err != nil {
							return err
						}
						if _, err := tx.Notify(context.Background(), e); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	st.emitted += n
}

// benchDrain delivers b.N notifications of one webhook from a backlog held at about pending, in
// 10,000 subjects (one each when fewer), to a receiver that answers in 10 ms, with two
// replicas on PostgreSQL and one on SQLite. Events keep coming as the backlog drains, as they
// would.
// The database belongs to parent, so that it outlives the benchmark's first run.
func benchDrain(b, parent *testing.B, be storetest.Backend, pending int) {
	if be.Name == "postgres" {
		storetest.RequirePostgres(b)
	}
	key := fmt.Sprint(be.Name, pending)
	v, seeded := drainSetups.Load(key)
	if !seeded {
		dsn := be.DSN(parent)
		db, err := store.Open(context.Background(), dsn)
		if err != nil {
			b.Fatal(err)
		}
		acct := storetest.MustCreateAccount(b, db, "bench")
		now := time.Now()
		tr := boxwatch.TrackingRequest{ID: boxwatch.NewID(now), AccountID: acct.ID, RequestType: boxwatch.RequestBillOfLading,
			RequestNumber: "BENCH1", SCAC: "MAEU", Status: boxwatch.StatusFailed, FailedReason: "not_found", CreatedAt: now, UpdatedAt: now}
		if err := db.CreateTrackingRequest(context.Background(), tr); err != nil {
			b.Fatal(err)
		}
		secret, _ := webhook.NewSecret()
		hook := boxwatch.Webhook{ID: boxwatch.NewID(now), AccountID: acct.ID, URL: drainReceiver().URL, Active: true,
			Events: []string{"tracking_request.failed"}, Secret: secret, CreatedAt: now, UpdatedAt: now}
		if err := db.CreateWebhook(context.Background(), hook); err != nil {
			b.Fatal(err)
		}
		st := &drainSetup{dsn: dsn, account: acct.ID, tr: tr.ID, hook: hook.ID, subjects: min(len(benchSubjects), pending)}
		st.emit(b, db, pending, 500)
		db.Close()
		v = st
		drainSetups.Store(key, v)
	}
	st := v.(*drainSetup)
	replicas := 1
	if be.Name == "postgres" {
		replicas = 2
	}
	var dbs []*store.DB
	for range replicas {
		db, err := store.Open(context.Background(), st.dsn)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		dbs = append(dbs, db)
	}
	if b.Failed() {
		return
	}
	// The deliveries of an earlier run that outlived it may have taken the backlog below pending:
	// top it up, so that every run starts at it.
	backlog, err := dbs[0].NotificationBacklog(context.Background(), time.Now(), 0)
	if err != nil {
		b.Fatal(err)
	}
	if lack := pending - int(backlog.Pending); lack > 0 {
		st.emit(b, dbs[0], lack, 500)
	}
	drainGot.Store(0)
	b.ResetTimer()
	for _, db := range dbs {
		trackingtest.Start(b, db, trackingtest.Options{Workers: 1, Webhooks: webhook.Policy{AllowPrivate: true},
			Renderer: jsonapi.NewNotificationRenderer(db, data.Carriers(), data.Ports())})
	}
	// Keep the backlog at about pending until b.N were delivered.
	start := st.emitted
	for deadline := time.Now().Add(10 * time.Minute); drainGot.Load() < int64(b.N); {
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d deliveries after 10 minutes", drainGot.Load(), b.N)
		}
		written := st.emitted - start
		if lack := int(drainGot.Load()) - written; lack > 0 && written < b.N {
			st.emit(b, dbs[0], min(lack, 500, b.N-written), 10)
			continue
		}
		time.Sleep(5 * time.Millisecond)
	}
	b.StopTimer()
	b.ReportMetric(float64(drainGot.Load())/b.Elapsed().Seconds(), "deliveries/s")
}
