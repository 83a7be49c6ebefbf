package tracking_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

var ctx = context.Background()

type fixture struct {
	db      *store.DB
	stack   *trackingtest.Stack
	account boxwatch.Account
	clock   *trackingtest.Clock
}

func newFixture(t testing.TB, b storetest.Backend, o trackingtest.Options) *fixture {
	t.Helper()
	db := b.Open(t)
	if o.Clock == nil {
		o.Clock = trackingtest.NewClock(time.Now())
	}
	f := &fixture{db: db, clock: o.Clock, account: storetest.MustCreateAccount(t, db, "acme")}
	f.stack = trackingtest.Start(t, db, o)
	return f
}

// track creates a tracking request through the engine, as the API does.
func (f *fixture) track(t testing.TB, typ boxwatch.RequestType, number, scac string) boxwatch.TrackingRequest {
	t.Helper()
	now := f.clock.Now()
	tr := boxwatch.TrackingRequest{ID: boxwatch.NewID(now), AccountID: f.account.ID, RequestType: typ, RequestNumber: number,
		SCAC: scac, RefNumbers: []string{}, ShipmentTags: []string{}, Status: boxwatch.StatusPending, CreatedAt: now, UpdatedAt: now}
	if err := f.stack.Engine.CreateTrackingRequest(ctx, tr); err != nil {
		t.Fatal(err)
	}
	return tr
}

func (f *fixture) get(t testing.TB, id string) boxwatch.TrackingRequest {
	t.Helper()
	tr, err := f.db.TrackingRequest(ctx, f.account.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// settled waits until the request leaves pending.
func (f *fixture) settled(t testing.TB, id string) boxwatch.TrackingRequest {
	t.Helper()
	var tr boxwatch.TrackingRequest
	trackingtest.Eventually(t, 20*time.Second, "tracking request "+id+" still pending", func() bool {
		tr = f.get(t, id)
		return tr.Status != boxwatch.StatusPending
	})
	return tr
}

func (f *fixture) events(t testing.TB) []string {
	t.Helper()
	evs, err := f.db.Events(ctx, f.account.ID, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range evs {
		names = append(names, e.Name)
	}
	return names
}

func count(names []string, name string) int {
	n := 0
	for _, s := range names {
		if s == name {
			n++
		}
	}
	return n
}

// containerNumber returns a valid ISO 6346 number of prefix whose last four characters are tail.
func containerNumber(t *testing.T, prefix, tail string) string {
	for serial := 0; serial < 1000; serial++ {
		body := fmt.Sprintf("%s%03d%s", prefix, serial, tail[:3])
		if d, _ := boxwatch.ContainerCheckDigit(body); string('0'+d) == tail[3:] {
			return body + tail[3:]
		}
	}
	t.Fatalf("no %s number ends in %s", prefix, tail)
	return ""
}

func TestTestNumbers(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		f := newFixture(t, b, trackingtest.Options{})
		ok := f.track(t, boxwatch.RequestBillOfLading, "TEST-TR-SUCCEEDED", "TEST")
		bad := f.track(t, boxwatch.RequestBillOfLading, "TEST-TR-FAILED", "TEST")
		if tr := f.settled(t, ok.ID); tr.Status != boxwatch.StatusCreated || tr.ShipmentID == "" || tr.FailedReason != "" {
			t.Fatalf("TEST-TR-SUCCEEDED: %+v", tr)
		}
		if tr := f.settled(t, bad.ID); tr.Status != boxwatch.StatusFailed || tr.FailedReason != boxwatch.ReasonNotFound {
			t.Fatalf("TEST-TR-FAILED: %+v", tr)
		}
		s, err := f.db.Shipment(ctx, f.account.ID, f.get(t, ok.ID).ShipmentID)
		if err != nil || len(s.Route) < 2 || s.BillOfLading != "TEST-TR-SUCCEEDED" {
			t.Fatalf("shipment %+v, err %v", s, err)
		}
		cs, err := f.db.ShipmentContainers(ctx, f.account.ID, s.ID)
		if err != nil || len(cs) == 0 {
			t.Fatalf("containers %v, err %v", cs, err)
		}
		names := f.events(t)
		if count(names, "tracking_request.succeeded") != 1 || count(names, "tracking_request.failed") != 1 {
			t.Fatalf("events %v", names)
		}
	})
}

func TestUnknownNumbers(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		clock := trackingtest.NewClock(time.Now())
		f := newFixture(t, b, trackingtest.Options{Clock: clock, RetryScale: 0.00001})
		box := f.track(t, boxwatch.RequestContainer, containerNumber(t, "MSKU", "0000"), "MAEU")
		if tr := f.settled(t, box.ID); tr.Status != boxwatch.StatusFailed || tr.FailedReason != boxwatch.ReasonNotFound {
			t.Fatalf("unknown container: %+v", tr)
		}
		bl := f.track(t, boxwatch.RequestBillOfLading, "MAEU987650000", "MAEU")
		if tr := f.settled(t, bl.ID); tr.Status != boxwatch.StatusAwaitingManifest || tr.FailedReason != "" {
			t.Fatalf("unknown bill: %+v", tr)
		}
		// Daily checks go on until the manifest window (seven days, scaled) closes: expired.
		clock.Advance(7 * 24 * time.Hour)
		trackingtest.Eventually(t, 20*time.Second, "awaiting_manifest never failed", func() bool {
			return f.get(t, bl.ID).Status == boxwatch.StatusFailed
		})
		if tr := f.get(t, bl.ID); tr.FailedReason != boxwatch.ReasonExpired {
			t.Fatalf("after the window: %+v", tr)
		}
		names := f.events(t)
		if count(names, "tracking_request.awaiting_manifest") != 1 || count(names, "tracking_request.failed") != 2 {
			t.Fatalf("events %v", names)
		}
	})
}

