package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
)

// testListTotals: the totals of the unfiltered lists of tracking requests, shipments and
// containers are the rows the database holds, for every account, after concurrent creates in
// two accounts, a transaction rolled back, and deletes by raw SQL, alone, in bulk and by cascade
// (a request takes its shipment and the shipment its containers), some racing creates. A page
// past the end answers the same total.
func testListTotals(t *testing.T, db *store.DB) {
	a, b := MustCreateAccount(t, db, "acme"), MustCreateAccount(t, db, "globex")
	accounts := []boxwatch.Account{a, b}
	check := func(step string) {
		t.Helper()
		requireTotals(t, db, step, accounts, boxwatch.Page{Number: 1, Size: 1}, boxwatch.Page{Number: 1000, Size: 100})
	}
	check("empty")

	// Eight writers at once, alternating accounts: each a shipment with two containers in one
	// transaction, and a request of its own.
	var shipments []boxwatch.Shipment
	create := func(round int) {
		t.Helper()
		created := make([]boxwatch.Shipment, 8)
		errs := make([]error, 8)
		race(8, func(i int) {
			acct := accounts[i%2]
			tr := newTR(acct.ID, fmt.Sprintf("TOTAL%d%04d", round, i), "MSCU", at(time.Duration(round*10+i)*time.Second))
			tr.Status = boxwatch.StatusCreated
			s := newShipment(tr, tr.CreatedAt)
			tr.ShipmentID = s.ID
			errs[i] = db.InTx(ctx, func(tx boxwatch.Tx) error {
				if err := tx.CreateTrackingRequest(ctx, tr); err != nil {
					return err
				}
				if err := tx.InsertShipment(ctx, s); err != nil {
					return err
				}
				for k := range 2 {
					if err := tx.SaveContainer(ctx, newContainer(s, fmt.Sprintf("MSCU%d%d%02d", round, k, i), tr.CreatedAt)); err != nil {
						return err
					}
				}
				return nil
			})
			lone := newTR(acct.ID, fmt.Sprintf("LONE%d%04d", round, i), "MSCU", tr.CreatedAt)
			errs[i] = errors.Join(errs[i], db.CreateTrackingRequest(ctx, lone))
			created[i] = s
		})
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		shipments = append(shipments, created...)
	}
	create(1)
	check("after concurrent creates")

	rollback := errors.New("rolled back")
	err := db.InTx(ctx, func(tx boxwatch.Tx) error {
		tr := newTR(a.ID, "ROLLBACK01", "MSCU", at(time.Hour))
		s := newShipment(tr, tr.CreatedAt)
		if err := tx.CreateTrackingRequest(ctx, tr); err != nil {
			return err
		}
		if err := tx.InsertShipment(ctx, s); err != nil {
			return err
		}
		if err := tx.SaveContainer(ctx, newContainer(s, "MSCU9999999", tr.CreatedAt)); err != nil {
			return err
		}
		return rollback
	})
	if !errors.Is(err, rollback) {
		t.Fatalf("rolled back transaction: %v", err)
	}
	check("after a rollback")

	// A container saved again is an update: SaveContainer's upsert must not count it twice.
	cs, err := db.ShipmentContainers(ctx, shipments[3].AccountID, shipments[3].ID)
	if err != nil || len(cs) != 2 {
		t.Fatalf("containers of a shipment: %d, %v", len(cs), err)
	}
	cs[0].SealNumber = "SAVED AGAIN"
	mustSaveContainer(t, db, cs[0])
	check("after saving a container again")

	rawExec(t, db, "DELETE FROM containers WHERE shipment_id = ? AND number LIKE 'MSCU10%'", shipments[0].ID)
	check("after deleting a container")
	rawExec(t, db, "DELETE FROM shipments WHERE id = ?", shipments[1].ID)
	check("after deleting a shipment with its containers")
	rawExec(t, db, "DELETE FROM tracking_requests WHERE id = ?", shipments[2].TrackingRequestID)
	check("after deleting a request with its shipment and containers")
	rawExec(t, db, "DELETE FROM tracking_requests WHERE request_number = ?", "LONE10003")
	check("after deleting a request alone")

	// Deletes racing creates.
	errs := make([]error, 2)
	race(2, func(i int) {
		if i == 0 {
			errs[0] = rawExecErr(db, "DELETE FROM containers WHERE account_id = ?", b.ID)
			return
		}
		for k := range 4 {
			c := newContainer(shipments[4], fmt.Sprintf("MSCU8%06d", k), at(time.Minute))
			if err := db.InTx(ctx, func(tx boxwatch.Tx) error { return tx.SaveContainer(ctx, c) }); err != nil {
				errs[1] = err
			}
		}
	})
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	check("after deleting an account's containers while creating others")
	create(2)
	rawExec(t, db, "DELETE FROM shipments WHERE account_id = ?", a.ID)
	check("after deleting every shipment of an account")
}

