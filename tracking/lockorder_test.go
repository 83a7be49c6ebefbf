package tracking

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// imoNumber is a valid IMO number (its check digit computed) made of the six digits of n.
func imoNumber(n int) string {
	s := fmt.Sprintf("%06d", n)
	sum := 0
	for i := range 6 {
		sum += int(s[i]-'0') * (7 - i)
	}
	return fmt.Sprintf("%s%d", s, sum%10)
}

// TestConcurrentLookupsShareRows: lookups of shipments whose answers name the same vessels and
// terminals, in opposite orders, apply at once (as the workers of two replicas do) and every
// one commits. Each lookup's write transaction upserts those shared rows; PostgreSQL detects a
// deadlock (40P01) when two transactions lock them in opposite orders, as the engine did when it
// wrote them in the order of the carrier's calls.
func TestConcurrentLookupsShareRows(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		db := b.Open(t)
		if err := Migrate(ctx, db); err != nil {
			t.Fatal(err)
		}
		e, err := New(Config{DB: db, Registry: data.Carriers()})
		if err != nil {
			t.Fatal(err)
		}
		a := storetest.MustCreateAccount(t, db, "acme")
		now := time.Now().UTC().Truncate(time.Microsecond)
		ports := []string{"CNSHA", "KRPUS", "HKHKG", "SGSIN", "MYPKG", "LKCMB", "AEJEA", "EGPSD", "ESALG", "FRLEH",
			"BEANR", "NLRTM", "DEHAM", "GBFXT", "USNYC", "USSAV", "USLAX", "JPTYO", "CNNGB", "CNSZX"}
		// answer calls at every port, each with its terminal and a vessel of its own, from the
		// first port to the last or (reversed) the other way round.
		answer := func(reversed bool) boxwatch.CarrierShipment {
			var cs boxwatch.CarrierShipment
			for i, p := range ports {
				cs.Calls = append(cs.Calls, boxwatch.TransportCall{LOCODE: p, FacilityCode: "T" + p[2:], FacilityCodeList: "SMDG",
					FacilityName: "Terminal " + p, FacilityType: "POTE", Mode: "VESSEL",
					Vessel: &boxwatch.VesselRef{IMO: imoNumber(900000 + i), Name: "VESSEL " + p}, ExportVoyage: fmt.Sprintf("%03dE", i)})
			}
			if reversed {
				slices.Reverse(cs.Calls)
			}
			return cs
		}
		const lookups, rounds = 8, 5
		for round := range rounds {
			var wg sync.WaitGroup
			errs := make([]error, lookups)
			start := make(chan struct{})
			for i := range lookups {
				wg.Go(func() {
					number := fmt.Sprintf("BL%d-%d", round, i)
					tr := boxwatch.TrackingRequest{ID: boxwatch.NewID(now), AccountID: a.ID, RequestType: boxwatch.RequestBillOfLading,
						RequestNumber: number, SCAC: "MAEU", RefNumbers: []string{}, ShipmentTags: []string{}, Status: boxwatch.StatusCreated,
						CreatedAt: now, UpdatedAt: now}
					s := boxwatch.Shipment{ID: boxwatch.NewID(now), AccountID: a.ID, TrackingRequestID: tr.ID, SCAC: "MAEU",
						BillOfLading: number, NormalizedNumber: number, RefNumbers: []string{}, Tags: []string{},
						Reference: boxwatch.CarrierReference{Type: tr.RequestType, Number: number, SCAC: "MAEU"}, CreatedAt: now, UpdatedAt: now}
					tr.ShipmentID = s.ID
					<-start
					errs[i] = db.InTx(ctx, func(tx boxwatch.Tx) error {
						if err := tx.CreateTrackingRequest(ctx, tr); err != nil {
							return err
						}
						if err := tx.InsertShipment(ctx, s); err != nil {
							return err
						}
						return e.apply(ctx, tx, &s, answer(i%2 == 1), now, true)
					})
				})
			}
			close(start)
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					deadlock := strings.Contains(err.Error(), "40P01") || strings.Contains(err.Error(), "deadlock")
					t.Fatalf("round %d, lookup %d: %v (a deadlock: %v)", round, i, err, deadlock)
				}
			}
		}
		for i := range ports {
			v, err := db.Vessel(ctx, imoNumber(900000+i))
			if err != nil || v.Name != "VESSEL "+ports[i] {
				t.Fatalf("vessel %d: %+v, %v", i, v, err)
			}
		}
	})
}
