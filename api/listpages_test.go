package api_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/journey/journeytest"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// listPages are pages of the lists answered from fragments, with every filter, include and page
// parameter they take ({placeholders} as seeded): those rendered every time (an include beyond
// the default, a parameter refused) are here too, so that the two ways are compared.
var listPages = []string{
	"/v2/tracking_requests", "/v2/tracking_requests?page[size]=2", "/v2/tracking_requests?page[size]=2&page[number]=2",
	"/v2/tracking_requests?page[size]=2&page[number]=9", "/v2/tracking_requests?include=tracked_object",
	"/v2/tracking_requests?filter[status]=created", "/v2/tracking_requests?filter[status]=pending", "/v2/tracking_requests?filter[scac]=MAEU",
	"/v2/tracking_requests?filter[request_number]=LIST0000002", "/v2/tracking_requests?q=list000",
	"/v2/tracking_requests?filter[created_at][start]=2000-01-01T00:00:00Z&filter[updated_at][end]=2100-01-01T00:00:00Z",
	"/v2/tracking_requests?filter[status]=nonsense", "/v2/tracking_requests?include=shipment",
	"/v2/shipments", "/v2/shipments?page[size]=2", "/v2/shipments?page[size]=2&page[number]=3", "/v2/shipments?page[number]=5",
	"/v2/shipments?filter[tracking_stopped]=false", "/v2/shipments?filter[tracking_stopped]=true", "/v2/shipments?number=LIST0000001",
	"/v2/shipments?q=msku", "/v2/shipments?include=containers", "/v2/shipments?include=containers,pod_terminal,port_of_lading",
	"/v2/shipments?filter[tracking_stopped]=maybe", "/v2/shipments?page[size]=0",
	"/v2/containers", "/v2/containers?page[size]=3", "/v2/containers?page[size]=3&page[number]=2", "/v2/containers?filter[number]={number}",
	"/v2/containers?include=shipment", "/v2/containers?include=transport_events,pod_terminal", "/v2/containers?include=nonsense",
}