// testListTotalsFiltered: a filtered list counts its matches exactly up to its page's
// CountLimit and, past it, answers that many and one more as a lower bound; an unfiltered list
// of the same rows stays exact.
func testListTotalsFiltered(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	n := boxwatch.CountAhead + 45
	// One statement, as a bulk import would: the counts follow it too.
	if db.Dialect() == store.Postgres {
		rawExec(t, db, `INSERT INTO tracking_requests (id, account_id, request_type, request_number, scac, status, created_at, updated_at)
			SELECT gen_random_uuid(), ?, 'bill_of_lading', 'BULK' || i, 'MSCU', 'pending', now(), now() FROM generate_series(1, ?) i`, a.ID, n)
	} else {
		rawExec(t, db, `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
			INSERT INTO tracking_requests (id, account_id, request_type, request_number, scac, status, created_at, updated_at)
			SELECT lower(hex(randomblob(16))), ?, 'bill_of_lading', 'BULK' || i, 'MSCU', 'pending',
				strftime('%s', 'now') * 1000000, strftime('%s', 'now') * 1000000 FROM seq`, n, a.ID)
	}
	mustCreateTR(t, db, newTR(a.ID, "OTHERLINE1", "MAEU", at(time.Minute)))
	mscu := boxwatch.TrackingRequestFilter{SCAC: "MSCU"}
	for _, tt := range []struct {
		name string
		f    boxwatch.TrackingRequestFilter
		p    boxwatch.Page
		want boxwatch.Total
	}{
		{"FirstPage", mscu, boxwatch.Page{Number: 1, Size: 30}, boxwatch.Total{N: 30 + boxwatch.CountAhead + 1, AtLeast: true}},
		{"NearTheEnd", mscu, boxwatch.Page{Number: 2, Size: 100}, boxwatch.Total{N: n}},
		{"PastTheEnd", mscu, boxwatch.Page{Number: 1000, Size: 100}, boxwatch.Total{N: n}},
		{"Few", boxwatch.TrackingRequestFilter{SCAC: "MAEU"}, boxwatch.Page{Number: 1, Size: 30}, boxwatch.Total{N: 1}},
		{"Unfiltered", boxwatch.TrackingRequestFilter{}, boxwatch.Page{Number: 1, Size: 30}, boxwatch.Total{N: n + 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			list, total, err := db.TrackingRequests(ctx, a.ID, tt.f, tt.p)
			if err != nil || total != tt.want {
				t.Fatalf("total %+v (%d on the page), err %v; want %+v", total, len(list), err, tt.want)
			}
		})
	}
}

// rawCount counts the account's rows of table straight on the database.
func rawCount(t *testing.T, db *store.DB, table, accountID string) int {
	t.Helper()
	var n int
	var err error
	q := "SELECT COUNT(*) FROM " + table + " WHERE account_id = "
	if db.Dialect() == store.Postgres {
		err = db.Pool().QueryRow(ctx, q+"$1", accountID).Scan(&n)
	} else {
		err = db.SQLWriter().QueryRowContext(ctx, q+"?", accountID).Scan(&n)
	}
	if err != nil {
		t.Fatalf("count %s: %v", table, err)
	}
	return n
}

