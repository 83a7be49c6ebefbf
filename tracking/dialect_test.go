package tracking_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/carrier/dcsa"
	"github.com/boxwatch/boxwatch/carrier/sim"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// TestCarrierDialects tracks one booking, at its transshipment port, with simulated carriers
// answering in each shape real carriers use: the engine records the same route, containers and
// milestones as from an answer by the spec.
func TestCarrierDialects(t *testing.T) {
	start := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	tracked := func(t *testing.T, d sim.Dialect) string {
		t.Helper()
		f := newFixture(t, storetest.SQLite, trackingtest.Options{Clock: trackingtest.NewClock(start), SimDialect: d})
		tr := f.settled(t, f.track(t, boxwatch.RequestBookingNumber, "224466885", "MAEU").ID)
		if tr.Status != boxwatch.StatusCreated {
			t.Fatalf("request %+v", tr)
		}
		return describeShipment(t, f, tr.ShipmentID)
	}
	want := tracked(t, sim.Dialect{})
	if !strings.Contains(want, "TS ") || !strings.Contains(want, "transshipment_discharged") {
		t.Fatalf("the plain answer has no transshipment to compare:\n%s", want)
	}
	for name, d := range map[string]sim.Dialect{
		"Wrapped":           {Wrapped: true},
		"OmitOptional":      {OmitOptional: true},
		"SequencePerVoyage": {SequencePerVoyage: true},
		"SharedEventIDs":    {SharedEventIDs: true},
		"GarbledRecord":     {GarbledRecord: true},
		"Version30":         {Version: dcsa.Version30},
		"Version30Garbled":  {Version: dcsa.Version30, GarbledRecord: true},
		"Everything":        {Wrapped: true, OmitOptional: true, SequencePerVoyage: true, SharedEventIDs: true, GarbledRecord: true},
	} {
		t.Run(name, func(t *testing.T) {
			if got := tracked(t, d); got != want {
				t.Errorf("shipment:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// describeShipment writes a shipment's route, containers and milestones, without ids.
func describeShipment(t *testing.T, f *fixture, id string) string {
	t.Helper()
	s, err := f.db.Shipment(ctx, f.account.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range s.Route {
		fmt.Fprintf(&b, "%s %s ETA %v ATA %v ETD %v ATD %v in %s/%s out %s/%s\n", r.Role, r.LOCODE, r.ETA.UTC(), r.ATA.UTC(), r.ETD.UTC(), r.ATD.UTC(),
			r.InboundVesselIMO, r.InboundVoyage, r.OutboundVesselIMO, r.OutboundVoyage)
	}
	containers, err := f.db.ShipmentContainers(ctx, f.account.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range containers {
		fmt.Fprintf(&b, "container %s %s %s\n", c.Number, c.ISOCode, c.CurrentStatus)
		events, _, err := f.db.TransportEvents(ctx, f.account.ID, c.ID, boxwatch.Page{Number: 1, Size: 100})
		if err != nil {
			t.Fatal(err)
		}
		// Events at the same time (a feeder event and its vessel event) in a fixed order: the
		// store orders ties by id, which is random.
		sort.SliceStable(events, func(i, j int) bool {
			a, b := events[i], events[j]
			return a.Timestamp.Before(b.Timestamp) || a.Timestamp.Equal(b.Timestamp) && a.Event < b.Event
		})
		for _, e := range events {
			fmt.Fprintf(&b, "  %s %s %v %s %s\n", strings.TrimPrefix(e.Event, "container.transport."), e.LOCODE, e.Timestamp.UTC(), e.VoyageNumber, e.VesselIMO)
		}
	}
	return b.String()
}

// TestTerminalsInEitherVersion: a carrier names the terminal of each vessel call in Track &
// Trace 2.2 (the call's facility code and location) and 3.0 (the event's location); the route
// keeps its SMDG code and name either way.
func TestTerminalsInEitherVersion(t *testing.T) {
	t.Parallel()
	for _, version := range []string{dcsa.Version22, dcsa.Version30} {
		t.Run(version, func(t *testing.T) {
			f := newFixture(t, storetest.SQLite, trackingtest.Options{SimDialect: sim.Dialect{Version: version}})
			tr := f.settled(t, f.track(t, boxwatch.RequestBookingNumber, "224466885", "MAEU").ID)
			s, err := f.db.Shipment(ctx, f.account.ID, tr.ShipmentID)
			if err != nil {
				t.Fatal(err)
			}
			for _, stop := range s.Route {
				if !strings.HasPrefix(stop.TerminalCode, "SX"+stop.LOCODE[2:]) || !strings.HasSuffix(stop.TerminalName, "(simulated)") {
					t.Errorf("stop %s: terminal %q %q", stop.LOCODE, stop.TerminalCode, stop.TerminalName)
				}
				term, err := f.db.Terminal(ctx, stop.TerminalID())
				if err != nil || term.Name != stop.TerminalName || term.SMDGCode != stop.TerminalCode {
					t.Errorf("stored terminal %+v, %v", term, err)
				}
			}
		})
	}
}
