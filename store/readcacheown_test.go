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
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// A vessel whose MMSI only static reports give, heard at a position, and another not heard
	// yet; the webhook's two notifications of one subject, the second waiting behind the first.
	imo, otherIMO, mmsi := "9000017", "9000029", "211000017"
	must(writer.SaveVesselIdentities(ctx, []boxwatch.VesselIdentity{{MMSI: mmsi, IMO: imo}}, now))
	vessel := boxwatch.Vessel{ID: boxwatch.VesselID(imo), IMO: imo, Name: "EVER ACME"}
	must(writer.InTx(ctx, func(tx boxwatch.Tx) error {
		if err := tx.SaveVessel(ctx, vessel, now); err != nil {
			return err
		}
		return tx.SaveVessel(ctx, boxwatch.Vessel{ID: boxwatch.VesselID(otherIMO), IMO: otherIMO, Name: "EVER OTHER"}, now)
	}))
	must(writer.SaveLastPositions(ctx, []boxwatch.VesselPosition{{MMSI: mmsi, Latitude: 1, Longitude: 2, Timestamp: now}}))
	var notes, events []string
	for i := range 2 {
		ev := boxwatch.Event{ID: boxwatch.NewID(now), AccountID: a.ID, Name: "tracking_request.succeeded", ObjectType: "tracking_request",
			ObjectID: entity, Key: fmt.Sprint("own-", i), CreatedAt: now}
		must(writer.InTx(ctx, func(tx boxwatch.Tx) error {
			if _, err := tx.AppendEvent(ctx, ev); err != nil {
				return err
			}
			ids, err := tx.Notify(ctx, ev)
			notes = append(notes, ids...)
			return err
		}))
		events = append(events, ev.ID)
	}
	if len(notes) != 2 {
		t.Fatalf("%d notifications, want 2", len(notes))
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
		for _, imo := range []string{imo, otherIMO} {
			v, err := db.Vessel(ctx, imo)
			fmt.Fprintf(&b, "|vessel %v %v %v", v.Name, v.MMSI, err)
			if v.Position != nil {
				fmt.Fprintf(&b, " at %v,%v", v.Position.Latitude, v.Position.Longitude)
			}
		}
		for _, id := range notes {
			n, err := db.Notification(ctx, a.ID, id)
			fmt.Fprintf(&b, "|note %v %v %v %v", n.DeliveryStatus, n.Attempts, n.NextAttemptAt, err)
		}
		evs, err := db.EventsByID(ctx, a.ID, events)
		fmt.Fprintf(&b, "|events %v %v %v", evs[events[0]].ObjectID, evs[events[1]].ObjectID, err)
		return b.String()
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
		{"last position", func() {
			must(writer.SaveLastPositions(ctx, []boxwatch.VesselPosition{{MMSI: mmsi, Latitude: 3, Longitude: 4, Timestamp: later}}))
		}},
		{"vessel name, in a transaction", func() {
			v := vessel
			v.Name = "EVER ACME II"
			must(writer.InTx(ctx, func(tx boxwatch.Tx) error { return tx.SaveVessel(ctx, v, later) }))
		}},
		{"an MMSI heard with another IMO number", func() {
			// The first vessel loses its MMSI, the second (which has no MMSI of its own) learns it.
			must(writer.SaveVesselIdentities(ctx, []boxwatch.VesselIdentity{{MMSI: mmsi, IMO: otherIMO}}, later))
		}},
		{"retry scheduled, in a transaction", func() {
			must(writer.InTx(ctx, func(tx boxwatch.Tx) error {
				n, err := tx.LockNotification(ctx, notes[0])
				if err != nil {
					return err
				}
				n.Attempts, n.NextAttemptAt, n.UpdatedAt = n.Attempts+1, later, later
				return tx.SaveNotification(ctx, n)
			}))
		}},
		{"claimed and given back", func() {
			ids, err := writer.ClaimDueNotifications(ctx, later, later.Add(time.Minute), 10, boxwatch.ClaimBounds{})
			must(err)
			if len(ids) != 1 || ids[0] != notes[0] {
				t.Fatalf("claimed %v, want %s", ids, notes[0])
			}
			must(writer.UnclaimNotification(ctx, notes[0], later.Add(time.Hour)))
		}},
		{"failed for good, the next of its subject due, in a transaction", func() {
			must(writer.InTx(ctx, func(tx boxwatch.Tx) error {
				n, err := tx.LockNotification(ctx, notes[0])
				if err != nil {
					return err
				}
				n.DeliveryStatus, n.Attempts, n.NextAttemptAt, n.UpdatedAt = boxwatch.DeliveryFailed, n.Attempts+1, time.Time{}, later
				return tx.SaveNotification(ctx, n)
			}))
		}},
		{"redelivery behind the next, in a transaction", func() {
			must(writer.InTx(ctx, func(tx boxwatch.Tx) error {
				_, err := tx.RequeueNotifications(ctx, hook.ID, now.Add(-time.Hour), later)
				return err
			}))
		}},
		{"delivered, the redelivery due", func() {
			must(writer.RecordDelivered(ctx, boxwatch.DeliveryAttempt{ID: boxwatch.NewID(later), NotificationID: notes[1], At: later,
				StatusCode: 204}, nil, later))
		}},
		{"finished notification and its event deleted", func() {
			if n, err := writer.DeleteFinishedNotifications(ctx, later.Add(time.Hour), 100); err != nil || n != 1 {
				t.Fatalf("deleted %d notifications (%v), want 1", n, err)
			}
			if n, err := writer.DeleteEventsBefore(ctx, later.Add(time.Hour), 100); err != nil || n != 1 {
				t.Fatalf("deleted %d events (%v), want 1", n, err)
			}
		}},
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