func TestCarrierUnreachableThenRetried(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		f := newFixture(t, b, trackingtest.Options{})
		tr := f.track(t, boxwatch.RequestBillOfLading, "HLCU123459999", "HLCU")
		// The first failure shows while it waits for the retry.
		trackingtest.Eventually(t, 20*time.Second, "no retry recorded", func() bool {
			got := f.get(t, tr.ID)
			return got.RetryCount != nil || got.Status != boxwatch.StatusPending
		})
		got := f.settled(t, tr.ID)
		// The digit before 9999 is 5: once found, the journey is under way and tracked.
		if got.ShipmentID == "" || got.Status != boxwatch.StatusCreated || got.RetryCount == nil || *got.RetryCount != 2 || got.IsRetrying || got.FailedReason != "" {
			n := -1
			if got.RetryCount != nil {
				n = *got.RetryCount
			}
			t.Fatalf("after two failed attempts: %+v (retry_count %d)", got, n)
		}
	})
}

func TestNoCarrierFails(t *testing.T) {
	t.Parallel()
	db := storetest.SQLite.Open(t)
	if err := tracking.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	engine, err := tracking.New(tracking.Config{DB: db, Registry: data.Carriers(), Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := engine.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer engine.Stop(ctx)
	a := storetest.MustCreateAccount(t, db, "acme")
	now := time.Now()
	tr := boxwatch.TrackingRequest{ID: boxwatch.NewID(now), AccountID: a.ID, RequestType: boxwatch.RequestBillOfLading,
		RequestNumber: "MAEU123456789", SCAC: "MAEU", Status: boxwatch.StatusPending, CreatedAt: now, UpdatedAt: now}
	if err := engine.CreateTrackingRequest(ctx, tr); err != nil {
		t.Fatal(err)
	}
	trackingtest.Eventually(t, 20*time.Second, "request without a carrier never failed", func() bool {
		got, _ := db.TrackingRequest(ctx, a.ID, tr.ID)
		return got.Status == boxwatch.StatusFailed && got.FailedReason == boxwatch.ReasonUnreachable
	})
}

func TestJourneyStageAtFirstLookup(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		f := newFixture(t, b, trackingtest.Options{})
		// A booking (0) has no container assigned until its empty is picked up; at the port of
		// lading (1) the boxes may already be on board before the vessel leaves.
		want := map[byte]string{
			'0': "", '1': boxwatch.ContainerOnShip, '2': boxwatch.ContainerOnShip, '3': boxwatch.ContainerOnShip,
			'4': boxwatch.ContainerOnShip, '5': boxwatch.ContainerOnShip, '6': boxwatch.ContainerOnShip, '7': boxwatch.ContainerOnShip,
			'8': boxwatch.ContainerAvailable, '9': boxwatch.ContainerEmptyReturned,
		}
		ids := map[byte]string{}
		for d := range want {
			ids[d] = f.track(t, boxwatch.RequestBillOfLading, "ONEYSH12345"+string(d), "ONEY").ID
		}
		for d, status := range want {
			t.Run(string(d), func(t *testing.T) {
				tr := f.settled(t, ids[d])
				if tr.ShipmentID == "" {
					t.Fatalf("no shipment: %+v", tr)
				}
				s, _ := f.db.Shipment(ctx, f.account.ID, tr.ShipmentID)
				cs, err := f.db.ShipmentContainers(ctx, f.account.ID, tr.ShipmentID)
				if err != nil || (len(cs) == 0) != (status == "") {
					t.Fatalf("containers: %v %v", cs, err)
				}
				for _, c := range cs {
					// Discharged (8), the terminal may still hold the box (customs): not_available
					// until it releases it.
					if d == '8' && c.CurrentStatus == boxwatch.ContainerNotAvailable && (len(c.Holds) > 0 || c.AvailableForPickup != nil && !*c.AvailableForPickup) {
						continue
					}
					// Discharged, and the terminal not heard from yet (its check runs as a job of
					// its own): grounded, by the reference's rules, until it says.
					if d == '8' && c.CurrentStatus == boxwatch.ContainerGrounded && c.TerminalCheckedAt.IsZero() {
						continue
					}
					if c.CurrentStatus != status && !(d == '1' && c.CurrentStatus == boxwatch.ContainerNew) {
						t.Errorf("container %s is %s, want %s", c.Number, c.CurrentStatus, status)
					}
				}
				pol, _ := s.POL()
				pod, _ := s.POD()
				now := f.clock.Now()
				switch d {
				case '0':
					if !pol.ATD.IsZero() || pol.ETD.IsZero() {
						t.Errorf("booked: ETD %v, ATD %v", pol.ETD, pol.ATD)
					}
				case '1':
					// Awaiting the next sailing of its loop: within a headway (a week at most) and
					// the delays of a late vessel (docs/carriers.md).
					if cs[0].FullInAt.IsZero() || !pol.ATD.IsZero() || pol.ETD.Sub(now) > 14*24*time.Hour || pol.ETD.Before(now) {
						t.Errorf("at the port of lading: full in %v, ETD %v (now %v)", cs[0].FullInAt, pol.ETD, now)
					}
				case '7':
					// The next vessel to arrive; the line's ETA may lag the truth by hours.
					if !pod.ATA.IsZero() || pod.ETA.Sub(now) > 14*24*time.Hour || pod.ETA.Before(now.Add(-24*time.Hour)) {
						t.Errorf("arriving: ETA %v, ATA %v (now %v)", pod.ETA, pod.ATA, now)
					}
				case '9':
					if tr.Status != boxwatch.StatusTrackingStopped || s.StoppedReason != boxwatch.StopAllContainersTerminated {
						t.Errorf("journey complete but tracking is %s (%q)", tr.Status, s.StoppedReason)
					}
				}
			})
		}
	})
}

