package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// TestReadCacheOwnWrites: every write through a store evicts what it changed from the store's
// own cache before it returns, without waiting for the notification. The writing store's cache
// hears no notification at all here, so a write that left its own eviction to the trigger
// leaves the next read stale, and the test fails.
func TestReadCacheOwnWrites(t *testing.T) {
	storetest.RequirePostgres(t)
	ctx := context.Background()
	dsn := storetest.Postgres.DSN(t)
	var dbs []*store.DB
	for range 2 {
		db, err := store.OpenWith(ctx, dsn, store.Options{DisableReadCache: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs = append(dbs, db)
	}
	writer, truth := dbs[0], dbs[1]
	writer.DeafenReadCache()

	a := storetest.MustCreateAccount(t, writer, "acme")
	now := time.Now().UTC().Truncate(time.Millisecond)
	hook := boxwatch.Webhook{ID: boxwatch.NewID(now), AccountID: a.ID, URL: "https://93.184.216.34/hook", Active: true,
		Events: []string{"tracking_request.succeeded"}, Headers: []boxwatch.WebhookHeader{}, Secret: "s", CreatedAt: now, UpdatedAt: now}
	party := boxwatch.Party{ID: boxwatch.NewID(now), AccountID: a.ID, CompanyName: "Acme Imports", CreatedAt: now, UpdatedAt: now}
	def := boxwatch.CustomFieldDefinition{ID: boxwatch.NewID(now), AccountID: a.ID, EntityType: boxwatch.EntityShipment, APISlug: "mode",
		DisplayName: "Mode", DataType: boxwatch.DataEnum, CreatedAt: now, UpdatedAt: now}
	opt := boxwatch.CustomFieldOption{ID: boxwatch.NewID(now), AccountID: a.ID, DefinitionID: def.ID, Label: "By sea", Value: "sea",
		CreatedAt: now, UpdatedAt: now}
	entity := boxwatch.NewID(now)
	field := boxwatch.CustomField{ID: boxwatch.NewID(now), AccountID: a.ID, DefinitionID: def.ID, EntityID: entity, Value: []byte(`"sea"`),
		CreatedAt: now, UpdatedAt: now}
	for _, err := range []error{writer.CreateWebhook(ctx, hook), writer.CreateParty(ctx, party), writer.CreateCustomFieldDefinition(ctx, def),
		writer.CreateCustomFieldOption(ctx, opt)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := writer.SetCustomField(ctx, field); err != nil {
		t.Fatal(err)
	}

	view := func(db *store.DB) string {
		var b strings.Builder
		w, err := db.Webhook(ctx, a.ID, hook.ID)
		fmt.Fprintf(&b, "hook %v %v %v|", w.URL, w.Active, err)
		p, err := db.Party(ctx, a.ID, party.ID)
		fmt.Fprintf(&b, "party %v %v|", p.CompanyName, err)
		f, err := db.CustomField(ctx, a.ID, field.ID)
		fmt.Fprintf(&b, "field %s %v|", f.Value, err)
		opts, err := db.CustomFieldOptions(ctx, a.ID, def.ID)
		for _, o := range opts {
			fmt.Fprintf(&b, "%s=%s ", o.Value, o.Label)
		}
		fmt.Fprintf(&b, "%v", err)
		return b.String()
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	later := now.Add(time.Minute)
	for _, w := range []struct {
		name  string
		write func()
	}{
		{"webhook update", func() {
			h := hook
			h.URL = "https://93.184.216.34/moved"
			must(writer.UpdateWebhook(ctx, h))
		}},
		{"webhook state, in a transaction", func() {
			h := hook
			h.Active = false
			must(writer.InTx(ctx, func(tx boxwatch.Tx) error { return tx.SaveWebhookState(ctx, h) }))
		}},
		{"party rename", func() {
			_, err := writer.RenameParty(ctx, a.ID, party.ID, "Acme Holdings", later)
			must(err)
		}},
		{"custom field value", func() {
			f := field
			f.ID, f.Value = boxwatch.NewID(later), []byte(`"air"`) // the stored row keeps its id
			_, err := writer.SetCustomField(ctx, f)
			must(err)
		}},
		{"custom field value, in a transaction", func() {
			f := field
			f.Value = []byte(`"rail"`)
			must(writer.InTx(ctx, func(tx boxwatch.Tx) error { _, err := tx.SetCustomField(ctx, f); return err }))
		}},
		{"option insert", func() {
			must(writer.CreateCustomFieldOption(ctx, boxwatch.CustomFieldOption{ID: boxwatch.NewID(later), AccountID: a.ID, DefinitionID: def.ID,
				Label: "By air", Value: "air", CreatedAt: later, UpdatedAt: later}))
		}},
		{"option update", func() {
			o := opt
			o.Label, o.UpdatedAt = "Ocean", later
			must(writer.UpdateCustomFieldOption(ctx, o))
		}},
		{"option delete", func() { must(writer.DeleteCustomFieldOption(ctx, a.ID, def.ID, opt.ID)) }},
		{"custom field delete", func() { must(writer.DeleteCustomField(ctx, a.ID, field.ID)) }},
		{"webhook delete", func() { must(writer.DeleteWebhook(ctx, a.ID, hook.ID)) }},
		{"definition delete", func() { must(writer.DeleteCustomFieldDefinition(ctx, a.ID, def.ID)) }},
	} {
		view(writer)
		old := view(writer)
		w.write()
		want := view(truth)
		if want == old {
			t.Fatalf("%s: the database still holds %s", w.name, old)
		}
		if got := view(writer); got != want {
			t.Fatalf("%s: right after its write the writing store answers\n%s\nnot\n%s", w.name, got, want)
		}
	}
	if st := writer.ReadCacheStats(); st.Hits == 0 {
		t.Fatalf("the writer's cache answered no read: %+v", st)
	}
}
