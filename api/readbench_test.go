package api_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// BenchmarkRead serves the read endpoints a client polls, each in its own group next to a bare
// handler answering the same bytes over the same loopback HTTP stack, on both databases. The API
// runs as serve runs it: rate limits on (set high, so every request pays for its check but none
// is refused), JSON logs, metrics. Each database holds 20 tracked shipments, one container each,
// on a two-leg journey with vessels at sea. Besides req/s, each run reports the statements the
// store ran per request outside transactions (stmts/op): the round trips PostgreSQL pays.
// PostgreSQL runs twice on the same database, alternating: with the store's read cache
// (postgres, as serve runs) and without it (postgres_nocache, --read-cache=false).
func BenchmarkRead(b *testing.B) {
	type deployment struct {
		ts    *testServer
		stmts *atomic.Int64
		ids   *strings.Replacer // {tr}, {shipment}, {container} → ids of the last journey seeded
	}
	deployments := map[string]*deployment{}
	for _, be := range storetest.Backends {
		if be.Name == "postgres" && os.Getenv(storetest.PostgresURLEnv) == "" {
			continue
		}
		dsn := be.DSN(b)
		db, err := store.Open(context.Background(), dsn)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		acme := storetest.MustCreateAccount(b, db, "acme", boxwatch.Features...)
		var number, containerID string
		for i := range 20 {
			a, v := imoNumber(960000+2*i), imoNumber(960001+2*i)
			number = fmt.Sprintf("READ%09d", i)
			containerID = mustSeedJourney(b, db, acme.ID, number, asiaEurope(day(1), z, z, z)(a, v), z, asiaEuropeVessels(day(3.5), z)(a, v)...)
		}
		ids := strings.NewReplacer("{tr}", boxwatch.NameUUID("tr/"+acme.ID+number),
			"{shipment}", boxwatch.NameUUID("s/"+acme.ID+number), "{container}", containerID)
		stmts := db.CountStatements()
		deployments[be.Name] = &deployment{ts: serveOn(b, db, production), stmts: stmts, ids: ids}
		if be.Name == "postgres" {
			// The same database through a store without the read cache: every read a round trip.
			plain, err := store.OpenWith(context.Background(), dsn, store.Options{DisableReadCache: true})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { plain.Close() })
			deployments["postgres_nocache"] = &deployment{ts: serveOn(b, plain, production), stmts: plain.CountStatements(), ids: ids}
		}
	}
	for _, ep := range []struct{ name, path string }{
		{"tracking_request", "/v2/tracking_requests/{tr}"},
		{"tracking_requests", "/v2/tracking_requests"},
		{"shipment", "/v2/shipments/{shipment}"},
		{"shipments", "/v2/shipments"},
		{"container", "/v2/containers/{container}"},
		{"containers", "/v2/containers"},
		{"transport_events", "/v2/containers/{container}/transport_events"},
	} {
		b.Run(ep.name, func(b *testing.B) {
			d := deployments["sqlite"]
			body := d.ts.do(b, "GET", d.ids.Replace(ep.path), d.ts.acme, "").want(b, 200).raw
			b.Run("baseline", func(b *testing.B) {
				srv := bare(200, body)
				defer srv.Close()
				hammer(b, func() *http.Request {
					req, _ := http.NewRequest("GET", srv.URL+d.ids.Replace(ep.path), nil)
					req.Header.Set("Authorization", "Token "+d.ts.acme)
					return req
				}, 200)
			})
			for _, name := range []string{"sqlite", "postgres_nocache", "postgres"} {
				b.Run(name, func(b *testing.B) {
					d := deployments[name]
					if d == nil {
						storetest.RequirePostgres(b)
					}
					url := d.ts.URL + d.ids.Replace(ep.path)
					before := d.stmts.Load()
					hammer(b, func() *http.Request {
						req, _ := http.NewRequest("GET", url, nil)
						req.Header.Set("Authorization", "Token "+d.ts.acme)
						return req
					}, 200, d.ts.db)
					b.ReportMetric(float64(d.stmts.Load()-before)/float64(b.N), "stmts/op")
				})
			}
		})
	}
}