func TestRefreshLogsEachChangeOnce(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		clock := trackingtest.NewClock(time.Now())
		f := newFixture(t, b, trackingtest.Options{Clock: clock, RefreshInterval: time.Hour})
		tr := f.settled(t, f.track(t, boxwatch.RequestBillOfLading, "CMDU12345671", "CMDU").ID)
		before := f.events(t)
		if count(before, "tracking_request.succeeded") != 1 || len(before) != 1 {
			t.Fatalf("at creation: %v (the past is recorded, not announced)", before)
		}
		// A day after its estimated departure (the next sailing), the vessel has left: the next
		// refresh says so.
		s0, _ := f.db.Shipment(ctx, f.account.ID, tr.ShipmentID)
		pol, _ := s0.POL()
		clock.Advance(max(24*time.Hour, pol.ETD.Sub(clock.Now())+24*time.Hour))
		trackingtest.Eventually(t, 30*time.Second, "the departure never reached the event log", func() bool {
			return count(f.events(t), tracking.VesselDeparted) > 0
		})
		cs, _ := f.db.ShipmentContainers(ctx, f.account.ID, tr.ShipmentID)
		if n := count(f.events(t), tracking.VesselDeparted); n != len(cs) {
			t.Fatalf("%d vessel_departed events for %d containers", n, len(cs))
		}
		// Later refreshes with nothing new log nothing again.
		seen := len(f.events(t))
		s, _ := f.db.Shipment(ctx, f.account.ID, tr.ShipmentID)
		clock.Advance(2 * time.Hour)
		trackingtest.Eventually(t, 30*time.Second, "no further refresh", func() bool {
			s2, _ := f.db.Shipment(ctx, f.account.ID, tr.ShipmentID)
			return s2.LastSucceededAt.After(s.LastSucceededAt)
		})
		for _, name := range f.events(t)[seen:] {
			if strings.HasPrefix(name, "container.transport.vessel_departed") {
				t.Fatalf("vessel_departed logged twice: %v", f.events(t))
			}
		}
	})
}

