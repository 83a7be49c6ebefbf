package dispatch

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/webhook"
)

// hangingReceiver answers nothing until released, and counts the requests it holds, per path
// and in all.
type hangingReceiver struct {
	*httptest.Server
	release chan struct{}

	mu               sync.Mutex
	inFlight         map[string]int
	total, maxTotal  int
	maxPerPath, seen int
}

func newHangingReceiver(t testing.TB) *hangingReceiver {
	h := &hangingReceiver{release: make(chan struct{}), inFlight: map[string]int{}}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.seen++
		h.total++
		h.inFlight[r.URL.Path]++
		h.maxTotal = max(h.maxTotal, h.total)
		h.maxPerPath = max(h.maxPerPath, h.inFlight[r.URL.Path])
		h.mu.Unlock()
		select {
		case <-h.release:
		case <-r.Context().Done():
		}
		h.mu.Lock()
		h.total--
		h.inFlight[r.URL.Path]--
		h.mu.Unlock()
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(func() {
		h.Release()
		h.Close()
	})
	return h
}

// Release lets every held request, and every later one, answer.
func (h *hangingReceiver) Release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-h.release:
	default:
		close(h.release)
	}
}

func (h *hangingReceiver) counts() (seen, maxTotal, maxPerPath int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.seen, h.maxTotal, h.maxPerPath
}

// okReceiver answers 204 at once and reports each delivery's notification id on got.
type okReceiver struct {
	*httptest.Server
	got chan string
}

func newOKReceiver(t testing.TB, buffer int) *okReceiver {
	rc := &okReceiver{got: make(chan string, buffer)}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
		rc.got <- r.Header.Get("webhook-id")
	}))
	t.Cleanup(rc.Close)
	return rc
}

const testEvent = "tracking_request.failed"

func mustAccount(t testing.TB, db *store.DB, name string) boxwatch.Account {
	t.Helper()
	return storetest.MustCreateAccount(t, db, name)
}

func mustWebhook(t testing.TB, db *store.DB, accountID, url string) boxwatch.Webhook {
	t.Helper()
	now := time.Now()
	secret, err := webhook.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	w := boxwatch.Webhook{ID: boxwatch.NewID(now), AccountID: accountID, URL: url, Active: true, Events: []string{testEvent},
		Headers: []boxwatch.WebhookHeader{}, Secret: secret, CreatedAt: now, UpdatedAt: now}
	if err := db.CreateWebhook(context.Background(), w); err != nil {
		t.Fatal(err)
	}
	return w
}

