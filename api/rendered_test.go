package api_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/journey/journeytest"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// renderedReads are the GET routes whose documents the read cache keeps rendered.
var renderedReads = []string{"/v2/tracking_requests/{tr}", "/v2/shipments/{shipment}", "/v2/containers/{container}"}

// predictedMember matches a shipment's predicted arrival, which two renderings may compute at
// different moments.
var predictedMember = regexp.MustCompile(`,"pod_predicted_arrival_at":"[^"]*"`)

// TestRenderedDocuments: the documents of a tracking request, a shipment and a container, read
// again and again, are those of a store without the read cache (byte for byte, but for a
// predicted arrival's value), and a write shows in the next read on both databases: through the
// API of the same replica at once; through a second replica (another store on the same database)
// on PostgreSQL as soon as the first replica's store reads it, on SQLite at once; and on SQLite
// by raw SQL on a connection of its own (sqlite3 by hand), at once.
func TestRenderedDocuments(t *testing.T) {
	for _, be := range storetest.Backends {
		t.Run(be.Name, func(t *testing.T) {
			if be.Name == "postgres" && os.Getenv(storetest.PostgresURLEnv) == "" {
				storetest.RequirePostgres(t)
			}
			dsn := be.DSN(t)
			db := openStore(t, dsn, store.Options{})
			acme := storetest.MustCreateAccount(t, db, "acme", boxwatch.Features...)
			globex := storetest.MustCreateAccount(t, db, "globex")
			// On its last leg at sea, so that acme's shipment shows a predicted arrival.
			day, g, h := journeytest.Day, journeytest.IMO(970000), journeytest.IMO(970001)
			clock := &journeytest.Clock{}
			clock.Set(day(3.5))
			seed := func(accountID, number string) *strings.Replacer {
				container := journeytest.MustSeed(t, db, accountID, number, journeytest.AsiaEurope(day(1), day(2), day(2.5), z)(g, h), z,
					journeytest.Vessel{IMO: h, MMSI: "5" + h[:7] + "1", From: "SGSIN", To: "NLRTM", Departed: day(2.5), Knots: 17.5, UpTo: day(3.5)})
				return strings.NewReplacer("{tr}", boxwatch.NameUUID("tr/"+accountID+number), "{shipment}", boxwatch.NameUUID("s/"+accountID+number),
					"{container}", container)
			}
			acmeIDs, globexIDs := seed(acme.ID, "RENDER0001"), seed(globex.ID, "RENDER0002")
			ts := serveOn(t, db, production, withSettable(clock))
			// The reference: the same database through a store that renders every read.
			ref := serveOn(t, openStore(t, dsn, store.Options{DisableReadCache: true}), production, withSettable(clock))
			replica := serveOn(t, openStore(t, dsn, store.Options{}), production, withSettable(clock))
			eventually(t, "the read cache answers", func() bool { return db.ReadCacheStats().Live })
			keys := map[*strings.Replacer]string{acmeIDs: ts.acme, globexIDs: ts.globex}

			// same checks that every document ts answers, read three times, is ref's.
			same := func(when string) {
				t.Helper()
				for ids, key := range keys {
					for _, p := range renderedReads {
						path := ids.Replace(p)
						want := ref.do(t, "GET", path, key, "").want(t, 200)
						for i := range 3 {
							got := ts.do(t, "GET", path, key, "").want(t, 200)
							if got.header.Get("Content-Type") != want.header.Get("Content-Type") {
								t.Fatalf("%s, GET %s: Content-Type %q, want %q", when, path, got.header.Get("Content-Type"), want.header.Get("Content-Type"))
							}
							if predictedMember.Match(got.raw) != predictedMember.Match(want.raw) {
								t.Fatalf("%s, GET %s (read %d): predicted arrival in one document only:\n%s\nwant\n%s", when, path, i, got.raw, want.raw)
							}
							// Each server's self links name it.
							g := strings.ReplaceAll(string(predictedMember.ReplaceAll(got.raw, nil)), ts.URL, "")
							w := strings.ReplaceAll(string(predictedMember.ReplaceAll(want.raw, nil)), ref.URL, "")
							if g != w {
								t.Fatalf("%s, GET %s (read %d):\n%s\nwant\n%s", when, path, i, got.raw, want.raw)
							}
						}
					}
				}
			}
			same("seeded")
			if !predictedMember.Match(ts.do(t, "GET", acmeIDs.Replace("/v2/shipments/{shipment}"), ts.acme, "").raw) {
				t.Fatal("acme's shipment has no predicted arrival: the splice is not tested")
			}
			// Another account never sees the document kept for acme.
			ts.do(t, "GET", acmeIDs.Replace("/v2/shipments/{shipment}"), ts.globex, "").want(t, 404)
			ts.do(t, "GET", acmeIDs.Replace("/v2/containers/{container}"), ts.globex, "").want(t, 404)
			ts.do(t, "GET", acmeIDs.Replace("/v2/tracking_requests/{tr}"), ts.globex, "").want(t, 404)

			// A write through this replica's API: the next read of every document showing it shows
			// it. The shipment's and the container's are written one after the other, each checked
			// before the next, so that a document that misses one of the rows it shows is caught.
			tagWrite := func(on *testServer, round int) {
				t.Helper()
				on.do(t, "PATCH", acmeIDs.Replace("/v2/shipments/{shipment}"), on.acme,
					fmt.Sprintf(`{"data":{"type":"shipment","attributes":{"tags":["tag-%d"]}}}`, round)).want(t, 200)
			}
			refWrite := func(on *testServer, round int) {
				t.Helper()
				on.do(t, "PATCH", acmeIDs.Replace("/v2/containers/{container}"), on.acme,
					fmt.Sprintf(`{"data":{"type":"container","attributes":{"ref_numbers":["REF-%d"]}}}`, round)).want(t, 200)
			}
			shows := func(want string, paths ...string) {
				t.Helper()
				for _, p := range paths {
					if got := ts.do(t, "GET", acmeIDs.Replace(p), ts.acme, "").want(t, 200).raw; !strings.Contains(string(got), want) {
						t.Fatalf("GET %s does not show %s:\n%s", p, want, got)
					}
				}
			}
			tagShown := func(round int) {
				t.Helper()
				// The tracking request's document includes its shipment.
				shows(fmt.Sprintf(`"tag-%d"`, round), "/v2/shipments/{shipment}", "/v2/tracking_requests/{tr}")
			}
			refShown := func(round int) {
				t.Helper()
				shows(fmt.Sprintf(`"REF-%d"`, round), "/v2/containers/{container}", "/v2/shipments/{shipment}?include=containers")
			}
			for round := range 3 {
				tagWrite(ts, round)
				tagShown(round)
				refWrite(ts, round)
				refShown(round)
				same(fmt.Sprintf("after write %d", round))
			}
			// A write through the other replica: once this replica's store reads the new rows (its
			// read cache evicted them on the notification), every document shows them; on SQLite
			// the next read shows them.
			ctx := context.Background()
			waitFor := func(what string, cond func() bool) {
				t.Helper()
				if be.Name == "sqlite" {
					return
				}
				eventually(t, what, cond)
			}
			for round := 3; round < 6; round++ {
				tagWrite(replica, round)
				waitFor("the first replica's store reads the shipment", func() bool {
					s, err := db.Shipment(ctx, acme.ID, acmeIDs.Replace("{shipment}"))
					if err != nil {
						t.Fatal(err)
					}
					return strings.Join(s.Tags, ",") == fmt.Sprintf("tag-%d", round)
				})
				tagShown(round)
				refWrite(replica, round)
				waitFor("the first replica's store reads the container", func() bool {
					c, err := db.Container(ctx, acme.ID, acmeIDs.Replace("{container}"))
					if err != nil {
						t.Fatal(err)
					}
					return strings.Join(c.RefNumbers, ",") == fmt.Sprintf("REF-%d", round)
				})
				refShown(round)
				same(fmt.Sprintf("after write %d through the other replica", round))
			}
			if be.Name != "sqlite" {
				return
			}
			// By hand, on a connection of its own, as sqlite3 would.
			raw, err := sql.Open("sqlite", dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer raw.Close()
			for round := 6; round < 9; round++ {
				if _, err := raw.ExecContext(ctx, "UPDATE shipments SET tags = ? WHERE id = ?", fmt.Sprintf(`["tag-%d"]`, round), acmeIDs.Replace("{shipment}")); err != nil {
					t.Fatal(err)
				}
				tagShown(round)
				if _, err := raw.ExecContext(ctx, "UPDATE containers SET ref_numbers = ? WHERE id = ?", fmt.Sprintf(`["REF-%d"]`, round), acmeIDs.Replace("{container}")); err != nil {
					t.Fatal(err)
				}
				refShown(round)
				same(fmt.Sprintf("after write %d by hand", round))
			}
		})
	}
}

func openStore(t *testing.T, dsn string, o store.Options) *store.DB {
	t.Helper()
	db, err := store.OpenWith(context.Background(), dsn, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for start := time.Now(); !cond(); time.Sleep(time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("%s: not within 10s", what)
		}
	}
}
