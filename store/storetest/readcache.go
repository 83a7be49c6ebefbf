package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
)

// readCacheDeadline bounds how long a store may serve a row another store changed: on
// PostgreSQL the notification's delay (milliseconds). On SQLite nothing: the change is seen by
// the first read after it.
const readCacheDeadline = 10 * time.Second

// journey is one shipment of a test: its request, shipment, one container and one milestone.
type journey struct {
	tr boxwatch.TrackingRequest
	s  boxwatch.Shipment
	c  boxwatch.Container
	e  boxwatch.TransportEvent
	// term is a terminal at the shipment's port of lading: shared reference data, cached too.
	term boxwatch.Terminal
	// def is a custom field definition of the account, opt an option of it.
	def boxwatch.CustomFieldDefinition
	opt boxwatch.CustomFieldOption
	// field is the definition's value on the shipment; hook and party are the account's.
	field boxwatch.CustomField
	hook  boxwatch.Webhook
	party boxwatch.Party
	// vessel has no MMSI of its own: static reports give its IMO number mmsi, heard at a position.
	vessel boxwatch.Vessel
	mmsi   string
	// notes are the hook's two notifications of one subject, the second waiting behind the
	// first; event is the first's.
	notes [2]string
	event boxwatch.Event
}

func mustCreateJourney(t *testing.T, db *store.DB, accountID, number string) journey {
	t.Helper()
	s := mustCreateShipment(t, db, accountID, number, at(time.Minute))
	tr, err := db.TrackingRequest(ctx, accountID, s.TrackingRequestID)
	if err != nil {
		t.Fatal(err)
	}
	c := mustSaveContainer(t, db, newContainer(s, "MSCU"+number[len(number)-7:], at(time.Minute)))
	e := mustInsertTransportEvent(t, db, newTransportEvent(c, "container.transport.vessel_loaded", "CNSHA", at(time.Hour)))
	term := boxwatch.Terminal{ID: boxwatch.TerminalID("CNSHA", "W"+number[len(number)-4:]), LOCODE: "CNSHA", SMDGCode: "W" + number[len(number)-4:],
		Name: "Waigaoqiao", CreatedAt: at(time.Minute), UpdatedAt: at(time.Minute)}
	mustInTx(t, db, func(tx boxwatch.Tx) error { return tx.SaveTerminal(ctx, term) })
	def := mustCreateDefinition(t, db, newDefinition(accountID, boxwatch.EntityShipment, "mode", boxwatch.DataEnum, at(time.Minute)))
	opt := boxwatch.CustomFieldOption{ID: boxwatch.NewID(at(time.Minute)), AccountID: accountID, DefinitionID: def.ID, Label: "By sea",
		Value: "sea", CreatedAt: at(time.Minute), UpdatedAt: at(time.Minute)}
	if err := db.CreateCustomFieldOption(ctx, opt); err != nil {
		t.Fatal(err)
	}
	field, err := db.SetCustomField(ctx, boxwatch.CustomField{ID: boxwatch.NewID(at(time.Minute)), AccountID: accountID, DefinitionID: def.ID,
		EntityID: s.ID, Value: []byte(`"sea"`), CreatedAt: at(time.Minute), UpdatedAt: at(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	hook := mustCreateWebhook(t, db, newWebhook(accountID, at(time.Minute), "container.transport.vessel_loaded"))
	party := mustCreateParty(t, db, newParty(accountID, "Acme Imports", at(time.Minute)))
	// The identity before the vessel, so that the vessel's row keeps no MMSI and every read looks
	// its IMO number up.
	imo, mmsi := "9"+number[len(number)-6:], "21"+number[len(number)-7:]
	if err := db.SaveVesselIdentities(ctx, []boxwatch.VesselIdentity{{MMSI: mmsi, IMO: imo, Name: "EVER ACME"}}, at(time.Minute)); err != nil {
		t.Fatal(err)
	}
	vessel := boxwatch.Vessel{ID: boxwatch.VesselID(imo), IMO: imo, Name: "EVER ACME"}
	mustSaveVessel(t, db, vessel)
	if err := db.SaveLastPositions(ctx, []boxwatch.VesselPosition{position(mmsi, time.Minute)}); err != nil {
		t.Fatal(err)
	}
	var notes [2]string
	var first boxwatch.Event
	for i := range notes {
		ev := newEvent(accountID, "container.transport.vessel_loaded", fmt.Sprint("rcache-", i), at(time.Minute))
		ev.ObjectID = tr.ID // one subject: the second waits behind the first
		ids := mustNotify(t, db, ev)
		if len(ids) != 1 {
			t.Fatalf("notify: %d notifications, want 1", len(ids))
		}
		notes[i] = ids[0]
		if i == 0 {
			first = ev
		}
	}
	return journey{tr, s, c, e, term, def, opt, field, hook, party, vessel, mmsi, notes, first}
}

// view is what a store answers for a journey through every read the cache serves.
func view(db *store.DB, accountID string, j journey) string {
	var b strings.Builder
	tr, err := db.TrackingRequest(ctx, accountID, j.tr.ID)
	fmt.Fprintf(&b, "tr %v %v %v|", tr.Status, tr.RefNumbers, err)
	s, err := db.Shipment(ctx, accountID, j.s.ID)
	fmt.Fprintf(&b, "s %v %v %v|", s.RefNumbers, s.Tags, err)
	full, err := db.ShipmentWithSnapshot(ctx, accountID, j.s.ID)
	fmt.Fprintf(&b, "full %v %v %v|", full.Tags, full.Snapshot.Booking, err)
	byID, err := db.ShipmentsByID(ctx, accountID, []string{j.s.ID})
	fmt.Fprintf(&b, "byid %v %v %v|", byID[j.s.ID].RefNumbers, byID[j.s.ID].Tags, err)
	c, err := db.Container(ctx, accountID, j.c.ID)
	fmt.Fprintf(&b, "c %v %v %v|", c.SealNumber, c.RefNumbers, err)
	cs, err := db.ShipmentContainers(ctx, accountID, j.s.ID)
	fmt.Fprintf(&b, "cs %v %v|", containerSeals(cs), err)
	byShipment, err := db.ContainersOfShipments(ctx, accountID, []string{j.s.ID})
	fmt.Fprintf(&b, "cos %v %v|", containerSeals(byShipment[j.s.ID]), err)
	byContainer, err := db.TransportEventsOfContainers(ctx, accountID, []string{j.c.ID})
	fmt.Fprintf(&b, "teoc %v %v|", eventValues(byContainer[j.c.ID]), err)
	list, total, err := db.TransportEvents(ctx, accountID, j.c.ID, boxwatch.Page{Number: 1, Size: 10})
	fmt.Fprintf(&b, "te %v %d %v|", eventValues(list), total, err)
	term, err := db.Terminal(ctx, j.term.ID)
	fmt.Fprintf(&b, "term %v %v|", term.Name, err)
	atPorts, err := db.TerminalsAtPorts(ctx, []string{j.term.LOCODE})
	fmt.Fprintf(&b, "tap %v %v|", fieldOf(atPorts[j.term.LOCODE], func(t boxwatch.Terminal) string { return t.SMDGCode + "=" + t.Name }), err)
	def, err := db.CustomFieldDefinition(ctx, accountID, j.def.ID)
	fmt.Fprintf(&b, "def %v %v|", def.DisplayName, err)
	opt, err := db.CustomFieldOption(ctx, accountID, j.def.ID, j.opt.ID)
	fmt.Fprintf(&b, "opt %v %v|", opt.Label, err)
	opts, err := db.CustomFieldOptions(ctx, accountID, j.def.ID)
	fmt.Fprintf(&b, "opts %v %v|", fieldOf(opts, func(o boxwatch.CustomFieldOption) string { return o.Value + "=" + o.Label }), err)
	field, err := db.CustomField(ctx, accountID, j.field.ID)
	fmt.Fprintf(&b, "field %s %s %s %v|", field.APISlug, field.EntityType, field.Value, err)
	hook, err := db.Webhook(ctx, accountID, j.hook.ID)
	fmt.Fprintf(&b, "hook %v %v %v %v|", hook.URL, hook.Active, hook.DeactivatedReason, err)
	party, err := db.Party(ctx, accountID, j.party.ID)
	fmt.Fprintf(&b, "party %v %v|", party.CompanyName, err)
	v, err := db.Vessel(ctx, j.vessel.IMO)
	fmt.Fprintf(&b, "vessel %v %v %v %v|", v.Name, v.MMSI, positionOf(v.Position), err)
	vesselByID, err := db.Vessel(ctx, j.vessel.ID)
	fmt.Fprintf(&b, "vessel by id %v %v %v %v|", vesselByID.Name, vesselByID.MMSI, positionOf(vesselByID.Position), err)
	for _, id := range j.notes {
		n, err := db.Notification(ctx, accountID, id)
		fmt.Fprintf(&b, "note %v %v %v %v|", n.DeliveryStatus, n.Attempts, n.NextAttemptAt, err)
	}
	events, err := db.EventsByID(ctx, accountID, []string{j.event.ID})
	fmt.Fprintf(&b, "event %v %v", events[j.event.ID].ObjectID, err)
	return b.String()
}

func positionOf(p *boxwatch.VesselPosition) string {
	if p == nil {
		return "nowhere"
	}
	return fmt.Sprintf("%v,%v@%v", p.Latitude, p.Longitude, p.Timestamp.UnixMilli())
}

func containerSeals(cs []boxwatch.Container) []string {
	return fieldOf(cs, func(c boxwatch.Container) string {
		return c.Number + "/" + c.SealNumber + "/" + strings.Join(c.RefNumbers, "+")
	})
}

func eventValues(es []boxwatch.TransportEvent) []string {
	return fieldOf(es, func(e boxwatch.TransportEvent) string { return e.Event + "@" + e.LOCODE + "=" + e.Value })
}

// rawExec runs a statement written with ? placeholders straight on the database, bypassing the
// store: as an operator's psql session, or a process this store does not know, would.
func rawExec(t *testing.T, db *store.DB, q string, args ...any) {
	t.Helper()
	if err := rawExecErr(db, q, args...); err != nil {
		t.Fatal(err)
	}
}

// rawExecErr is rawExec for another goroutine than the test's: it returns the error.
func rawExecErr(db *store.DB, q string, args ...any) error {
	var err error
	if db.Dialect() == store.Postgres {
		pq := q
		for i := 1; strings.Contains(pq, "?"); i++ {
			pq = strings.Replace(pq, "?", fmt.Sprintf("$%d", i), 1)
		}
		_, err = db.Pool().Exec(ctx, pq, args...)
	} else {
		_, err = db.SQLWriter().ExecContext(ctx, q, args...)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	return nil
}

// testReadCacheAcrossStores: two stores on one database (two replicas) each read a journey
// (filling their caches), then one changes it, by every kind of write, through the store or
// by raw SQL. The writer sees its write at once; the other store within the notification's
// delay, logged, on PostgreSQL, and at once on SQLite, where the other store, a raw connection
// and the writer's own connection behind the store's back all count as another writer. Deletes
// and cascades included.
func testReadCacheAcrossStores(t *testing.T, b Backend) {
	dsn := b.DSN(t)
	var dbs []*store.DB
	for _, o := range []store.Options{{}, {}, {DisableReadCache: true}} {
		db, err := store.OpenWith(ctx, dsn, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs = append(dbs, db)
	}
	writer, reader, truth := dbs[0], dbs[1], dbs[2] // truth reads the database, always
	dbs = dbs[:2]
	a := MustCreateAccount(t, writer, "acme")
	j := mustCreateJourney(t, writer, a.ID, "RCACHE0000001")
	waitLive(t, dbs...)
	var delays []time.Duration
	// step fills both caches, writes, and waits until both stores answer what the database
	// holds. A write through the writing store shows there at once.
	step := func(name string, write func()) {
		t.Helper()
		for range 2 { // the second read comes from the cache on PostgreSQL
			view(writer, a.ID, j)
			view(reader, a.ID, j)
		}
		old := view(reader, a.ID, j)
		// Through the writing store: on PostgreSQL a write by raw SQL or by the other store reaches
		// the writing store's cache by notification, which may still be on its way.
		viaStore := !strings.Contains(name, "raw SQL") && !strings.Contains(name, "the other store")
		write()
		wrote := time.Now()
		want := view(truth, a.ID, j)
		if want == old {
			t.Fatalf("%s: the database still holds %s", name, old)
		}
		if got := view(writer, a.ID, j); (viaStore || b.Name == "sqlite") && got != want {
			t.Fatalf("%s: right after its write the writing store answers\n%s\nnot\n%s", name, got, want)
		}
		if got := view(reader, a.ID, j); b.Name == "sqlite" && got != want {
			t.Fatalf("%s: right after the write the other store answers\n%s\nnot\n%s", name, got, want)
		}
		for {
			got, gotWriter := view(reader, a.ID, j), view(writer, a.ID, j)
			if got == want && gotWriter == want {
				delays = append(delays, time.Since(wrote))
				t.Logf("%s: the other store saw it after %v", name, time.Since(wrote).Round(time.Microsecond))
				return
			}
			if time.Since(wrote) > readCacheDeadline {
				t.Fatalf("%s: after %v the stores answer\n%s\n%s\nwhile the database holds\n%s", name, readCacheDeadline, got, gotWriter, want)
			}
			time.Sleep(time.Millisecond)
		}
	}
	now := at(2 * time.Hour)
	var rawNow any = now // a time as raw SQL writes it: SQLite's columns hold microseconds
	if writer.Dialect() == store.SQLite {
		rawNow = now.UnixMicro()
	}
	step("tracking request and shipment ref numbers (store)", func() {
		if _, err := writer.SetTrackingRequestRefNumbers(ctx, a.ID, j.tr.ID, []string{"PO-1"}, now); err != nil {
			t.Fatal(err)
		}
	})
	step("tracking request state (store, in a transaction)", func() {
		mustInTx(t, writer, func(tx boxwatch.Tx) error {
			tr, err := tx.LockTrackingRequest(ctx, j.tr.ID)
			if err != nil {
				return err
			}
			tr.Status, tr.FailedReason, tr.UpdatedAt = boxwatch.StatusTrackingStopped, "", now
			return tx.SaveTrackingRequestState(ctx, tr)
		})
	})
	step("shipment labels (store)", func() {
		if _, err := writer.SetShipmentLabels(ctx, a.ID, j.s.ID, nil, []string{"hot"}, now); err != nil {
			t.Fatal(err)
		}
	})
	step("shipment update (store, in a transaction)", func() {
		mustInTx(t, writer, func(tx boxwatch.Tx) error {
			s, err := tx.LockShipment(ctx, j.s.ID)
			if err != nil {
				return err
			}
			s.Tags = []string{"hot", "late"}
			return tx.UpdateShipment(ctx, s)
		})
	})
	step("container ref numbers (store)", func() {
		if _, err := writer.SetContainerRefNumbers(ctx, a.ID, j.c.ID, []string{"C-1"}, now); err != nil {
			t.Fatal(err)
		}
	})
	step("container update (store, in a transaction)", func() {
		c := j.c
		c.SealNumber = "SEAL1"
		mustSaveContainer(t, writer, c)
	})
	step("container insert (store)", func() {
		mustSaveContainer(t, writer, newContainer(j.s, "MSCU0000002", now))
	})
	step("transport event insert (store)", func() {
		mustInsertTransportEvent(t, writer, newTransportEvent(j.c, "container.transport.vessel_departed", "CNSHA", at(3*time.Hour)))
	})
	step("transport event value (store)", func() {
		mustInTx(t, writer, func(tx boxwatch.Tx) error {
			_, err := tx.SetTransportEventValue(ctx, j.c.ID, j.e.Event, j.e.LOCODE, j.e.Timestamp, "changed")
			return err
		})
	})
	step("tracking request (raw SQL)", func() {
		rawExec(t, writer, "UPDATE tracking_requests SET status = 'failed' WHERE id = ?", j.tr.ID)
	})
	step("shipment (raw SQL)", func() {
		rawExec(t, writer, `UPDATE shipments SET tags = '["raw"]' WHERE id = ?`, j.s.ID)
	})
	step("shipment snapshot (raw SQL)", func() {
		rawExec(t, writer, `UPDATE shipments SET snapshot = '{"Booking":"RAW"}' WHERE id = ?`, j.s.ID)
	})
	step("container (raw SQL)", func() {
		rawExec(t, writer, "UPDATE containers SET seal_number = 'RAW' WHERE id = ?", j.c.ID)
	})
	step("transport event (raw SQL)", func() {
		rawExec(t, writer, "UPDATE transport_events SET value = 'raw' WHERE id = ?", j.e.ID)
	})
	step("transport event delete (raw SQL)", func() {
		rawExec(t, writer, "DELETE FROM transport_events WHERE id = ?", j.e.ID)
	})
	step("container delete (raw SQL)", func() {
		rawExec(t, writer, "DELETE FROM containers WHERE number = 'MSCU0000002'")
	})
	step("tracking request (raw SQL on another connection)", func() {
		rawExec(t, truth, "UPDATE tracking_requests SET status = 'pending' WHERE id = ?", j.tr.ID)
	})
	step("container (raw SQL on another connection)", func() {
		rawExec(t, truth, "UPDATE containers SET seal_number = 'RAW2' WHERE id = ?", j.c.ID)
	})
	step("shipment labels (the other store)", func() {
		if _, err := reader.SetShipmentLabels(ctx, a.ID, j.s.ID, nil, []string{"cold"}, now); err != nil {
			t.Fatal(err)
		}
	})
	step("terminal name (store, in a transaction)", func() {
		term := j.term
		term.Name, term.UpdatedAt = "Waigaoqiao Phase 5", now
		mustInTx(t, writer, func(tx boxwatch.Tx) error { return tx.SaveTerminal(ctx, term) })
	})
	step("terminal insert at the port (store, in a transaction)", func() {
		term := boxwatch.Terminal{ID: boxwatch.TerminalID(j.term.LOCODE, "YSDS"), LOCODE: j.term.LOCODE, SMDGCode: "YSDS", Name: "Yangshan",
			CreatedAt: now, UpdatedAt: now}
		mustInTx(t, writer, func(tx boxwatch.Tx) error { return tx.SaveTerminal(ctx, term) })
	})
	step("terminal (raw SQL)", func() {
		rawExec(t, writer, "UPDATE terminals SET name = 'Raw' WHERE id = ?", j.term.ID)
	})
	step("terminal delete (raw SQL)", func() {
		rawExec(t, writer, "DELETE FROM terminals WHERE id = ?", j.term.ID)
	})
	step("custom field definition (store)", func() {
		d := j.def
		d.DisplayName, d.UpdatedAt = "Transport mode", now
		if err := writer.UpdateCustomFieldDefinition(ctx, d); err != nil {
			t.Fatal(err)
		}
	})
	step("custom field option (store)", func() {
		o := j.opt
		o.Label, o.UpdatedAt = "Ocean", now
		if err := writer.UpdateCustomFieldOption(ctx, o); err != nil {
			t.Fatal(err)
		}
	})
	step("custom field definition and option (raw SQL)", func() {
		rawExec(t, writer, "UPDATE custom_field_definitions SET display_name = 'Raw' WHERE id = ?", j.def.ID)
		rawExec(t, writer, "UPDATE custom_field_options SET label = 'Raw' WHERE id = ?", j.opt.ID)
	})
	step("custom field option insert (store)", func() {
		o := boxwatch.CustomFieldOption{ID: boxwatch.NewID(now), AccountID: a.ID, DefinitionID: j.def.ID, Label: "By air", Value: "air",
			CreatedAt: now, UpdatedAt: now}
		if err := writer.CreateCustomFieldOption(ctx, o); err != nil {
			t.Fatal(err)
		}
	})
	step("custom field option insert (raw SQL)", func() {
		rawExec(t, writer, `INSERT INTO custom_field_options (id, account_id, definition_id, label, value, created_at, updated_at)
			VALUES (?, ?, ?, 'By rail', 'rail', ?, ?)`, boxwatch.NewID(now), a.ID, j.def.ID, rawNow, rawNow)
	})
	step("custom field option delete (store)", func() {
		if err := writer.DeleteCustomFieldOption(ctx, a.ID, j.def.ID, j.opt.ID); err != nil {
			t.Fatal(err)
		}
	})
	step("custom field value (store)", func() {
		if _, err := writer.SetCustomField(ctx, boxwatch.CustomField{ID: boxwatch.NewID(now), AccountID: a.ID, DefinitionID: j.def.ID,
			EntityID: j.s.ID, Value: []byte(`"air"`), CreatedAt: now, UpdatedAt: now}); err != nil {
			t.Fatal(err)
		}
	})
	step("custom field value (store, in a transaction)", func() {
		mustInTx(t, writer, func(tx boxwatch.Tx) error {
			_, err := tx.SetCustomField(ctx, boxwatch.CustomField{ID: boxwatch.NewID(now), AccountID: a.ID, DefinitionID: j.def.ID,
				EntityID: j.s.ID, Value: []byte(`"rail"`), CreatedAt: now, UpdatedAt: now})
			return err
		})
	})
	step("custom field value (raw SQL)", func() {
		rawExec(t, writer, `UPDATE custom_fields SET value = '"raw"' WHERE id = ?`, j.field.ID)
	})
	step("custom field definition slug (raw SQL)", func() {
		rawExec(t, writer, "UPDATE custom_field_definitions SET api_slug = 'rawslug' WHERE id = ?", j.def.ID)
	})
	step("custom field value delete (store)", func() {
		if err := writer.DeleteCustomField(ctx, a.ID, j.field.ID); err != nil {
			t.Fatal(err)
		}
	})
	step("custom field value insert (raw SQL)", func() {
		rawExec(t, writer, `INSERT INTO custom_fields (id, account_id, definition_id, entity_id, value, created_at, updated_at)
			VALUES (?, ?, ?, ?, '"sea"', ?, ?)`, j.field.ID, a.ID, j.def.ID, j.s.ID, rawNow, rawNow)
	})
	step("webhook (store)", func() {
		w := j.hook
		w.URL, w.UpdatedAt = "https://93.184.216.34/moved", now
		if err := writer.UpdateWebhook(ctx, w); err != nil {
			t.Fatal(err)
		}
	})
	step("webhook state (store, in a transaction)", func() {
		w := j.hook
		w.URL, w.Active, w.DeactivatedReason, w.UpdatedAt = "https://93.184.216.34/moved", false, "failing", now
		mustInTx(t, writer, func(tx boxwatch.Tx) error { return tx.SaveWebhookState(ctx, w) })
	})
	step("webhook (raw SQL)", func() {
		rawExec(t, writer, "UPDATE webhooks SET url = 'https://93.184.216.34/raw' WHERE id = ?", j.hook.ID)
	})
	step("last position (store)", func() {
		if err := writer.SaveLastPositions(ctx, []boxwatch.VesselPosition{position(j.mmsi, time.Hour)}); err != nil {
			t.Fatal(err)
		}
	})
	step("last position (raw SQL)", func() {
		rawExec(t, writer, "UPDATE vessel_last_positions SET latitude = 50 WHERE mmsi = ?", j.mmsi)
	})
	step("vessel name (store, in a transaction)", func() {
		v := j.vessel
		v.Name = "EVER ACME II"
		mustSaveVessel(t, writer, v)
	})
	step("vessel (raw SQL)", func() {
		rawExec(t, writer, "UPDATE vessels SET name = 'RAW' WHERE imo = ?", j.vessel.IMO)
	})
	step("an IMO number's MMSI, another heard later (raw SQL)", func() {
		rawExec(t, writer, "INSERT INTO vessel_identities (mmsi, imo, name, call_sign, updated_at) VALUES ('299999999', ?, '', '', ?)",
			j.vessel.IMO, rawNow)
	})
	step("an IMO number's MMSI, the first heard again (raw SQL)", func() {
		later := any(now.Add(time.Minute))
		if writer.Dialect() == store.SQLite {
			later = now.Add(time.Minute).UnixMicro()
		}
		rawExec(t, writer, "UPDATE vessel_identities SET updated_at = ? WHERE mmsi = ?", later, j.mmsi)
	})
	step("an IMO number's MMSI, the second heard again (store)", func() {
		// Later than the raw rows, and its vessel learns it.
		if err := writer.SaveVesselIdentities(ctx, []boxwatch.VesselIdentity{{MMSI: "299999999", IMO: j.vessel.IMO}}, at(3*time.Hour)); err != nil {
			t.Fatal(err)
		}
	})
	step("delivery failed, retry scheduled (store, in a transaction)", func() {
		mustInTx(t, writer, func(tx boxwatch.Tx) error {
			n, err := tx.LockNotification(ctx, j.notes[0])
			if err != nil {
				return err
			}
			n.Attempts, n.NextAttemptAt, n.UpdatedAt = n.Attempts+1, at(3*time.Hour), now
			if err := tx.SaveNotification(ctx, n); err != nil {
				return err
			}
			return tx.AddDeliveryAttempt(ctx, boxwatch.DeliveryAttempt{ID: boxwatch.NewID(now), NotificationID: j.notes[0], At: now, StatusCode: 500})
		})
	})
	step("delivery succeeded, the next of its subject due (store)", func() {
		if err := writer.RecordDelivered(ctx, boxwatch.DeliveryAttempt{ID: boxwatch.NewID(now), NotificationID: j.notes[0], At: now,
			StatusCode: 204}, nil, now); err != nil {
			t.Fatal(err)
		}
	})
	step("delivery failed for good (store, in a transaction)", func() {
		mustInTx(t, writer, func(tx boxwatch.Tx) error {
			n, err := tx.LockNotification(ctx, j.notes[1])
			if err != nil {
				return err
			}
			n.DeliveryStatus, n.Attempts, n.NextAttemptAt, n.UpdatedAt = boxwatch.DeliveryFailed, n.Attempts+1, time.Time{}, now
			return tx.SaveNotification(ctx, n)
		})
	})
	step("redelivery requested (store, in a transaction)", func() {
		mustInTx(t, writer, func(tx boxwatch.Tx) error {
			_, err := tx.RequeueNotifications(ctx, j.hook.ID, base, now)
			return err
		})
	})
	step("notification (raw SQL)", func() {
		rawExec(t, writer, "UPDATE webhook_notifications SET attempts = 7 WHERE id = ?", j.notes[1])
	})
	step("event (raw SQL)", func() {
		rawExec(t, writer, "UPDATE events SET object_id = 'raw' WHERE id = ?", j.event.ID)
	})
	step("finished notification and its event deleted (store)", func() {
		if n, err := writer.DeleteFinishedNotifications(ctx, at(1000*time.Hour), 100); err != nil || n == 0 {
			t.Fatalf("deleted %d notifications: %v", n, err)
		}
		if n, err := writer.DeleteEventsBefore(ctx, at(1000*time.Hour), 100); err != nil || n == 0 {
			t.Fatalf("deleted %d events: %v", n, err)
		}
	})
	step("webhook delete (store)", func() {
		if err := writer.DeleteWebhook(ctx, a.ID, j.hook.ID); err != nil {
			t.Fatal(err)
		}
	})
	step("party rename (store)", func() {
		if _, err := writer.RenameParty(ctx, a.ID, j.party.ID, "Acme Holdings", now); err != nil {
			t.Fatal(err)
		}
	})
	step("party (raw SQL)", func() {
		rawExec(t, writer, "UPDATE parties SET company_name = 'Raw' WHERE id = ?", j.party.ID)
	})
	step("party delete (raw SQL)", func() {
		rawExec(t, writer, "DELETE FROM parties WHERE id = ?", j.party.ID)
	})
	step("custom field definition delete, with its option (store)", func() {
		if err := writer.DeleteCustomFieldDefinition(ctx, a.ID, j.def.ID); err != nil {
			t.Fatal(err)
		}
	})
	if b.Name == "sqlite" {
		// The writer's connection enforces foreign keys: the shipment, its containers and their
		// events go with the request, and none is named by the statement.
		step("tracking request delete, cascading (raw SQL)", func() {
			rawExec(t, writer, "DELETE FROM tracking_requests WHERE id = ?", j.tr.ID)
		})
	} else {
		step("shipment and tracking request delete (raw SQL)", func() {
			rawExec(t, writer, "DELETE FROM transport_events WHERE shipment_id = ?", j.s.ID)
			rawExec(t, writer, "DELETE FROM containers WHERE shipment_id = ?", j.s.ID)
			rawExec(t, writer, "DELETE FROM shipments WHERE id = ?", j.s.ID)
			rawExec(t, writer, "DELETE FROM tracking_requests WHERE id = ?", j.tr.ID)
		})
	}
	if final, _, _ := strings.Cut(view(reader, a.ID, j), "|"); !strings.Contains(final, "not found") {
		t.Errorf("after the deletes the other store answers %s", final)
	}
	slices.Sort(delays)
	t.Logf("%s: another store saw each of %d writes after %v at most (median %v)", b.Name, len(delays), delays[len(delays)-1], delays[len(delays)/2])
	st := reader.ReadCacheStats()
	hits, misses := st.Hits, st.Misses
	t.Logf("reader's cache: %d hits, %d misses", hits, misses)
	if hits == 0 {
		t.Error("the reader's cache answered no read: the test exercised nothing")
	}
	if !st.On || !st.Live {
		t.Errorf("the reader's cache is not on and live: %+v", st)
	}
}

// waitLive waits until the stores' read caches answer (their listeners are connected), so a
// test on PostgreSQL exercises the cache.
func waitLive(t *testing.T, dbs ...*store.DB) {
	t.Helper()
	deadline := time.Now().Add(readCacheDeadline)
	for _, db := range dbs {
		for {
			a := MustCreateAccount(t, db, "probe-"+boxwatch.NewID(base))
			s := mustCreateShipment(t, db, a.ID, "PROBE"+boxwatch.NewID(base)[:8], base)
			h0 := db.ReadCacheStats().Hits
			db.Shipment(ctx, a.ID, s.ID)
			db.Shipment(ctx, a.ID, s.ID)
			if db.ReadCacheStats().Hits > h0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the read cache did not start within %v", readCacheDeadline)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// testReadCacheScoping: a cached row answers only its account, and every read returns a copy
// the caller may change without changing what the next read returns.
func testReadCacheScoping(t *testing.T, db *store.DB) {
	acme := MustCreateAccount(t, db, "acme")
	other := MustCreateAccount(t, db, "other")
	j := mustCreateJourney(t, db, acme.ID, "RSCOPE0000001")
	if db.Dialect() == store.Postgres {
		waitLive(t, db)
	}
	mine := view(db, acme.ID, j)
	for range 2 {
		if got := view(db, other.ID, j); strings.Contains(got, j.c.Number) || strings.Count(got, "not found") != 12 ||
			strings.Contains(got, j.opt.Label) {
			t.Fatalf("another account reads the journey: %s", got)
		}
		if got := view(db, acme.ID, j); got != mine {
			t.Fatalf("after another account's reads, the owner reads\n%s\nnot\n%s", got, mine)
		}
	}
	s, _ := db.Shipment(ctx, acme.ID, j.s.ID)
	s.RefNumbers = append(s.RefNumbers, "MUTATED")
	s.Tags = append(s.Tags[:0:0], "MUTATED")
	if len(s.Route) > 0 {
		s.Route[0].LOCODE = "MUTATED"
	}
	cs, _ := db.ShipmentContainers(ctx, acme.ID, j.s.ID)
	cs[0].SealNumber = "MUTATED"
	es, _ := db.TransportEventsOfContainers(ctx, acme.ID, []string{j.c.ID})
	es[j.c.ID][0].Value = "MUTATED"
	tr, _ := db.TrackingRequest(ctx, acme.ID, j.tr.ID)
	tr.RefNumbers = append(tr.RefNumbers, "MUTATED")
	if got := view(db, acme.ID, j); got != mine || strings.Contains(got, "MUTATED") {
		t.Fatalf("a caller's change to what it read reached the next read:\n%s", got)
	}
}

// testRenderedDocuments: a document kept under a stamp of the rows it shows answers until one of
// them is written, by the store, another store on the database or raw SQL, and from then on
// never: on PostgreSQL once the notification arrives, on SQLite at once.
func testRenderedDocuments(t *testing.T, b Backend) {
	dsn := b.DSN(t)
	var dbs []*store.DB
	for range 2 {
		db, err := store.OpenWith(ctx, dsn, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs = append(dbs, db)
	}
	db, other := dbs[0], dbs[1]
	a := MustCreateAccount(t, db, "acme")
	s := mustCreateShipment(t, db, a.ID, "RENDER0000001", at(time.Minute))
	waitLive(t, db)
	keep := func() {
		t.Helper()
		deadline := time.Now().Add(readCacheDeadline)
		for {
			stamp := db.StampReads(store.ShipmentRead(s.ID))
			stamp = db.ExtendStamp(stamp, store.ShipmentContainersRead(s.ID))
			if _, err := db.Shipment(ctx, a.ID, s.ID); err != nil {
				t.Fatal(err)
			}
			db.StoreRender(stamp, "doc", a.ID, store.Render{Parts: [][]byte{[]byte("{}")}})
			if _, ok := db.CachedRender("doc", a.ID); ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("no document was kept")
			}
			time.Sleep(time.Millisecond)
		}
	}
	gone := func(name string) {
		t.Helper()
		deadline := time.Now().Add(readCacheDeadline)
		for {
			if _, ok := db.CachedRender("doc", a.ID); !ok {
				return
			}
			if b.Name == "sqlite" || time.Now().After(deadline) {
				t.Fatalf("%s: the document kept before it still answers", name)
			}
			time.Sleep(time.Millisecond)
		}
	}
	keep()
	if _, ok := db.CachedRender("doc", "another account"); ok {
		t.Error("a document answered another account")
	}
	if _, err := db.SetShipmentLabels(ctx, a.ID, s.ID, nil, []string{"a"}, at(time.Hour)); err != nil {
		t.Fatal(err)
	}
	gone("the shipment written by the store")
	keep()
	if _, err := other.SetShipmentLabels(ctx, a.ID, s.ID, nil, []string{"b"}, at(time.Hour)); err != nil {
		t.Fatal(err)
	}
	gone("the shipment written by another store")
	keep()
	mustSaveContainer(t, other, newContainer(s, "MSCU0000003", at(time.Hour)))
	gone("a container of the shipment inserted by another store")
	keep()
	rawExec(t, other, `UPDATE shipments SET tags = '["raw"]' WHERE id = ?`, s.ID)
	gone("the shipment written by raw SQL")
}
