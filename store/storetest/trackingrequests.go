package storetest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
)

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

func testTrackingRequestScoping(t *testing.T, db *store.DB) {
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
	if err != nil || total != (boxwatch.Total{}) || len(list) != 0 {
		t.Fatalf("other account's list = %d items, total %+v, err %v; want empty", len(list), total, err)
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
			if err != nil || total != (boxwatch.Total{N: 7}) || !slices.Equal(ids(list), tt.want) {
				t.Fatalf("got %v total %+v err %v; want %v total 7", ids(list), total, err, tt.want)
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
			if err != nil || total != (boxwatch.Total{N: len(tt.want)}) || !slices.Equal(ids(list), tt.want) {
				t.Fatalf("got %v total %+v err %v; want %v", ids(list), total, err, tt.want)
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
	// A request's reference numbers reach its shipment; another shipment keeps its own.
	s := mustCreateShipment(t, db, a.ID, "MEDUFR030803", base)
	other := mustCreateShipment(t, db, a.ID, "MEDUFR030804", base)
	if _, err := db.SetTrackingRequestRefNumbers(ctx, a.ID, s.TrackingRequestID, []string{"PO-9"}, later); err != nil {
		t.Fatal(err)
	}
	if got, err := db.Shipment(ctx, a.ID, s.ID); err != nil || !slices.Equal(got.RefNumbers, []string{"PO-9"}) || !got.UpdatedAt.Equal(later) {
		t.Fatalf("shipment after its request's update: %+v, %v", got.RefNumbers, err)
	}
	if got, err := db.Shipment(ctx, a.ID, other.ID); err != nil || len(got.RefNumbers) != 0 {
		t.Fatalf("other shipment: %+v, %v", got.RefNumbers, err)
	}
}

func testTxTrackingRequests(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	b := MustCreateAccount(t, db, "globex")
	tr := newTR(b.ID, "MEDUFR030802", "MSCU", base)
	mustInTx(t, db, func(tx boxwatch.Tx) error { return tx.CreateTrackingRequest(ctx, tr) })
	err := db.InTx(ctx, func(tx boxwatch.Tx) error {
		return tx.CreateTrackingRequest(ctx, newTR(b.ID, tr.RequestNumber, tr.SCAC, base))
	})
	wantDuplicate(t, "second live request in a transaction", err)

	t.Run("Lock", func(t *testing.T) {
		tests := []struct {
			name, id string
			wantErr  error
		}{
			{"OK", tr.ID, nil}, // the tracking engine's view is unscoped
			{"ErrNotFound", boxwatch.NewID(base), boxwatch.ErrNotFound},
			{"ErrNotFoundMalformed", "not-a-uuid", boxwatch.ErrNotFound},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				var got boxwatch.TrackingRequest
				err := db.InTx(ctx, func(tx boxwatch.Tx) error {
					var err error
					got, err = tx.LockTrackingRequest(ctx, tt.id)
					return err
				})
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				if err == nil && (got.ID != tr.ID || got.AccountID != b.ID || got.RequestNumber != tr.RequestNumber) {
					t.Fatalf("locked %+v, want %+v", got, tr)
				}
			})
		}
	})

	t.Run("SaveState", func(t *testing.T) {
		n := 2
		mustInTx(t, db, func(tx boxwatch.Tx) error {
			got, err := tx.LockTrackingRequest(ctx, tr.ID)
			if err != nil {
				return err
			}
			got.Status, got.FailedReason, got.IsRetrying, got.RetryCount = boxwatch.StatusFailed, "not_found", true, &n
			got.ShipmentID, got.UpdatedAt = boxwatch.NewID(base), base.Add(time.Hour)
			got.RefNumbers = []string{"not a lifecycle field"}
			return tx.SaveTrackingRequestState(ctx, got)
		})
		got, err := db.TrackingRequest(ctx, b.ID, tr.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != boxwatch.StatusFailed || got.FailedReason != "not_found" || !got.IsRetrying || got.RetryCount == nil ||
			*got.RetryCount != 2 || got.ShipmentID == "" || !got.UpdatedAt.Equal(base.Add(time.Hour)) || len(got.RefNumbers) != 0 {
			t.Fatalf("after SaveTrackingRequestState: %+v", got)
		}
	})

	t.Run("SaveStateErrDuplicate", func(t *testing.T) {
		// tr failed above; a new live request takes its number, and reviving tr collides with it.
		mustCreateTR(t, db, newTR(b.ID, tr.RequestNumber, tr.SCAC, base.Add(time.Minute)))
		err := db.InTx(ctx, func(tx boxwatch.Tx) error {
			got, err := tx.LockTrackingRequest(ctx, tr.ID)
			if err != nil {
				return err
			}
			got.Status, got.FailedReason = boxwatch.StatusPending, ""
			return tx.SaveTrackingRequestState(ctx, got)
		})
		wantDuplicate(t, "reviving a request whose number is live again", err)
		if got, _ := db.TrackingRequest(ctx, b.ID, tr.ID); got.Status != boxwatch.StatusFailed {
			t.Fatalf("after the failed revival the status is %q, want failed", got.Status)
		}
	})

	if _, total, _ := db.TrackingRequests(ctx, a.ID, boxwatch.TrackingRequestFilter{}, boxwatch.Page{Number: 1, Size: 10}); total != (boxwatch.Total{}) {
		t.Fatalf("another account sees %+v requests, want 0", total)
	}
}

// testTrackingRequestAutoDetect: a request whose line is to be detected is stored without a
// SCAC; two of them for one number are duplicates, but not one beside a request naming its line.
// Detection writes the SCAC, which may then collide with a live request of that line.
func testTrackingRequestAutoDetect(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	detecting := mustCreateTR(t, db, newTR(a.ID, "MEDUFR030802", "", base))
	got, err := db.TrackingRequest(ctx, a.ID, detecting.ID)
	if err != nil || got.SCAC != "" || got.Status != boxwatch.StatusPending {
		t.Fatalf("stored without a SCAC: %+v, %v", got, err)
	}
	err = db.CreateTrackingRequest(ctx, newTR(a.ID, "MEDUFR030802", "", base))
	wantDuplicate(t, "a second request detecting the same number", err)
	if e := boxwatch.AsError(err); e != nil && !strings.Contains(e.Message, "being detected") {
		t.Errorf("duplicate message %q does not say the line is being detected", e.Message)
	}
	named := mustCreateTR(t, db, newTR(a.ID, "MEDUFR030802", "MAEU", base))

	detect := func(id, scac string, status boxwatch.Status) error {
		return db.InTx(ctx, func(tx boxwatch.Tx) error {
			tr, err := tx.LockTrackingRequest(ctx, id)
			if err != nil {
				return err
			}
			tr.SCAC, tr.Status, tr.UpdatedAt = scac, status, base.Add(time.Hour)
			return tx.SaveTrackingRequestState(ctx, tr)
		})
	}
	// Detected as the line a live request already names: a duplicate, and nothing is written.
	wantDuplicate(t, "detecting the line of a live request", detect(detecting.ID, named.SCAC, boxwatch.StatusPending))
	if got, _ := db.TrackingRequest(ctx, a.ID, detecting.ID); got.SCAC != "" {
		t.Fatalf("after the collision the SCAC is %q, want none", got.SCAC)
	}
	// Failed, the request keeps the line it was detected as.
	if err := detect(detecting.ID, named.SCAC, boxwatch.StatusFailed); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.TrackingRequest(ctx, a.ID, detecting.ID); got.SCAC != named.SCAC || got.Status != boxwatch.StatusFailed {
		t.Fatalf("failed after detection: %+v", got)
	}
	// Another number detected as MSCU is stored as such and found by the SCAC filter.
	other := mustCreateTR(t, db, newTR(a.ID, "MEDUAB123458", "", base.Add(time.Minute)))
	if err := detect(other.ID, "MSCU", boxwatch.StatusCreated); err != nil {
		t.Fatal(err)
	}
	list, _, err := db.TrackingRequests(ctx, a.ID, boxwatch.TrackingRequestFilter{SCAC: "MSCU"}, boxwatch.Page{Number: 1, Size: 10})
	if err != nil || len(list) != 1 || list[0].ID != other.ID {
		t.Fatalf("filtered by the detected SCAC: %v, %v", ids(list), err)
	}
}
