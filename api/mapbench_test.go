package api_test

import (
	"net/http"
	"testing"

	"github.com/boxwatch/boxwatch/api"
	"github.com/boxwatch/boxwatch/journey"
	"github.com/boxwatch/boxwatch/journey/journeytest"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// BenchmarkContainerMapHTTP serves a container's map_geojson over loopback HTTP as serve does,
// on SQLite, beside GET /v2/containers/{id} of the same container (its baseline): the map
// issue's bar is one half of the container read with the map drawn afresh. The container is on
// the third leg of its journey, its vessels' tracks 20,000 stored positions in all. map_cache is
// the API as serve runs it (a map drawn is reused for 10 s); map_nocache draws every map afresh,
// the track and route caches on. journey's BenchmarkContainerMap measures the engine alone.
func BenchmarkContainerMapHTTP(b *testing.B) {
	db := storetest.SQLite.Open(b)
	_, id, clock := journeytest.SeedThreeLegs(b, db)
	withMapCache := func(bytes int64) option {
		return func(t testing.TB, c *api.Config, db *store.DB) {
			cfg := journeytest.Config(db, clock.Now)
			cfg.MapCacheBytes = bytes
			engine, err := journey.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			c.Journey, c.Clock = engine, clock.Now
		}
	}
	cached := serveOn(b, db, production, withMapCache(journey.DefaultMapCacheBytes))
	fresh := serveOn(b, db, production, withMapCache(0))
	for _, v := range []struct {
		name, path string
		ts         *testServer
	}{
		{"baseline", "/v2/containers/" + id, cached},
		{"map_cache", "/v2/containers/" + id + "/map_geojson", cached},
		{"map_nocache", "/v2/containers/" + id + "/map_geojson", fresh},
	} {
		v.ts.do(b, "GET", v.path, v.ts.acme, "").want(b, http.StatusOK)
		b.Run(v.name, func(b *testing.B) {
			hammer(b, func() *http.Request {
				req, _ := http.NewRequest("GET", v.ts.URL+v.path, nil)
				req.Header.Set("Authorization", "Token "+v.ts.acme)
				return req
			}, http.StatusOK, db)
		})
	}
}