func TestStopAndResume(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		f := newFixture(t, b, trackingtest.Options{})
		tr := f.settled(t, f.track(t, boxwatch.RequestBillOfLading, "ZIMU12345674", "ZIMU").ID)
		s, err := f.stack.Engine.StopTracking(ctx, f.account.ID, tr.ShipmentID)
		if err != nil || s.StoppedReason != boxwatch.StopCancelledByUser || !s.NextRefreshAt.IsZero() {
			t.Fatalf("stop: %+v %v", s, err)
		}
		if got := f.get(t, tr.ID); got.Status != boxwatch.StatusTrackingStopped {
			t.Fatalf("request after stop: %s", got.Status)
		}
		// Stopped, the number may be tracked again; resuming the old one is then a duplicate.
		again := f.settled(t, f.track(t, boxwatch.RequestBillOfLading, "ZIMU12345674", "ZIMU").ID)
		if _, err := f.stack.Engine.ResumeTracking(ctx, f.account.ID, tr.ShipmentID); boxwatch.AsError(err) == nil || boxwatch.AsError(err).Code != boxwatch.CodeDuplicate {
			t.Fatalf("resume beside a live duplicate: err = %v", err)
		}
		if _, err := f.stack.Engine.StopTracking(ctx, f.account.ID, again.ShipmentID); err != nil {
			t.Fatal(err)
		}
		s, err = f.stack.Engine.ResumeTracking(ctx, f.account.ID, tr.ShipmentID)
		if err != nil || !s.StoppedAt.IsZero() {
			t.Fatalf("resume: %+v %v", s, err)
		}
		if got := f.get(t, tr.ID); got.Status != boxwatch.StatusCreated {
			t.Fatalf("request after resume: %s", got.Status)
		}
		other := storetest.MustCreateAccount(t, f.db, "globex")
		if _, err := f.stack.Engine.StopTracking(ctx, other.ID, tr.ShipmentID); !boxwatch.IsKind(err, boxwatch.KindNotFound) {
			t.Fatalf("another account stopping it: err = %v", err)
		}
	})
}

