package dispatch

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// Start and Stop are safe in any order and idempotent.
func TestStartStopAnyOrder(t *testing.T) {
	t.Parallel()
	db := storetest.Backends[0].Open(t)
	d, err := New(Config{Store: db, Work: db, Renderer: renderFunc(func(boxwatch.Notification) []byte { return []byte("{}") })})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := d.Stop(ctx); err != nil {
		t.Fatalf("stop before start: %v", err)
	}
	d.Start(ctx)
	d.Start(ctx)
	d.Wake()
	for range 2 {
		if err := d.Stop(ctx); err != nil {
			t.Fatalf("stop: %v", err)
		}
	}
	d.Start(ctx)
	if err := d.Stop(ctx); err != nil {
		t.Fatalf("stop after restart: %v", err)
	}
}

// The per-webhook slots are removed once no delivery holds or waits for them, whether the slot
// was taken or its wait timed out: the map used to grow with every webhook ever delivered to.
func TestSlotsRemovedWhenIdle(t *testing.T) {
	t.Parallel()
	db := storetest.Backends[0].Open(t)
	d, err := New(Config{Store: db, Work: db, PerWebhook: 2})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Go(func() {
			hook := fmt.Sprintf("hook-%d", i%20)
			if d.acquire(ctx, hook) {
				time.Sleep(time.Millisecond) // a delivery in flight, so that others wait or time out
				d.release(hook)
			}
		})
	}
	wg.Wait()
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.slots) != 0 {
		t.Fatalf("%d slots left after every delivery finished", len(d.slots))
	}
}

// A slot admits PerWebhook deliveries at once, and the next one only after a release.
func TestSlotBoundsConcurrency(t *testing.T) {
	t.Parallel()
	db := storetest.Backends[0].Open(t)
	d, err := New(Config{Store: db, Work: db, PerWebhook: 2})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 2 {
		if !d.acquire(ctx, "h") {
			t.Fatalf("delivery %d of 2 got no slot", i+1)
		}
	}
	if d.acquire(ctx, "h") {
		t.Fatal("a third delivery got a slot while two are in flight")
	}
	if !d.acquire(ctx, "other") {
		t.Fatal("another webhook's delivery must not wait for this one's")
	}
	d.release("other")
	d.release("h")
	if !d.acquire(ctx, "h") {
		t.Fatal("a released slot was not given to the next delivery")
	}
	d.release("h")
	d.release("h")
	if len(d.slots) != 0 {
		t.Fatalf("%d slots left", len(d.slots))
	}
}

type renderFunc func(boxwatch.Notification) []byte

func (f renderFunc) Notification(_ context.Context, n boxwatch.Notification) ([]byte, error) {
	return f(n), nil
}

// A process that dies holding claims (here they are taken as its dispatcher would, and never
// renewed) gives them back within the lease: another dispatcher sends them all. A live
// dispatcher renews its claims, so a delivery slower than several leases is sent once, though a
// second dispatcher claims all the while.
func TestClaimsLapseOnlyWithTheirProcess(t *testing.T) {
	// Not parallel: its leases and renewals are timed, and SQLite under the race detector beside the
	// package's other tests starves them; alone it runs in seconds.
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		db, other := openTwice(t, b)
		acct := mustAccount(t, db, "acme")
		// Long enough that a renewal (a statement on SQLite under the race detector) never takes a
		// whole lease; the slow delivery still lasts four of them.
		const lease = 3 * time.Second
		var mu sync.Mutex
		received := map[string]int{}
		var total int
		all := make(chan struct{})
		const slow, dead = 3, 20
		rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/slow" {
				time.Sleep(4 * lease)
			}
			mu.Lock()
			received[r.Header.Get("webhook-id")]++
			if total++; total == slow+dead {
				close(all)
			}
			mu.Unlock()
			w.WriteHeader(http.StatusNoContent)
		}))
		t.Cleanup(rc.Close)
		slowHook := mustWebhook(t, db, acct.ID, rc.URL+"/slow")
		want := mustEvents(t, db, acct.ID, slow)
		now := time.Now()
		if claimed, err := db.ClaimDueNotifications(context.Background(), now, now.Add(lease), 100, boxwatch.ClaimBounds{}); err != nil || len(claimed) != slow {
			t.Fatalf("the dead process's claims: %v, %v", claimed, err)
		}
		// The slow webhook stops listening for new events; a fast one of another account gets them.
		slowHook.Events = []string{"shipment.eta_changed"}
		if err := db.UpdateWebhook(context.Background(), slowHook); err != nil {
			t.Fatal(err)
		}
		fast := mustAccount(t, db, "globex")
		mustWebhook(t, db, fast.ID, rc.URL+"/fast")
		want = append(want, mustEvents(t, db, fast.ID, dead)...)
		now = time.Now()
		if claimed, err := db.ClaimDueNotifications(context.Background(), now, now.Add(lease), 100, boxwatch.ClaimBounds{}); err != nil || len(claimed) != dead {
			t.Fatalf("the dead process's claims: %v, %v", claimed, err)
		}
		cfg := Config{Timeout: time.Minute, ClaimFor: lease, SlowAfter: time.Minute}
		mustStart(t, db, cfg).Wake()
		mustStart(t, other, cfg).Wake()
		select {
		case <-all:
		case <-time.After(time.Minute):
			mu.Lock()
			defer mu.Unlock()
			t.Fatalf("%d of %d deliveries arrived", total, slow+dead)
		}
		time.Sleep(2 * lease) // a repeat, were a slow delivery's claim to lapse, would arrive by now
		mu.Lock()
		defer mu.Unlock()
		for _, id := range want {
			if received[id] != 1 {
				t.Errorf("notification %s arrived %d times, want once", id, received[id])
			}
		}
	})
}
