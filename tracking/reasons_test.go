package tracking_test

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/carrier/dcsa"
	"github.com/boxwatch/boxwatch/carrier/sim"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// shipmentOf returns the shipment of a settled request.
func (f *fixture) shipmentOf(t testing.TB, tr boxwatch.TrackingRequest) boxwatch.Shipment {
	t.Helper()
	if tr.ShipmentID == "" {
		t.Fatalf("request %s %s has no shipment: %+v", tr.RequestType, tr.RequestNumber, tr)
	}
	s, err := f.db.Shipment(ctx, f.account.ID, tr.ShipmentID)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// stopped waits until the request's shipment stops and returns it.
func (f *fixture) stopped(t testing.TB, tr boxwatch.TrackingRequest) boxwatch.Shipment {
	t.Helper()
	var s boxwatch.Shipment
	tr = f.settled(t, tr.ID)
	trackingtest.Eventually(t, 30*time.Second, "tracking of "+tr.RequestNumber+" never stopped", func() bool {
		s = f.shipmentOf(t, tr)
		return !s.StoppedAt.IsZero()
	})
	return s
}

// boxNumber completes an owner prefix and a six-digit serial with its check digit.
var boxNumber = trackingtest.BoxNumber

// TestFailureReasons: each failed_reason the carrier's answer leads to, with the simulator's
// numbers that show it.
func TestFailureReasons(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		f := newFixture(t, b, trackingtest.Options{CheckFormats: true})
		tests := []struct {
			name, typ, number, scac, want string
		}{
			// The booking was cancelled before the lookup: no shipment.
			{"BookingCancelled", "booking_number", "CMDUSHZ7710", "CMDU", boxwatch.ReasonBookingCancelled},
			{"BookingCancelledAsBill", "bill_of_lading", "254317710", "MAEU", boxwatch.ReasonBookingCancelled},
			// The carrier no longer serves the data (410 Gone).
			{"DataUnavailable", "bill_of_lading", "254314100", "MAEU", boxwatch.ReasonDataUnavailable},
			{"DataUnavailableContainer", "container", containerNumber(t, "MSKU", "4100"), "MAEU", boxwatch.ReasonDataUnavailable},
			// A number no line claims, sent to have its line detected.
			{"SCACAutoDetectFailed", "bill_of_lading", "MAEU987650000", "", boxwatch.ReasonSCACAutoDetectFailed},
			{"SCACAutoDetectFailedNoCandidate", "container", boxNumber("TGHU", "123453"), "", boxwatch.ReasonSCACAutoDetectFailed},
			// A container number sent as a bill fits none of the line's formats.
			{"InvalidNumber", "bill_of_lading", boxNumber("MSKU", "123453"), "MAEU", boxwatch.ReasonInvalidNumber},
		}
		ids := map[string]string{}
		for _, tt := range tests {
			ids[tt.name] = f.track(t, boxwatch.RequestType(tt.typ), tt.number, tt.scac).ID
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				tr := f.settled(t, ids[tt.name])
				if tr.Status != boxwatch.StatusFailed || tr.FailedReason != tt.want || tr.ShipmentID != "" {
					t.Fatalf("%s: %+v, want failed with %s", tt.number, tr, tt.want)
				}
			})
		}
		if n := count(f.events(t), "tracking_request.failed"); n != len(tests) {
			t.Errorf("%d tracking_request.failed events for %d failures", n, len(tests))
		}
	})
}

// TestAutoDetect: a request without SCAC is looked up with the lines likely to know its number,
// in order, and takes the line that claims it; one whose number the account tracks with that
// line already fails as a duplicate.
func TestAutoDetect(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		f := newFixture(t, b, trackingtest.Options{CheckFormats: true})
		tracked := f.settled(t, f.track(t, boxwatch.RequestBillOfLading, "MAEU123456784", "MAEU").ID)
		tests := []struct {
			name, typ, number, wantSCAC, wantReason string
		}{
			{"OKBill", "bill_of_lading", "MEDUAB123453", "MSCU", ""},
			{"OKContainer", "container", boxNumber("HLXU", "123453"), "HLCU", ""},
			// Evergreen's twelve digits, never auto-selected by infer_number: the lookup decides.
			{"OKBareNumber", "bill_of_lading", "003512345673", "EGLV", ""},
			{"ErrDuplicate", "bill_of_lading", tracked.RequestNumber, "MAEU", boxwatch.ReasonDuplicate},
		}
		ids := map[string]string{}
		for _, tt := range tests {
			ids[tt.name] = f.track(t, boxwatch.RequestType(tt.typ), tt.number, "").ID
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				tr := f.settled(t, ids[tt.name])
				if tr.SCAC != tt.wantSCAC || tr.FailedReason != tt.wantReason {
					t.Fatalf("%s: %+v, want scac %s and failed_reason %q", tt.number, tr, tt.wantSCAC, tt.wantReason)
				}
				if tt.wantReason == "" {
					if s := f.shipmentOf(t, tr); s.SCAC != tt.wantSCAC || s.Reference.Number != tt.number {
						t.Fatalf("detected: %+v, shipment %+v", tr, s)
					}
				}
			})
		}
	})
}