func TestHungCarrierIsRetriedNotSpun(t *testing.T) {
	t.Parallel()
	f := newFixture(t, storetest.SQLite, trackingtest.Options{SimLatency: time.Hour, JobTimeout: time.Second, RetryScale: 1})
	tr := f.track(t, boxwatch.RequestBillOfLading, "MSCU12345673", "MSCU")
	trackingtest.Eventually(t, 10*time.Second, "a hung carrier was not recorded as unreachable", func() bool {
		got := f.get(t, tr.ID)
		return got.IsRetrying && got.FailedReason == boxwatch.ReasonUnreachable
	})
	// With real backoff the lookup waits 5 s for its second attempt, rather than spinning.
	var job *rivertype.JobRow
	trackingtest.Eventually(t, 10*time.Second, "the timed-out lookup was not scheduled again", func() bool {
		jobs, err := f.stack.Engine.WaitingLookups(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(jobs) == 1 {
			job = jobs[0]
		}
		return job != nil
	})
	recorded := f.get(t, tr.ID).UpdatedAt
	if wait := job.ScheduledAt.Sub(recorded); wait < 4*time.Second {
		t.Fatalf("the retry runs %v after the failure was recorded, want the first backoff (5 s ± 10 %%) after", wait)
	}
	if got := f.get(t, tr.ID); got.Status != boxwatch.StatusPending || got.RetryCount == nil || *got.RetryCount != 1 {
		t.Fatalf("after a timed-out lookup: %+v", got)
	}
}

// TestShipmentNumbers: the shipment's bill, booking and normalized numbers follow the request's
// type, and a container request gets the carrier's bill number.
func TestShipmentNumbers(t *testing.T) {
	t.Parallel()
	f := newFixture(t, storetest.SQLite, trackingtest.Options{})
	shipmentOf := func(tr boxwatch.TrackingRequest) boxwatch.Shipment {
		t.Helper()
		tr = f.settled(t, tr.ID)
		s, err := f.db.Shipment(ctx, f.account.ID, tr.ShipmentID)
		if err != nil {
			t.Fatalf("request %+v: %v", tr, err)
		}
		return s
	}
	test := shipmentOf(f.track(t, boxwatch.RequestBillOfLading, "TEST-TR-SUCCEEDED", "TEST"))
	if test.NormalizedNumber != "TEST-TR-SUCCEEDED" {
		t.Errorf("TEST-TR-SUCCEEDED normalized to %q", test.NormalizedNumber)
	}
	booking := shipmentOf(f.track(t, boxwatch.RequestBookingNumber, "224466885", "MAEU"))
	if booking.Booking != "224466885" || booking.NormalizedNumber == "" {
		t.Errorf("booking request: booking %q, bill %q, normalized %q", booking.Booking, booking.BillOfLading, booking.NormalizedNumber)
	}
	bill := shipmentOf(f.track(t, boxwatch.RequestBillOfLading, "MAEU123456784", "MAEU"))
	if bill.BillOfLading != "MAEU123456784" || bill.NormalizedNumber != "123456784" {
		t.Errorf("bill request: bill %q, normalized %q", bill.BillOfLading, bill.NormalizedNumber)
	}
	cs, err := f.db.ShipmentContainers(ctx, f.account.ID, bill.ID)
	if err != nil || len(cs) == 0 {
		t.Fatalf("containers %v, %v", cs, err)
	}
	box := shipmentOf(f.track(t, boxwatch.RequestContainer, cs[0].Number, "MAEU"))
	if !strings.HasPrefix(box.BillOfLading, "MAEU") || box.NormalizedNumber != strings.TrimPrefix(box.BillOfLading, "MAEU") || box.Booking != "" {
		t.Errorf("container request: bill %q, booking %q, normalized %q; want the carrier's bill", box.BillOfLading, box.Booking, box.NormalizedNumber)
	}
}

// TestTerminalReports: near arrival nothing is known of the terminal; once the box is discharged
// the terminal's report arrives (a customs hold, the last free day, a yard block) and its changes
// are logged: the last free day as container.pickup_lfd.changed, the rest as container.updated.
func TestTerminalReports(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		clock := trackingtest.NewClock(time.Now())
		// At full scale: the arrival window must stay open for the days after arrival.
		f := newFixture(t, b, trackingtest.Options{Clock: clock, RefreshInterval: time.Hour, RetryScale: 1})
		tr := f.settled(t, f.track(t, boxwatch.RequestBillOfLading, "ONEYSH123457", "ONEY").ID)
		cs, err := f.db.ShipmentContainers(ctx, f.account.ID, tr.ShipmentID)
		if err != nil || len(cs) == 0 {
			t.Fatalf("containers %v %v", cs, err)
		}
		// The terminal may have been asked already (checks run in their own queue, beside the
		// lookups): it knows the box is coming, not where it is or until when it is free.
		if c := cs[0]; !c.PickupLFD.IsZero() || c.LocationAtTerminal != "" || c.AvailableForPickup != nil && *c.AvailableForPickup ||
			c.TerminalCheckedAt.IsZero() && len(c.Holds) != 0 {
			t.Fatalf("terminal facts before arrival: %+v", c)
		}
		// Within a day the vessel arrives and the boxes are discharged: the terminal reports.
		var held boxwatch.Container
		for range 8 {
			s, _ := f.db.Shipment(ctx, f.account.ID, tr.ShipmentID)
			clock.Advance(6 * time.Hour)
			trackingtest.Eventually(t, 30*time.Second, "no refresh", func() bool {
				s2, _ := f.db.Shipment(ctx, f.account.ID, tr.ShipmentID)
				return s2.LastSucceededAt.After(s.LastSucceededAt) || !s2.StoppedAt.IsZero()
			})
			// The terminal checks run as jobs of their own: wait until none is due.
			trackingtest.Eventually(t, 30*time.Second, "a terminal check due and not run", func() bool {
				cs, _ = f.db.ShipmentContainers(ctx, f.account.ID, tr.ShipmentID)
				for _, c := range cs {
					if !c.TerminalNextCheckAt.IsZero() && !c.TerminalNextCheckAt.After(clock.Now()) {
						return false
					}
				}
				return true
			})
			if !cs[0].PickupLFD.IsZero() && held.ID == "" {
				held = cs[0]
			}
		}
		if held.ID == "" {
			t.Fatalf("two days after arrival the terminal has not reported: %+v", cs[0])
		}
		// The terminal may report before the carrier's discharge event reaches the box (each is a
		// source of its own): the discharge is read once both have spoken, two days after arrival.
		discharged := held.PODDischargedAt
		for _, c := range cs {
			if c.ID == held.ID {
				discharged = c.PODDischargedAt
			}
		}
		if discharged.IsZero() || held.PickupLFD.Before(discharged.Add(3*24*time.Hour)) || held.LocationAtTerminal == "" {
			t.Errorf("terminal report: discharged %v, LFD %v, location %q", discharged, held.PickupLFD, held.LocationAtTerminal)
		}
		names := f.events(t)
		if count(names, "container.pickup_lfd.changed") < len(cs) || count(names, "container.updated") == 0 ||
			count(names, "container.transport.available") == 0 {
			t.Errorf("events %v: want the last free day and availability of every box, and updates", names)
		}
		// The last free day is a terminal event whose value is the day; one per box, kept current.
		events, _, err := f.db.TransportEvents(ctx, f.account.ID, held.ID, boxwatch.Page{Number: 1, Size: 100})
		if err != nil {
			t.Fatal(err)
		}
		lfds := 0
		for _, e := range events {
			if e.Event == "container.pickup_lfd.changed" {
				lfds++
				if e.DataSource != "terminal" || e.Value != cs[0].PickupLFD.UTC().Format(time.RFC3339) || !e.Timestamp.Equal(cs[0].PickupLFD) {
					t.Errorf("last free day event %+v, want the container's %v", e, cs[0].PickupLFD)
				}
			}
		}
		if lfds != 1 {
			t.Errorf("%d last free day events for one box", lfds)
		}
		// The customs hold is released by now; the box is available or already gone.
		c := cs[0]
		if len(c.Holds) != 0 || c.AvailableForPickup == nil || (*c.AvailableForPickup && !c.PODFullOutAt.IsZero()) {
			t.Errorf("after release: holds %+v, available %v, full out %v", c.Holds, c.AvailableForPickup, c.PODFullOutAt)
		}
	})
}

