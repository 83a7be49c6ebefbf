package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
)

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

// mustInTx runs fn in a transaction that must commit.
func mustInTx(t testing.TB, db *store.DB, fn func(tx boxwatch.Tx) error) {
	t.Helper()
	if err := db.InTx(ctx, fn); err != nil {
		t.Fatalf("transaction: %v", err)
	}
}

// newShipment is a tracked shipment of tr, created at created and due for refresh an hour later.
func newShipment(tr boxwatch.TrackingRequest, created time.Time) boxwatch.Shipment {
	return boxwatch.Shipment{
		ID: boxwatch.NewID(created), AccountID: tr.AccountID, TrackingRequestID: tr.ID, SCAC: tr.SCAC,
		BillOfLading: tr.RequestNumber, NormalizedNumber: tr.RequestNumber, RefNumbers: []string{}, Tags: []string{},
		Reference:     boxwatch.CarrierReference{Type: tr.RequestType, Number: tr.RequestNumber, SCAC: tr.SCAC},
		NextRefreshAt: created.Add(time.Hour), CreatedAt: created, UpdatedAt: created,
	}
}

// mustCreateShipment stores a tracking request for number and its shipment, both created at
// created, and returns the shipment.
func mustCreateShipment(t testing.TB, db *store.DB, accountID, number string, created time.Time) boxwatch.Shipment {
	t.Helper()
	tr := newTR(accountID, number, "MSCU", created)
	tr.Status = boxwatch.StatusCreated
	s := newShipment(tr, created)
	tr.ShipmentID = s.ID
	mustInTx(t, db, func(tx boxwatch.Tx) error {
		if err := tx.CreateTrackingRequest(ctx, tr); err != nil {
			return err
		}
		return tx.InsertShipment(ctx, s)
	})
	return s
}

func newContainer(s boxwatch.Shipment, number string, created time.Time) boxwatch.Container {
	return boxwatch.Container{
		ID: boxwatch.NewID(created), AccountID: s.AccountID, ShipmentID: s.ID, Number: number,
		CurrentStatus: boxwatch.ContainerNew, CreatedAt: created, UpdatedAt: created,
	}
}

func mustSaveContainer(t testing.TB, db *store.DB, c boxwatch.Container) boxwatch.Container {
	t.Helper()
	mustInTx(t, db, func(tx boxwatch.Tx) error { return tx.SaveContainer(ctx, c) })
	return c
}

func newTransportEvent(c boxwatch.Container, event, locode string, ts time.Time) boxwatch.TransportEvent {
	return boxwatch.TransportEvent{
		ID: boxwatch.NewID(ts), AccountID: c.AccountID, ShipmentID: c.ShipmentID, ContainerID: c.ID, Event: event,
		Timestamp: ts, LOCODE: locode, DataSource: "shipping_line", CreatedAt: ts,
	}
}

func mustInsertTransportEvent(t testing.TB, db *store.DB, e boxwatch.TransportEvent) boxwatch.TransportEvent {
	t.Helper()
	mustInTx(t, db, func(tx boxwatch.Tx) error {
		stored, err := tx.InsertTransportEvent(ctx, e)
		if err == nil && !stored {
			err = fmt.Errorf("milestone %s at %s not stored", e.Event, e.LOCODE)
		}
		return err
	})
	return e
}

const eventFailed = "tracking_request.failed"

func newEvent(accountID, name, key string, created time.Time) boxwatch.Event {
	return boxwatch.Event{
		ID: boxwatch.NewID(created), AccountID: accountID, Name: name, ObjectType: "tracking_request",
		ObjectID: boxwatch.NewID(created), Key: key, CreatedAt: created,
	}
}

func newWebhook(accountID string, created time.Time, events ...string) boxwatch.Webhook {
	return boxwatch.Webhook{
		ID: boxwatch.NewID(created), AccountID: accountID, URL: "https://93.184.216.34/hook", Active: true,
		Events: events, Headers: []boxwatch.WebhookHeader{}, Secret: "s3cret", CreatedAt: created, UpdatedAt: created,
	}
}

func mustCreateWebhook(t testing.TB, db *store.DB, w boxwatch.Webhook) boxwatch.Webhook {
	t.Helper()
	if err := db.CreateWebhook(ctx, w); err != nil {
		t.Fatalf("create webhook: %v", err)
	}
	return w
}

// mustNotify logs e and notifies its account's webhooks, returning the notifications' ids.
func mustNotify(t testing.TB, db *store.DB, e boxwatch.Event) []string {
	t.Helper()
	var ids []string
	mustInTx(t, db, func(tx boxwatch.Tx) error {
		if _, err := tx.AppendEvent(ctx, e); err != nil {
			return err
		}
		var err error
		ids, err = tx.Notify(ctx, e)
		return err
	})
	return ids
}

// mustNotifyOne logs an event named eventFailed with key for a webhook that alone hears it, and
// returns the one notification's id.
func mustNotifyOne(t testing.TB, db *store.DB, accountID, key string, created time.Time) string {
	t.Helper()
	ids := mustNotify(t, db, newEvent(accountID, eventFailed, key, created))
	if len(ids) != 1 {
		t.Fatalf("notify %s: %d notifications, want 1", key, len(ids))
	}
	return ids[0]
}

// mustSetDeliveryStatus records a delivery outcome for notification id.
func mustSetDeliveryStatus(t testing.TB, db *store.DB, id, status string, now time.Time) {
	t.Helper()
	mustInTx(t, db, func(tx boxwatch.Tx) error {
		n, err := tx.LockNotification(ctx, id)
		if err != nil {
			return err
		}
		n.DeliveryStatus, n.Attempts, n.UpdatedAt = status, n.Attempts+1, now
		if status != boxwatch.DeliveryPending {
			n.NextAttemptAt = time.Time{}
		}
		return tx.SaveNotification(ctx, n)
	})
}

// wantNotFound fails the test unless err is ErrNotFound.
func wantNotFound(t testing.TB, what string, err error) {
	t.Helper()
	if !errors.Is(err, boxwatch.ErrNotFound) {
		t.Errorf("%s: err = %v, want ErrNotFound", what, err)
	}
}

// wantDuplicate fails the test unless err is the duplicate tracking request error.
func wantDuplicate(t testing.TB, what string, err error) {
	t.Helper()
	if e := boxwatch.AsError(err); e == nil || e.Code != boxwatch.CodeDuplicate {
		t.Errorf("%s: err = %v, want DuplicateError", what, err)
	}
}

// foreignIDs are ids an account must not see: another account's record, an unknown id, and a
// malformed one.
func foreignIDs(otherAccountsID string) map[string]string {
	return map[string]string{
		"OtherAccount": otherAccountsID,
		"Unknown":      boxwatch.NewID(base),
		"Malformed":    "42; DROP TABLE x",
	}
}

// fieldOf lists one field of every element of list, in order; an empty list gives [], not nil.
func fieldOf[T any](list []T, field func(T) string) []string {
	out := make([]string, 0, len(list))
	for _, v := range list {
		out = append(out, field(v))
	}
	return out
}
