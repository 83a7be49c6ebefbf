package tracking_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/internal/promtest"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/terminal"
	"github.com/boxwatch/boxwatch/tracking"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// movedBox finds a bill of lading of the line whose box, discharged at a US port, is at a sister
// terminal of the one the carrier names, asking the carrier and the terminals as boxwatch would.
func movedBox(t *testing.T, f *fixture, scac string) (number, container string, at boxwatch.TerminalRef) {
	t.Helper()
	for i := range 400 {
		number := fmt.Sprintf("%sSH%05d8", scac, 10000+i*97)
		cs, err := f.stack.Carriers[scac].Lookup(ctx, boxwatch.CarrierReference{Type: boxwatch.RequestBillOfLading, Number: number, SCAC: scac})
		if err != nil {
			t.Fatal(err)
		}
		var pod boxwatch.TransportCall
		for _, c := range cs.Calls {
			if c.Mode == "VESSEL" && c.Arrival.Planned.After(pod.Arrival.Planned) {
				pod = c
			}
		}
		if !strings.HasPrefix(pod.LOCODE, "US") {
			continue
		}
		berth := boxwatch.TerminalRef{LOCODE: pod.LOCODE, SMDGCode: pod.FacilityCode}
		base, ok := f.stack.Network.TerminalBaseURL(berth)
		if !ok {
			t.Fatalf("no simulated terminal %s", berth)
		}
		client, err := terminal.New(terminal.Config{BaseURL: base})
		if err != nil {
			t.Fatal(err)
		}
		for _, eq := range cs.Equipment {
			r, err := client.Check(ctx, boxwatch.TerminalQuery{Terminal: berth, Container: eq.Reference, SCAC: scac, BillOfLading: number})
			if err == nil && !r.At.IsZero() {
				return number, eq.Reference, r.At
			}
		}
	}
	t.Fatal("no box at a sister terminal")
	return "", "", boxwatch.TerminalRef{}
}

// TestTerminalMovesTheBox: the carrier's terminal says the box is at a sister terminal; the box's
// terminal changes (container.pod_terminal_changed, and a container.updated from the terminal
// with the pod_terminal change), and its checks go to the terminal it is at, which reports it.
func TestTerminalMovesTheBox(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		// At full scale: the arrival window must stay open for the days after arrival.
		f := newFixture(t, b, trackingtest.Options{RetryScale: 1})
		number, container, at := movedBox(t, f, "ONEY")
		tr := f.settled(t, f.track(t, boxwatch.RequestBillOfLading, number, "ONEY").ID)
		listed, err := f.db.TerminalByRef(ctx, at)
		if err != nil {
			t.Fatalf("the terminal the box is at, %s, is not known: %v", at, err)
		}
		var box boxwatch.Container
		trackingtest.Eventually(t, 30*time.Second, "the box's terminal never reported", func() bool {
			cs, _ := f.db.ShipmentContainers(ctx, f.account.ID, tr.ShipmentID)
			for _, c := range cs {
				if c.Number == container {
					box = c
				}
			}
			return box.PODTerminalID != "" && !box.TerminalCheckedAt.IsZero()
		})
		s, _ := f.db.Shipment(ctx, f.account.ID, tr.ShipmentID)
		pod, _ := s.POD()
		if box.PODTerminalID != listed.ID || box.PODTerminalID == pod.TerminalID() || box.LocationAtTerminal == "" || box.PickupLFDTerminal.IsZero() {
			t.Fatalf("box at %s (want %s, the carrier named %s): %+v", box.PODTerminalID, listed.ID, pod.TerminalID(), box)
		}
		evs, err := f.db.Events(ctx, f.account.ID, 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		var changed, updated int
		for _, e := range evs {
			switch {
			case e.Name == "container.pod_terminal_changed":
				changed++
				var d tracking.PODTerminalChange
				if err := json.Unmarshal(e.Data, &d); err != nil || d.TerminalID != listed.ID || d.PreviousTerminalID != pod.TerminalID() ||
					d.DataSource != "terminal" || e.ContainerID != box.ID || e.ObjectType != "container_pod_terminal_changed_event" {
					t.Errorf("pod_terminal_changed %+v: %+v %v", e, d, err)
				}
			case e.Name == "container.updated" && e.ContainerID == box.ID:
				var d tracking.ContainerUpdate
				if err := json.Unmarshal(e.Data, &d); err != nil || d.DataSource != "terminal" {
					t.Errorf("container.updated %s: %+v %v", e.Data, d, err)
				}
				if _, ok := d.Changeset["pod_terminal"]; ok {
					updated++
				}
			}
		}
		if changed != 1 || updated != 1 {
			t.Errorf("%d pod_terminal_changed and %d pod_terminal updates, want one each", changed, updated)
		}
	})
}

