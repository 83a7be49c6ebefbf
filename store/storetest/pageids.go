package storetest

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
)

// testPageIDs: the ids of a page (TrackingRequestIDs, ShipmentIDs, ContainerIDs) are those of
// the page the listing answers, in its order, with its total, for every filter, on pages full,
// partial and past the end, and for an account that never had a row.
func testPageIDs(t *testing.T, db *store.DB) {
	a, other, empty := MustCreateAccount(t, db, "acme"), MustCreateAccount(t, db, "globex"), MustCreateAccount(t, db, "initech")
	var shipments []boxwatch.Shipment
	for i := range 5 {
		s := mustCreateShipment(t, db, a.ID, fmt.Sprintf("PAGE%d", i), at(time.Duration(i)*time.Minute))
		shipments = append(shipments, s)
		// Two containers created at the same moment: the page orders them by id.
		mustSaveContainer(t, db, newContainer(s, fmt.Sprintf("MSKU000000%d", i), at(time.Hour)))
		mustSaveContainer(t, db, newContainer(s, fmt.Sprintf("TGHU000000%d", i), at(time.Hour)))
	}
	stopped := shipments[2]
	stopped.StoppedAt, stopped.StoppedReason, stopped.NextRefreshAt = at(time.Hour), boxwatch.StopCancelledByUser, time.Time{}
	mustInTx(t, db, func(tx boxwatch.Tx) error { return tx.UpdateShipment(ctx, stopped) })
	pending := newTR(a.ID, "PAGEPENDING", "MAEU", at(2*time.Minute))
	mustCreateTR(t, db, pending)
	mustCreateShipment(t, db, other.ID, "PAGE9", at(time.Minute))
	yes := true
	pages := []boxwatch.Page{{Number: 1, Size: 100}, {Number: 1, Size: 2}, {Number: 2, Size: 2}, {Number: 3, Size: 4}, {Number: 9, Size: 2}}

	for _, acct := range []boxwatch.Account{a, empty} {
		for _, p := range pages {
			for _, f := range []boxwatch.TrackingRequestFilter{{}, {Status: boxwatch.StatusPending}, {SCAC: "MSCU"}, {Query: "page"},
				{RequestNumber: "PAGE3"}, {CreatedAfter: at(time.Minute), CreatedBefore: at(3 * time.Minute)}} {
				list, total, err := db.TrackingRequests(ctx, acct.ID, f, p)
				ids, idsTotal, idsErr := db.TrackingRequestIDs(ctx, acct.ID, f, p)
				samePage(t, fmt.Sprintf("%s's tracking requests %+v, page %+v", acct.Name, f, p), list, total, err,
					func(tr boxwatch.TrackingRequest) string { return tr.ID }, ids, idsTotal, idsErr)
			}
			for _, f := range []boxwatch.ShipmentFilter{{}, {TrackingStopped: &yes}, {Number: "PAGE1"}, {Query: "tghu0000004"}} {
				list, total, err := db.Shipments(ctx, acct.ID, f, p)
				ids, idsTotal, idsErr := db.ShipmentIDs(ctx, acct.ID, f, p)
				samePage(t, fmt.Sprintf("%s's shipments %+v, page %+v", acct.Name, f, p), list, total, err,
					func(s boxwatch.Shipment) string { return s.ID }, ids, idsTotal, idsErr)
			}
			for _, f := range []boxwatch.ContainerFilter{{}, {Number: "msku 000000-3"}} {
				list, total, err := db.Containers(ctx, acct.ID, f, p)
				ids, idsTotal, idsErr := db.ContainerIDs(ctx, acct.ID, f, p)
				samePage(t, fmt.Sprintf("%s's containers %+v, page %+v", acct.Name, f, p), list, total, err,
					func(c boxwatch.Container) string { return c.ID }, ids, idsTotal, idsErr)
			}
		}
	}
}

// samePage fails unless ids and their total are those of the page list and its total.
func samePage[T any](t *testing.T, what string, list []T, total boxwatch.Total, err error, id func(T) string, ids []string, idsTotal boxwatch.Total, idsErr error) {
	t.Helper()
	if err != nil || idsErr != nil {
		t.Fatalf("%s: %v, %v", what, err, idsErr)
	}
	want := make([]string, len(list))
	for i, v := range list {
		want[i] = id(v)
	}
	if !slices.Equal(ids, want) || idsTotal != total {
		t.Errorf("%s: ids %v, total %+v; the page: %v, total %+v", what, ids, idsTotal, want, total)
	}
}

