package store_test

import (
	"context"
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
