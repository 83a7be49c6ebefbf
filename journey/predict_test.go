package journey_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/journey"
	"github.com/boxwatch/boxwatch/journey/journeytest"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// The engine predicts with eta.Predict and the waits it learned from the service's own records:
// once it has learned, from the database on start (WarmWaits) or from the arrivals the tracking
// engine hands it (LearnArrivals), a vessel waiting at Rotterdam's anchorage (past the carrier's
// ETA, so that only the waits judge) is predicted to berth as long after as the waits seen there
// say, and one under way from Singapore later by the queues seen at Suez and the wait most
// vessels had at Rotterdam; the map shows what PredictedArrival says.
func TestPredictionLearnsWaits(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		db := b.Open(t)
		ctx := t.Context()
		clock := &journeytest.Clock{}
		now := day(3.5)
		clock.Set(now)
		// Five past calls over the last fortnight: Suez queues of 8 to 12 h (median 10 h),
		// anchorage waits of 30 to 50 h (median 40 h).
		var calls []journeytest.PastCall
		for k, w := range []float64{30, 36, 40, 44, 50} {
			calls = append(calls, journeytest.PastCall{IMO: imoNumber(950000 + k), MMSI: fmt.Sprint(244000000 + k), ATA: now.Add(-time.Duration(10-2*k) * 24 * time.Hour),
				SuezWait: time.Duration(8+k) * time.Hour, PortWait: time.Duration(w * float64(time.Hour))})
		}
		journeytest.MustSeedPastCalls(t, db, calls)
		// A call whose vessel no feed heard (no stored track) and one heard only far out at sea:
		// how long they waited is unknown, and neither is learned.
		for i, heard := range []bool{false, true} {
			imo, mmsi := imoNumber(950200+i), fmt.Sprint(244300000+i)
			ata := now.Add(-3 * 24 * time.Hour)
			route := []boxwatch.RouteStop{
				stop(1, "SGSIN", boxwatch.RolePOL, z, z, ata.Add(-20*24*time.Hour), ata.Add(-20*24*time.Hour), "", imo),
				stop(2, "NLRTM", boxwatch.RolePOD, ata, ata, z, z, imo, ""),
			}
			journeytest.MustSeed(t, db, storetest.MustCreateAccount(t, db, fmt.Sprint("unheard", i)).ID, "UNHEARD00000", route, z,
				journeytest.Vessel{IMO: imo, MMSI: mmsi, NoPosition: true})
			if heard {
				past := journeytest.PastCall{IMO: imo, MMSI: mmsi, ATA: ata, SuezWait: time.Hour, PortWait: time.Hour}.Positions()
				if _, err := db.SavePositions(t.Context(), past[:len(past)/2]); err != nil { // up the Red Sea and on
					t.Fatal(err)
				}
			}
		}
		acme := storetest.MustCreateAccount(t, db, "acme").ID

		// Under way from Singapore, bound for Rotterdam through Suez.
		g, h := imoNumber(950100), imoNumber(950101)
		sailing := journeytest.MustSeed(t, db, acme, "PRED000000001", asiaEurope(day(1), day(2), day(2.5), z)(g, h), z,
			journeytest.Vessel{IMO: h, MMSI: "5" + h[:7] + "1", From: "SGSIN", To: "NLRTM", Departed: day(2.5), Knots: 17.5, UpTo: day(3.5)})
		// At Rotterdam's anchorage for the last 6 hours, after two days at 15 knots, the carrier's
		// ETA past.
		anchored := imoNumber(950102)
		mmsi := "244100001"
		route := []boxwatch.RouteStop{
			stop(1, "SGSIN", boxwatch.RolePOL, z, z, day(-20), day(-20), "", anchored),
			stop(2, "NLRTM", boxwatch.RolePOD, day(3), z, z, z, anchored, ""),
		}
		waiting := journeytest.MustSeed(t, db, acme, "PRED000000002", route, z, journeytest.Vessel{IMO: anchored, MMSI: mmsi, NoPosition: true})
		var track []boxwatch.VesselPosition
		for at := now.Add(-54 * time.Hour); at.Before(now); at = at.Add(5 * time.Minute) {
			knots, p := 15.0, journeytest.RotterdamAnchorage
			if left := now.Add(-6 * time.Hour).Sub(at); left > 0 {
				p[1] -= left.Hours() * 15 / (60 * math.Cos(p[0]*math.Pi/180)) // due west of it
			} else {
				knots = 0
			}
			track = append(track, boxwatch.VesselPosition{MMSI: mmsi, Latitude: p[0], Longitude: p[1], SpeedKnots: &knots, Timestamp: at})
		}
		if _, err := db.SavePositions(ctx, track); err != nil {
			t.Fatal(err)
		}
		if err := db.SaveLastPositions(ctx, track[len(track)-1:]); err != nil {
			t.Fatal(err)
		}
		last := track[len(track)-1].Timestamp

		predict := func(t *testing.T, e *journey.Engine, number string) time.Time {
			t.Helper()
			s, err := db.Shipment(ctx, acme, boxwatch.NameUUID("s/"+acme+number))
			if err != nil {
				t.Fatal(err)
			}
			at, ok, err := e.PredictedArrival(ctx, s)
			if err != nil || !ok {
				t.Fatalf("%s: PredictedArrival = %v, %v, %v", number, at, ok, err)
			}
			return at
		}
		fresh := journeytest.New(t, db, clock.Now)
		sailingBefore, waitingBefore := predict(t, fresh, "PRED000000001"), predict(t, fresh, "PRED000000002")
		// With no waits learned, the anchored vessel is due now: nothing says how long berths take.
		if !waitingBefore.Equal(last) {
			t.Errorf("at anchor, before learning: %v, want its last report %v", waitingBefore, last)
		}

		check := func(t *testing.T, e *journey.Engine) {
			t.Helper()
			// 10 h at Suez (the median) and 36 h at Rotterdam (the waits' lower quartile).
			if got := predict(t, e, "PRED000000001").Sub(sailingBefore); got != 46*time.Hour {
				t.Errorf("under way: %v later once waits are learned, want 46h", got)
			}
			// It has waited 5 h 55 min by its last report; all the waits seen were longer, and
			// their median leaves 34 h 5 min: it berths 40 h after it stopped.
			got := predict(t, e, "PRED000000002")
			if want := now.Add(-6 * time.Hour).Add(40 * time.Hour); !got.Equal(want) {
				t.Errorf("at anchor: %v, want %v (40 h after it stopped)", got, want)
			}
			for _, tc := range []struct{ container, number string }{{sailing, "PRED000000001"}, {waiting, "PRED000000002"}} {
				m, err := e.ContainerMap(ctx, acme, tc.container, false)
				if err != nil {
					t.Fatal(err)
				}
				want := predict(t, e, tc.number).UTC().Format(boxwatch.TimeFormat)
				found := false
				for _, f := range checkMap(t, m.Body).Features {
					if f.Properties["feature_type"] == "current_vessel" {
						found = true
						if f.Properties["predicted_arrival_at"] != want {
							t.Errorf("%s: the map predicts %v, PredictedArrival %s", tc.number, f.Properties["predicted_arrival_at"], want)
						}
					}
				}
				if !found {
					t.Errorf("%s: no current vessel on the map", tc.number)
				}
			}
			// Each call learned once, though two shipments record the first.
			if st := e.Waits().Stats(); st.Places != 2 || st.Waits != 2*len(calls) {
				t.Errorf("waits %+v, want 2 places, %d waits", st, 2*len(calls))
			}
		}

		t.Run("WarmWaits", func(t *testing.T) {
			e := journeytest.New(t, db, clock.Now)
			n, err := e.WarmWaits(ctx)
			if err != nil || n != len(calls) {
				t.Fatalf("WarmWaits = %d, %v; want %d", n, err, len(calls))
			}
			check(t, e)
			if n, err := e.WarmWaits(ctx); err != nil || n != 0 {
				t.Errorf("warmed again: %d, %v; want nothing new", n, err)
			}
			check(t, e)
		})
		t.Run("LearnArrivals", func(t *testing.T) {
			e := journeytest.New(t, db, clock.Now)
			arrivals, err := db.VesselArrivals(ctx, now.Add(-journey.WarmWindow), now, 100)
			atRotterdam := 0
			for _, a := range arrivals {
				if a.LOCODE == "NLRTM" {
					atRotterdam++
				}
			}
			if err != nil || atRotterdam != len(calls)+2 {
				t.Fatalf("arrivals %v, %v", arrivals, err)
			}
			for _, id := range []string{"acme-history", "initech-history", "unheard0", "unheard1"} {
				a, err := db.AccountByName(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				for _, number := range []string{"UNHEARD00000", "HIST000000000", "HIST000000001", "HIST000000002", "HIST000000003", "HIST000000004"} {
					s, err := db.Shipment(ctx, a.ID, boxwatch.NameUUID("s/"+a.ID+number))
					if boxwatch.IsKind(err, boxwatch.KindNotFound) {
						continue
					}
					if err != nil {
						t.Fatal(err)
					}
					e.LearnArrivals(s.Arrivals()) // as the tracking engine hands them over, shipment by shipment
				}
			}
			check(t, e)
		})
	})
}