// TestTerminalCheckFailures: a terminal that is down, answers what cannot be read, or is not
// known to any source leaves its reason on the container and in the failure metric, and the box
// is checked again; once the terminal answers, the reason clears and its report applies.
func TestTerminalCheckFailures(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		var mode atomic.Value
		mode.Store("down")
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			number := strings.TrimPrefix(r.URL.Path, "/v1/containers/")
			switch mode.Load() {
			case "down":
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusServiceUnavailable)
			case "garbage":
				w.Write([]byte("<html>maintenance</html>"))
			default:
				fmt.Fprintf(w, `{"container_number":%q,"status":"in_yard","checked_at":%q,"available_for_pickup":false,
					"holds":[{"type":"customs","status":"hold"}],"fees":[{"type":"exam","amount":350,"currency":"USD"}],
					"last_free_day":{"terminal":"2030-01-04","line":"2030-01-06"},"appointment":{"at":"2030-01-03T10:00:00Z"},"yard_location":"C07"}`,
					number, time.Now().UTC().Format(time.RFC3339))
			}
		}))
		defer srv.Close()
		client, err := terminal.New(terminal.Config{BaseURL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		var supported atomic.Bool
		supported.Store(true)
		reg := prometheus.NewRegistry()
		f := newFixture(t, b, trackingtest.Options{RetryScale: 1, Metrics: reg, Terminals: directoryFunc(func(boxwatch.TerminalRef) boxwatch.TerminalSource {
			if supported.Load() {
				return client
			}
			return nil
		})})
		tr := f.settled(t, f.track(t, boxwatch.RequestBillOfLading, "ONEYSH123458", "ONEY").ID)
		waitReason := func(want string) boxwatch.Container {
			t.Helper()
			var c boxwatch.Container
			trackingtest.Eventually(t, 30*time.Second, "terminal failure reason "+want, func() bool {
				cs, _ := f.db.ShipmentContainers(ctx, f.account.ID, tr.ShipmentID)
				c = cs[0]
				if c.TerminalFailedReason == want && (want != "" || !c.TerminalCheckedAt.IsZero()) {
					return true
				}
				// The next check comes due; time moves only while none is due, so that a slow
				// machine does not sail the box past the days it is checked in.
				if next := c.TerminalNextCheckAt; next.After(f.clock.Now()) {
					f.clock.Advance(min(next.Sub(f.clock.Now()), 10*time.Minute))
				}
				return false
			})
			return c
		}
		waitReason(boxwatch.TerminalUnreachable)
		mode.Store("garbage")
		waitReason(boxwatch.TerminalUnrecognized)
		mode.Store("ok")
		c := waitReason("")
		if len(c.Holds) != 1 || c.Holds[0].Name != "customs" || len(c.Fees) != 1 || c.LocationAtTerminal != "C07" ||
			c.AvailableForPickup == nil || *c.AvailableForPickup || c.PickupLFDTerminal.Equal(c.PickupLFDLine) ||
			!c.PickupLFD.Equal(c.PickupLFDLine) || c.PickupAppointmentAt.IsZero() {
			t.Fatalf("after the terminal answered: %+v", c)
		}
		supported.Store(false)
		waitReason(boxwatch.TerminalUnsupported)
		got := promtest.Gather(t, reg)
		for _, reason := range []string{boxwatch.TerminalUnsupported, boxwatch.TerminalUnreachable, boxwatch.TerminalUnrecognized} {
			if got["boxwatch_terminal_check_failures_total reason="+reason] == 0 {
				t.Errorf("no %s failure counted: %v", reason, got)
			}
		}
		names := f.events(t)
		for _, name := range []string{"container.pickup_lfd.changed", "container.pickup_lfd_terminal.changed", "container.pickup_lfd_line.changed",
			"container.pickup_appointment.changed", "container.updated"} {
			if count(names, name) == 0 {
				t.Errorf("no %s in %v", name, names)
			}
		}
	})
}

// directoryFunc is a terminal directory made of a function.
type directoryFunc func(boxwatch.TerminalRef) boxwatch.TerminalSource

func (d directoryFunc) Source(t boxwatch.TerminalRef) boxwatch.TerminalSource { return d(t) }

