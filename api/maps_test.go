package api_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/api"
	"github.com/boxwatch/boxwatch/journey/journeytest"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

var z time.Time

// withSettable makes the API, and the journey engine withEngines builds for it, read the time
// from clock.
func withSettable(c *journeytest.Clock) option {
	return func(_ testing.TB, cfg *api.Config, _ *store.DB) { cfg.Clock = c.Now }
}

func mustAccountID(t testing.TB, db *store.DB, name string) string {
	t.Helper()
	a, err := db.AccountByName(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}

// TestContainerMapRules checks the map, the predicted arrival a shipment shows and the vessel
// routing endpoints as HTTP answers them: feature gating, parameters, entity tags and cache
// lifetimes, the JSON:API rendering of positions. What the journey engine draws is tested in
// package journey.
func TestContainerMapRules(t *testing.T) {
	t.Parallel()
	day, imo := journeytest.Day, journeytest.IMO
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		clock := &journeytest.Clock{}
		clock.Set(day(3.5))
		ts := newTestServer(t, b, withSettable(clock), func(_ testing.TB, c *api.Config, _ *store.DB) { c.Limits.Refresh = 10 })
		acme := mustAccountID(t, ts.db, "acme")
		a, bb := imo(940000), imo(940001)
		live := journeytest.MustSeed(t, ts.db, acme, "RULE000000001", journeytest.AsiaEurope(day(1), z, z, z)(a, bb), z,
			journeytest.AsiaEuropeVessels(day(3.5), z)(a, bb)...)
		c, d := imo(940010), imo(940011)
		ended := journeytest.MustSeed(t, ts.db, acme, "RULE000000005", journeytest.AsiaEurope(day(1), day(2), day(2.5), day(3))(c, d), day(3.2))
		g, h := imo(940030), imo(940031)
		lastLeg := journeytest.MustSeed(t, ts.db, acme, "RULE000000006", journeytest.AsiaEurope(day(1), day(2), day(2.5), z)(g, h), z,
			journeytest.Vessel{IMO: h, MMSI: "5" + h[:7] + "1", From: "SGSIN", To: "NLRTM", Departed: day(2.5), Knots: 17.5, UpTo: day(3.5)})
		path := func(id string) string { return "/v2/containers/" + id + "/map_geojson" }

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
		t.Run("GeoJSON", func(t *testing.T) {
			for _, q := range []string{"", "?antimeridian=split"} {
				r := ts.do(t, "GET", path(live)+q, ts.acme, "").want(t, 200)
				if ct := r.header.Get("Content-Type"); ct != "application/json" || r.body["type"] != "FeatureCollection" {
					t.Errorf("%s: Content-Type %q, body %.80s", q, ct, r.raw)
				}
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
			doc := ts.do(t, "GET", path(lastLeg), ts.acme, "").want(t, 200)
			for _, f := range get(doc.body, "features").([]any) {
				if p := f.(map[string]any)["properties"].(map[string]any); p["feature_type"] == "current_vessel" {
					predicted = p["predicted_arrival_at"]
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
			journeytest.MustSeed(t, ts.db, plain.ID, "RULE000000007", journeytest.AsiaEurope(day(1), day(2), day(2.5), z)(g, h), z)
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
			r := ts.do(t, "GET", base+"?port_id=SGSIN&previous_port_id=CNSHA&interval=1", ts.acme, "").want(t, 200)
			list := get(r.body, "data", "attributes", "positions").([]any)
			// About 2,200 nm at 18 knots: a position a minute for about five days.
			if len(list) < 6000 || len(list) > 9000 {
				t.Errorf("%d positions", len(list))
			}
			at := func(p any) time.Time {
				t0, _ := time.Parse(time.RFC3339, p.(map[string]any)["timestamp"].(string))
				return t0
			}
			if at(list[1]).Sub(at(list[0])) != time.Minute || list[0].(map[string]any)["estimated"] != true {
				t.Errorf("first positions %v, %v", list[0], list[1])
			}
			// By default an hour apart, with the points where the path turns between: the same
			// start and end, a small share of the positions.
			r = ts.do(t, "GET", base+"?port_id=SGSIN&previous_port_id=CNSHA", ts.acme, "").want(t, 200)
			hourly := get(r.body, "data", "attributes", "positions").([]any)
			first, last := hourly[0].(map[string]any), hourly[len(hourly)-1].(map[string]any)
			if len(hourly) < 100 || len(hourly) > len(list)/10 || at(first) != at(list[0]) ||
				last["latitude"] != list[len(list)-1].(map[string]any)["latitude"] || at(last).Sub(at(list[len(list)-1])).Abs() > time.Minute {
				t.Errorf("default spacing: %d positions from %v to %v; a minute apart %d from %v to %v", len(hourly), first, last, len(list), list[0], list[len(list)-1])
			}
			for i := range hourly {
				if i > 0 && !at(hourly[i]).After(at(hourly[i-1])) {
					t.Errorf("position %d at %v, not after the one before", i, hourly[i])
				}
			}
			for _, bad := range []string{"0", "1441", "1.5", "x", ""} {
				ts.do(t, "GET", base+"?port_id=SGSIN&previous_port_id=CNSHA&interval="+bad, ts.acme, "").wantError(t, 400, "invalid", "", "interval")
			}
			wc := "/v2/vessels/" + a + "/future_positions_with_coordinates?port_id=SGSIN&previous_port_id=CNSHA"
			r = ts.do(t, "GET", wc+"&latitude=10&longitude=110", ts.acme, "").want(t, 200)
			first = get(r.body, "data", "attributes", "positions").([]any)[0].(map[string]any)
			if first["latitude"] != 10.0 || first["longitude"] != 110.0 {
				t.Errorf("starts at %v", first)
			}
			ts.do(t, "GET", wc+"&latitude=48.8566&longitude=2.3522", ts.acme, "").wantError(t, 400, "invalid", "", "latitude") // Paris
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
