package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// BenchmarkActiveLegVessels times one pass of ActiveLegVessels over BOXWATCH_BENCH_SHIPMENTS
// tracked shipments (default 50,000), stored by the store's own code: routes of two to four
// ports on a fleet of 3,000 vessels, with a third of the legs arrived and one shipment in ten
// stopped. route-bytes is the JSON the routes of unstopped shipments hold. RouteScan times the
// same answer read out of every route (as before active_legs) on the same rows, and reports the
// ratio of the two.
func BenchmarkActiveLegVessels(b *testing.B) {
	n := 50000
	if s := os.Getenv("BOXWATCH_BENCH_SHIPMENTS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	for _, backend := range storetest.Backends {
		b.Run(backend.Name, func(b *testing.B) {
			if backend.Name == storetest.Postgres.Name {
				storetest.RequirePostgres(b)
			}
			ctx := context.Background()
			db := backend.Open(b)
			seedRoutes(b, db, n)
			q := "SELECT coalesce(sum(length(route)), 0) FROM shipments WHERE stopped_at IS NULL"
			if db.Dialect() == store.Postgres {
				q = "SELECT coalesce(sum(length(route::text)), 0) FROM shipments WHERE stopped_at IS NULL"
			}
			routeBytes, err := db.RunStatement(ctx, q)
			if err != nil {
				b.Fatal(err)
			}
			var indexed time.Duration
			for _, pass := range []struct {
				name string
				fn   func(context.Context) (map[string]string, error)
			}{{"Index", db.ActiveLegVessels}, {"RouteScan", db.ActiveLegVesselsFromRoutes}} {
				b.Run(pass.name, func(b *testing.B) {
					var vessels int
					for b.Loop() {
						got, err := pass.fn(ctx)
						if err != nil {
							b.Fatal(err)
						}
						vessels = len(got)
					}
					perPass := b.Elapsed() / time.Duration(b.N)
					b.ReportMetric(float64(perPass.Microseconds())/1000, "ms/pass")
					b.ReportMetric(float64(routeBytes), "route-bytes")
					b.ReportMetric(float64(vessels), "vessels")
					if pass.name == "Index" {
						indexed = perPass
					} else if indexed > 0 {
						b.ReportMetric(float64(perPass)/float64(indexed), "x-index")
					}
				})
			}
		})
	}
}

// seedRoutes stores n tracked shipments with routes, a thousand a transaction, and the fleet's
// vessels with their MMSIs.
func seedRoutes(b *testing.B, db *store.DB, n int) {
	b.Helper()
	ctx := context.Background()
	const fleet = 3000
	at := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	a := storetest.MustCreateAccount(b, db, "bench")
	rnd := rand.New(rand.NewPCG(1, 2))
	imo := func(i int) string { return strconv.Itoa(9000000 + i) }
	ports := []string{"CNSHA", "SGSIN", "NLRTM", "DEHAM", "USLAX", "KRPUS", "AEJEA", "BEANR"}
	err := db.InTx(ctx, func(tx boxwatch.Tx) error {
		for i := range fleet {
			v := boxwatch.Vessel{ID: boxwatch.VesselID(imo(i)), IMO: imo(i), Name: "VESSEL " + imo(i), MMSI: strconv.Itoa(200000000 + i)}
			if err := tx.SaveVessel(ctx, v, at); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	for from := 0; from < n; from += 1000 {
		err := db.InTx(ctx, func(tx boxwatch.Tx) error {
			for i := from; i < min(from+1000, n); i++ {
				number := fmt.Sprintf("MAEU9%08d", i)
				tr := boxwatch.TrackingRequest{ID: boxwatch.NewID(at), AccountID: a.ID, RequestType: boxwatch.RequestBillOfLading,
					RequestNumber: number, SCAC: "MAEU", RefNumbers: []string{}, ShipmentTags: []string{}, Status: boxwatch.StatusCreated,
					CreatedAt: at, UpdatedAt: at}
				s := boxwatch.Shipment{ID: boxwatch.NewID(at), AccountID: a.ID, TrackingRequestID: tr.ID, SCAC: "MAEU", BillOfLading: number,
					NormalizedNumber: number, RefNumbers: []string{}, Tags: []string{},
					Reference:     boxwatch.CarrierReference{Type: tr.RequestType, Number: number, SCAC: "MAEU"},
					NextRefreshAt: at.Add(time.Hour), CreatedAt: at, UpdatedAt: at}
				stops := 2 + rnd.IntN(3)
				for k := range stops {
					stop := boxwatch.RouteStop{Sequence: k + 1, LOCODE: ports[rnd.IntN(len(ports))], Role: boxwatch.RoleTS,
						ETA: at.Add(time.Duration(k) * 240 * time.Hour), OriginalETA: at.Add(time.Duration(k) * 240 * time.Hour),
						ETD: at.Add(time.Duration(k)*240*time.Hour + 24*time.Hour), OriginalETD: at.Add(time.Duration(k)*240*time.Hour + 24*time.Hour),
						TerminalCode: "TERM" + strconv.Itoa(k), TerminalName: "Container Terminal " + strconv.Itoa(k)}
					if k > 0 {
						stop.InboundVesselIMO, stop.InboundVoyage = s.Route[k-1].OutboundVesselIMO, s.Route[k-1].OutboundVoyage
						if rnd.IntN(3) == 0 {
							stop.ATA = stop.ETA
						}
					}
					if k < stops-1 {
						stop.OutboundVesselIMO, stop.OutboundVoyage = imo(rnd.IntN(fleet)), "0"+strconv.Itoa(100+rnd.IntN(800))+"W"
					}
					s.Route = append(s.Route, stop)
				}
				s.Route[0].Role, s.Route[stops-1].Role = boxwatch.RolePOL, boxwatch.RolePOD
				if rnd.IntN(10) == 0 {
					s.StoppedAt, s.StoppedReason = at, boxwatch.StopCancelledByUser
				}
				tr.ShipmentID = s.ID
				if err := tx.CreateTrackingRequest(ctx, tr); err != nil {
					return err
				}
				if err := tx.InsertShipment(ctx, s); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
