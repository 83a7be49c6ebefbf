package tracking_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/carrier/dcsa"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// TestInlandLegThroughTheEngine tracks a bill whose box goes on from Los Angeles to Chicago by
// rail, with the real engine looking it up with the DCSA client from a carrier on loopback that
// publishes the journey as it happens (each answer holds the events recorded so far), in Track &
// Trace 2.2 and 3.0, on both databases. At each stage it checks the shipment's destination, the
// container's status and rail fields, and the events webhooks hear.
func TestInlandLegThroughTheEngine(t *testing.T) {
	t.Parallel()
	type stage struct {
		name   string
		asOf   string // the carrier has recorded every event created until then
		status string
		// events are the container events logged by this stage's refresh, in order (the request's
		// own, such as tracking_stopped, are checked by the stage's check).
		events []string
		check  func(t *testing.T, s boxwatch.Shipment, c boxwatch.Container)
	}
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	const estimated = "container.transport.estimated.arrived_at_inland_destination"
	stages := []stage{
		{name: "DischargedAtLosAngeles", asOf: "2025-03-22T17:00:00Z", status: boxwatch.ContainerAwaitingInlandTransfer,
			check: func(t *testing.T, s boxwatch.Shipment, c boxwatch.Container) {
				d := s.Destination
				if d == nil || d.LOCODE != "USCHI" || d.Mode != "RAIL" || !d.ETA.Equal(at("2025-03-28T11:00:00Z")) || !d.ATA.IsZero() {
					t.Fatalf("destination %+v", d)
				}
				if c.Inland.DestinationLOCODE != "USCHI" || !c.Inland.IndETAAt.Equal(at("2025-03-28T11:00:00Z")) || !c.Inland.PODRailLoadedAt.IsZero() {
					t.Errorf("inland %+v", c.Inland)
				}
			}},
		{name: "OnTheTrain", asOf: "2025-03-25T06:30:00Z", status: boxwatch.ContainerOnRail,
			events: []string{estimated, tracking.RailLoaded, tracking.RailDeparted},
			check: func(t *testing.T, s boxwatch.Shipment, c boxwatch.Container) {
				if !c.Inland.PODRailLoadedAt.Equal(at("2025-03-24T21:00:00Z")) || !c.Inland.PODRailDepartedAt.Equal(at("2025-03-25T05:00:00Z")) ||
					!c.Inland.IndETAAt.Equal(at("2025-03-28T13:00:00Z")) {
					t.Errorf("inland %+v", c.Inland)
				}
				if d := s.Destination; !d.OriginalETA.Equal(at("2025-03-28T11:00:00Z")) {
					t.Errorf("the original ETA moved: %+v", d)
				}
			}},
		{name: "EstimateRevised", asOf: "2025-03-27T10:00:00Z", status: boxwatch.ContainerOnRail, events: []string{estimated},
			check: func(t *testing.T, s boxwatch.Shipment, c boxwatch.Container) {
				if !c.Inland.IndETAAt.Equal(at("2025-03-29T07:00:00Z")) || !s.Destination.ETA.Equal(at("2025-03-29T07:00:00Z")) {
					t.Errorf("inland %+v, destination %+v", c.Inland, s.Destination)
				}
			}},
		{name: "UnloadedAtChicago", asOf: "2025-03-29T17:00:00Z", status: boxwatch.ContainerGrounded,
			events: []string{tracking.RailArrived, tracking.ArrivedInland, tracking.RailUnloaded},
			check: func(t *testing.T, s boxwatch.Shipment, c boxwatch.Container) {
				if !c.Inland.IndATAAt.Equal(at("2025-03-29T09:30:00Z")) || !c.Inland.IndRailUnloadedAt.Equal(at("2025-03-29T16:00:00Z")) ||
					!s.Destination.ATA.Equal(at("2025-03-29T09:30:00Z")) {
					t.Errorf("inland %+v, destination %+v", c.Inland, s.Destination)
				}
			}},
		{name: "EmptyReturned", asOf: "2025-04-04T00:00:00Z", status: boxwatch.ContainerEmptyReturned,
			events: []string{tracking.EmptyIn},
			check: func(t *testing.T, s boxwatch.Shipment, c boxwatch.Container) {
				if !c.Inland.FinalDestinationFullOutAt.Equal(at("2025-03-31T14:15:00Z")) || !c.PODFullOutAt.IsZero() {
					t.Errorf("full out at the destination %v, at the port %v", c.Inland.FinalDestinationFullOutAt, c.PODFullOutAt)
				}
				if s.StoppedReason != boxwatch.StopAllContainersTerminated || s.StoppedAt.IsZero() {
					t.Errorf("tracking stopped for %q", s.StoppedReason)
				}
			}},
	}
	for _, tc := range []struct{ version, file string }{
		{dcsa.Version22, "inland-rail.json"},
		{dcsa.Version30, "inland-rail-tnt30.json"},
	} {
		t.Run(tc.version, func(t *testing.T) {
			t.Parallel()
			storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
				var asOf atomic.Pointer[time.Time]
				start := at(stages[0].asOf)
				asOf.Store(&start)
				client, err := dcsa.New(dcsa.Config{BaseURL: publishing(t, tc.file, tc.version, &asOf) + "/MAEU", Version: tc.version})
				if err != nil {
					t.Fatal(err)
				}
				db := b.Open(t)
				if err := tracking.Migrate(ctx, db); err != nil {
					t.Fatal(err)
				}
				clock := trackingtest.NewClock(start)
				engine, err := tracking.New(tracking.Config{DB: db, Registry: data.Carriers(), Carriers: map[string]boxwatch.Carrier{"MAEU": client},
					Clock: clock.Now, Workers: 2, RefreshInterval: 1000 * time.Hour, ScheduleEvery: 50 * time.Millisecond})
				if err != nil {
					t.Fatal(err)
				}
				if err := engine.Start(ctx); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { engine.Stop(ctx) }) //nolint:errcheck // the test is over
				f := &fixture{db: db, clock: clock, account: storetest.MustCreateAccount(t, db, "acme"), stack: &trackingtest.Stack{Engine: engine}}
				tr := f.settled(t, f.track(t, boxwatch.RequestBillOfLading, "BL2402", "MAEU").ID)
				if tr.Status != boxwatch.StatusCreated {
					t.Fatalf("request %+v", tr)
				}
				logged := len(f.events(t))
				for i, st := range stages {
					if i > 0 {
						when := at(st.asOf)
						asOf.Store(&when)
						clock.Advance(when.Sub(clock.Now()))
						before := f.shipment(t, tr.ShipmentID).LastSucceededAt
						if err := engine.RefreshNow(ctx, f.account.ID, tr.ShipmentID); err != nil {
							t.Fatal(err)
						}
						trackingtest.Eventually(t, 20*time.Second, st.name+": no refresh", func() bool {
							return f.shipment(t, tr.ShipmentID).LastSucceededAt.After(before)
						})
					}
					s := f.shipment(t, tr.ShipmentID)
					cs, err := db.ShipmentContainers(ctx, f.account.ID, s.ID)
					if err != nil || len(cs) != 1 {
						t.Fatalf("%s: containers %+v, %v", st.name, cs, err)
					}
					if cs[0].CurrentStatus != st.status {
						t.Errorf("%s: status %s, want %s", st.name, cs[0].CurrentStatus, st.status)
					}
					names := f.events(t)
					got := slices.DeleteFunc(slices.Clone(names[logged:]), func(n string) bool { return strings.HasPrefix(n, "tracking_request.") })
					if !slices.Equal(got, st.events) && !(len(got) == 0 && len(st.events) == 0) {
						t.Errorf("%s: events %v, want %v", st.name, got, st.events)
					}
					logged = len(names)
					st.check(t, s, cs[0])
				}
				// The estimate is one transport event, at the last estimate.
				c, _ := db.ShipmentContainers(ctx, f.account.ID, tr.ShipmentID)
				events, _, err := db.TransportEvents(ctx, f.account.ID, c[0].ID, boxwatch.Page{Number: 1, Size: 100})
				if err != nil {
					t.Fatal(err)
				}
				var est []boxwatch.TransportEvent
				for _, e := range events {
					if e.Event == estimated {
						est = append(est, e)
					}
				}
				if len(est) != 1 || !est[0].Timestamp.Equal(at("2025-03-29T07:00:00Z")) || est[0].LOCODE != "USCHI" {
					t.Errorf("estimated arrival events %+v", est)
				}
			})
		})
	}
}

