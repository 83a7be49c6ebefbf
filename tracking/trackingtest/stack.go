// Package trackingtest starts the tracking engine for tests the way serve does: the carrier
// simulator on a loopback listener, reached through the DCSA client over HTTP, and River workers
// on the test's own database. Nothing is faked in process.
package trackingtest

import (
	"context"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/carrier"
	"github.com/boxwatch/boxwatch/carrier/sim"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/infer"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/terminal"
	"github.com/boxwatch/boxwatch/tracking"
	"github.com/boxwatch/boxwatch/webhook"
	"github.com/boxwatch/boxwatch/webhook/dispatch"
)

// Clock is a settable clock shared by the engine and the simulator.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock starts at t.
func NewClock(t time.Time) *Clock { return &Clock{now: t.UTC().Truncate(time.Microsecond)} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Options tune a stack; zero values give a fast test setup.
type Options struct {
	// Clock drives the engine and the simulator; nil uses the real clock.
	Clock *Clock
	// SimSpeed defaults to 1; SimLatency to 0.
	SimSpeed   float64
	SimLatency time.Duration
	// SimDialect is how the simulated carriers answer; the zero value is DCSA 2.2 by the spec.
	SimDialect sim.Dialect
	// CheckFormats makes the simulated lines refuse bills and bookings that fit none of their
	// formats, as they do in the demo (carrier.CheckFormats).
	CheckFormats bool
	// RetryScale defaults to 0.0001: a day of backoff becomes under 9 seconds.
	RetryScale float64
	// RefreshInterval defaults to an hour, TerminalInterval (terminal checks) to an hour.
	RefreshInterval, TerminalInterval time.Duration
	// Workers defaults to 8; -1 runs none. TerminalWorkers defaults to the engine's default.
	Workers, TerminalWorkers int
	// Renderer turns on webhook deliveries (jsonapi.NewNotificationRenderer); Webhooks is their URL
	// policy (tests allow private addresses to reach receivers on loopback).
	Renderer dispatch.Renderer
	Webhooks webhook.Policy
	// JobTimeout defaults to 30 s; ScheduleEvery to 250 ms.
	JobTimeout    time.Duration
	ScheduleEvery time.Duration
	Logger        *slog.Logger
	// Metrics receives the engine's metrics; nil registers none.
	Metrics prometheus.Registerer
	// Terminals replaces the simulated terminals the engine checks containers with.
	Terminals boxwatch.TerminalDirectory
	// Arrived receives the arrivals the engine records (tracking.Config.Arrived).
	Arrived func([]boxwatch.VesselArrival)
}

// Stack is a running engine and webhook dispatcher with their simulated carriers.
type Stack struct {
	Engine     *tracking.Engine
	Deliveries *dispatch.Dispatcher
	Network    *sim.Network
	Carriers   map[string]boxwatch.Carrier
	Clock      boxwatch.Clock
}

// Start builds and starts a stack on db; it stops when the test ends.
func Start(t testing.TB, db *store.DB, o Options) *Stack {
	t.Helper()
	ctx := context.Background()
	if err := tracking.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	clock := boxwatch.Clock(boxwatch.SystemClock)
	if o.Clock != nil {
		clock = o.Clock.Now
	}
	if o.SimSpeed == 0 {
		o.SimSpeed = 1
	}
	if o.RetryScale == 0 {
		o.RetryScale = 0.0001
	}
	if o.RefreshInterval == 0 {
		o.RefreshInterval = time.Hour
	}
	switch o.Workers {
	case 0:
		o.Workers = 8
	case -1:
		o.Workers = 0
	}
	if o.ScheduleEvery == 0 {
		o.ScheduleEvery = 250 * time.Millisecond
	}
	if o.JobTimeout == 0 {
		o.JobTimeout = 30 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	registry := data.Carriers()
	network, err := sim.New(sim.Options{Carriers: registry, Ports: data.Ports(), Fleet: data.Fleet(),
		State: db, Clock: clock, Speed: o.SimSpeed, Latency: o.SimLatency, RetryAfter: time.Millisecond, Log: o.Logger,
		Dialect: o.SimDialect})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := network.Start(ln); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { network.Close() })
	carriers, err := carrier.Simulated(network, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.CheckFormats {
		if carriers, err = carrier.CheckFormats(carriers, nil, registry); err != nil {
			t.Fatal(err)
		}
	}
	simulated := terminal.NewDirectory()
	if err := carrier.SimulatedTerminals(network, simulated, nil, nil); err != nil {
		t.Fatal(err)
	}
	terminals := boxwatch.TerminalDirectory(simulated)
	if o.Terminals != nil {
		terminals = o.Terminals
	}
	lines, err := infer.New(registry, data.Lessors())
	if err != nil {
		t.Fatal(err)
	}
	deliveries, err := dispatch.New(dispatch.Config{Store: db, Work: db, Renderer: o.Renderer, Client: webhook.NewClient(o.Webhooks),
		Timeout: o.Webhooks.Timeout, RetryScale: o.RetryScale, Clock: clock, Logger: o.Logger})
	if err != nil {
		t.Fatal(err)
	}
	if err := seedTerminals(ctx, db); err != nil {
		t.Fatal(err)
	}
	engine, err := tracking.New(tracking.Config{DB: db, Registry: registry, Carriers: carriers, Lines: lines, Terminals: terminals, Railways: data.Railways(),
		TerminalInterval: o.TerminalInterval, Clock: clock, Logger: o.Logger, Metrics: o.Metrics,
		RetryScale: o.RetryScale, RefreshInterval: o.RefreshInterval, Workers: o.Workers, TerminalWorkers: o.TerminalWorkers, JobTimeout: o.JobTimeout, ScheduleEvery: o.ScheduleEvery,
		Notified: deliveries.Wake, Arrived: o.Arrived})
	if err != nil {
		t.Fatal(err)
	}
	if err := engine.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if o.Workers > 0 {
		deliveries.Start(ctx)
	}
	t.Cleanup(func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		deliveries.Stop(stopCtx)
		engine.Stop(stopCtx)
	})
	return &Stack{Engine: engine, Deliveries: deliveries, Network: network, Carriers: carriers, Clock: clock}
}

// seedTerminals records the terminal list in the store, as boxwatch serve does at start.
func seedTerminals(ctx context.Context, db *store.DB) error {
	return tracking.SaveTerminalList(ctx, db, data.Terminals(), time.Now())
}

// Eventually polls cond every 20 ms until it holds, failing the test after limit.
func Eventually(t testing.TB, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", limit, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
