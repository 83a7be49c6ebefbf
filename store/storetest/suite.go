package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
)

// Run is the conformance suite: every behaviour boxwatch relies on from a store, run on one backend.
func Run(t *testing.T, b Backend) {
	withDB := func(fn func(*testing.T, *store.DB)) func(*testing.T, Backend) {
		return func(t *testing.T, b Backend) { fn(t, b.Open(t)) }
	}
	tests := []struct {
		name string
		fn   func(t *testing.T, b Backend)
	}{
		{"Accounts", withDB(testAccounts)},
		{"APIKeys", withDB(testAPIKeys)},
		{"TrackingRequestRoundTrip", withDB(testTrackingRequestRoundTrip)},
		{"TrackingRequestTenancy", withDB(testTrackingRequestTenancy)},
		{"TrackingRequestDuplicate", withDB(testTrackingRequestDuplicate)},
		{"TrackingRequestDuplicateConcurrent", withDB(testTrackingRequestDuplicateConcurrent)},
		{"TrackingRequestList", withDB(testTrackingRequestList)},
		{"TrackingRequestFilters", withDB(testTrackingRequestFilters)},
		{"TrackingRequestRefNumbers", withDB(testTrackingRequestRefNumbers)},
		{"RateLimiter", withDB(testRateLimiter)},
		{"DeliveryClaims", withDB(testDeliveryClaims)},
		{"BatchReads", withDB(testBatchReads)},
		{"MigrateTwice", testMigrateTwice},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, b) })
	}
}

var ctx = context.Background()

// base is a fixed time with microseconds, to show they survive a round trip.
var base = time.Date(2026, 3, 14, 15, 9, 26, 535897000, time.UTC)

// MustCreateAccount stores a new account named name with the given features.
func MustCreateAccount(t testing.TB, s boxwatch.Store, name string, features ...boxwatch.Feature) boxwatch.Account {
	t.Helper()
	a := boxwatch.Account{ID: boxwatch.NewID(base), Name: name, Features: features, CreatedAt: base}
	if a.Features == nil {
		a.Features = []boxwatch.Feature{}
	}
	if err := s.CreateAccount(ctx, a); err != nil {
		t.Fatalf("create account %s: %v", name, err)
	}
	return a
}

func newTR(accountID, number, scac string, created time.Time) boxwatch.TrackingRequest {
	return boxwatch.TrackingRequest{
		ID: boxwatch.NewID(created), AccountID: accountID, RequestType: boxwatch.RequestBillOfLading,
		RequestNumber: number, SCAC: scac, RefNumbers: []string{}, ShipmentTags: []string{},
		Status: boxwatch.StatusPending, CreatedAt: created, UpdatedAt: created,
	}
}

func mustCreateTR(t testing.TB, s boxwatch.Store, tr boxwatch.TrackingRequest) boxwatch.TrackingRequest {
	t.Helper()
	if err := s.CreateTrackingRequest(ctx, tr); err != nil {
		t.Fatalf("create tracking request %s: %v", tr.RequestNumber, err)
	}
	return tr
}

