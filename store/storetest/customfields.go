package storetest

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
)

func newDefinition(accountID, entity, slug, dataType string, created time.Time) boxwatch.CustomFieldDefinition {
	return boxwatch.CustomFieldDefinition{ID: boxwatch.NewID(created), AccountID: accountID, EntityType: entity, APISlug: slug,
		DisplayName: strings.ToUpper(slug), DataType: dataType, DefaultValue: json.RawMessage("null"), CreatedAt: created, UpdatedAt: created}
}

func mustCreateDefinition(t testing.TB, db *store.DB, d boxwatch.CustomFieldDefinition) boxwatch.CustomFieldDefinition {
	t.Helper()
	if err := db.CreateCustomFieldDefinition(ctx, d); err != nil {
		t.Fatalf("create definition %s: %v", d.APISlug, err)
	}
	return d
}

func slugs(list []boxwatch.CustomFieldDefinition) []string {
	return fieldOf(list, func(d boxwatch.CustomFieldDefinition) string { return d.APISlug })
}

func testCustomFieldDefinitions(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	b := MustCreateAccount(t, db, "globex")
	po := newDefinition(a.ID, boxwatch.EntityShipment, "po_number", boxwatch.DataShortText, base)
	po.Validation = map[string]float64{"max_length": 20}
	po.DefaultFormat, po.DefaultValue = "upper", json.RawMessage(`"PO-0"`)
	mustCreateDefinition(t, db, po)
	mustCreateDefinition(t, db, newDefinition(a.ID, boxwatch.EntityContainer, "po_number", boxwatch.DataShortText, at(time.Minute)))
	mustCreateDefinition(t, db, newDefinition(a.ID, boxwatch.EntityShipment, "urgent", boxwatch.DataBoolean, at(2*time.Minute)))
	mustCreateDefinition(t, db, newDefinition(b.ID, boxwatch.EntityShipment, "po_number", boxwatch.DataShortText, base))

	got, err := db.CustomFieldDefinition(ctx, a.ID, strings.ToUpper(po.ID))
	if err != nil || !reflect.DeepEqual(got, po) {
		t.Fatalf("round trip (err %v):\n got %+v\nwant %+v", err, got, po)
	}
	if got, err := db.CustomFieldDefinitionBySlug(ctx, a.ID, boxwatch.EntityShipment, "po_number"); err != nil || got.ID != po.ID {
		t.Fatalf("by slug: %+v %v", got, err)
	}
	err = db.CreateCustomFieldDefinition(ctx, newDefinition(a.ID, boxwatch.EntityShipment, "po_number", boxwatch.DataNumber, base))
	if e := boxwatch.AsError(err); e == nil || e.Code != boxwatch.CodeTaken || e.Pointer != "/data/attributes/api_slug" {
		t.Fatalf("duplicate slug: %v", err)
	}
	for _, tt := range []struct {
		name string
		f    boxwatch.CustomFieldDefinitionFilter
		want []string
	}{
		{"All", boxwatch.CustomFieldDefinitionFilter{}, []string{"urgent", "po_number", "po_number"}},
		{"EntityType", boxwatch.CustomFieldDefinitionFilter{EntityType: boxwatch.EntityShipment}, []string{"urgent", "po_number"}},
		{"DataType", boxwatch.CustomFieldDefinitionFilter{DataType: boxwatch.DataBoolean}, []string{"urgent"}},
		{"DisplayNamePart", boxwatch.CustomFieldDefinitionFilter{DisplayName: "o_n"}, []string{"po_number", "po_number"}},
		{"DisplayNameWildcard", boxwatch.CustomFieldDefinitionFilter{DisplayName: "%"}, []string{}},
	} {
		list, total, err := db.CustomFieldDefinitions(ctx, a.ID, tt.f, boxwatch.Page{Number: 1, Size: 10})
		if err != nil || total != len(tt.want) || !slices.Equal(slugs(list), tt.want) {
			t.Errorf("%s: %v total %d err %v; want %v", tt.name, slugs(list), total, err, tt.want)
		}
	}

	po.DisplayName, po.Validation, po.DefaultValue, po.UpdatedAt = "Purchase order", nil, json.RawMessage("null"), at(time.Hour)
	if err := db.UpdateCustomFieldDefinition(ctx, po); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.CustomFieldDefinition(ctx, a.ID, po.ID); got.DisplayName != "Purchase order" || got.Validation != nil || !got.UpdatedAt.Equal(at(time.Hour)) {
		t.Fatalf("after update: %+v", got)
	}
	stolen := po
	stolen.AccountID = b.ID
	if err := db.UpdateCustomFieldDefinition(ctx, stolen); !errors.Is(err, boxwatch.ErrNotFound) {
		t.Errorf("update from another account: %v", err)
	}
	if _, err := db.CustomFieldDefinition(ctx, b.ID, po.ID); !errors.Is(err, boxwatch.ErrNotFound) {
		t.Errorf("read from another account: %v", err)
	}
	if err := db.DeleteCustomFieldDefinition(ctx, b.ID, po.ID); !errors.Is(err, boxwatch.ErrNotFound) {
		t.Errorf("delete from another account: %v", err)
	}
	if err := db.DeleteCustomFieldDefinition(ctx, a.ID, "x"); !errors.Is(err, boxwatch.ErrNotFound) {
		t.Errorf("delete malformed: %v", err)
	}
	if err := db.DeleteCustomFieldDefinition(ctx, a.ID, po.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CustomFieldDefinition(ctx, a.ID, po.ID); !errors.Is(err, boxwatch.ErrNotFound) {
		t.Errorf("read after delete: %v", err)
	}
}

func testCustomFieldOptions(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	b := MustCreateAccount(t, db, "globex")
	d := mustCreateDefinition(t, db, newDefinition(a.ID, boxwatch.EntityShipment, "mode", boxwatch.DataEnum, base))
	one, two := 1, 2
	opt := func(value string, pos *int, created time.Time) boxwatch.CustomFieldOption {
		o := boxwatch.CustomFieldOption{ID: boxwatch.NewID(created), AccountID: a.ID, DefinitionID: d.ID, Label: strings.ToUpper(value),
			Value: value, Position: pos, CreatedAt: created, UpdatedAt: created}
		if err := db.CreateCustomFieldOption(ctx, o); err != nil {
			t.Fatalf("create option %s: %v", value, err)
		}
		return o
	}
	free := opt("free", nil, at(time.Second))
	sea := opt("sea", &two, at(2*time.Second))
	opt("air", &one, at(3*time.Second))
	err := db.CreateCustomFieldOption(ctx, boxwatch.CustomFieldOption{ID: boxwatch.NewID(base), AccountID: a.ID, DefinitionID: d.ID,
		Label: "Sea again", Value: "sea", CreatedAt: base, UpdatedAt: base})
	if e := boxwatch.AsError(err); e == nil || e.Code != boxwatch.CodeTaken {
		t.Fatalf("duplicate value: %v", err)
	}
	values := func() []string {
		list, err := db.CustomFieldOptions(ctx, a.ID, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, o := range list {
			out = append(out, o.Value)
		}
		return out
	}
	if got := values(); !slices.Equal(got, []string{"air", "sea", "free"}) {
		t.Fatalf("options %v, want by position, those without last", got)
	}
	if got, err := db.CustomFieldOption(ctx, a.ID, d.ID, sea.ID); err != nil || !reflect.DeepEqual(got, sea) {
		t.Fatalf("round trip: %+v %v", got, err)
	}
	free.Label, free.Position, free.UpdatedAt = "Free text", &one, at(time.Hour)
	if err := db.UpdateCustomFieldOption(ctx, free); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.CustomFieldOption(ctx, a.ID, d.ID, free.ID); got.Label != "Free text" || *got.Position != 1 {
		t.Fatalf("after update: %+v", got)
	}
	sea.Value = "air"
	if e := boxwatch.AsError(db.UpdateCustomFieldOption(ctx, sea)); e == nil || e.Code != boxwatch.CodeTaken {
		t.Fatalf("update to a taken value: %v", e)
	}
	if list, err := db.CustomFieldOptions(ctx, b.ID, d.ID); err != nil || len(list) != 0 {
		t.Errorf("another account's options: %v %v", list, err)
	}
	if _, err := db.CustomFieldOption(ctx, b.ID, d.ID, free.ID); !errors.Is(err, boxwatch.ErrNotFound) {
		t.Errorf("read from another account: %v", err)
	}
	if err := db.DeleteCustomFieldOption(ctx, b.ID, d.ID, free.ID); !errors.Is(err, boxwatch.ErrNotFound) {
		t.Errorf("delete from another account: %v", err)
	}
	if err := db.DeleteCustomFieldOption(ctx, a.ID, d.ID, free.ID); err != nil {
		t.Fatal(err)
	}
	if got := values(); !slices.Equal(got, []string{"air", "sea"}) {
		t.Fatalf("after delete: %v", got)
	}
	// Deleting the definition takes its options.
	if err := db.DeleteCustomFieldDefinition(ctx, a.ID, d.ID); err != nil {
		t.Fatal(err)
	}
	if got := values(); len(got) != 0 {
		t.Fatalf("options outlive their definition: %v", got)
	}
}

func testCustomFields(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	b := MustCreateAccount(t, db, "globex")
	s := mustCreateShipment(t, db, a.ID, "MEDUFR030802", base)
	other := mustCreateShipment(t, db, a.ID, "MEDUFR030803", base)
	po := mustCreateDefinition(t, db, newDefinition(a.ID, boxwatch.EntityShipment, "po_number", boxwatch.DataShortText, base))
	urgent := mustCreateDefinition(t, db, newDefinition(a.ID, boxwatch.EntityShipment, "urgent", boxwatch.DataBoolean, base))
	set := func(d boxwatch.CustomFieldDefinition, entity, value string, when time.Time) boxwatch.CustomField {
		t.Helper()
		f, err := db.SetCustomField(ctx, boxwatch.CustomField{ID: boxwatch.NewID(when), AccountID: a.ID, DefinitionID: d.ID,
			EntityID: entity, Value: json.RawMessage(value), CreatedAt: when, UpdatedAt: when})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	f := set(po, strings.ToUpper(s.ID), `"PO-1"`, at(time.Second))
	if f.APISlug != "po_number" || f.EntityType != boxwatch.EntityShipment || f.EntityID != s.ID || string(f.Value) != `"PO-1"` {
		t.Fatalf("set: %+v", f)
	}
	// Setting again replaces the value and keeps the field.
	again := set(po, s.ID, `"PO-2"`, at(time.Hour))
	if again.ID != f.ID || string(again.Value) != `"PO-2"` || !again.CreatedAt.Equal(f.CreatedAt) || !again.UpdatedAt.Equal(at(time.Hour)) {
		t.Fatalf("set again: %+v, first %+v", again, f)
	}
	set(urgent, s.ID, `true`, at(2*time.Second))
	set(po, other.ID, `"PO-9"`, at(3*time.Second))
	if got, err := db.CustomField(ctx, a.ID, f.ID); err != nil || !reflect.DeepEqual(got, again) {
		t.Fatalf("read: %+v %v; want %+v", got, err, again)
	}
	count := func(f boxwatch.CustomFieldFilter) int {
		list, total, err := db.CustomFields(ctx, a.ID, f, boxwatch.Page{Number: 1, Size: 10})
		if err != nil || total != len(list) {
			t.Fatalf("list %+v: %d of %d, %v", f, len(list), total, err)
		}
		return total
	}
	for _, tt := range []struct {
		name string
		f    boxwatch.CustomFieldFilter
		want int
	}{
		{"All", boxwatch.CustomFieldFilter{}, 3},
		{"Entity", boxwatch.CustomFieldFilter{EntityID: s.ID}, 2},
		{"Definition", boxwatch.CustomFieldFilter{DefinitionID: po.ID}, 2},
		{"EntityType", boxwatch.CustomFieldFilter{EntityType: boxwatch.EntityShipment}, 3},
		{"OtherEntityType", boxwatch.CustomFieldFilter{EntityType: boxwatch.EntityContainer}, 0},
		{"Both", boxwatch.CustomFieldFilter{EntityID: other.ID, DefinitionID: po.ID}, 1},
		{"MalformedID", boxwatch.CustomFieldFilter{EntityID: "' OR 1=1 --"}, 0},
	} {
		if got := count(tt.f); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
	if list, total, err := db.CustomFields(ctx, b.ID, boxwatch.CustomFieldFilter{}, boxwatch.Page{Number: 1, Size: 10}); err != nil || total != 0 || len(list) != 0 {
		t.Errorf("another account's fields: %d %v", total, err)
	}
	if _, err := db.CustomField(ctx, b.ID, f.ID); !errors.Is(err, boxwatch.ErrNotFound) {
		t.Errorf("read from another account: %v", err)
	}
	if err := db.DeleteCustomField(ctx, b.ID, f.ID); !errors.Is(err, boxwatch.ErrNotFound) {
		t.Errorf("delete from another account: %v", err)
	}
	if err := db.DeleteCustomField(ctx, a.ID, f.ID); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteCustomField(ctx, a.ID, f.ID); !errors.Is(err, boxwatch.ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
	// Deleting a definition takes its values.
	if err := db.DeleteCustomFieldDefinition(ctx, a.ID, po.ID); err != nil {
		t.Fatal(err)
	}
	if got := count(boxwatch.CustomFieldFilter{}); got != 1 {
		t.Errorf("after the definition's delete: %d fields, want the urgent one", got)
	}
}

// A transaction sets values as the store does (the tracking engine's staged values), and a
// tracking request keeps the values staged with it.
func testTxCustomFields(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	s := mustCreateShipment(t, db, a.ID, "MEDUFR030802", base)
	c := mustSaveContainer(t, db, newContainer(s, "MSCU1234565", base))
	po := mustCreateDefinition(t, db, newDefinition(a.ID, boxwatch.EntityContainer, "po_number", boxwatch.DataShortText, base))
	var set boxwatch.CustomField
	mustInTx(t, db, func(tx boxwatch.Tx) error {
		var err error
		set, err = tx.SetCustomField(ctx, boxwatch.CustomField{ID: boxwatch.NewID(base), AccountID: a.ID, DefinitionID: po.ID,
			EntityID: c.ID, Value: json.RawMessage(`"PO-7"`), CreatedAt: base, UpdatedAt: base})
		return err
	})
	if set.APISlug != "po_number" || set.EntityType != boxwatch.EntityContainer || string(set.Value) != `"PO-7"` {
		t.Fatalf("set in a transaction: %+v", set)
	}
	// A rolled-back transaction sets nothing.
	rollback := errors.New("roll back")
	err := db.InTx(ctx, func(tx boxwatch.Tx) error {
		if _, err := tx.SetCustomField(ctx, boxwatch.CustomField{ID: boxwatch.NewID(base), AccountID: a.ID, DefinitionID: po.ID,
			EntityID: c.ID, Value: json.RawMessage(`"PO-8"`), CreatedAt: base, UpdatedAt: at(time.Hour)}); err != nil {
			return err
		}
		return rollback
	})
	if !errors.Is(err, rollback) {
		t.Fatalf("InTx = %v", err)
	}
	if got, _ := db.CustomField(ctx, a.ID, set.ID); string(got.Value) != `"PO-7"` {
		t.Errorf("after the rollback: %s", got.Value)
	}

	// A definition that is gone, or another account's, takes no value.
	b := MustCreateAccount(t, db, "globex")
	for name, f := range map[string]boxwatch.CustomField{
		"Unknown":      {DefinitionID: boxwatch.NewID(base), AccountID: a.ID},
		"OtherAccount": {DefinitionID: po.ID, AccountID: b.ID},
	} {
		f.ID, f.EntityID, f.Value, f.CreatedAt, f.UpdatedAt = boxwatch.NewID(base), c.ID, json.RawMessage(`"x"`), base, base
		err := db.InTx(ctx, func(tx boxwatch.Tx) error { _, err := tx.SetCustomField(ctx, f); return err })
		if !errors.Is(err, boxwatch.ErrNotFound) {
			t.Errorf("%s definition: %v", name, err)
		}
	}

	tr := newTR(a.ID, "MEDUFR030809", "MSCU", base)
	tr.InitialCustomFields = []boxwatch.StagedCustomField{
		{DefinitionID: po.ID, EntityType: boxwatch.EntityContainer, Number: "MSCU1234565", Value: json.RawMessage(`"PO-9"`)},
		{DefinitionID: po.ID, EntityType: boxwatch.EntityShipment, Value: json.RawMessage(`["a","b"]`)},
	}
	mustCreateTR(t, db, tr)
	// Values are JSON: compared as values, since PostgreSQL writes jsonb its own way.
	decoded := func(list []boxwatch.StagedCustomField) []any {
		var out []any
		for _, f := range list {
			var v any
			json.Unmarshal(f.Value, &v)
			out = append(out, []any{f.DefinitionID, f.EntityType, f.Number, v})
		}
		return out
	}
	if got, err := db.TrackingRequest(ctx, a.ID, tr.ID); err != nil || !reflect.DeepEqual(decoded(got.InitialCustomFields), decoded(tr.InitialCustomFields)) {
		t.Fatalf("staged values: %+v, %v; want %+v", got.InitialCustomFields, err, tr.InitialCustomFields)
	}
}
