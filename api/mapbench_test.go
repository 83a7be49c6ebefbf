package api_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/api"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// BenchmarkContainerMap serves the map of a container on the third leg of its journey, its
// vessels' tracks 20,000 stored positions in all (one a minute), next to GET /v2/containers/{id}
// of the same container in the same run. That read is the group's "baseline", so make bench
// prints the map's throughput as a share of it. map_nocache draws every map afresh (the server's
// short reuse of a drawn map off); map_nocache_notrack also reads the legs' whole tracks from the
// database for every map; map_cache is the server as it runs.
func BenchmarkContainerMap(b *testing.B) {
	clock := &settableClock{}
	var n int
	route, vessels := threeLegs(b, &n)
	now := vessels[2].upTo
	clock.set(now)
	db := storetest.SQLite.Open(b)
	acme := storetest.MustCreateAccount(b, db, "acme", boxwatch.Features...)
	id := mustSeedJourney(b, db, acme.ID, "BENCH00000001", route, time.Time{}, vessels...)
	if n != 20_000 {
		b.Fatalf("%d positions stored, want 20,000", n)
	}
	servers := map[string]*testServer{}
	for _, v := range []struct {
		name           string
		noMap, noTrack bool
	}{{"baseline", false, false}, {"map_cache", false, false}, {"map_nocache", true, false}, {"map_nocache_notrack", true, true}} {
		servers[v.name] = serveOn(b, db, withLimits(api.Limits{}), withSettable(clock), production,
			func(_ testing.TB, c *api.Config, _ *store.DB) { c.NoMapCache, c.NoTrackCache = v.noMap, v.noTrack })
	}
	for _, name := range []string{"baseline", "map_cache", "map_nocache", "map_nocache_notrack"} {
		ts := servers[name]
		path := "/v2/containers/" + id + "/map_geojson"
		if name == "baseline" {
			path = "/v2/containers/" + id
		}
		r := ts.do(b, "GET", path, ts.acme, "").want(b, 200)
		if name != "baseline" {
			doc := checkMapB(b, r.raw)
			if doc < 7 {
				b.Fatalf("the map has %d features", doc)
			}
		}
		b.Run(name, func(b *testing.B) {
			hammer(b, func() *http.Request {
				req, _ := http.NewRequest("GET", ts.URL+path, nil)
				req.Header.Set("Authorization", "Token "+ts.acme)
				return req
			}, 200)
		})
	}
}

// checkMapB counts a map's features (checkMap needs a *testing.T).
func checkMapB(b *testing.B, raw []byte) int {
	var doc mapDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		b.Fatal(err)
	}
	return len(doc.Features)
}

// threeLegs is Shanghai → Singapore → Colombo → Rotterdam, at sea on the last leg, with positions
// one a minute: the first two legs whole, the third as far as makes 20,000 in all. It sets n to
// the number of positions.
func threeLegs(b *testing.B, n *int) ([]boxwatch.RouteStop, []journeyVessel) {
	a, c, d := imoNumber(950000), imoNumber(950001), imoNumber(950002)
	v1 := journeyVessel{imo: a, mmsi: "4" + a[:7] + "1", from: "CNSHA", to: "SGSIN", departed: day(1), knots: 18, upTo: day(30), step: time.Minute}
	v2 := journeyVessel{imo: c, mmsi: "4" + c[:7] + "2", from: "SGSIN", to: "LKCMB", departed: day(9), knots: 18, upTo: day(30), step: time.Minute}
	p1, p2 := sail(b, v1), sail(b, v2)
	ata1, ata2 := p1[len(p1)-1].Timestamp.Add(time.Hour), p2[len(p2)-1].Timestamp.Add(time.Hour)
	v3 := journeyVessel{imo: d, mmsi: "4" + d[:7] + "3", from: "LKCMB", to: "NLRTM", departed: day(15), knots: 18, step: time.Minute}
	v3.upTo = v3.departed.Add(time.Duration(20_000-len(p1)-len(p2)) * time.Minute)
	*n = len(p1) + len(p2) + len(sail(b, v3))
	route := []boxwatch.RouteStop{
		stop(1, "CNSHA", boxwatch.RolePOL, z, z, day(1), day(1), "", a),
		stop(2, "SGSIN", boxwatch.RoleTS, day(6.5), ata1, day(9), day(9), a, c),
		stop(3, "LKCMB", boxwatch.RoleTS, day(13), ata2, day(15), day(15), c, d),
		stop(4, "NLRTM", boxwatch.RolePOD, day(30), z, z, z, d, ""),
	}
	return route, []journeyVessel{v1, v2, v3}
}