func testAccounts(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme", boxwatch.FeatureMap)
	got, err := db.AccountByName(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != a.ID || got.Name != "acme" || !got.Has(boxwatch.FeatureMap) || !got.CreatedAt.Equal(base) {
		t.Fatalf("AccountByName = %+v, want %+v", got, a)
	}
	err = db.CreateAccount(ctx, boxwatch.Account{ID: boxwatch.NewID(base), Name: "acme", CreatedAt: base})
	if !boxwatch.IsKind(err, boxwatch.KindConflict) {
		t.Fatalf("second account named acme: err = %v, want KindConflict", err)
	}
	if _, err := db.AccountByName(ctx, "nobody"); !errors.Is(err, boxwatch.ErrNotFound) {
		t.Fatalf("unknown account: err = %v, want ErrNotFound", err)
	}
}

func testAPIKeys(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	key, rec, err := boxwatch.NewAPIKey(a.ID, base)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.CreateAPIKey(ctx, rec); err != nil {
		t.Fatal(err)
	}
	id, ok := boxwatch.ParseAPIKey(key)
	if !ok {
		t.Fatalf("ParseAPIKey(%q) failed", key)
	}
	got, acct, err := db.APIKey(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if acct.ID != a.ID || got.AccountID != a.ID || !got.Matches(key) || got.Matches(key[:len(key)-1]+"x") {
		t.Fatalf("APIKey = %+v, %+v", got, acct)
	}
	if _, _, err := db.APIKey(ctx, "0000000000000000"); !errors.Is(err, boxwatch.ErrNotFound) {
		t.Fatalf("unknown key: err = %v, want ErrNotFound", err)
	}
	_, orphan, _ := boxwatch.NewAPIKey(boxwatch.NewID(base), base)
	if err := db.CreateAPIKey(ctx, orphan); !errors.Is(err, boxwatch.ErrNotFound) {
		t.Fatalf("key for an unknown account: err = %v, want ErrNotFound", err)
	}
}

func testTrackingRequestRoundTrip(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	tr := newTR(a.ID, "MEDUFR030802", "MSCU", base)
	tr.RefNumbers = []string{"PO-1", "PO 2"}
	tr.ShipmentTags = []string{"camembert"}
	mustCreateTR(t, db, tr)
	got, err := db.TrackingRequest(ctx, a.ID, tr.ID)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(tr) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, tr)
	}

	n := 3
	failed := newTR(a.ID, "X1", "MSCU", base.Add(time.Second))
	failed.Status, failed.FailedReason, failed.IsRetrying, failed.RetryCount = boxwatch.StatusFailed, "not_found", true, &n
	mustCreateTR(t, db, failed)
	got, err = db.TrackingRequest(ctx, a.ID, failed.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.FailedReason != "not_found" || !got.IsRetrying || got.RetryCount == nil || *got.RetryCount != 3 {
		t.Fatalf("failed request round trip: %+v", got)
	}
}

func testTrackingRequestTenancy(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	b := MustCreateAccount(t, db, "globex")
	tr := mustCreateTR(t, db, newTR(a.ID, "MEDUFR030802", "MSCU", base))
	for name, id := range map[string]string{"OtherAccount": tr.ID, "Unknown": boxwatch.NewID(base), "NotUUID": "42; DROP TABLE x"} {
		t.Run(name, func(t *testing.T) {
			if _, err := db.TrackingRequest(ctx, b.ID, id); !errors.Is(err, boxwatch.ErrNotFound) {
				t.Fatalf("err = %v, want ErrNotFound", err)
			}
			if _, err := db.SetTrackingRequestRefNumbers(ctx, b.ID, id, []string{"x"}, base); !errors.Is(err, boxwatch.ErrNotFound) {
				t.Fatalf("update: err = %v, want ErrNotFound", err)
			}
		})
	}
	list, total, err := db.TrackingRequests(ctx, b.ID, boxwatch.TrackingRequestFilter{}, boxwatch.Page{Number: 1, Size: 30})
	if err != nil || total != 0 || len(list) != 0 {
		t.Fatalf("other account's list = %d items, total %d, err %v; want empty", len(list), total, err)
	}
	// The same number may be tracked by another account.
	mustCreateTR(t, db, newTR(b.ID, "MEDUFR030802", "MSCU", base))
}

func testTrackingRequestDuplicate(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	mustCreateTR(t, db, newTR(a.ID, "MEDUFR030802", "MSCU", base))
	err := db.CreateTrackingRequest(ctx, newTR(a.ID, "MEDUFR030802", "MSCU", base))
	e := boxwatch.AsError(err)
	if e == nil || e.Code != boxwatch.CodeDuplicate || e.Pointer != "/data/attributes/request_number" {
		t.Fatalf("duplicate: err = %v, want the duplicate error", err)
	}
	// Another carrier, or a number whose earlier request failed, is not a duplicate.
	mustCreateTR(t, db, newTR(a.ID, "MEDUFR030802", "MAEU", base))
	failed := newTR(a.ID, "OOLU2148468620", "OOLU", base)
	failed.Status = boxwatch.StatusFailed
	mustCreateTR(t, db, failed)
	mustCreateTR(t, db, newTR(a.ID, "OOLU2148468620", "OOLU", base))
}

func testTrackingRequestDuplicateConcurrent(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	const n = 24
	var wg sync.WaitGroup
	errs := make([]error, n)
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = db.CreateTrackingRequest(ctx, newTR(a.ID, "MEDUFR030802", "MSCU", base))
		}()
	}
	close(start)
	wg.Wait()
	created := 0
	for _, err := range errs {
		switch e := boxwatch.AsError(err); {
		case err == nil:
			created++
		case e == nil || e.Code != boxwatch.CodeDuplicate:
			t.Fatalf("concurrent create: unexpected error %v", err)
		}
	}
	_, total, err := db.TrackingRequests(ctx, a.ID, boxwatch.TrackingRequestFilter{}, boxwatch.Page{Number: 1, Size: 100})
	if created != 1 || total != 1 || err != nil {
		t.Fatalf("%d concurrent creates: %d succeeded, %d stored (err %v); want exactly 1", n, created, total, err)
	}
}

func ids(list []boxwatch.TrackingRequest) []string {
	out := make([]string, len(list))
	for i, tr := range list {
		out[i] = tr.RequestNumber
	}
	return out
}

