package journey_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/journey"
	"github.com/boxwatch/boxwatch/journey/journeytest"
	"github.com/boxwatch/boxwatch/store/storetest"
)

func TestContainerMapRules(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		db := b.Open(t)
		clock := &journeytest.Clock{}
		clock.Set(day(3.5))
		maps := journeytest.New(t, db, clock.Now)
		acme := storetest.MustCreateAccount(t, db, "acme").ID
		a, bb := imoNumber(940000), imoNumber(940001)
		live := journeytest.MustSeed(t, db, acme, "RULE000000001", asiaEurope(day(1), z, z, z)(a, bb), z, asiaEuropeVessels(day(3.5), z)(a, bb)...)
		empty := journeytest.MustSeed(t, db, acme, "RULE000000002", nil, z)
		// Leg 1 sailed and leg 2 under way with no AIS at all: both drawn by the router.
		c, d := imoNumber(940010), imoNumber(940011)
		noAIS := journeytest.MustSeed(t, db, acme, "RULE000000003", asiaEurope(day(1), day(2.9), day(3), z)(c, d), z,
			journeytest.Vessel{IMO: c}, journeytest.Vessel{IMO: d})
		// The vessel's latest position only, no stored track.
		e, f := imoNumber(940020), imoNumber(940021)
		lastOnly := asiaEuropeVessels(day(3.5), z)(e, f)
		lastOnly[0].LastOnly = true
		noTrack := journeytest.MustSeed(t, db, acme, "RULE000000004", asiaEurope(day(1), z, z, z)(e, f), z, lastOnly...)
		g, h := imoNumber(940030), imoNumber(940031)
		lastLeg := journeytest.MustSeed(t, db, acme, "RULE000000006", asiaEurope(day(1), day(2), day(2.5), z)(g, h), z,
			journeytest.Vessel{IMO: h, MMSI: "5" + h[:7] + "1", From: "SGSIN", To: "NLRTM", Departed: day(2.5), Knots: 17.5, UpTo: day(3.5)})
		draw := func(t *testing.T, id string) mapDoc {
			t.Helper()
			m, err := maps.ContainerMap(t.Context(), acme, id, false)
			if err != nil {
				t.Fatal(err)
			}
			return checkMap(t, m.Body)
		}

		t.Run("ErrNotFound", func(t *testing.T) {
			other := storetest.MustCreateAccount(t, db, "initech").ID
			for _, tc := range []struct{ account, id string }{
				{other, live}, {acme, "00000000-0000-0000-0000-000000000000"}, {acme, "'; DROP TABLE containers; --"},
			} {
				if _, err := maps.ContainerMap(t.Context(), tc.account, tc.id, false); !boxwatch.IsKind(err, boxwatch.KindNotFound) {
					t.Errorf("map of %q for %s: %v, want not found", tc.id, tc.account, err)
				}
			}
		})
		t.Run("EmptyWithoutRoute", func(t *testing.T) {
			m, err := maps.ContainerMap(t.Context(), acme, empty, false)
			if err != nil {
				t.Fatal(err)
			}
			if strings.TrimSpace(string(m.Body)) != `{"type":"FeatureCollection","features":[]}` {
				t.Errorf("body %s", m.Body)
			}
		})
		t.Run("FallbackEstimated", func(t *testing.T) {
			n := 0
			for _, f := range draw(t, noAIS).Features {
				if f.Properties["feature_type"] == "past_vessel_locations" {
					n++
					if f.Properties["estimated"] != true {
						t.Errorf("a past path without AIS is not estimated: %v", f.Properties)
					}
				}
				if f.Properties["feature_type"] == "current_vessel" || f.Properties["feature_type"] == "estimated_partial_leg" {
					t.Errorf("%v without a vessel position", f.Properties["feature_type"])
				}
			}
			if n != 2 {
				t.Errorf("%d past paths, want 2 (leg 1 to the port, leg 2 dead-reckoned)", n)
			}
		})
		t.Run("LatestPositionOnly", func(t *testing.T) {
			types := []string{}
			for _, f := range draw(t, noTrack).Features {
				types = append(types, fmt.Sprint(f.Properties["feature_type"], f.Properties["estimated"]))
			}
			want := "port<nil> current_vessel<nil> past_vessel_locationstrue estimated_partial_leg<nil> port<nil> port<nil> estimated_full_legs<nil>"
			if strings.Join(types, " ") != want {
				t.Errorf("features %v, want %s", types, want)
			}
		})
		t.Run("ReusedForAFewSeconds", func(t *testing.T) {
			first, err := maps.ContainerMap(t.Context(), acme, live, false)
			if err != nil {
				t.Fatal(err)
			}
			again, err := maps.ContainerMap(t.Context(), acme, live, false)
			if err != nil {
				t.Fatal(err)
			}
			if &first.Body[0] != &again.Body[0] || first.ETag != again.ETag {
				t.Error("a map asked for again at once was drawn again")
			}
		})
		t.Run("MovesWithTheClock", func(t *testing.T) {
			first := draw(t, live)
			// A later position arrives; after the engine's short reuse the vessel has moved.
			journeytest.MustSail(t, db, asiaEuropeVessels(day(3.6), z)(a, bb)[0], false)
			clock.Set(day(3.6))
			second := draw(t, live)
			clock.Set(day(3.5))
			if fmt.Sprint(vesselAt(first)) == fmt.Sprint(vesselAt(second)) {
				t.Errorf("the vessel stayed at %v", vesselAt(first))
			}
			// The past path runs from the same departure to the later report. (Its point count may
			// fall: the sailed track is simplified, and a later position can make an earlier turn
			// fall within the tolerance.)
			start1, end1 := pastSpan(first)
			start2, end2 := pastSpan(second)
			if start2 != start1 || end2 <= end1 {
				t.Errorf("the past path ran %s to %s, then %s to %s", start1, end1, start2, end2)
			}
		})
		t.Run("VesselAheadOfTheClock", func(t *testing.T) {
			// The demo's simulated vessels report times ahead of the wall clock: the map still
			// shows the latest report, and the path sailed up to it.
			k, l := imoNumber(940040), imoNumber(940041)
			ahead := journeytest.MustSeed(t, db, acme, "RULE000000008", asiaEurope(day(1), z, z, z)(k, l), z, asiaEuropeVessels(day(5), z)(k, l)...)
			var at string
			for _, f := range draw(t, ahead).Features {
				if f.Properties["feature_type"] == "current_vessel" {
					at, _ = f.Properties["vessel_location_timestamp"].(string)
				}
				if f.Properties["feature_type"] == "past_vessel_locations" && f.Properties["end_time"] != at {
					t.Errorf("the past path ends at %v, the vessel is at %s", f.Properties["end_time"], at)
				}
			}
			if want := day(5).Add(-5 * time.Minute).Format(time.RFC3339); at != want {
				t.Errorf("vessel at %q, want its latest report %s", at, want)
			}
		})
		t.Run("PredictedArrival", func(t *testing.T) {
			var predicted any
			for _, f := range draw(t, lastLeg).Features {
				if f.Properties["feature_type"] == "current_vessel" {
					predicted = f.Properties["predicted_arrival_at"]
					// About 8,000 nm to go at 17.5 knots from day 3.5: some 19 days.
					at, err := time.Parse(time.RFC3339, predicted.(string))
					if err != nil || at.Before(day(20)) || at.After(day(25)) {
						t.Errorf("predicted arrival %v", predicted)
					}
					if nm := f.Properties["distance_to_go_nm"].(float64); nm < 7000 || nm > 9000 {
						t.Errorf("distance to go %v nm", nm)
					}
				}
			}
			s, err := db.Shipment(t.Context(), acme, boxwatch.NameUUID("s/"+acme+"RULE000000006"))
			if err != nil {
				t.Fatal(err)
			}
			at, ok, err := maps.PredictedArrival(t.Context(), s)
			if err != nil || !ok || at.UTC().Format(boxwatch.TimeFormat) != predicted {
				t.Errorf("PredictedArrival = %v, %v, %v; the map says %v", at, ok, err, predicted)
			}
			// On the first leg there is none.
			first, err := db.Shipment(t.Context(), acme, boxwatch.NameUUID("s/"+acme+"RULE000000001"))
			if err != nil {
				t.Fatal(err)
			}
			if at, ok, err := maps.PredictedArrival(t.Context(), first); ok || err != nil {
				t.Errorf("a prediction on the first leg: %v, %v", at, err)
			}
		})
		t.Run("FuturePositions", func(t *testing.T) {
			v, err := db.Vessel(t.Context(), a)
			if err != nil {
				t.Fatal(err)
			}
			sha, sin := portAt(t, "CNSHA"), portAt(t, "SGSIN")
			list, err := maps.FuturePositions(t.Context(), v, sha, sin, journey.MinuteSpacing)
			if err != nil {
				t.Fatal(err)
			}
			// About 2,200 nm at 18 knots: a position a minute for about five days.
			if len(list) < 6000 || len(list) > 9000 {
				t.Errorf("%d positions", len(list))
			}
			if list[1].Time.Sub(list[0].Time) != time.Minute || list[0].Heading == nil || list[len(list)-1].Heading != nil {
				t.Errorf("first positions %+v, %+v; last %+v", list[0], list[1], list[len(list)-1])
			}
			from := geo.Point{Lat: 10, Lon: 110}
			if list, err = maps.FuturePositions(t.Context(), v, from, sin, journey.MinuteSpacing); err != nil || list[0].Latitude != 10 || list[0].Longitude != 110 {
				t.Errorf("from %v: starts at %+v (%v)", from, list[0], err)
			}
			inland := geo.Point{Lat: 48.8566, Lon: 2.3522} // Paris
			var re *journey.RouteError
			if _, err := maps.FuturePositions(t.Context(), v, inland, sin, time.Hour); !errors.As(err, &re) {
				t.Errorf("from Paris: %v, want a RouteError", err)
			}
			for _, bad := range []time.Duration{0, -time.Minute, 90 * time.Second} {
				if _, err := maps.FuturePositions(t.Context(), v, sha, sin, bad); err == nil {
					t.Errorf("spaced %v: no error", bad)
				}
			}
			// Coarser spacings: the same path and arrival, a position each spacing from the start
			// and one wherever the path turns, so the line through them stays clear of land.
			minutes, _ := maps.FuturePositions(t.Context(), v, sha, sin, journey.MinuteSpacing)
			arrival := minutes[len(minutes)-1]
			for _, spacing := range []time.Duration{2 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour} {
				list, err := maps.FuturePositions(t.Context(), v, sha, sin, spacing)
				if err != nil {
					t.Fatal(err)
				}
				last := list[len(list)-1]
				if last.Latitude != arrival.Latitude || last.Longitude != arrival.Longitude || last.Heading != nil ||
					last.Time.Sub(arrival.Time).Abs() > time.Minute {
					t.Errorf("spaced %v: ends at %+v, the minute path at %+v", spacing, last, arrival)
				}
				var line [][]float64
				timed := 0
				for i, p := range list {
					line = append(line, []float64{p.Longitude, p.Latitude})
					if i > 0 && !p.Time.After(list[i-1].Time) {
						t.Errorf("spaced %v: position %d at %v, not after %v", spacing, i, p.Time, list[i-1].Time)
					}
					if p.Time.Sub(minutes[0].Time)%spacing == 0 {
						timed++
					}
				}
				if want := int(arrival.Time.Sub(minutes[0].Time)/spacing) + 1; timed < want {
					t.Errorf("spaced %v: %d positions on the spacing, want %d", spacing, timed, want)
				}
				if len(list) >= len(minutes) {
					t.Errorf("spaced %v: %d positions, as many as a minute apart (%d)", spacing, len(list), len(minutes))
				}
				checkSea(t, fmt.Sprintf("spaced %v", spacing), [][][]float64{line})
			}
		})
	})
}

func portAt(t *testing.T, locode string) geo.Point {
	t.Helper()
	p, ok := data.Ports().ByLOCODE(locode)
	if !ok {
		t.Fatalf("no port %s", locode)
	}
	return geo.Point{Lat: p.Latitude, Lon: p.Longitude}
}

func vesselAt(d mapDoc) string {
	for _, f := range d.Features {
		if f.Properties["feature_type"] == "current_vessel" {
			return string(f.Geometry.Coordinates)
		}
	}
	return ""
}

// pastSpan is the past path's start and end times, as the map writes them (RFC 3339 in UTC,
// so that they compare as strings).
func pastSpan(d mapDoc) (start, end string) {
	for _, f := range d.Features {
		if f.Properties["feature_type"] == "past_vessel_locations" {
			start, _ = f.Properties["start_time"].(string)
			end, _ = f.Properties["end_time"].(string)
			return start, end
		}
	}
	return "", ""
}