// mustEvents logs n events of the account, each notifying every webhook of the account, in one
// transaction, and returns the notifications' ids.
func mustEvents(t testing.TB, db *store.DB, accountID string, n int) []string {
	t.Helper()
	var ids []string
	err := db.InTx(context.Background(), func(tx boxwatch.Tx) error {
		for range n {
			now := time.Now()
			e := boxwatch.Event{ID: boxwatch.NewID(now), AccountID: accountID, Name: testEvent, ObjectType: "tracking_request",
				ObjectID: boxwatch.NewID(now), Key: boxwatch.NewID(now), CreatedAt: now}
			if _, err := tx.AppendEvent(context.Background(), e); err != nil {
				return err
			}
			got, err := tx.Notify(context.Background(), e)
			if err != nil {
				return err
			}
			ids = append(ids, got...)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func mustStart(t testing.TB, db *store.DB, cfg Config) *Dispatcher {
	t.Helper()
	cfg.Store, cfg.Work = db, db
	cfg.Renderer = renderFunc(func(boxwatch.Notification) []byte { return []byte(`{"data":{}}`) })
	cfg.Client = webhook.NewClient(webhook.Policy{AllowPrivate: true, Timeout: cfg.Timeout})
	d, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d.Start(context.Background())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := d.Stop(ctx); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	return d
}

// One account whose 50 receivers never answer holds at most its share of the workers, so another
// account's deliveries, due after every one of the first account's, all arrive while those
// receivers still hang: they are not queued behind them. Without the bounds the first account's
// deliveries take all 50 workers until the (here one minute) timeout.
func TestHangingAccountDoesNotDelayOthers(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		db := b.Open(t)
		hung := newHangingReceiver(t)
		noisy := mustAccount(t, db, "noisy")
		for i := range 50 {
			mustWebhook(t, db, noisy.ID, fmt.Sprintf("%s/hook/%d", hung.URL, i))
		}
		mustEvents(t, db, noisy.ID, 4) // 200 deliveries to hanging receivers, due first
		ok := newOKReceiver(t, 100)
		quiet := mustAccount(t, db, "quiet")
		mustWebhook(t, db, quiet.ID, ok.URL+"/hook")
		want := mustEvents(t, db, quiet.ID, 20)

		// No delivery turns slow here, so the healthy budget alone bounds the hanging receivers.
		const perAccount, perWebhook = 10, 4
		d := mustStart(t, db, Config{Timeout: time.Minute, Workers: 50, PerWebhook: perWebhook, PerAccount: perAccount, SlowAfter: time.Hour})
		d.Wake()
		var got []string
		timeout := time.After(30 * time.Second)
		for len(got) < len(want) {
			select {
			case id := <-ok.got:
				got = append(got, id)
			case <-timeout:
				seen, _, _ := hung.counts()
				t.Fatalf("%d of %d deliveries to the healthy receiver arrived while %d were held by hanging ones", len(got), len(want), seen)
			}
		}
		seen, maxTotal, maxPerPath := hung.counts()
		if seen == 0 {
			t.Fatal("no delivery reached the hanging receivers: the test shows nothing")
		}
		if maxTotal > perAccount || maxPerPath > perWebhook {
			t.Fatalf("the hanging receivers held %d deliveries at once (%d to one webhook); bounds %d and %d", maxTotal, maxPerPath, perAccount, perWebhook)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("healthy receiver got %v, want %v", got, want)
		}
	})
}

// An account's 50 receivers that never answer do not hold the capacity its healthy receiver
// needs: every delivery to the healthy one arrives while they still hang (the timeout is a
// minute). Their deliveries run past SlowAfter and mark them failing; from then on they hold one
// request each and the account's failing budget, not its healthy budget or the workers. With
// SlowAfter longer than the timeout, the hanging receivers fill the account's budget until the
// timeout, and this test fails.
func TestHangingEndpointsSpareHealthyOfSameAccount(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		db := b.Open(t)
		hung := newHangingReceiver(t)
		acct := mustAccount(t, db, "acme")
		for i := range 50 {
			mustWebhook(t, db, acct.ID, fmt.Sprintf("%s/hook/%d", hung.URL, i))
		}
		ok := newOKReceiver(t, 1000)
		healthy := mustWebhook(t, db, acct.ID, ok.URL+"/hook")
		// Every event notifies all 51 webhooks; the hanging ones' notifications are due as early.
		healthyOf := func(ids []string) []string {
			var mine []string
			for _, id := range ids {
				if n, err := db.Notification(context.Background(), acct.ID, id); err != nil {
					t.Fatal(err)
				} else if n.WebhookID == healthy.ID {
					mine = append(mine, id)
				}
			}
			return mine
		}
		want := healthyOf(mustEvents(t, db, acct.ID, 10))
		const perWebhook, perAccount, failing = 4, 10, 5
		d := mustStart(t, db, Config{Timeout: time.Minute, Workers: 20, PerWebhook: perWebhook, PerAccount: perAccount,
			PerAccountFailing: failing, SlowAfter: 200 * time.Millisecond})
		d.Wake()
		var got []string
		receive := func(n int, what string) {
			t.Helper()
			timeout := time.After(45 * time.Second)
			for range n {
				select {
				case id := <-ok.got:
					got = append(got, id)
				case <-timeout:
					seen, _, _ := hung.counts()
					t.Fatalf("%s: %d deliveries to the healthy receiver arrived while %d were held by hanging ones", what, len(got), seen)
				}
			}
		}
		receive(len(want), "the first deliveries")
		// More keep coming once the hanging receivers are known to hang.
		want = append(want, healthyOf(mustEvents(t, db, acct.ID, 5))...)
		d.Wake()
		receive(len(want)-len(got), "deliveries after the hanging receivers were known")
		seen, _, maxPerPath := hung.counts()
		if seen == 0 {
			t.Fatal("no delivery reached the hanging receivers: the test shows nothing")
		}
		if maxPerPath > perWebhook {
			t.Fatalf("a hanging receiver held %d deliveries at once; bound %d", maxPerPath, perWebhook)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("healthy receiver got %v, want %v", got, want)
		}
	})
}

// BenchmarkHealthyWhileReceiversHang times deliveries to a healthy receiver, one at a time, from
// the event's commit to the receiver's answer, while 50 receivers never answer within the
// default 10 s timeout and have a backlog always due: another account's (other-account), or the
// healthy receiver's own account's, each event of which notifies them too (same-account). It
// reports the p50, p99 and largest latency.
func BenchmarkHealthyWhileReceiversHang(b *testing.B) {
	for _, backend := range storetest.Backends {
		for _, same := range []bool{false, true} {
			name := backend.Name + "/other-account"
			if same {
				name = backend.Name + "/same-account"
			}
			b.Run(name, func(b *testing.B) {
				if backend.Name == "postgres" {
					storetest.RequirePostgres(b)
				}
				db := backend.Open(b)
				hung := newHangingReceiver(b)
				noisy := mustAccount(b, db, "noisy")
				for i := range 50 {
					mustWebhook(b, db, noisy.ID, fmt.Sprintf("%s/hook/%d", hung.URL, i))
				}
				mustEvents(b, db, noisy.ID, 20)
				ok := newOKReceiver(b, 1)
				quiet := mustAccount(b, db, "quiet")
				if same {
					quiet = noisy
				}
				mustWebhook(b, db, quiet.ID, ok.URL+"/hook")
				d := mustStart(b, db, Config{RetryScale: 1e-6})
				for deadline := time.Now().Add(time.Minute); ; {
					if seen, _, _ := hung.counts(); seen >= DefaultPerAccountFailing {
						break // the hanging receivers hold what they can
					}
					if time.Now().After(deadline) {
						b.Fatal("the hanging receivers were never reached")
					}
					time.Sleep(10 * time.Millisecond)
				}
				latencies := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for range b.N {
					start := time.Now()
					mustEvents(b, db, quiet.ID, 1)
					d.Wake()
					<-ok.got
					latencies = append(latencies, time.Since(start))
				}
				b.StopTimer()
				slices.Sort(latencies)
				pct := func(p float64) float64 {
					i := int(math.Ceil(p*float64(len(latencies)))) - 1
					return float64(latencies[max(i, 0)].Microseconds()) / 1000
				}
				b.ReportMetric(pct(0.50), "p50_ms")
				b.ReportMetric(pct(0.99), "p99_ms")
				b.ReportMetric(pct(1), "max_ms")
			})
		}
	}
}