func testTrackingRequestList(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	for i := range 7 {
		mustCreateTR(t, db, newTR(a.ID, fmt.Sprintf("N%d", i), "MSCU", base.Add(time.Duration(i)*time.Minute)))
	}
	tests := []struct {
		name string
		page boxwatch.Page
		want []string
	}{
		{"FirstPage", boxwatch.Page{Number: 1, Size: 3}, []string{"N6", "N5", "N4"}},
		{"LastPage", boxwatch.Page{Number: 3, Size: 3}, []string{"N0"}},
		{"PastTheEnd", boxwatch.Page{Number: 4, Size: 3}, []string{}},
		{"All", boxwatch.Page{Number: 1, Size: 100}, []string{"N6", "N5", "N4", "N3", "N2", "N1", "N0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, total, err := db.TrackingRequests(ctx, a.ID, boxwatch.TrackingRequestFilter{}, tt.page)
			if err != nil || total != 7 || !slices.Equal(ids(list), tt.want) {
				t.Fatalf("got %v total %d err %v; want %v total 7", ids(list), total, err, tt.want)
			}
		})
	}
}

func testTrackingRequestFilters(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	mk := func(number, scac string, minute int, status boxwatch.Status, refs ...string) {
		tr := newTR(a.ID, number, scac, base.Add(time.Duration(minute)*time.Minute))
		tr.Status = status
		tr.UpdatedAt = tr.CreatedAt.Add(time.Hour)
		if refs != nil {
			tr.RefNumbers = refs
		}
		mustCreateTR(t, db, tr)
	}
	mk("MEDU1", "MSCU", 0, boxwatch.StatusPending, "PO-100")
	mk("MAEU2", "MAEU", 1, boxwatch.StatusFailed)
	mk("MAEU3", "MAEU", 2, boxwatch.StatusPending, "po_7%")
	mk("ONEY4", "ONEY", 3, boxwatch.StatusCreated)

	tests := []struct {
		name string
		f    boxwatch.TrackingRequestFilter
		want []string
	}{
		{"Status", boxwatch.TrackingRequestFilter{Status: boxwatch.StatusPending}, []string{"MAEU3", "MEDU1"}},
		{"SCAC", boxwatch.TrackingRequestFilter{SCAC: "MAEU"}, []string{"MAEU3", "MAEU2"}},
		{"RequestNumber", boxwatch.TrackingRequestFilter{RequestNumber: "ONEY4"}, []string{"ONEY4"}},
		{"StatusAndSCAC", boxwatch.TrackingRequestFilter{Status: boxwatch.StatusFailed, SCAC: "MAEU"}, []string{"MAEU2"}},
		{"CreatedAfter", boxwatch.TrackingRequestFilter{CreatedAfter: base.Add(2 * time.Minute)}, []string{"ONEY4", "MAEU3"}},
		{"CreatedBefore", boxwatch.TrackingRequestFilter{CreatedBefore: base.Add(time.Minute)}, []string{"MAEU2", "MEDU1"}},
		{"UpdatedWindow", boxwatch.TrackingRequestFilter{UpdatedAfter: base.Add(61 * time.Minute), UpdatedBefore: base.Add(62 * time.Minute)}, []string{"MAEU3", "MAEU2"}},
		{"QueryNumber", boxwatch.TrackingRequestFilter{Query: "aeu"}, []string{"MAEU3", "MAEU2"}},
		{"QueryRefNumber", boxwatch.TrackingRequestFilter{Query: "po-10"}, []string{"MEDU1"}},
		{"QueryWildcardsAreLiteral", boxwatch.TrackingRequestFilter{Query: "_7%"}, []string{"MAEU3"}},
		{"QueryPercentMatchesNothingElse", boxwatch.TrackingRequestFilter{Query: "%"}, []string{"MAEU3"}},
		{"NoMatch", boxwatch.TrackingRequestFilter{SCAC: "ZIMU"}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, total, err := db.TrackingRequests(ctx, a.ID, tt.f, boxwatch.Page{Number: 1, Size: 30})
			if err != nil || total != len(tt.want) || !slices.Equal(ids(list), tt.want) {
				t.Fatalf("got %v total %d err %v; want %v", ids(list), total, err, tt.want)
			}
		})
	}
}

func testTrackingRequestRefNumbers(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	tr := mustCreateTR(t, db, newTR(a.ID, "MEDUFR030802", "MSCU", base))
	later := base.Add(time.Hour)
	got, err := db.SetTrackingRequestRefNumbers(ctx, a.ID, tr.ID, []string{"A", "B"}, later)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.RefNumbers, []string{"A", "B"}) || !got.UpdatedAt.Equal(later) || !got.CreatedAt.Equal(base) {
		t.Fatalf("after update: %+v", got)
	}
	got, err = db.SetTrackingRequestRefNumbers(ctx, a.ID, tr.ID, nil, later)
	if err != nil || got.RefNumbers == nil || len(got.RefNumbers) != 0 {
		t.Fatalf("clearing ref numbers: %+v, %v; want an empty list", got.RefNumbers, err)
	}
}