// TestListPages: every page of the tracking requests, shipments and containers lists, read three
// times, is the page a store without the read cache answers, byte for byte; and every kind of
// write a page shows — a shipment's tags, a container's fields, a new container on a shipment,
// a new transport event, a shipment's route, a tracking request's status, deletions — shows in
// the next page read through this replica, and on PostgreSQL, written through a second replica,
// as soon as this replica's store reads the row written (its notification arrived); on SQLite,
// where the second replica is another writer, at once.
func TestListPages(t *testing.T) {
	for _, be := range storetest.Backends {
		t.Run(be.Name, func(t *testing.T) {
			if be.Name == "postgres" && os.Getenv(storetest.PostgresURLEnv) == "" {
				storetest.RequirePostgres(t)
			}
			ctx := context.Background()
			dsn := be.DSN(t)
			db := openStore(t, dsn, store.Options{})
			acme := storetest.MustCreateAccount(t, db, "acme", boxwatch.Features...)
			globex := storetest.MustCreateAccount(t, db, "globex")
			day, g, h := journeytest.Day, journeytest.IMO(971000), journeytest.IMO(971001)
			seed := func(accountID string, n int) (shipments, containers []string) {
				for i := range n {
					number := fmt.Sprintf("LIST%07d", i)
					containers = append(containers, journeytest.MustSeed(t, db, accountID, number,
						journeytest.AsiaEurope(day(1), day(2), day(2.5), z)(g, h), z))
					shipments = append(shipments, boxwatch.NameUUID("s/"+accountID+number))
				}
				return shipments, containers
			}
			shipments, containers := seed(acme.ID, 5)
			seed(globex.ID, 2)
			// A request without a shipment yet, which includes nothing.
			if err := db.CreateTrackingRequest(ctx, boxwatch.TrackingRequest{ID: boxwatch.NewID(time.Now()), AccountID: acme.ID,
				RequestType: boxwatch.RequestBillOfLading, RequestNumber: "LISTPENDING", SCAC: "MAEU", RefNumbers: []string{}, ShipmentTags: []string{},
				Status: boxwatch.StatusPending, CreatedAt: journeytest.T0, UpdatedAt: journeytest.T0}); err != nil {
				t.Fatal(err)
			}
			ts := serveOn(t, db, production)
			ref := serveOn(t, openStore(t, dsn, store.Options{DisableReadCache: true}), production)
			second := openStore(t, dsn, store.Options{})
			replica := serveOn(t, second, production)
			eventually(t, "the read cache answers", func() bool { return db.ReadCacheStats().Live })
			ids := strings.NewReplacer("{number}", "MSKU0000003")

			same := func(when string) {
				t.Helper()
				for _, key := range []string{ts.acme, ts.globex} {
					for _, p := range listPages {
						path := ids.Replace(p)
						want := ref.do(t, "GET", path, key, "")
						for i := range 3 {
							got := ts.do(t, "GET", path, key, "")
							if got.status != want.status || got.header.Get("Content-Type") != want.header.Get("Content-Type") {
								t.Fatalf("%s, GET %s: %d %q, want %d %q", when, path, got.status, got.header.Get("Content-Type"),
									want.status, want.header.Get("Content-Type"))
							}
							if g, w := strings.ReplaceAll(string(got.raw), ts.URL, ""), strings.ReplaceAll(string(want.raw), ref.URL, ""); g != w {
								t.Fatalf("%s, GET %s (read %d):\n%s\nwant\n%s", when, path, i, got.raw, want.raw)
							}
						}
					}
				}
			}
			same("seeded")
			if s := db.ReadCacheStats(); s.Hits == 0 {
				t.Fatalf("the read cache answered nothing: %+v", s)
			}
			shows := func(want string, show bool, paths ...string) {
				t.Helper()
				for _, p := range paths {
					got := string(ts.do(t, "GET", p, ts.acme, "").want(t, 200).raw)
					if strings.Contains(got, want) != show {
						t.Fatalf("GET %s shows %s: %v, want %v:\n%s", p, want, !show, show, got)
					}
				}
			}
			// warm reads every default page, so that each write is checked against fragments kept
			// after the write before it: one write must not end the fragments the next one tests.
			warm := func() {
				t.Helper()
				for _, p := range []string{"/v2/tracking_requests", "/v2/shipments", "/v2/containers"} {
					ts.do(t, "GET", p, ts.acme, "").want(t, 200)
				}
			}
			// arrived waits, on PostgreSQL, until this replica's store reads what another wrote.
			arrived := func(other bool, what string, read func() bool) {
				t.Helper()
				if other && be.Name == "postgres" {
					eventually(t, what, read)
				}
			}
			inTx := func(on *store.DB, fn func(tx boxwatch.Tx) error) {
				t.Helper()
				if err := on.InTx(ctx, fn); err != nil {
					t.Fatal(err)
				}
			}
			for round := range 4 {
				other := round%2 == 1 // odd rounds write through the second replica
				on, onStore := ts, db
				if other {
					on, onStore = replica, second
				}
				sid, cid := shipments[round], containers[round]

				tag := fmt.Sprintf(`"tag-%d"`, round)
				warm()
				on.do(t, "PATCH", "/v2/shipments/"+sid, on.acme, `{"data":{"type":"shipment","attributes":{"tags":[`+tag+`]}}}`).want(t, 200)
				arrived(other, "the shipment's tags", func() bool {
					s, err := db.Shipment(ctx, acme.ID, sid)
					return err == nil && len(s.Tags) == 1
				})
				shows(tag, true, "/v2/shipments", "/v2/tracking_requests")

				ref := fmt.Sprintf(`"REF-%d"`, round)
				warm()
				on.do(t, "PATCH", "/v2/containers/"+cid, on.acme, `{"data":{"type":"container","attributes":{"ref_numbers":[`+ref+`]}}}`).want(t, 200)
				arrived(other, "the container's reference", func() bool {
					c, err := db.Container(ctx, acme.ID, cid)
					return err == nil && len(c.RefNumbers) == 1
				})
				shows(ref, true, "/v2/containers")

				added := boxwatch.NameUUID(fmt.Sprintf("added/%d", round))
				warm()
				inTx(onStore, func(tx boxwatch.Tx) error {
					return tx.SaveContainer(ctx, boxwatch.Container{ID: added, AccountID: acme.ID, ShipmentID: sid,
						Number: fmt.Sprintf("TGHU%07d", round), CurrentStatus: boxwatch.ContainerOnShip, CreatedAt: journeytest.T0, UpdatedAt: journeytest.T0})
				})
				arrived(other, "the shipment's new container", func() bool {
					list, err := db.ShipmentContainers(ctx, acme.ID, sid)
					return err == nil && len(list) == 2
				})
				shows(added, true, "/v2/shipments", "/v2/tracking_requests", "/v2/containers")

				event := boxwatch.NameUUID(fmt.Sprintf("event/%d", round))
				warm()
				inTx(onStore, func(tx boxwatch.Tx) error {
					_, err := tx.InsertTransportEvent(ctx, boxwatch.TransportEvent{ID: event, AccountID: acme.ID, ShipmentID: sid, ContainerID: cid,
						Event: "container.transport.vessel_departed", Timestamp: day(2), LOCODE: "CNSHA", CreatedAt: journeytest.T0})
					return err
				})
				arrived(other, "the container's new event", func() bool {
					events, err := db.TransportEventsOfContainers(ctx, acme.ID, []string{cid})
					return err == nil && len(events[cid]) == 1
				})
				shows(event, true, "/v2/containers")

				// A route ending elsewhere changes the timezone of the port of discharge every
				// container of the shipment shows.
				warm()
				inTx(onStore, func(tx boxwatch.Tx) error {
					s, err := tx.LockAccountShipment(ctx, acme.ID, sid)
					if err != nil {
						return err
					}
					s.Route[len(s.Route)-1].LOCODE = "USLAX"
					return tx.UpdateShipment(ctx, s)
				})
				arrived(other, "the shipment's route", func() bool {
					s, err := db.Shipment(ctx, acme.ID, sid)
					return err == nil && s.Route[len(s.Route)-1].LOCODE == "USLAX"
				})
				shows(`"America/Los_Angeles"`, true, "/v2/containers?filter[number]=MSKU"+fmt.Sprintf("%07d", round))

				tr := boxwatch.NameUUID("tr/" + acme.ID + fmt.Sprintf("LIST%07d", round))
				warm()
				inTx(onStore, func(tx boxwatch.Tx) error {
					r, err := tx.LockTrackingRequest(ctx, tr)
					if err != nil {
						return err
					}
					r.Status, r.FailedReason = boxwatch.StatusFailed, fmt.Sprintf("reason %d", round)
					return tx.SaveTrackingRequestState(ctx, r)
				})
				arrived(other, "the tracking request's status", func() bool {
					r, err := db.TrackingRequest(ctx, acme.ID, tr)
					return err == nil && r.Status == boxwatch.StatusFailed
				})
				shows(fmt.Sprintf(`"reason %d"`, round), true, "/v2/tracking_requests")

				// Deleted by hand on the writing replica's connections: the added container, and
				// then the request with its shipment, containers and events (by cascade).
				warm()
				rawSQL(t, onStore, "DELETE FROM containers WHERE id = ?", added)
				arrived(true, "the container's deletion", func() bool {
					list, err := db.ShipmentContainers(ctx, acme.ID, sid)
					return err == nil && len(list) == 1
				})
				shows(added, false, "/v2/shipments", "/v2/tracking_requests", "/v2/containers")
				same(fmt.Sprintf("after the writes of round %d", round))
				warm()
				rawSQL(t, onStore, "DELETE FROM tracking_requests WHERE id = ?", tr)
				arrived(true, "the request's deletion", func() bool {
					_, err := db.Shipment(ctx, acme.ID, sid)
					return err != nil
				})
				shows(sid, false, "/v2/shipments", "/v2/tracking_requests", "/v2/containers")
				same(fmt.Sprintf("after the deletion of round %d", round))
			}
		})
	}
}

// rawSQL runs q (with ? placeholders) on a connection of db's, behind the store's back.
func rawSQL(t *testing.T, db *store.DB, q string, args ...any) {
	t.Helper()
	var err error
	if db.Dialect() == store.Postgres {
		for i := 1; strings.Contains(q, "?"); i++ {
			q = strings.Replace(q, "?", fmt.Sprintf("$%d", i), 1)
		}
		_, err = db.Pool().Exec(context.Background(), q, args...)
	} else {
		_, err = db.SQLWriter().ExecContext(context.Background(), q, args...)
	}
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}