// TestTerminalChecksHoldNoLookups: terminals that never answer hold only the terminal checks'
// workers. With every one of them waiting on a hanging terminal, new tracking requests are still
// looked up at once; when both kinds shared one set of workers, the lookups waited for the
// checks' timeouts.
func TestTerminalChecksHoldNoLookups(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		release := make(chan struct{})
		var hanging atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hanging.Add(1)
			defer hanging.Add(-1)
			select {
			case <-release:
			case <-r.Context().Done():
			}
			w.WriteHeader(http.StatusServiceUnavailable)
		}))
		t.Cleanup(srv.Close)
		client, err := terminal.New(terminal.Config{BaseURL: srv.URL, Timeout: 10 * time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		const workers = 2
		f := newFixture(t, b, trackingtest.Options{RetryScale: 1, Workers: workers, TerminalWorkers: workers, JobTimeout: 10 * time.Minute,
			Terminals: directoryFunc(func(boxwatch.TerminalRef) boxwatch.TerminalSource { return client })})
		// Cleanups run last first: the terminal answers before the engine stops and waits for
		// its jobs.
		t.Cleanup(func() { close(release) })
		number := func(i int) string { return fmt.Sprintf("ONEYSH%05d8", 20000+i*89) }
		var shipments []string
		for i := range 3 {
			shipments = append(shipments, f.settled(t, f.track(t, boxwatch.RequestBillOfLading, number(i), "ONEY").ID).ShipmentID)
		}
		// Time runs until every terminal worker waits on the terminal.
		trackingtest.Eventually(t, 60*time.Second, "the terminal checks never all hung", func() bool {
			if hanging.Load() >= workers {
				return true
			}
			now := f.clock.Now()
			next := now.Add(10 * time.Minute)
			for _, id := range shipments {
				cs, _ := f.db.ShipmentContainers(ctx, f.account.ID, id)
				for _, c := range cs {
					if c.TerminalNextCheckAt.After(now) && c.TerminalNextCheckAt.Before(next) {
						next = c.TerminalNextCheckAt
					}
				}
			}
			f.clock.Advance(next.Sub(now))
			return false
		})
		for i := 3; i < 3+2*workers; i++ {
			if tr := f.settled(t, f.track(t, boxwatch.RequestBillOfLading, number(i), "ONEY").ID); tr.Status != boxwatch.StatusCreated {
				t.Errorf("request %s: %s (%s)", tr.RequestNumber, tr.Status, tr.FailedReason)
			}
		}
		if n := hanging.Load(); n < workers {
			t.Fatalf("%d terminal checks still hanging while the lookups ran, want %d", n, workers)
		}
	})
}

// TestTerminalPacedChecksWait: a terminal whose pace (its client's rate limit) puts a check's turn
// further away than a check may wait is not asked, and nothing fails: the check's job is put off
// to its turn, leaving the worker to other checks, and the box's report arrives then.
func TestTerminalPacedChecksWait(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		var asked atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			asked.Add(1)
			fmt.Fprintf(w, `{"container_number":%q,"status":"in_yard","checked_at":%q,"available_for_pickup":true,"yard_location":"A01"}`,
				strings.TrimPrefix(r.URL.Path, "/v1/containers/"), time.Now().UTC().Format(time.RFC3339))
		}))
		defer srv.Close()
		// A turn every half second, and a check may wait 10 ms for it.
		client, err := terminal.New(terminal.Config{BaseURL: srv.URL, Rate: 2, Burst: 1, MaxWait: 10 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		reg := prometheus.NewRegistry()
		f := newFixture(t, b, trackingtest.Options{RetryScale: 1, Metrics: reg, TerminalWorkers: 1,
			Terminals: directoryFunc(func(boxwatch.TerminalRef) boxwatch.TerminalSource { return client })})
		var shipments []string
		for i := range 3 {
			shipments = append(shipments, f.settled(t, f.track(t, boxwatch.RequestBillOfLading, fmt.Sprintf("ONEYSH%05d8", 40000+i*79), "ONEY").ID).ShipmentID)
		}
		var boxes int
		trackingtest.Eventually(t, 60*time.Second, "the paced terminal's reports never all arrived", func() bool {
			now, checked := f.clock.Now(), 0
			next := now.Add(10 * time.Minute)
			boxes = 0
			for _, id := range shipments {
				cs, _ := f.db.ShipmentContainers(ctx, f.account.ID, id)
				for _, c := range cs {
					if c.TerminalFailedReason != "" {
						t.Fatalf("box %s failed its check: %s", c.Number, c.TerminalFailedReason)
					}
					boxes++
					if !c.TerminalCheckedAt.IsZero() {
						checked++
					} else if c.TerminalNextCheckAt.After(now) && c.TerminalNextCheckAt.Before(next) {
						next = c.TerminalNextCheckAt
					}
				}
			}
			if boxes > 1 && checked == boxes {
				return true
			}
			if next.Before(now.Add(10 * time.Minute)) {
				f.clock.Advance(next.Sub(now))
			}
			return false
		})
		got := promtest.Gather(t, reg)
		if got["boxwatch_job_runs_total kind=terminal_check outcome=snoozed"] == 0 || int(asked.Load()) < boxes {
			t.Fatalf("%d boxes, the terminal asked %d times, %v checks put off to their turn: want some put off", boxes, asked.Load(),
				got["boxwatch_job_runs_total kind=terminal_check outcome=snoozed"])
		}
	})
}

