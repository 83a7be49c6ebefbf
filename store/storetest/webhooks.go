package storetest

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
)

func webhookURLs(list []boxwatch.Webhook) []string {
	return fieldOf(list, func(w boxwatch.Webhook) string { return w.URL })
}

func testWebhooks(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	var hooks []boxwatch.Webhook
	for i := range 3 {
		w := newWebhook(a.ID, at(time.Duration(i)*time.Minute), eventFailed)
		w.URL = "https://example.com/" + string(rune('a'+i))
		hooks = append(hooks, mustCreateWebhook(t, db, w))
	}
	got, err := db.Webhook(ctx, a.ID, hooks[0].ID)
	if err != nil || !reflect.DeepEqual(got, hooks[0]) {
		t.Fatalf("round trip (err %v):\n got %+v\nwant %+v", err, got, hooks[0])
	}

	for _, tt := range []struct {
		name string
		p    boxwatch.Page
		want []string
	}{
		{"NewestFirst", boxwatch.Page{Number: 1, Size: 2}, []string{"https://example.com/c", "https://example.com/b"}},
		{"LastPage", boxwatch.Page{Number: 2, Size: 2}, []string{"https://example.com/a"}},
		{"PastTheEnd", boxwatch.Page{Number: 3, Size: 2}, []string{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			list, total, err := db.Webhooks(ctx, a.ID, tt.p)
			if err != nil || total != 3 || !slices.Equal(webhookURLs(list), tt.want) {
				t.Fatalf("got %v total %d err %v; want %v total 3", webhookURLs(list), total, err, tt.want)
			}
		})
	}

	t.Run("Update", func(t *testing.T) {
		w := hooks[1]
		w.URL, w.Active, w.Events, w.Secret = "https://example.com/new", false, []string{"shipment.eta_changed"}, "rotated"
		w.Headers = []boxwatch.WebhookHeader{{Name: "X-Token", Value: "t"}, {Name: "X-Other", Value: "o"}}
		w.DeactivatedReason, w.FailingSince, w.UpdatedAt = "gone", at(time.Hour), at(2*time.Hour)
		if err := db.UpdateWebhook(ctx, w); err != nil {
			t.Fatal(err)
		}
		got, err := db.Webhook(ctx, a.ID, w.ID)
		if err != nil || !reflect.DeepEqual(got, w) {
			t.Fatalf("after update (err %v):\n got %+v\nwant %+v", err, got, w)
		}
	})
}

func testWebhookScoping(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	b := MustCreateAccount(t, db, "globex")
	w := mustCreateWebhook(t, db, newWebhook(a.ID, base, eventFailed))
	for name, id := range foreignIDs(w.ID) {
		t.Run(name, func(t *testing.T) {
			_, err := db.Webhook(ctx, b.ID, id)
			wantNotFound(t, "Webhook", err)
			stolen := w
			stolen.ID, stolen.AccountID, stolen.URL = id, b.ID, "https://evil.example/"
			wantNotFound(t, "UpdateWebhook", db.UpdateWebhook(ctx, stolen))
			wantNotFound(t, "DeleteWebhook", db.DeleteWebhook(ctx, b.ID, id))
		})
	}
	if got, err := db.Webhook(ctx, a.ID, w.ID); err != nil || !reflect.DeepEqual(got, w) {
		t.Fatalf("the owner's webhook changed: %+v, %v", got, err)
	}
	if list, total, err := db.Webhooks(ctx, b.ID, boxwatch.Page{Number: 1, Size: 10}); err != nil || total != 0 || len(list) != 0 {
		t.Fatalf("other account's webhooks: %d, total %d, err %v; want none", len(list), total, err)
	}
}

func testDeleteWebhook(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	w := mustCreateWebhook(t, db, newWebhook(a.ID, base, eventFailed))
	id := mustNotifyOne(t, db, a.ID, "k", base)
	mustInTx(t, db, func(tx boxwatch.Tx) error {
		return tx.AddDeliveryAttempt(ctx, boxwatch.DeliveryAttempt{ID: boxwatch.NewID(base), NotificationID: id, At: base, StatusCode: 500})
	})
	if err := db.DeleteWebhook(ctx, a.ID, w.ID); err != nil {
		t.Fatal(err)
	}
	_, err := db.Webhook(ctx, a.ID, w.ID)
	wantNotFound(t, "deleted webhook", err)
	_, err = db.Notification(ctx, a.ID, id)
	wantNotFound(t, "notification of a deleted webhook", err)
	if list, err := db.DeliveryAttempts(ctx, id); err != nil || len(list) != 0 {
		t.Errorf("attempts of a deleted webhook's notification: %v, %v; want none", list, err)
	}
	if claimed, err := db.ClaimDueNotifications(ctx, at(time.Hour), at(2*time.Hour), 10, boxwatch.ClaimBounds{}); err != nil || len(claimed) != 0 {
		t.Errorf("claimed %v (err %v) after the webhook was deleted; want nothing", claimed, err)
	}
	wantNotFound(t, "second delete", db.DeleteWebhook(ctx, a.ID, w.ID))
}

func testSaveWebhookState(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	w := mustCreateWebhook(t, db, newWebhook(a.ID, base, eventFailed))
	w.Active, w.DeactivatedReason, w.FailingSince, w.UpdatedAt = false, "failing", at(time.Hour), at(72*time.Hour)
	mustInTx(t, db, func(tx boxwatch.Tx) error { return tx.SaveWebhookState(ctx, w) })
	if got, err := db.Webhook(ctx, a.ID, w.ID); err != nil || !reflect.DeepEqual(got, w) {
		t.Fatalf("after SaveWebhookState (err %v):\n got %+v\nwant %+v", err, got, w)
	}
	err := db.InTx(ctx, func(tx boxwatch.Tx) error {
		unknown := w
		unknown.ID = boxwatch.NewID(base)
		return tx.SaveWebhookState(ctx, unknown)
	})
	wantNotFound(t, "unknown webhook", err)
}
