package tracking_test

import (
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// TestVesselEstimatesThroughTheEngine follows simulated journeys from before their vessel leaves
// the port of lading until tracking stops, with the real engine and the simulated carriers' DCSA
// answers, on both databases. Whenever the carrier's estimated (EST) departure from the port of
// lading, or arrival at the port of discharge, changes, each container that has not yet left, or
// arrived, hears container.transport.estimated.vessel_departed or vessel_arrived, whose transport
// event holds the shipment's new estimate at that port; none is heard once the box has left, or
// arrived, nor without a change.
func TestVesselEstimatesThroughTheEngine(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		start := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
		f := newFixture(t, b, trackingtest.Options{Clock: trackingtest.NewClock(start), RefreshInterval: 1000 * time.Hour})
		var requests []boxwatch.TrackingRequest
		for _, n := range []struct{ number, scac string }{
			{"312345670", "MAEU"}, {"412345671", "MAEU"}, {"MEDUFR030800", "MSCU"},
		} {
			requests = append(requests, f.settled(t, f.track(t, boxwatch.RequestBillOfLading, n.number, n.scac).ID))
		}
		seen := map[string]int{}
		for _, tr := range requests {
			if tr.Status != boxwatch.StatusCreated {
				t.Fatalf("%s: request %+v", tr.RequestNumber, tr)
			}
			logged, err := f.db.Events(ctx, f.account.ID, 0, 100000)
			if err != nil {
				t.Fatal(err)
			}
			done := map[string]bool{} // the logged events already checked
			for _, e := range logged {
				done[e.ID] = true
			}
			left, arrived := map[string]bool{}, map[string]bool{} // containers
			for step := 0; f.shipment(t, tr.ShipmentID).StoppedAt.IsZero(); step++ {
				if step > 400 {
					t.Fatalf("%s: the journey never ended", tr.RequestNumber)
				}
				f.clock.Advance(6 * time.Hour)
				before := f.shipment(t, tr.ShipmentID).LastSucceededAt
				if err := f.stack.Engine.RefreshNow(ctx, f.account.ID, tr.ShipmentID); err != nil {
					t.Fatal(err)
				}
				trackingtest.Eventually(t, 20*time.Second, "no refresh", func() bool {
					return f.shipment(t, tr.ShipmentID).LastSucceededAt.After(before)
				})
				s := f.shipment(t, tr.ShipmentID)
				pol, _ := s.POL()
				pod, _ := s.POD()
				logged, err := f.db.Events(ctx, f.account.ID, 0, 100000)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range logged {
					if done[e.ID] || e.ShipmentID != s.ID {
						continue
					}
					done[e.ID] = true
					var want boxwatch.RouteStop
					var when time.Time
					switch e.Name {
					case tracking.VesselDeparted:
						left[e.ContainerID] = true
						continue
					case tracking.VesselArrived:
						arrived[e.ContainerID] = true
						continue
					case tracking.EstimatedVesselDeparted:
						want, when = pol, pol.ETD
						if left[e.ContainerID] || !pol.ATD.IsZero() {
							t.Errorf("%s: %s after the vessel left", tr.RequestNumber, e.Name)
						}
					case tracking.EstimatedVesselArrived:
						want, when = pod, pod.ETA
						if arrived[e.ContainerID] || !pod.ATA.IsZero() {
							t.Errorf("%s: %s after the vessel arrived", tr.RequestNumber, e.Name)
						}
					default:
						continue
					}
					seen[e.Name]++
					tes, _, err := f.db.TransportEvents(ctx, f.account.ID, e.ContainerID, boxwatch.Page{Number: 1, Size: 100})
					if err != nil {
						t.Fatal(err)
					}
					found := false
					for _, te := range tes {
						if te.ID != e.ObjectID {
							continue
						}
						found = true
						if te.Event != e.Name || te.LOCODE != want.LOCODE || !te.Timestamp.Equal(when) || te.DataSource != "shipping_line" {
							t.Errorf("%s: %s's transport event %+v, want %s at %v", tr.RequestNumber, e.Name, te, want.LOCODE, when)
						}
					}
					if !found {
						t.Errorf("%s: %s names transport event %s, not the container's", tr.RequestNumber, e.Name, e.ObjectID)
					}
				}
			}
		}
		t.Logf("heard %v", seen)
		for _, want := range []string{tracking.EstimatedVesselDeparted, tracking.EstimatedVesselArrived} {
			if seen[want] == 0 {
				t.Errorf("never heard %s", want)
			}
		}
	})
}