// TestLookupsGoBeforeRefreshes: a new tracking request is looked up before the refreshes that
// already wait. With one worker and a batch of due refreshes queued, the lookup is the next job
// to run: the refreshes still waiting once it settled are those that waited when it came, but
// for the one or two that ran meanwhile.
func TestLookupsGoBeforeRefreshes(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		f := newFixture(t, b, trackingtest.Options{Workers: 1, SimLatency: 50 * time.Millisecond, RefreshInterval: time.Hour})
		number := func(i int) string { return fmt.Sprintf("ONEYSH%05d4", 30000+i*83) } // at sea
		// Numbers whose journeys still run (the others' tracking ends at once).
		const tracked = 16
		live := 0
		for i := 0; live < tracked; i++ {
			if i == 400 {
				t.Fatalf("%d of 400 bills of lading still tracked", live)
			}
			tr := f.settled(t, f.track(t, boxwatch.RequestBillOfLading, number(i), "ONEY").ID)
			if tr.Status == boxwatch.StatusCreated && f.shipment(t, tr.ShipmentID).StoppedAt.IsZero() {
				live++
			}
		}
		f.clock.Advance(2 * time.Hour)
		waitingRefreshes := func() int {
			jobs, err := f.stack.Engine.Queue().Waiting(ctx, "refresh")
			if err != nil {
				t.Fatal(err)
			}
			return len(jobs)
		}
		var before int
		trackingtest.Eventually(t, 30*time.Second, "the refreshes never came due", func() bool {
			before = waitingRefreshes()
			return before >= tracked/2
		})
		f.settled(t, f.track(t, boxwatch.RequestBillOfLading, number(1000), "ONEY").ID)
		if after := waitingRefreshes(); after < before-3 {
			t.Fatalf("%d refreshes waited when the request came and %d once it was looked up: it waited behind them", before, after)
		}
	})
}
