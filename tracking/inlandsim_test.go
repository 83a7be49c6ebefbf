package tracking_test

import (
	"slices"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/carrier/dcsa"
	"github.com/boxwatch/boxwatch/carrier/sim"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// TestInlandDemoNumbers tracks the demo numbers that go inland by rail (docs/carriers.md) with the
// simulated carriers: one complete (its empty back at the ramp's city), one discharged and waiting
// for the train, which the test then follows to the end, hearing every rail and inland event and
// passing through awaiting_inland_transfer, on_rail and grounded.
func TestInlandDemoNumbers(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	f := newFixture(t, storetest.SQLite, trackingtest.Options{Clock: trackingtest.NewClock(start), RefreshInterval: 1000 * time.Hour,
		// The windows after which tracking gives up at full length: the rail leg takes weeks.
		RetryScale: 1})
	complete := f.settled(t, f.track(t, boxwatch.RequestBillOfLading, "255597750", "MAEU").ID)
	waiting := f.settled(t, f.track(t, boxwatch.RequestBillOfLading, "253387750", "MAEU").ID)

	// The other demo numbers: waiting at Los Angeles, and at sea with the rail leg planned.
	for number, want := range map[string]struct{ scac, pod, status string }{
		"MEDUCK387750": {"MSCU", "USLAX", boxwatch.ContainerAwaitingInlandTransfer},
		"201067750":    {"MAEU", "USLAX", boxwatch.ContainerOnShip},
	} {
		tr := f.settled(t, f.track(t, boxwatch.RequestBillOfLading, number, want.scac).ID)
		s := f.shipment(t, tr.ShipmentID)
		pod, _ := s.POD()
		boxes, err := f.db.ShipmentContainers(ctx, f.account.ID, s.ID)
		if err != nil || len(boxes) == 0 || pod.LOCODE != want.pod || s.Destination == nil || s.Destination.Mode != "RAIL" || s.Destination.ETA.IsZero() {
			t.Fatalf("%s: port of discharge %s, destination %+v, containers %v %v", number, pod.LOCODE, s.Destination, boxes, err)
		}
		for _, c := range boxes {
			if c.CurrentStatus != want.status {
				t.Errorf("%s: %s is %s, want %s", number, c.Number, c.CurrentStatus, want.status)
			}
		}
	}

	s := f.shipment(t, complete.ShipmentID)
	if d := s.Destination; d == nil || d.Mode != "RAIL" || d.ATA.IsZero() || d.Name == "" {
		t.Fatalf("complete journey: destination %+v", d)
	}
	boxes, err := f.db.ShipmentContainers(ctx, f.account.ID, s.ID)
	if err != nil || len(boxes) == 0 {
		t.Fatalf("containers %v %v", boxes, err)
	}
	for _, c := range boxes {
		in := c.Inland
		if c.CurrentStatus != boxwatch.ContainerEmptyReturned || in.DestinationLOCODE != s.Destination.LOCODE || in.PODRailLoadedAt.IsZero() ||
			in.PODRailDepartedAt.IsZero() || in.IndATAAt.IsZero() || in.IndRailUnloadedAt.IsZero() || in.FinalDestinationFullOutAt.IsZero() ||
			!c.PODFullOutAt.IsZero() {
			t.Errorf("complete journey: %s is %s with %+v (pod full out %v)", c.Number, c.CurrentStatus, in, c.PODFullOutAt)
		}
		// The simulated carrier names the railway in both rail terminals' names: one train, one railway.
		if _, ok := data.Railways().BySCAC(in.PODRailCarrierSCAC); !ok || in.IndRailCarrierSCAC != in.PODRailCarrierSCAC {
			t.Errorf("complete journey: %s by rail with %q from the port and %q to the ramp", c.Number, in.PODRailCarrierSCAC, in.IndRailCarrierSCAC)
		}
	}

	s = f.shipment(t, waiting.ShipmentID)
	if s.Destination == nil || !s.Destination.ATA.IsZero() || s.Destination.ETA.IsZero() {
		t.Fatalf("waiting journey: destination %+v", s.Destination)
	}
	statuses := map[string]bool{}
	record := func() []boxwatch.Container {
		t.Helper()
		boxes, err := f.db.ShipmentContainers(ctx, f.account.ID, waiting.ShipmentID)
		if err != nil || len(boxes) == 0 {
			t.Fatalf("containers %v %v", boxes, err)
		}
		for _, c := range boxes {
			statuses[c.CurrentStatus] = true
		}
		return boxes
	}
	for _, c := range record() {
		if c.CurrentStatus != boxwatch.ContainerAwaitingInlandTransfer {
			t.Errorf("waiting journey: %s is %s", c.Number, c.CurrentStatus)
		}
	}
	// Follow the journey six hours at a time until tracking stops.
	for step := 0; f.shipment(t, waiting.ShipmentID).StoppedAt.IsZero(); step++ {
		if step > 200 {
			t.Fatal("the inland journey never ended")
		}
		f.clock.Advance(6 * time.Hour)
		before := f.shipment(t, waiting.ShipmentID).LastSucceededAt
		if err := f.stack.Engine.RefreshNow(ctx, f.account.ID, waiting.ShipmentID); err != nil {
			t.Fatal(err)
		}
		trackingtest.Eventually(t, 20*time.Second, "no refresh", func() bool {
			return f.shipment(t, waiting.ShipmentID).LastSucceededAt.After(before)
		})
		record()
	}
	for _, want := range []string{boxwatch.ContainerAwaitingInlandTransfer, boxwatch.ContainerOnRail, boxwatch.ContainerGrounded,
		boxwatch.ContainerPickedUp, boxwatch.ContainerEmptyReturned} {
		if !statuses[want] {
			t.Errorf("the box was never %s (statuses %v)", want, statuses)
		}
	}
	names := f.events(t)
	for _, want := range []string{tracking.RailLoaded, tracking.RailDeparted, tracking.RailArrived, tracking.ArrivedInland,
		tracking.RailUnloaded, tracking.EmptyIn} {
		if !slices.Contains(names, want) {
			t.Errorf("never heard %s (events %v)", want, names)
		}
	}
	if slices.Contains(names, tracking.FullOut) {
		t.Error("a box that left the port by rail was announced full out there")
	}
}

// TestEuropeanInlandDemoNumbers tracks the demo numbers that go on inland from North European
// ports (docs/carriers.md), in Track & Trace 2.2 and 3.0: by barge from Rotterdam up the Rhine,
// one complete and one discharged and waiting for the barge, which the test follows until it
// reaches Mannheim (awaiting_inland_transfer, then grounded, without a rail milestone or a
// railway); by rail from Bremerhaven to Budapest, complete, whose railway has no SCAC.
func TestEuropeanInlandDemoNumbers(t *testing.T) {
	t.Parallel()
	for name, dialect := range map[string]sim.Dialect{"TNT22": {}, "TNT30": {Version: dcsa.Version30}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			start := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
			f := newFixture(t, storetest.SQLite, trackingtest.Options{Clock: trackingtest.NewClock(start), RefreshInterval: 1000 * time.Hour,
				RetryScale: 1, SimDialect: dialect})
			for number, want := range map[string]struct{ pod, mode, dest string }{
				"2503597790": {"NLRTM", "BARGE", "DECGN"},
				"2500997790": {"DEBRV", "RAIL", "HUBUD"},
			} {
				tr := f.settled(t, f.track(t, boxwatch.RequestBillOfLading, number, "MAEU").ID)
				s := f.shipment(t, tr.ShipmentID)
				pod, _ := s.POD()
				if d := s.Destination; pod.LOCODE != want.pod || d == nil || d.LOCODE != want.dest || d.Mode != want.mode || d.ATA.IsZero() || d.Name == "" {
					t.Fatalf("%s: port of discharge %s, destination %+v", number, pod.LOCODE, d)
				}
				boxes, err := f.db.ShipmentContainers(ctx, f.account.ID, s.ID)
				if err != nil || len(boxes) == 0 {
					t.Fatalf("%s: containers %v %v", number, boxes, err)
				}
				for _, c := range boxes {
					in := c.Inland
					if c.CurrentStatus != boxwatch.ContainerEmptyReturned || in.DestinationLOCODE != want.dest || in.IndATAAt.IsZero() ||
						in.FinalDestinationFullOutAt.IsZero() || in.PODRailCarrierSCAC != "" || in.IndRailCarrierSCAC != "" || !c.PODFullOutAt.IsZero() {
						t.Errorf("%s: %s is %s with %+v", number, c.Number, c.CurrentStatus, in)
					}
					if rail := !in.PODRailLoadedAt.IsZero() && !in.IndRailUnloadedAt.IsZero(); rail != (want.mode == "RAIL") {
						t.Errorf("%s: %s by %s with rail milestones %+v", number, c.Number, want.mode, in)
					}
				}
			}

			waiting := f.settled(t, f.track(t, boxwatch.RequestBillOfLading, "2525687790", "MAEU").ID)
			if d := f.shipment(t, waiting.ShipmentID).Destination; d == nil || d.LOCODE != "DEMHG" || d.Mode != "BARGE" || !d.ATA.IsZero() || d.ETA.IsZero() {
				t.Fatalf("waiting journey: destination %+v", d)
			}
			statuses := map[string]bool{}
			for step := 0; ; step++ {
				boxes, err := f.db.ShipmentContainers(ctx, f.account.ID, waiting.ShipmentID)
				if err != nil || len(boxes) == 0 {
					t.Fatalf("containers %v %v", boxes, err)
				}
				for _, c := range boxes {
					statuses[c.CurrentStatus] = true
					if step == 0 && c.CurrentStatus != boxwatch.ContainerAwaitingInlandTransfer {
						t.Errorf("waiting journey: %s is %s", c.Number, c.CurrentStatus)
					}
				}
				if !f.shipment(t, waiting.ShipmentID).StoppedAt.IsZero() {
					break
				}
				if step > 200 {
					t.Fatal("the inland journey never ended")
				}
				f.clock.Advance(6 * time.Hour)
				before := f.shipment(t, waiting.ShipmentID).LastSucceededAt
				if err := f.stack.Engine.RefreshNow(ctx, f.account.ID, waiting.ShipmentID); err != nil {
					t.Fatal(err)
				}
				trackingtest.Eventually(t, 20*time.Second, "no refresh", func() bool {
					return f.shipment(t, waiting.ShipmentID).LastSucceededAt.After(before)
				})
			}
			for _, want := range []string{boxwatch.ContainerAwaitingInlandTransfer, boxwatch.ContainerGrounded, boxwatch.ContainerEmptyReturned} {
				if !statuses[want] {
					t.Errorf("the box was never %s (statuses %v)", want, statuses)
				}
			}
			if statuses[boxwatch.ContainerOnRail] {
				t.Error("a box that went on by barge was on rail")
			}
			names := f.events(t)
			if !slices.Contains(names, tracking.ArrivedInland) {
				t.Errorf("never heard %s (events %v)", tracking.ArrivedInland, names)
			}
		})
	}
}
