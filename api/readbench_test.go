package api_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/api"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/journey/journeytest"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// readEndpoint is a GET route as the benchmarks call it: {placeholders} in path are ids of what
// the setup seeded.
type readEndpoint struct{ name, path string }

// polledReads are the endpoints a client polls: BenchmarkRead measures them longest.
var polledReads = []readEndpoint{
	{"tracking_request", "/v2/tracking_requests/{tr}"},
	{"tracking_requests", "/v2/tracking_requests?page[size]=100"},
	{"shipment", "/v2/shipments/{shipment}"},
	{"shipments", "/v2/shipments?page[size]=100"},
	{"container", "/v2/containers/{container}"},
	{"containers", "/v2/containers?page[size]=100"},
	{"transport_events", "/v2/containers/{container}/transport_events"},
}

// otherReads are every other GET route; BenchmarkReadEveryRoute checks none is missing.
var otherReads = []readEndpoint{
	{"raw_events", "/v2/containers/{container}/raw_events"},
	{"search", "/v2/search?query={number}"},
	{"terminal", "/v2/terminals/{terminal}"},
	{"metro_area", "/v2/metro_areas/{pod}"},
	{"map_geojson", "/v2/containers/{container}/map_geojson"},
	{"port", "/v2/ports/{pod}"},
	{"vessel", "/v2/vessels/{vessel}"},
	{"future_positions", "/v2/vessels/{vessel}/future_positions?port_id={pod}&previous_port_id={pol}"},
	{"future_positions_minutes", "/v2/vessels/{vessel}/future_positions?port_id={pod}&previous_port_id={pol}&interval=1"},
	{"future_positions_with_coordinates", "/v2/vessels/{vessel}/future_positions_with_coordinates?port_id={pod}&previous_port_id={pol}&latitude=5&longitude=100"},
	{"webhooks", "/v2/webhooks"},
	{"webhook_events", "/v2/webhooks/events"},
	{"webhook_ips", "/v2/webhooks/ips"},
	{"webhook", "/v2/webhooks/{webhook}"},
	{"webhook_notifications", "/v2/webhook_notifications"},
	{"webhook_notification_examples", "/v2/webhook_notifications/examples?event=container.transport.full_out"},
	{"webhook_notification", "/v2/webhook_notifications/{notification}"},
	{"parties", "/v2/parties"},
	{"party", "/v2/parties/{party}"},
	{"custom_field_definitions", "/v2/custom_field_definitions"},
	{"custom_field_definition", "/v2/custom_field_definitions/{definition}"},
	{"custom_field_options", "/v2/custom_field_definitions/{definition}/options"},
	{"custom_field_option", "/v2/custom_field_definitions/{definition}/options/{option}"},
	{"custom_fields", "/v2/custom_fields?filter[entity_id]={shipment}"},
	{"custom_field", "/v2/custom_fields/{field}"},
	{"shipment_custom_fields", "/v2/shipments/{shipment}/custom_fields"},
	{"container_custom_fields", "/v2/containers/{container}/custom_fields"},
	{"tracking_request_custom_fields", "/v2/tracking_requests/{tr}/custom_fields"},
	{"shipping_lines", "/v2/shipping_lines"},
	{"shipping_line", "/v2/shipping_lines/MAEU"},
	{"openapi", "/v2/openapi.json"},
	{"healthz", "/healthz"},
	{"readyz", "/readyz"},
}

// BenchmarkRead serves the read endpoints a client polls, each in its own group next to a bare
// handler answering the same bytes over the same loopback HTTP stack, on both databases. The API
// runs as serve runs it: rate limits on (set high, so every request pays for its check but none
// is refused), JSON logs, metrics. Each database holds readShipments tracked shipments, one
// container each, on a two-leg journey with vessels at sea; the lists ask for pages of 100. Besides req/s, each run reports the statements the
// store ran per request outside transactions (stmts/op): the round trips PostgreSQL pays.
// PostgreSQL runs twice on the same database, alternating: with the store's read cache
// (postgres, as serve runs) and without it (postgres_nocache, --read-cache=false).
func BenchmarkRead(b *testing.B) {
	benchReads(b, readDeployments(b), polledReads)
}

// BenchmarkReadEveryRoute is BenchmarkRead for every other GET route, over the same data plus a
// webhook with a notification, a party and custom fields.
func BenchmarkReadEveryRoute(b *testing.B) {
	covered := map[string]bool{}
	for _, ep := range append(append([]readEndpoint{}, polledReads...), otherReads...) {
		covered[ep.path] = true
	}
	known := strings.NewReplacer("{tr}", "{id}", "{shipment}", "{id}", "{container}", "{id}", "{terminal}", "{id}", "{pod}", "{id}",
		"{vessel}", "{id}", "{webhook}", "{id}", "{notification}", "{id}", "{party}", "{id}", "{definition}", "{id}",
		"{option}", "{option_id}", "{field}", "{id}", "/MAEU", "/{id}")
	routes := map[string]bool{}
	for p := range covered {
		p, _, _ = strings.Cut(p, "?")
		routes[known.Replace(p)] = true
	}
	for _, rt := range api.RouteTable(api.Config{Carriers: data.Carriers()}) {
		if rt.Method == "GET" && !routes[rt.Path] {
			b.Errorf("GET %s has no read benchmark", rt.Path)
		}
	}
	benchReads(b, readDeployments(b), otherReads)
}

// readShipments is how many tracked shipments each database holds: a full page of the largest
// size a client may ask for (maxPageSize), the page the list bar is set for.
const readShipments = 100

// readDeployment is the API over one database, and the ids the endpoints' paths need.
type readDeployment struct {
	ts    *testServer
	stmts *atomic.Int64
	ids   *strings.Replacer
}

