package api_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/api"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

func TestContainerMapRules(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		clock := &settableClock{}
		clock.set(day(3.5))
		ts := newTestServer(t, b, withSettable(clock), func(_ testing.TB, c *api.Config, _ *store.DB) { c.Limits.Refresh = 10 })
		acme := mustAccountID(t, ts.db, "acme")
		a, bb := imoNumber(940000), imoNumber(940001)
		live := mustSeedJourney(t, ts.db, acme, "RULE000000001", asiaEurope(day(1), z, z, z)(a, bb), z, asiaEuropeVessels(day(3.5), z)(a, bb)...)
		empty := mustSeedJourney(t, ts.db, acme, "RULE000000002", nil, z)
		// Leg 1 sailed and leg 2 under way with no AIS at all: both drawn by the router.
		c, d := imoNumber(940010), imoNumber(940011)
		noAIS := mustSeedJourney(t, ts.db, acme, "RULE000000003", asiaEurope(day(1), day(2.9), day(3), z)(c, d), z,
			journeyVessel{imo: c}, journeyVessel{imo: d})
		// The vessel's latest position only, no stored track.
		e, f := imoNumber(940020), imoNumber(940021)
		lastOnly := asiaEuropeVessels(day(3.5), z)(e, f)
		lastOnly[0].lastOnly = true
		noTrack := mustSeedJourney(t, ts.db, acme, "RULE000000004", asiaEurope(day(1), z, z, z)(e, f), z, lastOnly...)
		ended := mustSeedJourney(t, ts.db, acme, "RULE000000005", asiaEurope(day(1), day(2), day(2.5), day(3))(c, d), day(3.2))
		path := func(id string) string { return "/v2/containers/" + id + "/map_geojson" }
		g, h := imoNumber(940030), imoNumber(940031)
		lastLeg := mustSeedJourney(t, ts.db, acme, "RULE000000006", asiaEurope(day(1), day(2), day(2.5), z)(g, h), z,
			journeyVessel{imo: h, mmsi: "5" + h[:7] + "1", from: "SGSIN", to: "NLRTM", departed: day(2.5), knots: 17.5, upTo: day(3.5)})

		t.Run("ErrForbidden", func(t *testing.T) {
			ts.do(t, "GET", path(live), ts.globex, "").wantError(t, 403, "forbidden", "", "")
		})
		t.Run("ErrNotFoundOtherAccount", func(t *testing.T) {
			other := mustKey(t, ts.db, "initech", boxwatch.Features...)
			ts.do(t, "GET", path(live), other, "").wantError(t, 404, "not_found", "", "")
			ts.do(t, "GET", path("00000000-0000-0000-0000-000000000000"), ts.acme, "").wantError(t, 404, "not_found", "", "")
			ts.do(t, "GET", path("'; DROP TABLE containers; --"), ts.acme, "").want(t, 404)
		})
		t.Run("ErrBadParameter", func(t *testing.T) {
			ts.do(t, "GET", path(live)+"?zoom=3", ts.acme, "").wantError(t, 400, "invalid", "", "zoom")
			ts.do(t, "GET", path(live)+"?antimeridian=wrap", ts.acme, "").wantError(t, 400, "invalid", "", "antimeridian")
			ts.do(t, "GET", path(live)+"?antimeridian=split&antimeridian=split", ts.acme, "").want(t, 400)
			ts.do(t, "GET", path(live)+"?antimeridian=%zz", ts.acme, "").want(t, 400)
		})
		t.Run("EmptyWithoutRoute", func(t *testing.T) {
			r := ts.do(t, "GET", path(empty), ts.acme, "").want(t, 200)
			if strings.TrimSpace(string(r.raw)) != `{"type":"FeatureCollection","features":[]}` {
				t.Errorf("body %s", r.raw)
			}
		})
		t.Run("FallbackEstimated", func(t *testing.T) {
			doc := checkMap(t, ts.do(t, "GET", path(noAIS), ts.acme, "").want(t, 200).raw)
			n := 0
			for _, f := range doc.Features {
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
			doc := checkMap(t, ts.do(t, "GET", path(noTrack), ts.acme, "").want(t, 200).raw)
			types := []string{}
			for _, f := range doc.Features {
				types = append(types, fmt.Sprint(f.Properties["feature_type"], f.Properties["estimated"]))
			}
			want := "port<nil> current_vessel<nil> past_vessel_locationstrue estimated_partial_leg<nil> port<nil> port<nil> estimated_full_legs<nil>"
			if strings.Join(types, " ") != want {
				t.Errorf("features %v, want %s", types, want)
			}
		})
		t.Run("MovesWithTheClock", func(t *testing.T) {
			first := checkMap(t, ts.do(t, "GET", path(live), ts.acme, "").want(t, 200).raw)
			// A later position arrives; after the server's short reuse the vessel has moved.
			v := asiaEuropeVessels(day(3.6), z)(a, bb)[0]
			ps := sail(t, v)
			if _, err := ts.db.SavePositions(t.Context(), ps); err != nil {
				t.Fatal(err)
			}
			if err := ts.db.SaveLastPositions(t.Context(), ps[len(ps)-1:]); err != nil {
				t.Fatal(err)
			}
			clock.set(day(3.6))
			second := checkMap(t, ts.do(t, "GET", path(live), ts.acme, "").want(t, 200).raw)
			clock.set(day(3.5))
			if fmt.Sprint(vesselAt(first)) == fmt.Sprint(vesselAt(second)) {
				t.Errorf("the vessel stayed at %v", vesselAt(first))
			}
			if pastCount(second) <= pastCount(first)-1 {
				t.Errorf("the past path shrank: %d then %d positions", pastCount(first), pastCount(second))
			}
		})
		t.Run("VesselAheadOfTheClock", func(t *testing.T) {
			// The demo's simulated vessels report times ahead of the wall clock: the map still
			// shows the latest report, and the path sailed up to it.
			k, l := imoNumber(940040), imoNumber(940041)
			ahead := mustSeedJourney(t, ts.db, acme, "RULE000000008", asiaEurope(day(1), z, z, z)(k, l), z, asiaEuropeVessels(day(5), z)(k, l)...)
			doc := checkMap(t, ts.do(t, "GET", path(ahead), ts.acme, "").want(t, 200).raw)
			var at string
			for _, f := range doc.Features {
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
		t.Run("ETag", func(t *testing.T) {
			r := ts.do(t, "GET", path(live), ts.acme, "").want(t, 200)
			tag := r.header.Get("ETag")
			if tag == "" || r.header.Get("Cache-Control") != "private, max-age=900" {
				t.Fatalf("ETag %q, Cache-Control %q", tag, r.header.Get("Cache-Control"))
			}
			for _, h := range []string{tag, "W/" + tag, `"x", ` + tag, "*"} {
				if nm := ts.do(t, "GET", path(live), ts.acme, "", "If-None-Match", h); nm.status != 304 || len(nm.raw) != 0 {
					t.Errorf("If-None-Match %s: %d %s", h, nm.status, nm.raw)
				}
			}
			for _, h := range []string{`"other"`, "garbage", `"unterminated`} {
				ts.do(t, "GET", path(live), ts.acme, "", "If-None-Match", h).want(t, 200)
			}
			end := ts.do(t, "GET", path(ended), ts.acme, "").want(t, 200)
			if cc := end.header.Get("Cache-Control"); cc != "private, max-age=31536000, immutable" {
				t.Errorf("ended journey: Cache-Control %q", cc)
			}
		})
		t.Run("PredictedArrivalOnShipment", func(t *testing.T) {
			var predicted any
			for _, f := range checkMap(t, ts.do(t, "GET", path(lastLeg), ts.acme, "").want(t, 200).raw).Features {
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
			sid := boxwatch.NameUUID("s/" + acme + "RULE000000006")
			r := ts.do(t, "GET", "/v2/shipments/"+sid, ts.acme, "").want(t, 200)
			if got := get(r.body, "data", "attributes", "pod_predicted_arrival_at"); predicted == nil || got != predicted {
				t.Errorf("shipment pod_predicted_arrival_at %v, the map says %v", got, predicted)
			}
			// On the first leg there is none; nor for an account without the map feature.
			r = ts.do(t, "GET", "/v2/shipments/"+boxwatch.NameUUID("s/"+acme+"RULE000000001"), ts.acme, "").want(t, 200)
			if got, ok := get(r.body, "data", "attributes").(map[string]any)["pod_predicted_arrival_at"]; ok {
				t.Errorf("a prediction on the first leg: %v", got)
			}
			plain := storetest.MustCreateAccount(t, ts.db, "plain")
			mustSeedJourney(t, ts.db, plain.ID, "RULE000000007", asiaEurope(day(1), day(2), day(2.5), z)(g, h), z)
			r = ts.do(t, "GET", "/v2/shipments/"+boxwatch.NameUUID("s/"+plain.ID+"RULE000000007"), mustKey(t, ts.db, "plain"), "").want(t, 200)
			if got, ok := get(r.body, "data", "attributes").(map[string]any)["pod_predicted_arrival_at"]; ok {
				t.Errorf("a prediction without the map feature: %v", got)
			}
		})
		t.Run("Refresh", func(t *testing.T) {
			r := ts.do(t, "PATCH", "/v2/containers/"+live+"/refresh", ts.globex, "").want(t, 403)
			if e := get(r.body, "errors", 0).(map[string]any); e["code"] != "forbidden" || e["title"] != "API access not enabled" ||
				e["detail"] != "This API endpoint is not enabled for your account. Please contact support@terminal49.com" {
				t.Errorf("refresh without the feature: %s", r.raw)
			}
			ts.do(t, "PATCH", "/v2/containers/"+live+"/refresh", mustKey(t, ts.db, "initech", boxwatch.Features...), "").want(t, 404)
			// A shipment whose tracking stopped stays stopped: refresh schedules nothing.
			ts.do(t, "PATCH", "/v2/containers/"+ended+"/refresh", ts.acme, "").want(t, 200)
			stopped, err := ts.db.Shipment(t.Context(), acme, boxwatch.NameUUID("s/"+acme+"RULE000000005"))
			if err != nil {
				t.Fatal(err)
			}
			if !stopped.NextRefreshAt.IsZero() {
				t.Errorf("a stopped shipment is due at %v", stopped.NextRefreshAt)
			}
			for i := range 9 {
				r := ts.do(t, "PATCH", "/v2/containers/"+live+"/refresh", ts.acme, "").want(t, 200)
				if r.body["message"] != "Started refresh for Shipping line, Terminal, Rail" {
					t.Fatalf("refresh %d: %s", i, r.raw)
				}
			}
			r = ts.do(t, "PATCH", "/v2/containers/"+live+"/refresh", ts.acme, "")
			r.wantError(t, 429, "rate_limited", "", "")
			if r.header.Get("Retry-After") == "" || !strings.Contains(string(r.raw), "You've hit the refresh limit") {
				t.Errorf("429 without Retry-After or message: %v %s", r.header, r.raw)
			}
			s, err := ts.db.Shipment(t.Context(), acme, boxwatch.NameUUID("s/"+acme+"RULE000000001"))
			if err != nil {
				t.Fatal(err)
			}
			if since := time.Since(s.NextRefreshAt); since < 0 || since > time.Minute { // the engine keeps real time
				t.Errorf("next refresh %v, want now", s.NextRefreshAt)
			}
		})
		t.Run("VesselPositions", func(t *testing.T) {
			base := "/v2/vessels/" + a
			r := ts.do(t, "GET", base, ts.acme, "").want(t, 200)
			if p, ok := get(r.body, "data", "attributes").(map[string]any)["positions"]; !ok || p != nil {
				t.Errorf("positions without show_positions: %v (present %v), want null", p, ok)
			}
			r = ts.do(t, "GET", base+"?show_positions[to_timestamp]=2026-03-03T00:00:00Z", ts.acme, "").want(t, 200)
			list := get(r.body, "data", "attributes", "positions").([]any)
			if want := 24 * 12; len(list) != want+1 { // from departure at day 1 to day 2, both ends included
				t.Errorf("%d positions, want %d", len(list), want+1)
			}
			ts.do(t, "GET", base+"?show_positions[from_timestamp]=2026-03-02T00:00:00Z", ts.globex, "").wantError(t, 403, "forbidden", "", "")
			ts.do(t, "GET", base+"?show_positions[from_timestamp]=yesterday", ts.acme, "").wantError(t, 400, "invalid", "", "show_positions[from_timestamp]")
			ts.do(t, "GET", base+"?show_positions[from_timestamp]=2026-03-03T00:00:00Z&show_positions[to_timestamp]=2026-03-02T00:00:00Z", ts.acme, "").want(t, 400)
		})
		t.Run("FuturePositions", func(t *testing.T) {
			base := "/v2/vessels/" + a + "/future_positions"
			r := ts.do(t, "GET", base+"?port_id=SGSIN&previous_port_id=CNSHA", ts.acme, "").want(t, 200)
			list := get(r.body, "data", "attributes", "positions").([]any)
			// About 2,200 nm at 18 knots: a position a minute for about five days.
			if len(list) < 6000 || len(list) > 9000 {
				t.Errorf("%d positions", len(list))
			}
			t0, _ := time.Parse(time.RFC3339, list[0].(map[string]any)["timestamp"].(string))
			t1, _ := time.Parse(time.RFC3339, list[1].(map[string]any)["timestamp"].(string))
			if t1.Sub(t0) != time.Minute || list[0].(map[string]any)["estimated"] != true {
				t.Errorf("first positions %v, %v", list[0], list[1])
			}
			wc := "/v2/vessels/" + a + "/future_positions_with_coordinates?port_id=SGSIN&previous_port_id=CNSHA"
			r = ts.do(t, "GET", wc+"&latitude=10&longitude=110", ts.acme, "").want(t, 200)
			first := get(r.body, "data", "attributes", "positions").([]any)[0].(map[string]any)
			if first["latitude"] != 10.0 || first["longitude"] != 110.0 {
				t.Errorf("starts at %v", first)
			}
			ts.do(t, "GET", base+"?port_id=SGSIN", ts.acme, "").wantError(t, 400, "invalid", "", "previous_port_id")
			ts.do(t, "GET", base+"?port_id=XXXXX&previous_port_id=CNSHA", ts.acme, "").wantError(t, 400, "invalid", "", "port_id")
			ts.do(t, "GET", wc+"&latitude=91&longitude=0", ts.acme, "").wantError(t, 400, "invalid", "", "latitude")
			ts.do(t, "GET", wc+"&latitude=NaN&longitude=0", ts.acme, "").want(t, 400)
			ts.do(t, "GET", wc+"&latitude=10", ts.acme, "").wantError(t, 400, "invalid", "", "longitude")
			ts.do(t, "GET", base+"?port_id=SGSIN&previous_port_id=CNSHA", ts.globex, "").wantError(t, 403, "forbidden", "", "")
			ts.do(t, "GET", "/v2/vessels/9999999/future_positions?port_id=SGSIN&previous_port_id=CNSHA", ts.acme, "").want(t, 404)
		})
	})
}

func vesselAt(d mapDoc) string {
	for _, f := range d.Features {
		if f.Properties["feature_type"] == "current_vessel" {
			return string(f.Geometry.Coordinates)
		}
	}
	return ""
}

func pastCount(d mapDoc) int {
	for _, f := range d.Features {
		if f.Properties["feature_type"] == "past_vessel_locations" {
			n, _ := f.Properties["point_count"].(float64)
			return int(n)
		}
	}
	return 0
}
