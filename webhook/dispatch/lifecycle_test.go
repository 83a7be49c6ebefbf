package dispatch

import (
	"context"
	"fmt"
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