// testRowsByID: TrackingRequestsByID and ContainersByID answer, keyed by id, the account's rows
// as TrackingRequest and Container do, whatever the case of the ids asked; other accounts',
// unknown and malformed ids are absent; no ids, no rows. Read twice, so that the second answer
// comes from the read cache where there is one.
func testRowsByID(t *testing.T, db *store.DB) {
	a, other := MustCreateAccount(t, db, "acme"), MustCreateAccount(t, db, "globex")
	s := mustCreateShipment(t, db, a.ID, "BYID1", at(time.Minute))
	c1 := mustSaveContainer(t, db, newContainer(s, "MSKU0000001", at(time.Minute)))
	c2 := mustSaveContainer(t, db, newContainer(s, "MSKU0000002", at(2*time.Minute)))
	pending := mustCreateTR(t, db, newTR(a.ID, "BYID2", "MAEU", at(2*time.Minute)))
	theirs := mustCreateShipment(t, db, other.ID, "BYID3", at(time.Minute))
	oc := mustSaveContainer(t, db, newContainer(theirs, "MSKU0000003", at(time.Minute)))
	unknown := boxwatch.NewID(base)

	for round := range 2 {
		trs, err := db.TrackingRequestsByID(ctx, a.ID, []string{s.TrackingRequestID, strings.ToUpper(pending.ID), s.TrackingRequestID,
			theirs.TrackingRequestID, unknown, "not-an-id"})
		if err != nil {
			t.Fatal(err)
		}
		wantKeys(t, trs, s.TrackingRequestID, pending.ID)
		for id, got := range trs {
			if want, err := db.TrackingRequest(ctx, a.ID, id); err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("round %d: tracking request %+v, want %+v (%v)", round, got, want, err)
			}
		}
		cs, err := db.ContainersByID(ctx, a.ID, []string{c1.ID, strings.ToUpper(c2.ID), oc.ID, unknown, "not-an-id"})
		if err != nil {
			t.Fatal(err)
		}
		wantKeys(t, cs, c1.ID, c2.ID)
		for id, got := range cs {
			if want, err := db.Container(ctx, a.ID, id); err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("round %d: container %+v, want %+v (%v)", round, got, want, err)
			}
		}
	}
	trs, err1 := db.TrackingRequestsByID(ctx, a.ID, nil)
	cs, err2 := db.ContainersByID(ctx, a.ID, []string{"not-an-id"})
	if err1 != nil || err2 != nil || len(trs)+len(cs) != 0 {
		t.Errorf("no ids: %v %v, %v %v", trs, err1, cs, err2)
	}
}

// testCachedRenders: CachedRenders answers, in the order of the keys asked, each kept document
// whose stamp holds for the account asked, and nothing for a document never kept, another
// account's, or one whose rows were written since its stamp.
func testCachedRenders(t *testing.T, b Backend) {
	db, err := store.OpenWith(ctx, b.DSN(t), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	a := MustCreateAccount(t, db, "acme")
	s1 := mustCreateShipment(t, db, a.ID, "RENDERS1", at(time.Minute))
	s2 := mustCreateShipment(t, db, a.ID, "RENDERS2", at(2*time.Minute))
	waitLive(t, db)
	kept := func(keys ...string) []string {
		var out []string
		for _, r := range db.CachedRenders(keys, a.ID) {
			out = append(out, string(slices.Concat(r.Parts...)))
		}
		return out
	}
	deadline := time.Now().Add(readCacheDeadline)
	for {
		for _, s := range []boxwatch.Shipment{s1, s2} {
			stamp := db.StampReads(store.ShipmentRead(s.ID))
			if _, err := db.Shipment(ctx, a.ID, s.ID); err != nil {
				t.Fatal(err)
			}
			db.StoreRender(stamp, s.ID, a.ID, store.Render{Parts: [][]byte{[]byte("doc "), []byte(s.BillOfLading)}})
		}
		if got := kept(s1.ID, "never", s2.ID); slices.Equal(got, []string{"doc RENDERS1", "", "doc RENDERS2"}) {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("kept %q", got)
		}
		time.Sleep(time.Millisecond)
	}
	if got := db.CachedRenders([]string{s1.ID}, "another account"); got[0].Parts != nil {
		t.Errorf("another account's document answered: %q", got[0].Parts)
	}
	if _, err := db.SetShipmentLabels(ctx, a.ID, s2.ID, nil, []string{"changed"}, at(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got := kept(s2.ID, s1.ID); !slices.Equal(got, []string{"", "doc RENDERS1"}) {
		t.Errorf("after a write of the second's row: %q", got)
	}
}
