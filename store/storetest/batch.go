package storetest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
)

// batchWorld is what the batch-read tests read: rows of account "acme" and, to show they stay
// out of acme's answers, rows of account "globex".
type batchWorld struct {
	acme, globex       boxwatch.Account
	acmeShipments      []boxwatch.Shipment // the first has two containers, the second none
	globexShipment     boxwatch.Shipment
	acmeContainers     []boxwatch.Container // of the first shipment, by number
	globexContainer    boxwatch.Container
	acmeEvents         []boxwatch.TransportEvent // on acmeContainers[0], oldest first
	imos               []string
	acmeEvent          boxwatch.Event
	globexEvent        boxwatch.Event
	acmeNotification   string // with two attempts
	globexNotification string
}

func seedBatchWorld(t *testing.T, db *store.DB) batchWorld {
	t.Helper()
	w := batchWorld{acme: MustCreateAccount(t, db, "acme"), globex: MustCreateAccount(t, db, "globex"), imos: []string{"9000001", "9000002"}}
	shipment := func(a boxwatch.Account, n int) boxwatch.Shipment {
		at := base.Add(time.Duration(n) * time.Minute)
		return boxwatch.Shipment{ID: boxwatch.NewID(at), AccountID: a.ID, SCAC: "MAEU", BillOfLading: fmt.Sprintf("MAEU%09d", n),
			RefNumbers: []string{}, Tags: []string{}, CreatedAt: at, UpdatedAt: at}
	}
	container := func(s boxwatch.Shipment, number string) boxwatch.Container {
		return boxwatch.Container{ID: boxwatch.NewID(base), AccountID: s.AccountID, ShipmentID: s.ID, Number: number,
			CurrentStatus: boxwatch.ContainerOnShip, CreatedAt: base, UpdatedAt: base}
	}
	w.acmeShipments = []boxwatch.Shipment{shipment(w.acme, 1), shipment(w.acme, 2)}
	w.globexShipment = shipment(w.globex, 3)
	w.acmeContainers = []boxwatch.Container{container(w.acmeShipments[0], "MSKU0000001"), container(w.acmeShipments[0], "MSKU0000002")}
	w.globexContainer = container(w.globexShipment, "MSKU0000003")
	for i, at := range []time.Time{base, base.Add(time.Hour)} {
		w.acmeEvents = append(w.acmeEvents, boxwatch.TransportEvent{ID: boxwatch.NewID(at), AccountID: w.acme.ID,
			ShipmentID: w.acmeShipments[0].ID, ContainerID: w.acmeContainers[0].ID, Event: "container.transport.vessel_loaded",
			Timestamp: at, LOCODE: fmt.Sprintf("ZZ%03d", i), VesselIMO: w.imos[i], DataSource: "shipping_line", CreatedAt: at})
	}
	globexTE := boxwatch.TransportEvent{ID: boxwatch.NewID(base), AccountID: w.globex.ID, ShipmentID: w.globexShipment.ID,
		ContainerID: w.globexContainer.ID, Event: "container.transport.vessel_loaded", Timestamp: base, LOCODE: "ZZ999",
		DataSource: "shipping_line", CreatedAt: base}
	event := func(a boxwatch.Account, s boxwatch.Shipment) boxwatch.Event {
		return boxwatch.Event{ID: boxwatch.NewID(base), AccountID: a.ID, Name: "container.transport.vessel_loaded",
			ObjectType: "transport_event", ObjectID: boxwatch.NewID(base), ShipmentID: s.ID, Key: "k:" + s.ID, CreatedAt: base}
	}
	w.acmeEvent, w.globexEvent = event(w.acme, w.acmeShipments[0]), event(w.globex, w.globexShipment)
	for _, a := range []boxwatch.Account{w.acme, w.globex} {
		hook := boxwatch.Webhook{ID: boxwatch.NewID(base), AccountID: a.ID, URL: "https://example.com/hook", Active: true,
			Events: []string{"container.transport.vessel_loaded"}, Headers: []boxwatch.WebhookHeader{}, Secret: "s", CreatedAt: base, UpdatedAt: base}
		if err := db.CreateWebhook(ctx, hook); err != nil {
			t.Fatal(err)
		}
	}
	err := db.InTx(ctx, func(tx boxwatch.Tx) error {
		for _, s := range append(slices.Clone(w.acmeShipments), w.globexShipment) {
			tr := newTR(s.AccountID, s.BillOfLading, s.SCAC, s.CreatedAt)
			if err := tx.CreateTrackingRequest(ctx, tr); err != nil {
				return err
			}
			s.TrackingRequestID = tr.ID
			if err := tx.InsertShipment(ctx, s); err != nil {
				return err
			}
		}
		// Stored out of number order, to show the answer is ordered.
		for _, c := range []boxwatch.Container{w.acmeContainers[1], w.acmeContainers[0], w.globexContainer} {
			if err := tx.SaveContainer(ctx, c); err != nil {
				return err
			}
		}
		for _, imo := range w.imos {
			if err := tx.SaveVessel(ctx, boxwatch.Vessel{ID: boxwatch.VesselID(imo), IMO: imo, Name: "Vessel " + imo}, base); err != nil {
				return err
			}
		}
		for _, e := range []boxwatch.TransportEvent{w.acmeEvents[1], w.acmeEvents[0], globexTE} {
			if _, err := tx.InsertTransportEvent(ctx, e); err != nil {
				return err
			}
		}
		for _, e := range []boxwatch.Event{w.acmeEvent, w.globexEvent} {
			if _, err := tx.AppendEvent(ctx, e); err != nil {
				return err
			}
			ids, err := tx.Notify(ctx, e)
			if err != nil {
				return err
			}
			if len(ids) != 1 {
				return fmt.Errorf("notify: %d notifications, want 1", len(ids))
			}
			if e.AccountID == w.acme.ID {
				w.acmeNotification = ids[0]
			} else {
				w.globexNotification = ids[0]
			}
			for _, at := range []time.Time{base.Add(time.Minute), base} {
				if err := tx.AddDeliveryAttempt(ctx, boxwatch.DeliveryAttempt{ID: boxwatch.NewID(at), NotificationID: ids[0], At: at,
					StatusCode: 500, Latency: time.Millisecond}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// testBatchReads checks every batch read: the account's rows keyed by id, other accounts' and
// unknown or malformed ids absent, related lists in their documented order, no ids no rows.
func testBatchReads(t *testing.T, db *store.DB) {
	w := seedBatchWorld(t, db)
	unknown := boxwatch.NewID(base)

	t.Run("ShipmentsByID", func(t *testing.T) {
		got, err := db.ShipmentsByID(ctx, w.acme.ID, []string{w.acmeShipments[0].ID, strings.ToUpper(w.acmeShipments[1].ID),
			w.acmeShipments[0].ID, w.globexShipment.ID, unknown, "not-an-id"})
		if err != nil {
			t.Fatal(err)
		}
		wantKeys(t, got, w.acmeShipments[0].ID, w.acmeShipments[1].ID)
		if s := got[w.acmeShipments[0].ID]; s.BillOfLading != w.acmeShipments[0].BillOfLading || s.AccountID != w.acme.ID {
			t.Errorf("shipment %+v", s)
		}
	})
	t.Run("ContainersOfShipments", func(t *testing.T) {
		got, err := db.ContainersOfShipments(ctx, w.acme.ID, []string{w.acmeShipments[0].ID, w.acmeShipments[1].ID, w.globexShipment.ID, unknown})
		if err != nil {
			t.Fatal(err)
		}
		wantKeys(t, got, w.acmeShipments[0].ID)
		var numbers []string
		for _, c := range got[w.acmeShipments[0].ID] {
			numbers = append(numbers, c.Number)
		}
		if want := []string{w.acmeContainers[0].Number, w.acmeContainers[1].Number}; !slices.Equal(numbers, want) {
			t.Errorf("containers %v, want %v (by number)", numbers, want)
		}
	})
	t.Run("TransportEventsOfContainers", func(t *testing.T) {
		got, err := db.TransportEventsOfContainers(ctx, w.acme.ID, []string{w.acmeContainers[0].ID, w.acmeContainers[1].ID, w.globexContainer.ID})
		if err != nil {
			t.Fatal(err)
		}
		wantKeys(t, got, w.acmeContainers[0].ID)
		var ids []string
		for _, e := range got[w.acmeContainers[0].ID] {
			ids = append(ids, e.ID)
		}
		if want := []string{w.acmeEvents[0].ID, w.acmeEvents[1].ID}; !slices.Equal(ids, want) {
			t.Errorf("events %v, want %v (oldest first)", ids, want)
		}
	})
	t.Run("VesselsByIMO", func(t *testing.T) {
		got, err := db.VesselsByIMO(ctx, []string{w.imos[0], w.imos[1], w.imos[0], "9999999", ""})
		if err != nil {
			t.Fatal(err)
		}
		wantKeys(t, got, w.imos...)
		if v := got[w.imos[1]]; v.ID != boxwatch.VesselID(w.imos[1]) || v.Name != "Vessel "+w.imos[1] {
			t.Errorf("vessel %+v", v)
		}
	})
	t.Run("EventsByID", func(t *testing.T) {
		got, err := db.EventsByID(ctx, w.acme.ID, []string{w.acmeEvent.ID, w.globexEvent.ID, unknown})
		if err != nil {
			t.Fatal(err)
		}
		wantKeys(t, got, w.acmeEvent.ID)
		if e := got[w.acmeEvent.ID]; e.ObjectID != w.acmeEvent.ObjectID || e.ShipmentID != w.acmeEvent.ShipmentID {
			t.Errorf("event %+v", e)
		}
	})
	t.Run("DeliveryAttemptsOf", func(t *testing.T) {
		got, err := db.DeliveryAttemptsOf(ctx, w.acme.ID, []string{w.acmeNotification, w.globexNotification, unknown})
		if err != nil {
			t.Fatal(err)
		}
		wantKeys(t, got, w.acmeNotification)
		attempts := got[w.acmeNotification]
		if len(attempts) != 2 || !attempts[0].At.Before(attempts[1].At) || attempts[0].StatusCode != 500 {
			t.Errorf("attempts %+v, want two, oldest first", attempts)
		}
	})
	t.Run("NoIDs", func(t *testing.T) {
		s, err1 := db.ShipmentsByID(ctx, w.acme.ID, nil)
		c, err2 := db.ContainersOfShipments(ctx, w.acme.ID, []string{})
		e, err3 := db.TransportEventsOfContainers(ctx, w.acme.ID, []string{"not-an-id"})
		v, err4 := db.VesselsByIMO(ctx, nil)
		ev, err5 := db.EventsByID(ctx, w.acme.ID, nil)
		a, err6 := db.DeliveryAttemptsOf(ctx, w.acme.ID, nil)
		for _, err := range []error{err1, err2, err3, err4, err5, err6} {
			if err != nil {
				t.Fatal(err)
			}
		}
		if len(s)+len(c)+len(e)+len(v)+len(ev)+len(a) != 0 {
			t.Errorf("rows for no ids: %v %v %v %v %v %v", s, c, e, v, ev, a)
		}
	})
}

// wantKeys fails unless m holds exactly the keys want.
func wantKeys[V any](t *testing.T, m map[string]V, want ...string) {
	t.Helper()
	got := slices.Sorted(maps.Keys(m))
	want = slices.Sorted(slices.Values(want))
	if !slices.Equal(got, want) {
		t.Errorf("keys %v, want %v", got, want)
	}
}

// testCountStatements checks the statement counter the query-cost tests rely on: reads and writes
// outside transactions count one each; a transaction's own statements are not counted.
func testCountStatements(t *testing.T, db *store.DB) {
	n := db.CountStatements()
	a := MustCreateAccount(t, db, "acme")
	if got := n.Load(); got != 1 {
		t.Fatalf("after one insert: %d statements counted, want 1", got)
	}
	if _, err := db.AccountByName(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.TrackingRequests(ctx, a.ID, boxwatch.TrackingRequestFilter{}, boxwatch.Page{Number: 1, Size: 10}); err != nil {
		t.Fatal(err)
	}
	if got := n.Load(); got != 3 { // the insert, the read, and the count of an empty list (no page query)
		t.Fatalf("after an insert, a read and an empty list: %d statements counted, want 3", got)
	}
}