func testRateLimiter(t *testing.T, db *store.DB) {
	l := db.Limiter()
	for i := range 5 {
		ok, _, err := l.Allow(ctx, "acct:a:create", 5, time.Minute)
		if err != nil || !ok {
			t.Fatalf("request %d of 5: ok=%v err=%v; want admitted", i+1, ok, err)
		}
	}
	ok, retry, err := l.Allow(ctx, "acct:a:create", 5, time.Minute)
	if err != nil || ok {
		t.Fatalf("6th request: ok=%v err=%v; want refused", ok, err)
	}
	// One request frees up every period/limit = 12 s.
	if retry <= 0 || retry > 12*time.Second {
		t.Fatalf("retryAfter = %v, want within (0, 12s]", retry)
	}
	if ok, _, _ := l.Allow(ctx, "acct:b:create", 5, time.Minute); !ok {
		t.Fatal("another bucket must not be affected")
	}
	if err := db.SweepRateLimits(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, _, _ := l.Allow(ctx, "acct:a:create", 5, time.Minute); ok {
		t.Fatal("sweeping must keep buckets that are not yet full")
	}
}

func testMigrateTwice(t *testing.T, b Backend) {
	dsn := b.DSN(t)
	for range 2 {
		db, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		v, err := db.SchemaVersion(ctx)
		db.Close()
		if err != nil || v < 1 {
			t.Fatalf("schema version %d, err %v", v, err)
		}
	}
}

func testDeliveryClaims(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	tr := mustCreateTR(t, db, newTR(a.ID, "MEDUFR030802", "MSCU", base))
	hook := boxwatch.Webhook{ID: boxwatch.NewID(base), AccountID: a.ID, URL: "https://93.184.216.34/x", Active: true,
		Events: []string{"tracking_request.failed"}, Secret: "s", CreatedAt: base, UpdatedAt: base}
	if err := db.CreateWebhook(ctx, hook); err != nil {
		t.Fatal(err)
	}
	var ids []string
	err := db.InTx(ctx, func(tx boxwatch.Tx) error {
		for i := range 3 {
			ev := boxwatch.Event{ID: boxwatch.NewID(base), AccountID: a.ID, Name: "tracking_request.failed", ObjectType: "tracking_request",
				ObjectID: tr.ID, TrackingRequestID: tr.ID, Key: fmt.Sprint("k", i), CreatedAt: base.Add(time.Duration(i) * time.Second)}
			if _, err := tx.AppendEvent(ctx, ev); err != nil {
				return err
			}
			got, err := tx.Notify(ctx, ev)
			ids = append(ids, got...)
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil || len(ids) != 3 {
		t.Fatalf("notify: %v, %d notifications", err, len(ids))
	}
	now := base.Add(time.Minute)
	first, err := db.ClaimDueNotifications(ctx, now, now.Add(time.Minute), 2)
	slices.Sort(first)
	if err != nil || !slices.Equal(first, ids[:2]) {
		t.Fatalf("first claim: %v %v, want the two most overdue %v", first, err, ids[:2])
	}
	second, err := db.ClaimDueNotifications(ctx, now, now.Add(time.Minute), 10)
	if err != nil || len(second) != 1 || second[0] != ids[2] {
		t.Fatalf("second claim: %v %v, want only the unclaimed one", second, err)
	}
	if again, _ := db.ClaimDueNotifications(ctx, now, now.Add(time.Minute), 10); len(again) != 0 {
		t.Fatalf("everything is claimed, yet %v", again)
	}
	// A claim lapses (its process died) and is taken up again.
	later := now.Add(2 * time.Minute)
	if lapsed, _ := db.ClaimDueNotifications(ctx, later, later.Add(time.Minute), 10); len(lapsed) != 3 {
		t.Fatalf("after the claims lapsed: %v", lapsed)
	}
	// A recorded outcome ends the claim; a delivered notification is never due again.
	err = db.InTx(ctx, func(tx boxwatch.Tx) error {
		n, err := tx.LockNotification(ctx, ids[0])
		if err != nil {
			return err
		}
		n.DeliveryStatus, n.Attempts, n.NextAttemptAt, n.UpdatedAt = boxwatch.DeliverySucceeded, 1, time.Time{}, later
		return tx.SaveNotification(ctx, n)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.UnclaimNotification(ctx, ids[1], later); err != nil {
		t.Fatal(err)
	}
	muchLater := later.Add(time.Hour)
	got, _ := db.ClaimDueNotifications(ctx, muchLater, muchLater.Add(time.Minute), 10)
	if len(got) != 2 || slices.Contains(got, ids[0]) {
		t.Fatalf("after one success: %v, want the two still pending", got)
	}
}
