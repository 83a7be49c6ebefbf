package store_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// BenchmarkCreatesOneAccount times creates of one account from 16 writers at once on PostgreSQL,
// each a transaction like a tracking request's first success (the request, its shipment, two
// containers), in two databases side by side: "rows", rolled back to one count row per account
// and table (migration 0018's triggers), and "slots", the count rows of 0020. The designs take
// turns over BOXWATCH_BENCH_ROUNDS rounds (default 5), so that the machine's load falls on both;
// creates/s is the round's throughput. Run with -benchtime 400x or so.
func BenchmarkCreatesOneAccount(b *testing.B) {
	storetest.RequirePostgres(b)
	rounds := envInt(b, "BOXWATCH_BENCH_ROUNDS", 5)
	ctx := context.Background()
	rows, slots := storetest.Postgres.Open(b), storetest.Postgres.Open(b)
	rollBack(b, rows, "list_count_slots")
	var seq atomic.Int64
	for round := range rounds {
		for _, design := range []struct {
			name string
			db   *store.DB
		}{{"rows", rows}, {"slots", slots}} {
			a := storetest.MustCreateAccount(b, design.db, fmt.Sprintf("acme%d", round))
			b.Run(fmt.Sprintf("round=%d/design=%s", round, design.name), func(b *testing.B) {
				b.SetParallelism(8)
				start := time.Now()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if err := createShipment(ctx, design.db, a.ID, seq.Add(1)); err != nil {
							b.Error(err)
							return
						}
					}
				})
				b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "creates/s")
			})
		}
	}
}

// createShipment stores a tracking request of accountID with its shipment and two containers in
// one transaction.
func createShipment(ctx context.Context, db *store.DB, accountID string, i int64) error {
	now := time.Now().UTC()
	tr := boxwatch.TrackingRequest{ID: boxwatch.NewID(now), AccountID: accountID, RequestType: boxwatch.RequestBillOfLading,
		RequestNumber: fmt.Sprintf("MEDU%08d", i), SCAC: "MSCU", Status: boxwatch.StatusCreated, CreatedAt: now, UpdatedAt: now}
	s := boxwatch.Shipment{ID: boxwatch.NewID(now), AccountID: accountID, TrackingRequestID: tr.ID, SCAC: "MSCU", BillOfLading: tr.RequestNumber,
		NormalizedNumber: tr.RequestNumber, RefNumbers: []string{}, Tags: []string{},
		Reference:     boxwatch.CarrierReference{Type: tr.RequestType, Number: tr.RequestNumber, SCAC: tr.SCAC},
		NextRefreshAt: now.Add(time.Hour), CreatedAt: now, UpdatedAt: now}
	tr.ShipmentID = s.ID
	return db.InTx(ctx, func(tx boxwatch.Tx) error {
		if err := tx.CreateTrackingRequest(ctx, tr); err != nil {
			return err
		}
		if err := tx.InsertShipment(ctx, s); err != nil {
			return err
		}
		for k := range 2 {
			c := boxwatch.Container{ID: boxwatch.NewID(now), AccountID: accountID, ShipmentID: s.ID, Number: fmt.Sprintf("MSCU%06d%d", i%1000000, k),
				CurrentStatus: boxwatch.ContainerNew, CreatedAt: now, UpdatedAt: now}
			if err := tx.SaveContainer(ctx, c); err != nil {
				return err
			}
		}
		return nil
	})
}

// BenchmarkShipmentsPageTotal times a page of 30 of an account's shipments with its total on
// PostgreSQL, the account holding BOXWATCH_BENCH_SHIPMENTS shipments (default 100,000), with its
// shipments' count in 1, 16 and 256 rows (one per writer at once since the last fold), and the
// same page's rows alone with the account's COUNT(*) (the page before list_counts).
func BenchmarkShipmentsPageTotal(b *testing.B) {
	storetest.RequirePostgres(b)
	n := envInt(b, "BOXWATCH_BENCH_SHIPMENTS", 100000)
	ctx := context.Background()
	db := storetest.Postgres.Open(b)
	a := storetest.MustCreateAccount(b, db, "acme")
	for _, q := range []string{
		`INSERT INTO tracking_requests (id, account_id, request_type, request_number, scac, status, created_at, updated_at)
			SELECT gen_random_uuid(), $1, 'bill_of_lading', 'SEED' || i, 'MSCU', 'created', now() - i * interval '1 second', now()
			FROM generate_series(1, $2::int) i`,
		`INSERT INTO shipments (id, account_id, tracking_request_id, scac, bill_of_lading, reference_type, reference_number, created_at, updated_at)
			SELECT gen_random_uuid(), account_id, id, scac, request_number, request_type, request_number, created_at, updated_at
			FROM tracking_requests WHERE account_id = $1 AND $2::int > 0`,
		"ANALYZE", // $1 and $2 unused
	} {
		args := []any{a.ID, n}
		if q == "ANALYZE" {
			args = nil
		}
		if _, err := db.Pool().Exec(ctx, q, args...); err != nil {
			b.Fatal(err)
		}
	}
	page := boxwatch.Page{Number: 1, Size: 30}
	have := 1
	for _, rows := range []int{1, 16, 256} {
		// Rows of zero: the count stays, spread as writers at once would leave it.
		if _, err := db.Pool().Exec(ctx, `INSERT INTO list_counts (account_id, kind, slot, n)
			SELECT $1, 'shipments', nextval('list_count_slots'), 0 FROM generate_series(1, $2::int)`, a.ID, rows-have); err != nil {
			b.Fatal(err)
		}
		have = rows
		b.Run(fmt.Sprintf("count-rows=%d", rows), func(b *testing.B) {
			for b.Loop() {
				if _, total, err := db.Shipments(ctx, a.ID, boxwatch.ShipmentFilter{}, page); err != nil || total.N != n {
					b.Fatalf("total %+v, %v; want %d", total, err, n)
				}
			}
		})
	}
	b.Run("count-star", func(b *testing.B) {
		for b.Loop() {
			var got int
			if err := db.Pool().QueryRow(ctx, "SELECT count(*) FROM shipments WHERE account_id = $1", a.ID).Scan(&got); err != nil || got != n {
				b.Fatalf("count %d, %v; want %d", got, err, n)
			}
			if _, _, err := db.Shipments(ctx, a.ID, boxwatch.ShipmentFilter{}, page); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// envInt is the integer in the environment variable name, or def when it is unset.
func envInt(b *testing.B, name string, def int) int {
	b.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		b.Fatalf("%s: %v", name, err)
	}
	return n
}