// testListTotalsConcurrent: sixteen writers at once, most of one account, each creating requests
// with a shipment and containers and deleting some of what it created, while the list counts
// are folded over and over: the totals are the rows the tables hold, and stay so once the counts
// are folded to one row each.
func testListTotalsConcurrent(t *testing.T, db *store.DB) {
	a, b := MustCreateAccount(t, db, "acme"), MustCreateAccount(t, db, "globex")
	const writers, rounds = 16, 6
	errs := make([]error, writers+1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		race(writers, func(i int) {
			acct := a
			if i%4 == 3 {
				acct = b
			}
			for r := range rounds {
				tr := newTR(acct.ID, fmt.Sprintf("MANY%02d%02d", i, r), "MSCU", at(time.Duration(i*rounds+r)*time.Second))
				tr.Status = boxwatch.StatusCreated
				s := newShipment(tr, tr.CreatedAt)
				tr.ShipmentID = s.ID
				err := db.InTx(ctx, func(tx boxwatch.Tx) error {
					if err := tx.CreateTrackingRequest(ctx, tr); err != nil {
						return err
					}
					if err := tx.InsertShipment(ctx, s); err != nil {
						return err
					}
					for k := range 1 + r%3 {
						if err := tx.SaveContainer(ctx, newContainer(s, fmt.Sprintf("MSCU%02d%02d%03d", i, r, k), tr.CreatedAt)); err != nil {
							return err
						}
					}
					return nil
				})
				switch {
				case err != nil:
				case r%3 == 1: // the request with its shipment and containers
					err = rawExecErr(db, "DELETE FROM tracking_requests WHERE id = ?", tr.ID)
				case r%3 == 2: // one container
					err = rawExecErr(db, "DELETE FROM containers WHERE shipment_id = ? AND number LIKE '%000'", s.ID)
				}
				if err != nil {
					errs[i] = err
					return
				}
			}
		})
	}()
	for folding := true; folding; {
		select {
		case <-done:
			folding = false
		default:
			if _, err := db.FoldListCounts(ctx, 3); err != nil {
				errs[writers] = err
				folding = false
				<-done
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	check := func(step string) {
		t.Helper()
		requireTotals(t, db, step, []boxwatch.Account{a, b}, boxwatch.Page{Number: 1, Size: 1})
	}
	check("after concurrent creates and deletes")
	for {
		n, err := db.FoldListCounts(ctx, 3)
		if err != nil {
			t.Fatal(err)
		}
		if n < 3 {
			break
		}
	}
	check("after folding")
	if n := rawCount(t, db, "list_counts", a.ID); n != 3 {
		t.Fatalf("%d rows of %s's list counts once folded; want 3, one per table", n, a.Name)
	}
}

// requireTotals fails the test unless each account's unfiltered lists of tracking requests,
// shipments and containers answer, on every page given, the totals of the rows the tables hold.
func requireTotals(t *testing.T, db *store.DB, step string, accounts []boxwatch.Account, pages ...boxwatch.Page) {
	t.Helper()
	ctx := context.Background()
	for _, acct := range accounts {
		for _, page := range pages {
			_, trs, err1 := db.TrackingRequests(ctx, acct.ID, boxwatch.TrackingRequestFilter{}, page)
			_, ss, err2 := db.Shipments(ctx, acct.ID, boxwatch.ShipmentFilter{}, page)
			_, cs, err3 := db.Containers(ctx, acct.ID, boxwatch.ContainerFilter{}, page)
			if err := errors.Join(err1, err2, err3); err != nil {
				t.Fatalf("%s: %v", step, err)
			}
			got := fmt.Sprintf("%+v %+v %+v", trs, ss, cs)
			want := fmt.Sprintf("%+v %+v %+v", boxwatch.Total{N: rawCount(t, db, "tracking_requests", acct.ID)},
				boxwatch.Total{N: rawCount(t, db, "shipments", acct.ID)}, boxwatch.Total{N: rawCount(t, db, "containers", acct.ID)})
			if got != want {
				t.Fatalf("%s, %s, page %d: totals (requests, shipments, containers) %s; the tables hold %s", step, acct.Name, page.Number, got, want)
			}
		}
	}
}
