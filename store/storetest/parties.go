package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
)

func newParty(accountID, name string, created time.Time) boxwatch.Party {
	return boxwatch.Party{ID: boxwatch.NewID(created), AccountID: accountID, CompanyName: name, CreatedAt: created, UpdatedAt: created}
}

func mustCreateParty(t testing.TB, db *store.DB, p boxwatch.Party) boxwatch.Party {
	t.Helper()
	if err := db.CreateParty(ctx, p); err != nil {
		t.Fatalf("create party: %v", err)
	}
	return p
}

func partyNames(list []boxwatch.Party) []string {
	return fieldOf(list, func(p boxwatch.Party) string { return p.CompanyName })
}

func testParties(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	b := MustCreateAccount(t, db, "globex")
	for i := range 3 {
		mustCreateParty(t, db, newParty(a.ID, fmt.Sprintf("Party %d", i), at(time.Duration(i)*time.Minute)))
	}
	p := mustCreateParty(t, db, newParty(a.ID, "Ünïcode Imports", at(time.Hour)))
	got, err := db.Party(ctx, a.ID, strings.ToUpper(p.ID))
	if err != nil || !reflect.DeepEqual(got, p) {
		t.Fatalf("round trip: %+v, %v; want %+v", got, err, p)
	}
	for _, tt := range []struct {
		name  string
		page  boxwatch.Page
		want  []string
		total int
	}{
		{"FirstPage", boxwatch.Page{Number: 1, Size: 2}, []string{"Ünïcode Imports", "Party 2"}, 4},
		{"LastPage", boxwatch.Page{Number: 2, Size: 3}, []string{"Party 0"}, 4},
	} {
		list, total, err := db.Parties(ctx, a.ID, tt.page)
		if err != nil || total != tt.total || !slices.Equal(partyNames(list), tt.want) {
			t.Errorf("%s: %v total %d err %v; want %v", tt.name, partyNames(list), total, err, tt.want)
		}
	}
	if list, total, err := db.Parties(ctx, b.ID, boxwatch.Page{Number: 1, Size: 10}); err != nil || total != 0 || len(list) != 0 {
		t.Errorf("other account's parties: %v %d %v", list, total, err)
	}
	for name, id := range map[string]string{"Unknown": boxwatch.NewID(base), "Malformed": "1 OR 1=1"} {
		if _, err := db.Party(ctx, a.ID, id); !errors.Is(err, boxwatch.ErrNotFound) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	if _, err := db.Party(ctx, b.ID, p.ID); !errors.Is(err, boxwatch.ErrNotFound) {
		t.Errorf("other account reads the party: %v", err)
	}
}

// A request's customer reaches its shipment with the party's name, and a rename follows.
func testPartyCustomers(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	b := MustCreateAccount(t, db, "globex")
	p := mustCreateParty(t, db, newParty(a.ID, "Acme Imports", base))
	tr := newTR(a.ID, "MEDUFR030802", "MSCU", base)
	tr.CustomerID = p.ID
	mustCreateTR(t, db, tr)
	if got, err := db.TrackingRequest(ctx, a.ID, tr.ID); err != nil || got.CustomerID != p.ID {
		t.Fatalf("request's customer %q, %v", got.CustomerID, err)
	}
	s := newShipment(tr, base)
	s.CustomerID = p.ID
	mustInTx(t, db, func(tx boxwatch.Tx) error { return tx.InsertShipment(ctx, s) })
	plain := mustCreateShipment(t, db, a.ID, "MEDUFR030803", base)
	if got, err := db.Shipment(ctx, a.ID, s.ID); err != nil || got.CustomerID != p.ID || got.CustomerName != "Acme Imports" {
		t.Fatalf("shipment's customer %q %q, %v", got.CustomerID, got.CustomerName, err)
	}

	later := at(time.Hour)
	renamed, err := db.RenameParty(ctx, a.ID, p.ID, "Acme Global", later)
	if err != nil || renamed.CompanyName != "Acme Global" || !renamed.UpdatedAt.Equal(later) || !renamed.CreatedAt.Equal(base) {
		t.Fatalf("rename: %+v, %v", renamed, err)
	}
	if got, _ := db.Shipment(ctx, a.ID, s.ID); got.CustomerName != "Acme Global" {
		t.Errorf("shipment's customer name after the rename: %q", got.CustomerName)
	}
	if got, _ := db.Shipment(ctx, a.ID, plain.ID); got.CustomerID != "" || got.CustomerName != "" {
		t.Errorf("a shipment without customer: %q %q", got.CustomerID, got.CustomerName)
	}
	if _, err := db.RenameParty(ctx, b.ID, p.ID, "Stolen", later); !errors.Is(err, boxwatch.ErrNotFound) {
		t.Errorf("other account renames: %v", err)
	}
	if _, err := db.RenameParty(ctx, a.ID, "x", "X", later); !errors.Is(err, boxwatch.ErrNotFound) {
		t.Errorf("malformed id: %v", err)
	}
	// A party of another account does not name a shipment.
	other := mustCreateParty(t, db, newParty(b.ID, "Globex", base))
	tr2 := newTR(a.ID, "MEDUFR030804", "MSCU", base)
	mustCreateTR(t, db, tr2)
	s2 := newShipment(tr2, base)
	s2.CustomerID = other.ID
	mustInTx(t, db, func(tx boxwatch.Tx) error { return tx.InsertShipment(ctx, s2) })
	if got, _ := db.Shipment(ctx, a.ID, s2.ID); got.CustomerName != "" {
		t.Errorf("another account's party named the shipment %q", got.CustomerName)
	}
}
