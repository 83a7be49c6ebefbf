package tracking_test

import (
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// TestFeederLegsThroughTheEngine follows simulated journeys through a hub (docs/carriers.md) from
// the port of lading until tracking stops, with the real engine and the simulated carriers' DCSA
// answers, on both databases: one whose first leg is a feeder's hop to the hub, one whose last
// leg is, and a direct one. Every container of a journey with a feeder leg hears feeder_loaded
// and feeder_departed once where the leg starts and feeder_arrived and feeder_discharged once
// where it ends, alongside the vessel and transshipment events there; the direct journey hears
// none.
func TestFeederLegsThroughTheEngine(t *testing.T) {
	t.Parallel()
	feeder := []string{tracking.FeederLoaded, tracking.FeederDeparted, tracking.FeederArrived, tracking.FeederDischarged}
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		start := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
		f := newFixture(t, b, trackingtest.Options{Clock: trackingtest.NewClock(start), RefreshInterval: 1000 * time.Hour})
		for _, tc := range []struct {
			number, scac string
			leg          int // the feeder leg's index on the route, -1 for none
		}{
			{"321234561", "MAEU", 0}, {"441234561", "MAEU", 1}, {"MEDUFR060301", "MSCU", 0}, {"101234561", "MAEU", -1},
		} {
			tr := f.settled(t, f.track(t, boxwatch.RequestBillOfLading, tc.number, tc.scac).ID)
			if tr.Status != boxwatch.StatusCreated {
				t.Fatalf("%s: request %+v", tc.number, tr)
			}
			for step := 0; f.shipment(t, tr.ShipmentID).StoppedAt.IsZero(); step++ {
				if step > 200 {
					t.Fatalf("%s: the journey never ended", tc.number)
				}
				f.clock.Advance(12 * time.Hour)
				before := f.shipment(t, tr.ShipmentID).LastSucceededAt
				if err := f.stack.Engine.RefreshNow(ctx, f.account.ID, tr.ShipmentID); err != nil {
					t.Fatal(err)
				}
				trackingtest.Eventually(t, 20*time.Second, "no refresh", func() bool {
					return f.shipment(t, tr.ShipmentID).LastSucceededAt.After(before)
				})
			}
			s := f.shipment(t, tr.ShipmentID)
			if want := map[bool]int{true: 3, false: 2}[tc.leg >= 0]; len(s.Route) != want {
				t.Fatalf("%s: route %+v, want %d stops", tc.number, s.Route, want)
			}
			boxes, err := f.db.ShipmentContainers(ctx, f.account.ID, s.ID)
			if err != nil || len(boxes) == 0 {
				t.Fatalf("%s: containers %v %v", tc.number, boxes, err)
			}
			for _, c := range boxes {
				tes, _, err := f.db.TransportEvents(ctx, f.account.ID, c.ID, boxwatch.Page{Number: 1, Size: 200})
				if err != nil {
					t.Fatal(err)
				}
				heard := map[string][]boxwatch.TransportEvent{}
				for _, te := range tes {
					heard[te.Event] = append(heard[te.Event], te)
				}
				for k, name := range feeder {
					got := heard[name]
					if tc.leg < 0 {
						if len(got) != 0 {
							t.Errorf("%s: a direct journey heard %s", tc.number, name)
						}
						continue
					}
					stop, twin := s.Route[tc.leg], []string{tracking.VesselLoaded, tracking.VesselDeparted}
					if tc.leg > 0 {
						twin = []string{tracking.TransshipmentLoaded, tracking.TransshipmentDeparted}
					}
					if k >= 2 {
						stop, twin = s.Route[tc.leg+1], []string{tracking.TransshipmentArrived, tracking.TransshipmentDisch}
						if tc.leg+1 == len(s.Route)-1 {
							twin = []string{tracking.VesselArrived, tracking.VesselDischarged}
						}
					}
					if len(got) != 1 || got[0].LOCODE != stop.LOCODE {
						t.Errorf("%s: %s heard %s %+v, want once at %s", tc.number, c.Number, name, got, stop.LOCODE)
						continue
					}
					// The feeder event is the vessel or transshipment milestone of its leg, told again.
					var same []boxwatch.TransportEvent
					for _, te := range heard[twin[k%2]] {
						if te.LOCODE == stop.LOCODE {
							same = append(same, te)
						}
					}
					if len(same) != 1 || !same[0].Timestamp.Equal(got[0].Timestamp) {
						t.Errorf("%s: %s %+v does not match %s %+v", tc.number, name, got[0], twin[k%2], same)
					}
				}
			}
		}
	})
}