// readDeployments seeds each database and serves it: sqlite, postgres and postgres_nocache
// (the last two on one database) when PostgreSQL is on.
func readDeployments(b *testing.B) map[string]*readDeployment {
	deployments := map[string]*readDeployment{}
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
		var number, containerID, vessel string
		for i := range readShipments {
			a, v := journeytest.IMO(960000+2*i), journeytest.IMO(960001+2*i)
			number, vessel = fmt.Sprintf("READ%09d", i), a
			containerID = journeytest.MustSeed(b, db, acme.ID, number, journeytest.AsiaEurope(journeytest.Day(1), z, z, z)(a, v), z,
				journeytest.AsiaEuropeVessels(journeytest.Day(3.5), z)(a, v)...)
		}
		trID, shipmentID := boxwatch.NameUUID("tr/"+acme.ID+number), boxwatch.NameUUID("s/"+acme.ID+number)
		ts := serveOn(b, db, production)
		seeded := seedReadExtras(b, ts, acme.ID, trID, shipmentID)
		pairs := []string{"{tr}", trID, "{shipment}", shipmentID, "{container}", containerID, "{number}", number, "{vessel}", vessel}
		deployments[be.Name] = &readDeployment{ts: ts, stmts: db.CountStatements(), ids: strings.NewReplacer(append(pairs, seeded...)...)}
		if be.Name == "postgres" {
			// The same database through a store without the read cache: every read a round trip.
			plain, err := store.OpenWith(context.Background(), dsn, store.Options{DisableReadCache: true})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { plain.Close() })
			deployments["postgres_nocache"] = &readDeployment{ts: serveOn(b, plain, production), stmts: plain.CountStatements(),
				ids: deployments["postgres"].ids}
		}
	}
	return deployments
}

// seedReadExtras adds through ts what the other read routes show — a webhook with a notification,
// a party, a custom field definition with an option and a value on the shipment, a terminal at its
// port of discharge — and returns the placeholders and ids of those and of the shipment's ports.
func seedReadExtras(b *testing.B, ts *testServer, accountID, trID, shipmentID string) []string {
	ctx := context.Background()
	now := time.Now().UTC()
	hook := boxwatch.Webhook{ID: boxwatch.NewID(now), AccountID: accountID, URL: "https://93.184.216.34/x", Active: true,
		Events: []string{"tracking_request.succeeded"}, Secret: "s", CreatedAt: now, UpdatedAt: now}
	if err := ts.db.CreateWebhook(ctx, hook); err != nil {
		b.Fatal(err)
	}
	var notifications []string
	err := ts.db.InTx(ctx, func(tx boxwatch.Tx) error {
		ev := boxwatch.Event{ID: boxwatch.NewID(now), AccountID: accountID, Name: "tracking_request.succeeded", ObjectType: "tracking_request",
			ObjectID: trID, TrackingRequestID: trID, Key: "readbench", CreatedAt: now}
		if _, err := tx.AppendEvent(ctx, ev); err != nil {
			return err
		}
		var err error
		notifications, err = tx.Notify(ctx, ev)
		return err
	})
	if err != nil || len(notifications) != 1 {
		b.Fatalf("notify: %v, %d notifications", err, len(notifications))
	}
	post := func(path, body string) string {
		return get(ts.do(b, "POST", path, ts.acme, body).want(b, 201).body, "data", "id").(string)
	}
	party := post("/v2/parties", `{"data":{"type":"party","attributes":{"company_name":"Acme Imports"}}}`)
	definition := post("/v2/custom_field_definitions", `{"data":{"type":"custom_field_definition","attributes":`+
		`{"entity_type":"Shipment","api_slug":"mode","display_name":"Mode","data_type":"enum"}}}`)
	option := post("/v2/custom_field_definitions/"+definition+"/options",
		`{"data":{"type":"custom_field_option","attributes":{"label":"By sea","value":"sea","position":1}}}`)
	field := post("/v2/custom_fields", `{"data":{"type":"custom_field","attributes":{"api_slug":"mode","value":"sea"},`+
		`"relationships":{"entity":{"data":{"type":"shipment","id":"`+shipmentID+`"}}}}}`)
	shipment := ts.do(b, "GET", "/v2/shipments/"+shipmentID, ts.acme, "").want(b, 200).body
	pod := get(shipment, "data", "attributes", "port_of_discharge_locode").(string)
	terminal := boxwatch.Terminal{ID: boxwatch.TerminalID(pod, "ECTDE"), LOCODE: pod, SMDGCode: "ECTDE", Name: "ECT Delta", CreatedAt: now, UpdatedAt: now}
	if err := ts.db.InTx(ctx, func(tx boxwatch.Tx) error { return tx.SaveTerminal(ctx, terminal) }); err != nil {
		b.Fatal(err)
	}
	return []string{"{webhook}", hook.ID, "{notification}", notifications[0], "{party}", party, "{definition}", definition,
		"{option}", option, "{field}", field, "{terminal}", terminal.ID, "{pod}", pod,
		"{pol}", get(shipment, "data", "attributes", "port_of_lading_locode").(string)}
}

// benchReads runs each endpoint in its own group: the bare handler answering the bytes the SQLite
// deployment answered, then each deployment. Every endpoint must answer 200 on every database.
func benchReads(b *testing.B, deployments map[string]*readDeployment, endpoints []readEndpoint) {
	for _, ep := range endpoints {
		b.Run(ep.name, func(b *testing.B) {
			d := deployments["sqlite"]
			body := d.ts.do(b, "GET", d.ids.Replace(ep.path), d.ts.acme, "").want(b, 200).raw
			for name, d := range deployments {
				if name != "sqlite" {
					d.ts.do(b, "GET", d.ids.Replace(ep.path), d.ts.acme, "").want(b, 200)
				}
			}
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