func (f *fixture) shipment(t testing.TB, id string) boxwatch.Shipment {
	t.Helper()
	s, err := f.db.Shipment(ctx, f.account.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// publishing serves a fixture as a carrier on loopback would as of a moment: only the events it
// had recorded (created or updated) by then. It returns the server's URL.
func publishing(t *testing.T, file, version string, asOf *atomic.Pointer[time.Time]) string {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("../carrier/dcsa/testdata/fixtures", file))
	if err != nil {
		t.Fatal(err)
	}
	var events []map[string]any
	wrapped := version == dcsa.Version30
	if wrapped {
		var w struct {
			Events []map[string]any `json:"events"`
		}
		err = json.Unmarshal(body, &w)
		events = w.Events
	} else {
		err = json.Unmarshal(body, &events)
	}
	if err != nil || len(events) == 0 {
		t.Fatalf("%s: %d events, %v", file, len(events), err)
	}
	path := "/MAEU/v2/events"
	if wrapped {
		path = "/MAEU/v3/events"
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		cutoff := *asOf.Load()
		var out []map[string]any
		for _, e := range events {
			created, _ := e["eventCreatedDateTime"].(string)
			if updated, ok := e["eventUpdatedDateTime"].(string); ok {
				created = updated
			}
			if ts, err := time.Parse(time.RFC3339, created); err == nil && !ts.After(cutoff) {
				out = append(out, e)
			}
		}
		var answer any = out
		if wrapped {
			answer = map[string]any{"events": out}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(answer) //nolint:errcheck // the client reports what it read
	}))
	t.Cleanup(srv.Close)
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1") {
		t.Fatalf("server at %s, not on loopback", srv.URL)
	}
	return srv.URL
}