// TestTerminalCadence: a box whose vessel is more than a day from its port of discharge is
// checked every four intervals, whether the terminal answers or does not know the box yet; within
// a day of the arrival, every interval; once the box left full, every four intervals again.
func TestTerminalCadence(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		var known atomic.Bool
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !known.Load() {
				w.WriteHeader(http.StatusNotFound)
				fmt.Fprint(w, `{"error":"not_found"}`)
				return
			}
			fmt.Fprintf(w, `{"container_number":%q,"status":"in_yard","checked_at":%q,"available_for_pickup":false,"yard_location":"B02"}`,
				strings.TrimPrefix(r.URL.Path, "/v1/containers/"), time.Now().UTC().Format(time.RFC3339))
		}))
		defer srv.Close()
		client, err := terminal.New(terminal.Config{BaseURL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		const interval = time.Hour
		f := newFixture(t, b, trackingtest.Options{RetryScale: 1, TerminalInterval: interval,
			Terminals: directoryFunc(func(boxwatch.TerminalRef) boxwatch.TerminalSource { return client })})
		tr := f.settled(t, f.track(t, boxwatch.RequestBillOfLading, "ONEYSH123458", "ONEY").ID)
		// check puts the vessel eta from now at the port of discharge (not yet arrived) and the
		// box's full out at fullOut, makes the box due, and returns how long after now its next
		// check is set once the check ran.
		check := func(eta time.Duration, fullOut time.Time) time.Duration {
			t.Helper()
			now := f.clock.Now()
			var box string
			err := f.db.InTx(ctx, func(tx boxwatch.Tx) error {
				s, err := tx.LockShipment(ctx, tr.ShipmentID)
				if err != nil {
					return err
				}
				pod := &s.Route[len(s.Route)-1]
				pod.ETA, pod.ATA = now.Add(eta), time.Time{}
				if err := tx.UpdateShipment(ctx, s); err != nil {
					return err
				}
				cs, err := tx.ShipmentContainers(ctx, s.ID)
				if err != nil || len(cs) == 0 {
					return fmt.Errorf("containers %v, %w", cs, err)
				}
				c, err := tx.LockContainer(ctx, cs[0].ID)
				if err != nil {
					return err
				}
				box = c.ID
				c.PODArrivedAt, c.PODDischargedAt, c.PODFullOutAt, c.EmptyTerminatedAt = time.Time{}, time.Time{}, fullOut, time.Time{}
				c.Inland = boxwatch.ContainerInland{}
				c.TerminalNextCheckAt = now
				return tx.SaveContainer(ctx, c)
			})
			if err != nil {
				t.Fatal(err)
			}
			var next time.Time
			trackingtest.Eventually(t, 30*time.Second, "the due check never ran", func() bool {
				cs, _ := f.db.ShipmentContainers(ctx, f.account.ID, tr.ShipmentID)
				for _, c := range cs {
					if c.ID == box {
						next = c.TerminalNextCheckAt
					}
				}
				return next.After(now)
			})
			return next.Sub(now)
		}
		for _, tt := range []struct {
			name    string
			known   bool
			eta     time.Duration
			fullOut time.Duration // before now; 0 for a box not out
			want    time.Duration
		}{
			{"AtSeaUnknownToTheTerminal", false, 60 * time.Hour, 0, 4 * interval},
			{"AtSeaKnown", true, 48 * time.Hour, 0, 4 * interval},
			{"WithinADayUnknown", false, 20 * time.Hour, 0, interval},
			{"WithinADayKnown", true, 2 * time.Hour, 0, interval},
			{"GoneFullOut", true, 2 * time.Hour, 3 * time.Hour, 4 * interval},
		} {
			known.Store(tt.known)
			var out time.Time
			if tt.fullOut > 0 {
				out = f.clock.Now().Add(-tt.fullOut)
			}
			if got := check(tt.eta, out); got != tt.want {
				t.Errorf("%s: next check %v after the check, want %v", tt.name, got, tt.want)
			}
			f.clock.Advance(time.Minute)
		}
	})
}
