package storetest

import (
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
)

// deleteAll repeats a batched delete of limit rows until a batch deletes fewer, and returns the
// sizes of the batches.
func deleteAll(t testing.TB, limit int, del func(limit int) (int64, error)) []int64 {
	t.Helper()
	var batches []int64
	for {
		n, err := del(limit)
		if err != nil {
			t.Fatal(err)
		}
		batches = append(batches, n)
		if n < int64(limit) {
			return batches
		}
	}
}

// testDeleteFinishedNotifications: notifications delivered or failed for good before the cutoff
// go, a batch at a time, with their logs; pending ones (retrying or not yet tried), and those
// finished since, stay.
func testDeleteFinishedNotifications(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	mustCreateWebhook(t, db, newWebhook(a.ID, base, eventFailed))
	cutoff := at(30 * 24 * time.Hour)
	notify := func(key, status string, last time.Time) string {
		id := mustNotifyOne(t, db, a.ID, key, base)
		mustInTx(t, db, func(tx boxwatch.Tx) error {
			return tx.AddDeliveryAttempt(ctx, boxwatch.DeliveryAttempt{ID: boxwatch.NewID(last), NotificationID: id, At: last, StatusCode: 500})
		})
		mustSetDeliveryStatus(t, db, id, status, last)
		return id
	}
	var gone []string
	for i := range 5 {
		gone = append(gone, notify("delivered"+string(rune('a'+i)), boxwatch.DeliverySucceeded, at(time.Hour)))
	}
	gone = append(gone, notify("failed", boxwatch.DeliveryFailed, at(2*time.Hour)))
	kept := []string{
		notify("retrying", boxwatch.DeliveryPending, at(time.Hour)),
		notify("delivered-since", boxwatch.DeliverySucceeded, cutoff.Add(time.Second)),
		notify("failed-since", boxwatch.DeliveryFailed, cutoff.Add(time.Second)),
		mustNotifyOne(t, db, a.ID, "never-tried", base),
	}
	batches := deleteAll(t, 4, func(limit int) (int64, error) { return db.DeleteFinishedNotifications(ctx, cutoff, limit) })
	if want := []int64{4, 2}; !equalInts(batches, want) {
		t.Fatalf("deleted in batches %v, want %v", batches, want)
	}
	for _, id := range gone {
		_, err := db.Notification(ctx, a.ID, id)
		wantNotFound(t, "a notification finished before the cutoff", err)
		logs, err := db.DeliveryAttempts(ctx, id)
		if err != nil || len(logs) != 0 {
			t.Fatalf("logs of a deleted notification: %v, %v", logs, err)
		}
	}
	for _, id := range kept {
		if _, err := db.Notification(ctx, a.ID, id); err != nil {
			t.Fatalf("notification %s deleted: %v", id, err)
		}
	}
	logs, err := db.DeliveryAttempts(ctx, kept[0])
	if err != nil || len(logs) != 1 {
		t.Fatalf("logs of a retrying notification: %v, %v", logs, err)
	}
}

// testDeleteEventsBefore: events older than the cutoff go, a batch at a time, unless a
// notification refers to one or its shipment is tracked or stopped since the cutoff.
func testDeleteEventsBefore(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	mustCreateWebhook(t, db, newWebhook(a.ID, base, eventFailed))
	cutoff := at(90 * 24 * time.Hour)
	old := at(time.Hour)
	tracked := mustCreateShipment(t, db, a.ID, "BL1", base)
	stoppedLongAgo := mustCreateShipment(t, db, a.ID, "BL2", base)
	stoppedLongAgo.StoppedAt, stoppedLongAgo.StoppedReason = at(2*time.Hour), boxwatch.StopCancelledByUser
	stoppedSince := mustCreateShipment(t, db, a.ID, "BL3", base)
	stoppedSince.StoppedAt, stoppedSince.StoppedReason = cutoff.Add(time.Hour), boxwatch.StopCancelledByUser
	mustUpdateShipments(t, db, stoppedLongAgo, stoppedSince)
	log := func(key, name, shipmentID string, created time.Time) boxwatch.Event {
		e := newEvent(a.ID, name, key, created)
		e.ShipmentID = shipmentID
		mustInTx(t, db, func(tx boxwatch.Tx) error {
			_, err := tx.AppendEvent(ctx, e)
			return err
		})
		return e
	}
	const unheard = "shipment.estimated.arrival" // no webhook subscribes to it
	var gone, kept []boxwatch.Event
	for i := range 3 {
		gone = append(gone, log("request"+string(rune('a'+i)), unheard, "", old))
	}
	gone = append(gone, log("stopped-long-ago", unheard, stoppedLongAgo.ID, old))
	kept = append(kept, log("tracked", unheard, tracked.ID, old), log("stopped-since", unheard, stoppedSince.ID, old),
		log("recent", unheard, "", cutoff.Add(time.Second)))
	notified := newEvent(a.ID, eventFailed, "notified", old)
	if ids := mustNotify(t, db, notified); len(ids) != 1 {
		t.Fatalf("%d notifications, want 1", len(ids))
	}
	kept = append(kept, notified)

	batches := deleteAll(t, 3, func(limit int) (int64, error) { return db.DeleteEventsBefore(ctx, cutoff, limit) })
	if want := []int64{3, 1}; !equalInts(batches, want) {
		t.Fatalf("deleted in batches %v, want %v", batches, want)
	}
	for _, e := range gone {
		_, err := db.Event(ctx, a.ID, e.ID)
		wantNotFound(t, "event "+e.Key, err)
	}
	for _, e := range kept {
		if _, err := db.Event(ctx, a.ID, e.ID); err != nil {
			t.Fatalf("event %s deleted: %v", e.Key, err)
		}
	}
	// Once its notification is gone, the notified event goes too.
	if n, err := db.DeleteFinishedNotifications(ctx, cutoff, 10); err != nil || n != 0 {
		t.Fatalf("a pending notification deleted: %d, %v", n, err)
	}
	ids := mustNotify(t, db, newEvent(a.ID, eventFailed, "notified-again", old))
	mustSetDeliveryStatus(t, db, ids[0], boxwatch.DeliverySucceeded, old)
	if n, err := db.DeleteFinishedNotifications(ctx, cutoff, 10); err != nil || n != 1 {
		t.Fatalf("delivered notification: %d deleted, %v; want 1", n, err)
	}
	if n, err := db.DeleteEventsBefore(ctx, cutoff, 10); err != nil || n != 1 {
		t.Fatalf("the event of a deleted notification: %d deleted, %v; want 1", n, err)
	}
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