// TestStopReasons: each line_tracking_stopped_reason the carrier's answers lead to, with the
// simulator's numbers that show it, in both versions of Track & Trace.
func TestStopReasons(t *testing.T) {
	t.Parallel()
	for _, version := range []string{dcsa.Version22, dcsa.Version30} {
		t.Run(version, func(t *testing.T) {
			storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
				clock := trackingtest.NewClock(time.Now())
				// At full scale: the windows are the reference's days.
				f := newFixture(t, b, trackingtest.Options{Clock: clock, RetryScale: 1, RefreshInterval: time.Hour,
					SimDialect: sim.Dialect{Version: version}})
				cancels := f.settled(t, f.track(t, boxwatch.RequestBookingNumber, "CMDUSHZ7720", "CMDU").ID)
				unreturned := f.track(t, boxwatch.RequestBillOfLading, "254317730", "MAEU")
				abandoned := f.track(t, boxwatch.RequestContainer, containerNumber(t, "MSKU", "7740"), "MAEU")
				if s := f.shipmentOf(t, cancels); cancels.Status != boxwatch.StatusCreated || !s.StoppedAt.IsZero() {
					t.Fatalf("before the cancellation: %+v, %+v", cancels, s)
				}
				for _, tc := range []struct {
					tr   boxwatch.TrackingRequest
					want string
				}{{unreturned, boxwatch.StopPastFullOutWindow}, {abandoned, boxwatch.StopPastArrivalWindow}} {
					if s := f.stopped(t, tc.tr); s.StoppedReason != tc.want {
						t.Errorf("%s: stopped with %q, want %q", tc.tr.RequestNumber, s.StoppedReason, tc.want)
					}
				}
				// The booking is cancelled within a day: the next refresh says so.
				clock.Advance(24 * time.Hour)
				if s := f.stopped(t, cancels); s.StoppedReason != boxwatch.StopBookingCancelled {
					t.Errorf("cancelled booking: stopped with %q", s.StoppedReason)
				}
				for _, tr := range []boxwatch.TrackingRequest{cancels, unreturned, abandoned} {
					if got := f.get(t, tr.ID); got.Status != boxwatch.StatusTrackingStopped {
						t.Errorf("%s: request %s, want tracking_stopped", tr.RequestNumber, got.Status)
					}
				}
				if n := count(f.events(t), "tracking_request.tracking_stopped"); n != 3 {
					t.Errorf("%d tracking_request.tracking_stopped events, want 3", n)
				}
			})
		})
	}
}

// syncBuffer is a log destination safe for the engine's workers and the test to share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// counter returns the value of a counter with the given labels, 0 when it has none.
func counter(t testing.TB, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	metrics:
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if want, ok := labels[l.GetName()]; ok && l.GetValue() != want {
					continue metrics
				}
			}
			return m.GetCounter().GetValue()
		}
	}
	return 0
}

// TestStalledRefreshes: a shipment whose carrier stops answering keeps its last success; each
// failed refresh is logged and counted with its reason; once they have failed for the stall
// window (56 days, scaled) tracking stops with no_updates_at_line.
func TestStalledRefreshes(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		clock := trackingtest.NewClock(time.Now())
		logs, reg := &syncBuffer{}, prometheus.NewRegistry()
		// A scale of 0.01: the stall window is 13.44 hours.
		f := newFixture(t, b, trackingtest.Options{Clock: clock, RetryScale: 0.01, RefreshInterval: time.Hour,
			Logger: slogTo(logs), Metrics: reg})
		tr := f.settled(t, f.track(t, boxwatch.RequestBillOfLading, "254345030", "MAEU").ID)
		created := f.shipmentOf(t, tr)
		failures := func() float64 {
			return counter(t, reg, "boxwatch_refresh_failures_total", map[string]string{"scac": "MAEU", "reason": boxwatch.ReasonUnreachable})
		}

		clock.Advance(2 * time.Hour)
		var s boxwatch.Shipment
		trackingtest.Eventually(t, 30*time.Second, "the failed refresh was not recorded", func() bool {
			s = f.shipmentOf(t, tr)
			return s.LastAttemptedAt.After(created.LastAttemptedAt)
		})
		if !s.LastSucceededAt.Equal(created.LastSucceededAt) || !s.StoppedAt.IsZero() {
			t.Fatalf("after a failed refresh: last succeeded %v (was %v), stopped %v", s.LastSucceededAt, created.LastSucceededAt, s.StoppedAt)
		}
		trackingtest.Eventually(t, 10*time.Second, "the failure was not counted", func() bool { return failures() >= 1 })
		trackingtest.Eventually(t, 10*time.Second, "the failure was not logged", func() bool {
			return strings.Contains(logs.String(), "refresh failed") && strings.Contains(logs.String(), "reason="+boxwatch.ReasonUnreachable)
		})
		cs, err := f.db.ShipmentContainers(ctx, f.account.ID, s.ID)
		if err != nil || len(cs) == 0 || !cs[0].ShipmentLastTrackingRequestAt.Equal(s.LastAttemptedAt) {
			t.Fatalf("containers' last lookup %+v, want the failed refresh's %v (%v)", cs, s.LastAttemptedAt, err)
		}

		clock.Advance(12 * time.Hour)
		s = f.stopped(t, tr)
		if s.StoppedReason != boxwatch.StopNoUpdatesAtLine || !s.LastSucceededAt.Equal(created.LastSucceededAt) {
			t.Fatalf("stalled: stopped with %q, last succeeded %v", s.StoppedReason, s.LastSucceededAt)
		}
		if got := f.get(t, tr.ID); got.Status != boxwatch.StatusTrackingStopped || count(f.events(t), "tracking_request.tracking_stopped") != 1 {
			t.Fatalf("request %s, events %v", got.Status, f.events(t))
		}
		trackingtest.Eventually(t, 10*time.Second, "the stop was not logged", func() bool {
			return strings.Contains(logs.String(), "tracking stopped") && strings.Contains(logs.String(), "reason="+boxwatch.StopNoUpdatesAtLine)
		})
	})
}

func slogTo(w *syncBuffer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }
