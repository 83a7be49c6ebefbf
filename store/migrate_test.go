package store_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// TestMigrateRefreshByRequest: a shipment stored when refreshes asked by the bill of lading is
// refreshed by its request's own number once migrated.
func TestMigrateRefreshByRequest(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		dsn := b.DSN(t)
		db, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		a := storetest.MustCreateAccount(t, db, "acme")
		now := time.Now().UTC().Truncate(time.Microsecond)
		tr := boxwatch.TrackingRequest{ID: boxwatch.NewID(now), AccountID: a.ID, RequestType: boxwatch.RequestContainer,
			RequestNumber: "MSCU1234566", SCAC: "MSCU", Status: boxwatch.StatusCreated, CreatedAt: now, UpdatedAt: now}
		s := boxwatch.Shipment{ID: boxwatch.NewID(now), AccountID: a.ID, TrackingRequestID: tr.ID, SCAC: "MSCU",
			BillOfLading: "MEDUAB123458", Reference: boxwatch.CarrierReference{Type: boxwatch.RequestBillOfLading, Number: "MEDUAB123458"},
			CreatedAt: now, UpdatedAt: now}
		tr.ShipmentID = s.ID
		err = db.InTx(ctx, func(tx boxwatch.Tx) error {
			if err := tx.CreateTrackingRequest(ctx, tr); err != nil {
				return err
			}
			return tx.InsertShipment(ctx, s)
		})
		if err != nil {
			t.Fatal(err)
		}
		// The migration that set this reference anew runs as it ran on the rows before it.
		if err := db.RunMigration(ctx, "refresh_by_request"); err != nil {
			t.Fatal(err)
		}
		got, err := db.Shipment(ctx, a.ID, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		if want := (boxwatch.CarrierReference{Type: boxwatch.RequestContainer, Number: "MSCU1234566", SCAC: "MSCU"}); got.Reference != want {
			t.Fatalf("reference after the migration %+v, want the request's %+v", got.Reference, want)
		}
	})
}

// undo holds what takes the schema back before each migration these tests roll back, by name,
// newest first; rollBack runs the statements of every migration from the newest down to the one
// named (on PostgreSQL its postgres statements instead, where it has them).
var undo = []struct {
	name     string
	stmts    []string
	postgres []string
}{
	{"cache_notify_hot", nil, []string{
		// Each function's triggers go with it; the row triggers are named.
		"DROP FUNCTION boxwatch_cache_notify_keys CASCADE",
		"DROP TRIGGER vessels_cache_update ON vessels", "DROP TRIGGER vessels_cache_delete ON vessels",
		"DROP TRIGGER webhook_notifications_cache_update ON webhook_notifications", "DROP TRIGGER events_cache_update ON events",
		"DROP TRIGGER vessel_last_positions_cache_truncate ON vessel_last_positions",
		"DROP TRIGGER vessel_identities_cache_truncate ON vessel_identities", "DROP TRIGGER vessels_cache_truncate ON vessels",
		"DROP TRIGGER webhook_notifications_cache_truncate ON webhook_notifications", "DROP TRIGGER events_cache_truncate ON events",
	}},
	{"cache_notify_more", nil, []string{
		"DROP TRIGGER webhooks_cache ON webhooks", "DROP TRIGGER parties_cache ON parties", "DROP TRIGGER custom_fields_cache ON custom_fields",
		"DROP TRIGGER webhooks_cache_truncate ON webhooks", "DROP TRIGGER parties_cache_truncate ON parties",
		"DROP TRIGGER custom_fields_cache_truncate ON custom_fields",
		`CREATE OR REPLACE TRIGGER custom_field_options_cache AFTER INSERT OR UPDATE OR DELETE ON custom_field_options
			FOR EACH ROW EXECUTE FUNCTION boxwatch_cache_notify_row()`,
		"DROP FUNCTION boxwatch_cache_notify_option",
	}},
	{"list_count_slots", nil, []string{
		// One row per count again, holding the sum of its rows, and the triggers of 0018.
		`UPDATE list_counts l SET n = f.n FROM (SELECT account_id, kind, min(slot) AS slot, sum(n) AS n FROM list_counts
			GROUP BY account_id, kind) f WHERE l.account_id = f.account_id AND l.kind = f.kind AND l.slot = f.slot`,
		"DELETE FROM list_counts l WHERE slot > (SELECT min(slot) FROM list_counts m WHERE m.account_id = l.account_id AND m.kind = l.kind)",
		"ALTER TABLE list_counts DROP COLUMN slot", "ALTER TABLE list_counts ADD PRIMARY KEY (account_id, kind)",
		`CREATE OR REPLACE FUNCTION boxwatch_list_count_insert() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			INSERT INTO list_counts (account_id, kind, n)
				SELECT account_id, TG_TABLE_NAME, count(*) FROM inserted GROUP BY account_id ORDER BY account_id
			ON CONFLICT (account_id, kind) DO UPDATE SET n = list_counts.n + excluded.n;
			RETURN NULL;
		END $$`,
		`CREATE OR REPLACE FUNCTION boxwatch_list_count_delete() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			UPDATE list_counts SET n = list_counts.n - d.n
			FROM (SELECT account_id, count(*) AS n FROM deleted GROUP BY account_id) d
			WHERE list_counts.account_id = d.account_id AND list_counts.kind = TG_TABLE_NAME;
			RETURN NULL;
		END $$`,
		"DROP FUNCTION boxwatch_list_count_add", "DROP SEQUENCE list_count_slots",
	}},
	{"active_legs_retention", []string{"DROP TABLE active_legs", "DROP INDEX webhook_notifications_finished", "DROP INDEX webhook_notifications_event",
		"DROP INDEX events_created"}, []string{"DROP INDEX terminals_port_smdg",
		"ALTER TABLE terminals ADD CONSTRAINT terminals_locode_smdg_code_key UNIQUE (locode, smdg_code)",
		"DROP TABLE active_legs", "DROP INDEX webhook_notifications_finished", "DROP INDEX webhook_notifications_event",
		"DROP INDEX events_created"}},
	{"list_counts", []string{
		"DROP TRIGGER tracking_requests_count_insert", "DROP TRIGGER tracking_requests_count_delete",
		"DROP TRIGGER shipments_count_insert", "DROP TRIGGER shipments_count_delete",
		"DROP TRIGGER containers_count_insert", "DROP TRIGGER containers_count_delete", "DROP TABLE list_counts",
	}, []string{
		// Each function's triggers go with it.
		"DROP FUNCTION boxwatch_list_count_insert CASCADE", "DROP FUNCTION boxwatch_list_count_delete CASCADE",
		"DROP FUNCTION boxwatch_list_count_truncate CASCADE", "DROP TABLE list_counts",
	}},
	{"read_cache", []string{"ALTER TABLE shipments DROP COLUMN vessel_names"}, nil},
	{"notification_subjects", []string{
		"DROP INDEX webhook_notifications_head", "DROP INDEX webhook_notifications_ready", "DROP INDEX webhook_notifications_waiting",
		"DROP INDEX webhook_notifications_claims", "ALTER TABLE webhook_notifications DROP COLUMN subject",
		"ALTER TABLE webhook_notifications DROP COLUMN claimed_at",
		"CREATE INDEX webhook_notifications_due ON webhook_notifications (next_attempt_at) WHERE delivery_status = 'pending'",
		// Before it, every pending notification had a time due.
		"UPDATE webhook_notifications SET next_attempt_at = updated_at WHERE delivery_status = 'pending' AND next_attempt_at IS NULL",
	}, nil},
	{"refresh_by_request", nil, nil}, // its data change is what its test checks again
}

// rollBack takes db's schema back to before the named migration, which the next Open applies
// again with every one after it.
func rollBack(t testing.TB, db *store.DB, name string) {
	t.Helper()
	ctx := context.Background()
	exec := func(q string, args ...any) {
		t.Helper()
		var err error
		if db.Dialect() == store.Postgres {
			_, err = db.Pool().Exec(ctx, strings.ReplaceAll(q, "?", "$1"), args...)
		} else {
			_, err = db.SQLWriter().ExecContext(ctx, q, args...)
		}
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, u := range undo {
		stmts := u.stmts
		if db.Dialect() == store.Postgres && u.postgres != nil {
			stmts = u.postgres
		}
		for _, q := range stmts {
			exec(q)
		}
		exec("DELETE FROM schema_migrations WHERE name = ?", u.name)
		if u.name == name {
			return
		}
	}
	t.Fatalf("no way back before migration %s", name)
}

// TestMigrateNotificationSubjects: notifications stored before their subject was a column get
// their event's, and of each webhook's pending ones of one subject only the earliest stays due,
// the others waiting behind it; the claims then follow that order.
func TestMigrateNotificationSubjects(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		dsn := b.DSN(t)
		db, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		a := storetest.MustCreateAccount(t, db, "acme")
		base := time.Now().UTC().Add(-time.Hour).Truncate(time.Millisecond)
		hook := boxwatch.Webhook{ID: boxwatch.NewID(base), AccountID: a.ID, URL: "https://93.184.216.34/x", Active: true,
			Events: []string{"tracking_request.failed"}, Secret: "s", CreatedAt: base, UpdatedAt: base}
		if err := db.CreateWebhook(ctx, hook); err != nil {
			t.Fatal(err)
		}
		// Two containers, a shipment and a bare reference object, three events each, interleaved.
		subjects := []boxwatch.Event{{ContainerID: boxwatch.NewID(base), ShipmentID: boxwatch.NewID(base)}, {ContainerID: boxwatch.NewID(base)},
			{ShipmentID: boxwatch.NewID(base)}, {ObjectID: boxwatch.NewID(base)}}
		order := map[string][]string{} // subject → its notifications in event order
		subjectOf := map[string]string{}
		for i := range 3 {
			for j, s := range subjects {
				at := base.Add(time.Duration(i*len(subjects)+j) * time.Second)
				e := s
				e.ID, e.AccountID, e.Name, e.ObjectType, e.Key, e.CreatedAt = boxwatch.NewID(at), a.ID, "tracking_request.failed", "transport_event",
					fmt.Sprint(i, "/", j), at
				if e.ObjectID == "" {
					e.ObjectID = boxwatch.NewID(at)
				}
				err := db.InTx(ctx, func(tx boxwatch.Tx) error {
					if _, err := tx.AppendEvent(ctx, e); err != nil {
						return err
					}
					ids, err := tx.Notify(ctx, e)
					if err == nil && len(ids) == 1 {
						order[e.Subject()] = append(order[e.Subject()], ids[0])
						subjectOf[ids[0]] = e.Subject()
					}
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
			}
		}
		rollBack(t, db, "notification_subjects")
		db.Close()
		if db, err = store.Open(ctx, dsn); err != nil {
			t.Fatal(err)
		}
		defer db.Close()

		// Each claim takes the next of every subject, and never two of one.
		now := base.Add(time.Hour)
		for round := range 3 {
			ids, err := db.ClaimDueNotifications(ctx, now, now.Add(time.Minute), 100, boxwatch.ClaimBounds{})
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, s := range subjects {
				want = append(want, order[s.Subject()][round])
			}
			slices.Sort(ids)
			slices.Sort(want)
			if !slices.Equal(ids, want) {
				t.Fatalf("claim %d after the migration: %v, want the next of each subject %v", round+1, ids, want)
			}
			for _, id := range ids {
				err := db.InTx(ctx, func(tx boxwatch.Tx) error {
					n, err := tx.LockNotification(ctx, id)
					if err != nil {
						return err
					}
					n.DeliveryStatus, n.Attempts, n.NextAttemptAt, n.UpdatedAt = boxwatch.DeliverySucceeded, 1, time.Time{}, now
					return tx.SaveNotification(ctx, n)
				})
				if err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}

// TestMigrateVesselNames: shipments stored before their vessel names were a column get the first
// name their snapshot gives each vessel, as the store writes them since.
func TestMigrateVesselNames(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		dsn := b.DSN(t)
		db, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		a := storetest.MustCreateAccount(t, db, "acme")
		now := time.Now().UTC().Truncate(time.Microsecond)
		vessel := func(imo, name string) boxwatch.TransportCall {
			return boxwatch.TransportCall{LOCODE: "NLRTM", Vessel: &boxwatch.VesselRef{IMO: imo, Name: name}}
		}
		named := boxwatch.CarrierShipment{Calls: []boxwatch.TransportCall{vessel("9000001", "ALPHA"), {LOCODE: "DEHAM"},
			vessel("9000001", "ALPHA II"), vessel("9000002", ""), vessel("9000003", "GAMMA"), vessel("9000002", "BETA")}}
		var ids []string
		for i, snap := range []boxwatch.CarrierShipment{named, {}, {Calls: []boxwatch.TransportCall{{LOCODE: "CNSHA"}}}} {
			tr := boxwatch.TrackingRequest{ID: boxwatch.NewID(now), AccountID: a.ID, RequestType: boxwatch.RequestBillOfLading,
				RequestNumber: fmt.Sprintf("MEDUAB12345%d", i), SCAC: "MSCU", Status: boxwatch.StatusCreated, CreatedAt: now, UpdatedAt: now}
			s := boxwatch.Shipment{ID: boxwatch.NewID(now), AccountID: a.ID, TrackingRequestID: tr.ID, SCAC: "MSCU", BillOfLading: tr.RequestNumber,
				Reference: boxwatch.CarrierReference{Type: boxwatch.RequestBillOfLading, Number: tr.RequestNumber}, Snapshot: snap,
				CreatedAt: now, UpdatedAt: now}
			tr.ShipmentID = s.ID
			err = db.InTx(ctx, func(tx boxwatch.Tx) error {
				if err := tx.CreateTrackingRequest(ctx, tr); err != nil {
					return err
				}
				return tx.InsertShipment(ctx, s)
			})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, s.ID)
		}
		rollBack(t, db, "read_cache")
		db.Close()
		if db, err = store.Open(ctx, dsn); err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		got, err := db.ShipmentsByID(ctx, a.ID, ids)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"9000001": "ALPHA", "9000002": "BETA", "9000003": "GAMMA"}
		if !maps.Equal(got[ids[0]].VesselNames, want) || !maps.Equal(boxwatch.VesselNamesOf(named), want) {
			t.Fatalf("vessel names after the migration %v (as the store writes them %v), want %v", got[ids[0]].VesselNames,
				boxwatch.VesselNamesOf(named), want)
		}
		for _, id := range ids[1:] {
			if got[id].VesselNames != nil {
				t.Fatalf("a snapshot naming no vessel has vessel names %v after the migration", got[id].VesselNames)
			}
		}
	})
}

// TestMigrateListCounts: the totals of accounts whose rows were stored before their counts were
// kept are the rows they hold once migrated, and are kept from then on.
func TestMigrateListCounts(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		dsn := b.DSN(t)
		db, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		acme, globex, empty := storetest.MustCreateAccount(t, db, "acme"), storetest.MustCreateAccount(t, db, "globex"),
			storetest.MustCreateAccount(t, db, "initech")
		now := time.Now().UTC().Truncate(time.Microsecond)
		create := func(a boxwatch.Account, number string, containers int) {
			t.Helper()
			tr := boxwatch.TrackingRequest{ID: boxwatch.NewID(now), AccountID: a.ID, RequestType: boxwatch.RequestBillOfLading,
				RequestNumber: number, SCAC: "MSCU", Status: boxwatch.StatusCreated, CreatedAt: now, UpdatedAt: now}
			s := boxwatch.Shipment{ID: boxwatch.NewID(now), AccountID: a.ID, TrackingRequestID: tr.ID, SCAC: "MSCU", BillOfLading: number,
				Reference: boxwatch.CarrierReference{Type: boxwatch.RequestBillOfLading, Number: number}, CreatedAt: now, UpdatedAt: now}
			tr.ShipmentID = s.ID
			err := db.InTx(ctx, func(tx boxwatch.Tx) error {
				if err := tx.CreateTrackingRequest(ctx, tr); err != nil {
					return err
				}
				if err := tx.InsertShipment(ctx, s); err != nil {
					return err
				}
				for i := range containers {
					c := boxwatch.Container{ID: boxwatch.NewID(now), AccountID: a.ID, ShipmentID: s.ID, Number: fmt.Sprintf("MSCU%07d", i),
						CurrentStatus: boxwatch.ContainerNew, CreatedAt: now, UpdatedAt: now}
					if err := tx.SaveContainer(ctx, c); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		create(acme, "MEDUAB000001", 3)
		rollBack(t, db, "list_counts")
		// Stored with no count kept: only the migration can know them.
		create(acme, "MEDUAB000002", 2)
		create(globex, "MEDUAB000003", 1)
		db.Close()
		if db, err = store.Open(ctx, dsn); err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		create(globex, "MEDUAB000004", 1)
		totals := func(a boxwatch.Account) string {
			page := boxwatch.Page{Number: 1, Size: 1}
			_, trs, err1 := db.TrackingRequests(ctx, a.ID, boxwatch.TrackingRequestFilter{}, page)
			_, ss, err2 := db.Shipments(ctx, a.ID, boxwatch.ShipmentFilter{}, page)
			_, cs, err3 := db.Containers(ctx, a.ID, boxwatch.ContainerFilter{}, page)
			return fmt.Sprintf("%+v %+v %+v %v", trs, ss, cs, errors.Join(err1, err2, err3))
		}
		for _, tt := range []struct {
			a                               boxwatch.Account
			requests, shipments, containers int
		}{{acme, 2, 2, 5}, {globex, 2, 2, 2}, {empty, 0, 0, 0}} {
			want := fmt.Sprintf("%+v %+v %+v <nil>", boxwatch.Total{N: tt.requests}, boxwatch.Total{N: tt.shipments}, boxwatch.Total{N: tt.containers})
			if got := totals(tt.a); got != want {
				t.Errorf("%s after the migration: totals (requests, shipments, containers) %s, want %s", tt.a.Name, got, want)
			}
		}
	})
}

// TestMigrateActiveLegs: shipments stored before active_legs get the rows of their legs not
// arrived yet, with their vessels' names, so the vessels AIS ingest follows are those the routes
// name.
func TestMigrateActiveLegs(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		dsn := b.DSN(t)
		db, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		a := storetest.MustCreateAccount(t, db, "acme")
		now := time.Now().UTC().Truncate(time.Microsecond)
		err = db.InTx(ctx, func(tx boxwatch.Tx) error {
			for i := range 5 {
				imo := fmt.Sprint(9000001 + i)
				if err := tx.SaveVessel(ctx, boxwatch.Vessel{ID: boxwatch.VesselID(imo), IMO: imo, MMSI: fmt.Sprint(477000100 + i)}, now); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		leg := func(from, to, imo string, arrived bool) []boxwatch.RouteStop {
			r := []boxwatch.RouteStop{{Sequence: 1, LOCODE: from, Role: boxwatch.RolePOL, OutboundVesselIMO: imo},
				{Sequence: 2, LOCODE: to, Role: boxwatch.RolePOD, InboundVesselIMO: imo}}
			if arrived {
				r[1].ATA = now.In(time.FixedZone("SGT", 8*3600))
			}
			return r
		}
		named := boxwatch.CarrierShipment{Calls: []boxwatch.TransportCall{{LOCODE: "CNSHA", Vessel: &boxwatch.VesselRef{IMO: "9000001", Name: "ALPHA"}}}}
		for i, tc := range []struct {
			route   []boxwatch.RouteStop
			stopped bool
		}{
			{route: leg("CNSHA", "SGSIN", "9000001", false)},                // sailing
			{route: leg("CNSHA", "USLAX", "9000002", true)},                 // arrived
			{route: leg("CNSHA", "USLAX", "9000003", false), stopped: true}, // stopped
			{}, // not looked up yet
			{route: append(leg("CNSHA", "SGSIN", "9000004", true), boxwatch.RouteStop{Sequence: 3, LOCODE: "NLRTM", Role: boxwatch.RolePOD,
				InboundVesselIMO: "9000005"})}, // transshipped
		} {
			if len(tc.route) == 3 {
				tc.route[1].Role, tc.route[1].OutboundVesselIMO = boxwatch.RoleTS, "9000005"
			}
			tr := boxwatch.TrackingRequest{ID: boxwatch.NewID(now), AccountID: a.ID, RequestType: boxwatch.RequestBillOfLading,
				RequestNumber: fmt.Sprintf("MEDUAB12345%d", i), SCAC: "MSCU", Status: boxwatch.StatusCreated, CreatedAt: now, UpdatedAt: now}
			s := boxwatch.Shipment{ID: boxwatch.NewID(now), AccountID: a.ID, TrackingRequestID: tr.ID, SCAC: "MSCU", BillOfLading: tr.RequestNumber,
				Reference: boxwatch.CarrierReference{Type: boxwatch.RequestBillOfLading, Number: tr.RequestNumber}, Route: tc.route,
				Snapshot: named, CreatedAt: now, UpdatedAt: now}
			if tc.stopped {
				s.StoppedAt, s.StoppedReason = now, boxwatch.StopCancelledByUser
			}
			tr.ShipmentID = s.ID
			err = db.InTx(ctx, func(tx boxwatch.Tx) error {
				if err := tx.CreateTrackingRequest(ctx, tr); err != nil {
					return err
				}
				return tx.InsertShipment(ctx, s)
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		rollBack(t, db, "active_legs_retention")
		db.Close()
		if db, err = store.Open(ctx, dsn); err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		got, err := db.ActiveLegVessels(ctx)
		if err != nil {
			t.Fatal(err)
		}
		fromRoutes, err := db.ActiveLegVesselsFromRoutes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"477000100": "9000001", "477000104": "9000005"}
		if !maps.Equal(got, want) || !maps.Equal(fromRoutes, want) {
			t.Fatalf("active leg vessels after the migration %v (read from the routes %v), want %v", got, fromRoutes, want)
		}
		if n, err := db.RunStatement(ctx, "SELECT count(*) FROM active_legs WHERE vessel_imo = '9000001' AND vessel_name = 'ALPHA'"); err != nil || n != 1 {
			t.Fatalf("legs of 9000001 named ALPHA after the migration: %d, %v; want 1", n, err)
		}
	})
}
