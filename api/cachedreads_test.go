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

// TestCachedVesselsAndNotifications: the documents of a vessel (by IMO number and by id) and of a
// webhook notification, read again and again, are those of a store without the read cache, and
// each way they are written shows in the next read on both databases: an AIS position, the
// vessel's metadata and the MMSI static reports give it, a delivery that failed with a retry
// scheduled, one that succeeded, the webhook deleted. Through this replica's store at once;
// through a second replica's on PostgreSQL as soon as this replica's store reads the change (its
// notification arrived), on SQLite at once.
func TestCachedVesselsAndNotifications(t *testing.T) {
	for _, be := range storetest.Backends {
		t.Run(be.Name, func(t *testing.T) {
			if be.Name == "postgres" && os.Getenv(storetest.PostgresURLEnv) == "" {
				storetest.RequirePostgres(t)
			}
			ctx := context.Background()
			dsn := be.DSN(t)
			db := openStore(t, dsn, store.Options{})
			replica := openStore(t, dsn, store.Options{})
			acme := storetest.MustCreateAccount(t, db, "acme", boxwatch.Features...)
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			now := time.Now().UTC().Truncate(time.Millisecond)
			// The vessel's row has no MMSI: static reports heard before it was saved give its IMO
			// number one, heard at a position.
			imo, mmsi := journeytest.IMO(980000), "219000001"
			vessel := boxwatch.Vessel{ID: boxwatch.VesselID(imo), IMO: imo, Name: "EVER READ"}
			must(db.SaveVesselIdentities(ctx, []boxwatch.VesselIdentity{{MMSI: mmsi, IMO: imo}}, now))
			must(db.InTx(ctx, func(tx boxwatch.Tx) error { return tx.SaveVessel(ctx, vessel, now) }))
			must(db.SaveLastPositions(ctx, []boxwatch.VesselPosition{{MMSI: mmsi, Latitude: 1.25, Longitude: 103.75, Timestamp: now}}))
			hook := boxwatch.Webhook{ID: boxwatch.NewID(now), AccountID: acme.ID, URL: "https://93.184.216.34/x", Active: true,
				Events: []string{"tracking_request.succeeded"}, Secret: "s", CreatedAt: now, UpdatedAt: now}
			must(db.CreateWebhook(ctx, hook))
			var note string
			must(db.InTx(ctx, func(tx boxwatch.Tx) error {
				ev := boxwatch.Event{ID: boxwatch.NewID(now), AccountID: acme.ID, Name: "tracking_request.succeeded", ObjectType: "tracking_request",
					ObjectID: boxwatch.NewID(now), Key: "cached", CreatedAt: now}
				if _, err := tx.AppendEvent(ctx, ev); err != nil {
					return err
				}
				ids, err := tx.Notify(ctx, ev)
				if len(ids) == 1 {
					note = ids[0]
				}
				return err
			}))
			ts := serveOn(t, db, production)
			ref := serveOn(t, openStore(t, dsn, store.Options{DisableReadCache: true}), production)
			eventually(t, "the read cache answers", func() bool { return db.ReadCacheStats().Live })
			paths := []string{"/v2/vessels/" + imo, "/v2/vessels/" + vessel.ID, "/v2/webhook_notifications/" + note}

			// same checks that every document ts answers, read three times, is ref's.
			same := func(when string) {
				t.Helper()
				for _, p := range paths {
					want := ref.do(t, "GET", p, ref.acme, "")
					for i := range 3 {
						got := ts.do(t, "GET", p, ts.acme, "")
						if got.status != want.status {
							t.Fatalf("%s, GET %s (read %d): status %d, want %d", when, p, i, got.status, want.status)
						}
						if want.status != 200 {
							continue
						}
						// Each server's self links name it.
						if g, w := strings.ReplaceAll(string(got.raw), ts.URL, ""), strings.ReplaceAll(string(want.raw), ref.URL, ""); g != w {
							t.Fatalf("%s, GET %s (read %d):\n%s\nwant\n%s", when, p, i, got.raw, want.raw)
						}
					}
				}
			}
			// shows reads path until it answers want: at once for a write through ts's store, and on
			// SQLite for any; on PostgreSQL within the notification's delay for the replica's.
			shows := func(path, want string, viaReplica bool) {
				t.Helper()
				read := func() bool { return strings.Contains(string(ts.do(t, "GET", path, ts.acme, "").raw), want) }
				if viaReplica && be.Name == "postgres" {
					eventually(t, fmt.Sprintf("GET %s shows %s", path, want), read)
				} else if !read() {
					t.Fatalf("GET %s does not show %s:\n%s", path, want, ts.do(t, "GET", path, ts.acme, "").raw)
				}
			}
			same("seeded")
			if !strings.Contains(string(ts.do(t, "GET", paths[0], ts.acme, "").raw), `"latitude":1.25`) {
				t.Fatal("the vessel shows no position: its MMSI's lookup is not tested")
			}
			// Another account never reads acme's notification from the cache.
			ts.do(t, "GET", paths[2], ts.globex, "").want(t, 404)

			for round, on := range []*store.DB{db, replica} {
				viaReplica := on == replica
				at := now.Add(time.Duration(round+1) * time.Hour)
				lat := fmt.Sprintf("%d.5", 10+round)
				must(on.SaveLastPositions(ctx, []boxwatch.VesselPosition{{MMSI: mmsi, Latitude: float64(10+round) + 0.5, Longitude: 100, Timestamp: at}}))
				shows(paths[0], `"latitude":`+lat, viaReplica)
				shows(paths[1], `"latitude":`+lat, viaReplica)
				renamed := vessel
				renamed.Name = fmt.Sprint("EVER READ ", round)
				must(on.InTx(ctx, func(tx boxwatch.Tx) error { return tx.SaveVessel(ctx, renamed, at) }))
				shows(paths[0], `"name":"`+renamed.Name+`"`, viaReplica)
				shows(paths[1], `"name":"`+renamed.Name+`"`, viaReplica)
				same(fmt.Sprintf("after the vessel's writes, round %d", round))

				must(on.InTx(ctx, func(tx boxwatch.Tx) error {
					n, err := tx.LockNotification(ctx, note)
					if err != nil {
						return err
					}
					n.Attempts, n.NextAttemptAt, n.UpdatedAt = n.Attempts+1, at, at
					if err := tx.SaveNotification(ctx, n); err != nil {
						return err
					}
					return tx.AddDeliveryAttempt(ctx, boxwatch.DeliveryAttempt{ID: boxwatch.NewID(at), NotificationID: note, At: at, StatusCode: 503})
				}))
				shows(paths[2], fmt.Sprintf(`"attempts":%d`, round+1), viaReplica)
				same(fmt.Sprintf("after a failed delivery, round %d", round))
			}
			// A new MMSI for the IMO number, which the vessel learns, not heard anywhere yet.
			must(replica.SaveVesselIdentities(ctx, []boxwatch.VesselIdentity{{MMSI: "219000002", IMO: imo}}, now.Add(3*time.Hour)))
			shows(paths[0], `"mmsi":"219000002"`, true)
			shows(paths[0], `"latitude":null`, true)
			must(replica.RecordDelivered(ctx, boxwatch.DeliveryAttempt{ID: boxwatch.NewID(now), NotificationID: note, At: now.Add(3 * time.Hour),
				StatusCode: 204}, nil, now.Add(3*time.Hour)))
			shows(paths[2], `"delivery_status":"succeeded"`, true)
			same("after a delivery")
			replicaAPI := serveOn(t, replica, production)
			replicaAPI.do(t, "DELETE", "/v2/webhooks/"+hook.ID, replicaAPI.acme, "").want(t, 200)
			if be.Name == "postgres" {
				eventually(t, "the notification is gone with its webhook", func() bool {
					return ts.do(t, "GET", paths[2], ts.acme, "").status == 404
				})
			}
			same("after the webhook's delete")
		})
	}
}
