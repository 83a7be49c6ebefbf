package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
)

func testDeliveryClaims(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	hook := boxwatch.Webhook{ID: boxwatch.NewID(base), AccountID: a.ID, URL: "https://93.184.216.34/x", Active: true,
		Events: []string{"tracking_request.failed"}, Secret: "s", CreatedAt: base, UpdatedAt: base}
	if err := db.CreateWebhook(ctx, hook); err != nil {
		t.Fatal(err)
	}
	// Each event is about its own request: notifications of one subject are claimed in turn.
	var trs []boxwatch.TrackingRequest
	for i := range 3 {
		trs = append(trs, mustCreateTR(t, db, newTR(a.ID, fmt.Sprint("MEDUFR03080", i), "MSCU", base)))
	}
	var ids []string
	err := db.InTx(ctx, func(tx boxwatch.Tx) error {
		for i, tr := range trs {
			ev := boxwatch.Event{ID: boxwatch.NewID(base), AccountID: a.ID, Name: "tracking_request.failed", ObjectType: "tracking_request",
				ObjectID: tr.ID, TrackingRequestID: tr.ID, Key: fmt.Sprint("k", i), CreatedAt: base.Add(time.Duration(i) * time.Second)}
			if _, err := tx.AppendEvent(ctx, ev); err != nil {
				return err
			}
			got, err := tx.Notify(ctx, ev)
			ids = append(ids, got...)
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil || len(ids) != 3 {
		t.Fatalf("notify: %v, %d notifications", err, len(ids))
	}
	now := base.Add(time.Minute)
	first, err := db.ClaimDueNotifications(ctx, now, now.Add(time.Minute), 2, boxwatch.ClaimBounds{})
	slices.Sort(first)
	if err != nil || !slices.Equal(first, ids[:2]) {
		t.Fatalf("first claim: %v %v, want the two most overdue %v", first, err, ids[:2])
	}
	second, err := db.ClaimDueNotifications(ctx, now, now.Add(time.Minute), 10, boxwatch.ClaimBounds{})
	if err != nil || len(second) != 1 || second[0] != ids[2] {
		t.Fatalf("second claim: %v %v, want only the unclaimed one", second, err)
	}
	if again, _ := db.ClaimDueNotifications(ctx, now, now.Add(time.Minute), 10, boxwatch.ClaimBounds{}); len(again) != 0 {
		t.Fatalf("everything is claimed, yet %v", again)
	}
	// A claim lapses (its process died) and is taken up again.
	later := now.Add(2 * time.Minute)
	if lapsed, _ := db.ClaimDueNotifications(ctx, later, later.Add(time.Minute), 10, boxwatch.ClaimBounds{}); len(lapsed) != 3 {
		t.Fatalf("after the claims lapsed: %v", lapsed)
	}
	// A recorded outcome ends the claim; a delivered notification is never due again.
	err = db.InTx(ctx, func(tx boxwatch.Tx) error {
		n, err := tx.LockNotification(ctx, ids[0])
		if err != nil {
			return err
		}
		n.DeliveryStatus, n.Attempts, n.NextAttemptAt, n.UpdatedAt = boxwatch.DeliverySucceeded, 1, time.Time{}, later
		return tx.SaveNotification(ctx, n)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.UnclaimNotification(ctx, ids[1], later); err != nil {
		t.Fatal(err)
	}
	muchLater := later.Add(time.Hour)
	got, _ := db.ClaimDueNotifications(ctx, muchLater, muchLater.Add(time.Minute), 10, boxwatch.ClaimBounds{})
	if len(got) != 2 || slices.Contains(got, ids[0]) {
		t.Fatalf("after one success: %v, want the two still pending", got)
	}
}

func testNotify(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	b := MustCreateAccount(t, db, "globex")
	hears := mustCreateWebhook(t, db, newWebhook(a.ID, base, "shipment.eta_changed", eventFailed))
	mustCreateWebhook(t, db, newWebhook(a.ID, base, "shipment.eta_changed"))
	inactive := newWebhook(a.ID, base, eventFailed)
	inactive.Active = false
	mustCreateWebhook(t, db, inactive)
	mustCreateWebhook(t, db, newWebhook(b.ID, base, eventFailed))

	e := newEvent(a.ID, eventFailed, "k", at(time.Minute))
	ids := mustNotify(t, db, e)
	if len(ids) != 1 {
		t.Fatalf("Notify created %d notifications, want 1: only the active webhook of the account that subscribes", len(ids))
	}
	n, err := db.Notification(ctx, a.ID, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if n.WebhookID != hears.ID || n.EventID != e.ID || n.Event != eventFailed || n.DeliveryStatus != boxwatch.DeliveryPending ||
		n.Attempts != 0 || !n.NextAttemptAt.Equal(e.CreatedAt) || !n.CreatedAt.Equal(e.CreatedAt) || n.Body != nil {
		t.Fatalf("new notification: %+v", n)
	}
	if _, total, _ := db.Notifications(ctx, b.ID, boxwatch.NotificationFilter{}, boxwatch.Page{Number: 1, Size: 10}); total != 0 {
		t.Fatalf("the other account got %d notifications, want 0", total)
	}
}

func testNotificationReads(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	b := MustCreateAccount(t, db, "globex")
	w := mustCreateWebhook(t, db, newWebhook(a.ID, base, eventFailed))
	id := mustNotifyOne(t, db, a.ID, "k", base)
	want, err := db.Notification(ctx, a.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	reads := []struct {
		name string
		read func(id string) (boxwatch.Notification, *boxwatch.Webhook, error)
	}{
		{"NotificationAndWebhook", func(id string) (boxwatch.Notification, *boxwatch.Webhook, error) {
			n, w, err := db.NotificationAndWebhook(ctx, id)
			return n, &w, err
		}},
		{"LockNotificationAndWebhook", func(id string) (n boxwatch.Notification, w *boxwatch.Webhook, err error) {
			w = new(boxwatch.Webhook)
			err = db.InTx(ctx, func(tx boxwatch.Tx) error {
				n, *w, err = tx.LockNotificationAndWebhook(ctx, id)
				return err
			})
			return n, w, err
		}},
		{"LockNotification", func(id string) (n boxwatch.Notification, _ *boxwatch.Webhook, err error) {
			err = db.InTx(ctx, func(tx boxwatch.Tx) error {
				n, err = tx.LockNotification(ctx, id)
				return err
			})
			return n, nil, err
		}},
	}
	for _, r := range reads {
		t.Run(r.name+"/OK", func(t *testing.T) {
			n, gotHook, err := r.read(id)
			if err != nil || !reflect.DeepEqual(n, want) {
				t.Fatalf("got %+v, %v; want %+v", n, err, want)
			}
			if gotHook != nil && !reflect.DeepEqual(*gotHook, w) {
				t.Fatalf("webhook %+v, want %+v", *gotHook, w)
			}
		})
		t.Run(r.name+"/ErrNotFound", func(t *testing.T) {
			for _, unknown := range []string{boxwatch.NewID(base), "nope"} {
				_, _, err := r.read(unknown)
				wantNotFound(t, unknown, err)
			}
		})
	}
	for name, foreign := range foreignIDs(id) {
		t.Run("Notification/"+name, func(t *testing.T) {
			_, err := db.Notification(ctx, b.ID, foreign)
			wantNotFound(t, "Notification", err)
		})
	}
}

func notificationKeys(t testing.TB, db *store.DB, list []boxwatch.Notification) []string {
	t.Helper()
	out := []string{}
	for _, n := range list {
		e, err := db.Event(ctx, n.AccountID, n.EventID)
		if err != nil {
			t.Fatalf("event of notification %s: %v", n.ID, err)
		}
		out = append(out, e.Key)
	}
	return out
}

func testNotificationList(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	b := MustCreateAccount(t, db, "globex")
	w1 := mustCreateWebhook(t, db, newWebhook(a.ID, base, eventFailed))
	w2 := mustCreateWebhook(t, db, newWebhook(a.ID, base, "shipment.eta_changed"))
	mustNotify(t, db, newEvent(a.ID, eventFailed, "k1", at(time.Second)))
	failed := mustNotifyOne(t, db, a.ID, "k2", at(2*time.Second))
	mustSetDeliveryStatus(t, db, failed, boxwatch.DeliveryFailed, at(time.Hour))
	mustNotify(t, db, newEvent(a.ID, "shipment.eta_changed", "k3", at(3*time.Second)))
	mustNotify(t, db, newEvent(a.ID, eventFailed, "k4", at(4*time.Second)))

	all := boxwatch.Page{Number: 1, Size: 10}
	tests := []struct {
		name string
		f    boxwatch.NotificationFilter
		p    boxwatch.Page
		want []string
	}{
		{"NewestFirst", boxwatch.NotificationFilter{}, all, []string{"k4", "k3", "k2", "k1"}},
		{"SecondPage", boxwatch.NotificationFilter{}, boxwatch.Page{Number: 2, Size: 3}, []string{"k1"}},
		{"PastTheEnd", boxwatch.NotificationFilter{}, boxwatch.Page{Number: 3, Size: 3}, []string{}},
		{"Webhook", boxwatch.NotificationFilter{WebhookID: w2.ID}, all, []string{"k3"}},
		{"WebhookUpperCase", boxwatch.NotificationFilter{WebhookID: strings.ToUpper(w1.ID)}, all, []string{"k4", "k2", "k1"}},
		{"WebhookMalformed", boxwatch.NotificationFilter{WebhookID: "nope"}, all, []string{}},
		{"DeliveryStatus", boxwatch.NotificationFilter{DeliveryStatus: boxwatch.DeliveryFailed}, all, []string{"k2"}},
		{"Event", boxwatch.NotificationFilter{Event: eventFailed, DeliveryStatus: boxwatch.DeliveryPending}, all, []string{"k4", "k1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, total, err := db.Notifications(ctx, a.ID, tt.f, tt.p)
			if err != nil {
				t.Fatal(err)
			}
			if got := notificationKeys(t, db, list); !slices.Equal(got, tt.want) || (tt.p == all && total != len(tt.want)) {
				t.Fatalf("got %v total %d; want %v", got, total, tt.want)
			}
		})
	}
	if list, total, err := db.Notifications(ctx, b.ID, boxwatch.NotificationFilter{WebhookID: w1.ID}, all); err != nil || total != 0 || len(list) != 0 {
		t.Fatalf("another account filtering by this account's webhook: %d, total %d, err %v; want none", len(list), total, err)
	}
}

func testDeliveryOutcome(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	mustCreateWebhook(t, db, newWebhook(a.ID, base, eventFailed))
	id := mustNotifyOne(t, db, a.ID, "k", base)
	body := []byte(`{"data":{"type":"webhook_notification"}}`)
	attempts := []boxwatch.DeliveryAttempt{
		{ID: boxwatch.NewID(base), NotificationID: id, At: at(time.Minute), Latency: 30 * time.Second, Error: "timeout"},
		{ID: boxwatch.NewID(base), NotificationID: id, At: at(2 * time.Minute), StatusCode: 200, Latency: 120 * time.Millisecond, ResponseSnippet: "ok"},
	}
	mustInTx(t, db, func(tx boxwatch.Tx) error {
		n, err := tx.LockNotification(ctx, id)
		if err != nil {
			return err
		}
		// Logged out of order: the log reads oldest first.
		for _, a := range slices.Backward(attempts) {
			if err := tx.AddDeliveryAttempt(ctx, a); err != nil {
				return err
			}
		}
		n.DeliveryStatus, n.Attempts, n.NextAttemptAt, n.Body, n.UpdatedAt = boxwatch.DeliverySucceeded, 2, time.Time{}, body, at(2*time.Minute)
		return tx.SaveNotification(ctx, n)
	})
	n, err := db.Notification(ctx, a.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	if n.DeliveryStatus != boxwatch.DeliverySucceeded || n.Attempts != 2 || !n.NextAttemptAt.IsZero() || string(n.Body) != string(body) ||
		!n.UpdatedAt.Equal(at(2*time.Minute)) || !n.CreatedAt.Equal(base) {
		t.Fatalf("after SaveNotification: %+v", n)
	}
	got, err := db.DeliveryAttempts(ctx, id)
	if err != nil || !reflect.DeepEqual(got, attempts) {
		t.Fatalf("DeliveryAttempts (err %v):\n got %+v\nwant %+v", err, got, attempts)
	}
	if got, err := db.DeliveryAttempts(ctx, boxwatch.NewID(base)); err != nil || len(got) != 0 {
		t.Fatalf("attempts of an unknown notification: %v, %v; want none", got, err)
	}
	err = db.InTx(ctx, func(tx boxwatch.Tx) error {
		return tx.AddDeliveryAttempt(ctx, boxwatch.DeliveryAttempt{ID: boxwatch.NewID(base), NotificationID: boxwatch.NewID(base), At: base})
	})
	wantNotFound(t, "attempt of an unknown notification", err)
}

func testRequeueNotifications(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	w1 := mustCreateWebhook(t, db, newWebhook(a.ID, base, eventFailed))
	since := at(time.Hour)
	notify := func(key string, created time.Time, status string) string {
		id := mustNotifyOne(t, db, a.ID, key, created)
		mustSetDeliveryStatus(t, db, id, status, created.Add(time.Minute))
		return id
	}
	before := notify("before", since.Add(-time.Microsecond), boxwatch.DeliveryFailed)
	atSince := notify("at", since, boxwatch.DeliveryFailed)
	after := notify("after", since.Add(time.Minute), boxwatch.DeliveryFailed)
	succeeded := notify("succeeded", since.Add(time.Minute), boxwatch.DeliverySucceeded)
	inFlight := notify("in flight", since.Add(time.Minute), boxwatch.DeliveryPending)
	if got, err := db.ClaimDueNotifications(ctx, at(2*time.Hour), at(5*time.Hour), 10, boxwatch.ClaimBounds{}); err != nil || !slices.Equal(got, []string{inFlight}) {
		t.Fatalf("claiming the notification in flight: %v, %v", got, err)
	}
	retrying := notify("retrying", since.Add(time.Minute), boxwatch.DeliveryPending)
	mustInTx(t, db, func(tx boxwatch.Tx) error {
		n, err := tx.LockNotification(ctx, retrying)
		if err != nil {
			return err
		}
		n.NextAttemptAt = at(10 * time.Hour)
		return tx.SaveNotification(ctx, n)
	})
	// A failed notification of another webhook of the account stays failed.
	w1.Active = false
	if err := db.UpdateWebhook(ctx, w1); err != nil {
		t.Fatal(err)
	}
	mustCreateWebhook(t, db, newWebhook(a.ID, base, eventFailed))
	other := notify("other", since.Add(time.Minute), boxwatch.DeliveryFailed)

	now := at(3 * time.Hour)
	var ids []string
	mustInTx(t, db, func(tx boxwatch.Tx) error {
		var err error
		ids, err = tx.RequeueNotifications(ctx, w1.ID, since, now)
		return err
	})
	slices.Sort(ids)
	want := []string{atSince, after, retrying}
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Fatalf("requeued %v, want %v: only the webhook's failed or retrying notifications created at or after since", ids, want)
	}
	for _, tt := range []struct {
		name, id, status string
	}{
		{"Before", before, boxwatch.DeliveryFailed}, {"AtSince", atSince, boxwatch.DeliveryPending},
		{"After", after, boxwatch.DeliveryPending}, {"Succeeded", succeeded, boxwatch.DeliverySucceeded},
		{"InFlight", inFlight, boxwatch.DeliveryPending}, {"Retrying", retrying, boxwatch.DeliveryPending},
		{"OtherWebhook", other, boxwatch.DeliveryFailed},
	} {
		n, err := db.Notification(ctx, a.ID, tt.id)
		if err != nil || n.DeliveryStatus != tt.status {
			t.Errorf("%s: status %q, err %v; want %q", tt.name, n.DeliveryStatus, err, tt.status)
		}
		if (tt.id == atSince || tt.id == retrying) && (!n.NextAttemptAt.Equal(now) || !n.UpdatedAt.Equal(now) || n.Attempts != 1) {
			t.Errorf("%s: next attempt %v, updated %v, %d attempts; want both %v, and the one attempt kept", tt.name, n.NextAttemptAt, n.UpdatedAt, n.Attempts, now)
		}
		if tt.id == inFlight && n.NextAttemptAt.Equal(now) {
			t.Errorf("%s: a notification in flight was made due again", tt.name)
		}
	}
	claimed, err := db.ClaimDueNotifications(ctx, now, now.Add(time.Minute), 10, boxwatch.ClaimBounds{})
	slices.Sort(claimed)
	if err != nil || !slices.Equal(claimed, want) {
		t.Fatalf("claimed %v (err %v); the requeued notifications must be due now", claimed, err)
	}
}

func testUnclaimNotification(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	mustCreateWebhook(t, db, newWebhook(a.ID, base, eventFailed))
	id := mustNotifyOne(t, db, a.ID, "k", base)
	now, until := at(time.Minute), at(time.Hour)
	claim := func(now time.Time) []string {
		t.Helper()
		got, err := db.ClaimDueNotifications(ctx, now, now.Add(time.Hour), 10, boxwatch.ClaimBounds{})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got, err := db.ClaimDueNotifications(ctx, now, until, 10, boxwatch.ClaimBounds{}); err != nil || !slices.Equal(got, []string{id}) {
		t.Fatalf("first claim: %v, %v", got, err)
	}
	t.Run("LapsesAtUntil", func(t *testing.T) {
		if got := claim(until.Add(-time.Microsecond)); len(got) != 0 {
			t.Fatalf("claimed %v before the claim lapsed", got)
		}
		if got := claim(until); !slices.Equal(got, []string{id}) {
			t.Fatalf("at until: claimed %v, want the lapsed claim %s", got, id)
		}
	})
	next := at(3 * time.Hour)
	if err := db.UnclaimNotification(ctx, id, next); err != nil {
		t.Fatal(err)
	}
	n, err := db.Notification(ctx, a.ID, id)
	if err != nil || !n.NextAttemptAt.Equal(next) || n.DeliveryStatus != boxwatch.DeliveryPending {
		t.Fatalf("after unclaim: %+v, %v; want pending, due at %v", n, err, next)
	}
	if got := claim(next.Add(-time.Microsecond)); len(got) != 0 {
		t.Fatalf("claimed %v before it was due again", got)
	}
	if got := claim(next); !slices.Equal(got, []string{id}) {
		t.Fatalf("at next: claimed %v, want %s", got, id)
	}
	if err := db.UnclaimNotification(ctx, boxwatch.NewID(base), next); err != nil && !errors.Is(err, boxwatch.ErrNotFound) {
		t.Fatalf("unclaiming an unknown notification: %v", err)
	}
}

func testClaimBounds(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	b := MustCreateAccount(t, db, "globex")
	healthy := mustCreateWebhook(t, db, newWebhook(a.ID, base, eventFailed))
	failing := newWebhook(a.ID, base, "tracking_request.succeeded")
	failing.FailingSince = base
	mustCreateWebhook(t, db, failing)
	other := mustCreateWebhook(t, db, newWebhook(b.ID, base, eventFailed))
	hookOf := map[string]string{}
	notify := func(accountID, name string, n int) {
		for i := range n {
			for _, id := range mustNotify(t, db, newEvent(accountID, name, fmt.Sprint(name, i), at(time.Duration(i)*time.Second))) {
				n, err := db.Notification(ctx, accountID, id)
				if err != nil {
					t.Fatal(err)
				}
				hookOf[id] = n.WebhookID
			}
		}
	}
	// The first account's notifications are all older than the second's.
	notify(a.ID, eventFailed, 5)
	notify(a.ID, "tracking_request.succeeded", 3)
	notify(b.ID, eventFailed, 2)
	bounds := boxwatch.ClaimBounds{PerWebhook: 2, PerAccount: 3}
	claim := func(now time.Time) ([]string, map[string]int) {
		t.Helper()
		ids, err := db.ClaimDueNotifications(ctx, now, now.Add(time.Minute), 10, bounds)
		if err != nil {
			t.Fatal(err)
		}
		per := map[string]int{}
		for _, id := range ids {
			per[hookOf[id]]++
		}
		return ids, per
	}
	now := at(time.Hour)
	want := map[string]int{healthy.ID: 2, failing.ID: 1, other.ID: 2}
	first, got := claim(now)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("first claim per webhook %v, want %v: two per webhook, one while failing, three per account", got, want)
	}
	if _, got := claim(now); len(got) != 0 {
		t.Fatalf("claimed %v while every webhook and account holds its bound", got)
	}
	// A delivery recorded frees a place in its webhook and its account.
	for _, id := range first {
		if hookOf[id] == healthy.ID {
			mustSetDeliveryStatus(t, db, id, boxwatch.DeliverySucceeded, now)
			break
		}
	}
	if _, got := claim(now); !reflect.DeepEqual(got, map[string]int{healthy.ID: 1}) {
		t.Fatalf("after one delivery recorded: claimed %v, want one more of the healthy webhook", got)
	}
	// Lapsed claims hold nothing.
	if _, got := claim(now.Add(2 * time.Minute)); !reflect.DeepEqual(got, want) {
		t.Fatalf("after the claims lapsed: claimed %v, want %v", got, want)
	}
}

func testClaimInSubjectOrder(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	mustCreateWebhook(t, db, newWebhook(a.ID, base, eventFailed))
	// Two events about one container, the second logged first in the table's order of ids, and
	// one about another container.
	event := func(key, container string, created time.Time) string {
		e := newEvent(a.ID, eventFailed, key, created)
		e.ContainerID = container
		ids := mustNotify(t, db, e)
		if len(ids) != 1 {
			t.Fatalf("notify %s: %v", key, ids)
		}
		return ids[0]
	}
	boxA, boxB := boxwatch.NewID(base), boxwatch.NewID(base)
	first := event("a1", boxA, at(time.Second))
	second := event("a2", boxA, at(time.Second+time.Microsecond))
	other := event("b1", boxB, at(time.Second+time.Microsecond))
	now := at(time.Minute)
	claim := func(now time.Time) []string {
		t.Helper()
		ids, err := db.ClaimDueNotifications(ctx, now, now.Add(time.Minute), 10, boxwatch.ClaimBounds{})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(ids)
		return ids
	}
	want := []string{first, other}
	slices.Sort(want)
	if got := claim(now); !slices.Equal(got, want) {
		t.Fatalf("claimed %v, want %v: the second of a container waits for the first", got, want)
	}
	// The first failed and is retrying later: the second still waits, even past the claims.
	mustInTx(t, db, func(tx boxwatch.Tx) error {
		n, err := tx.LockNotification(ctx, first)
		if err != nil {
			return err
		}
		n.Attempts, n.NextAttemptAt, n.UpdatedAt = 1, at(time.Hour), now
		return tx.SaveNotification(ctx, n)
	})
	if got := claim(now.Add(2 * time.Minute)); !slices.Equal(got, []string{other}) {
		t.Fatalf("claimed %v while the container's first notification is retrying, want only the other container's lapsed claim", got)
	}
	// Once the first is given up (or delivered), the second goes.
	mustSetDeliveryStatus(t, db, first, boxwatch.DeliveryFailed, now)
	if got := claim(now.Add(4 * time.Minute)); !slices.Contains(got, second) {
		t.Fatalf("claimed %v after the first failed for good, want %s", got, second)
	}
}

func testNotificationBacklog(t *testing.T, db *store.DB) {
	empty, err := db.NotificationBacklog(ctx, base, 10)
	if err != nil || empty.Pending != 0 || empty.Due != 0 || !empty.OldestDue.IsZero() || len(empty.Webhooks) != 0 {
		t.Fatalf("empty store: %+v, %v; want nothing", empty, err)
	}
	a := MustCreateAccount(t, db, "acme")
	busy := mustCreateWebhook(t, db, newWebhook(a.ID, base, eventFailed))
	quiet := mustCreateWebhook(t, db, newWebhook(a.ID, base, "tracking_request.succeeded"))
	for i := range 3 {
		mustNotify(t, db, newEvent(a.ID, eventFailed, fmt.Sprint("f", i), at(time.Duration(i)*time.Minute)))
	}
	done := mustNotifyOne(t, db, a.ID, "f-done", at(time.Minute))
	mustSetDeliveryStatus(t, db, done, boxwatch.DeliverySucceeded, at(time.Minute))
	mustNotify(t, db, newEvent(a.ID, "tracking_request.succeeded", "s0", at(time.Hour)))

	now := at(30 * time.Minute) // the quiet webhook's notification is not due yet
	got, err := db.NotificationBacklog(ctx, now, 10)
	if err != nil {
		t.Fatal(err)
	}
	if got.Pending != 4 || got.Due != 3 || !got.OldestDue.Equal(base) {
		t.Errorf("totals = %d pending, %d due, oldest %v; want 4, 3, %v", got.Pending, got.Due, got.OldestDue, base)
	}
	want := []boxwatch.WebhookBacklog{
		{WebhookID: busy.ID, AccountID: a.ID, URL: busy.URL, Active: true, Pending: 3, Due: 3, OldestDue: base},
		{WebhookID: quiet.ID, AccountID: a.ID, URL: quiet.URL, Active: true, Pending: 1},
	}
	if !reflect.DeepEqual(got.Webhooks, want) {
		t.Errorf("webhooks =\n%+v\nwant\n%+v", got.Webhooks, want)
	}
	if top, err := db.NotificationBacklog(ctx, now, 1); err != nil || len(top.Webhooks) != 1 || top.Webhooks[0].WebhookID != busy.ID {
		t.Errorf("limit 1: %+v, %v; want the busiest webhook alone", top.Webhooks, err)
	}
	if totals, err := db.NotificationBacklog(ctx, now, 0); err != nil || totals.Pending != 4 || totals.Webhooks != nil {
		t.Errorf("limit 0: %+v, %v; want the totals and no webhooks", totals, err)
	}
}

func testRenewClaims(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	mustCreateWebhook(t, db, newWebhook(a.ID, base, eventFailed))
	// More than one statement's worth, each of its own subject.
	var ids []string
	for i := range 70 {
		ids = append(ids, mustNotifyOne(t, db, a.ID, fmt.Sprint("k", i), at(time.Duration(i)*time.Millisecond)))
	}
	now := at(time.Minute)
	claim := func(now time.Time) []string {
		t.Helper()
		got, err := db.ClaimDueNotifications(ctx, now, now.Add(time.Minute), 100, boxwatch.ClaimBounds{})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		return got
	}
	if got := claim(now); len(got) != len(ids) {
		t.Fatalf("claimed %d, want all %d", len(got), len(ids))
	}
	// The first one is delivered meanwhile: a renewal leaves it delivered and unclaimed.
	mustSetDeliveryStatus(t, db, ids[0], boxwatch.DeliverySucceeded, now)
	renewed := ids[:len(ids)-1] // all but the last: that one's process died
	if err := db.RenewClaims(ctx, renewed, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := db.RenewClaims(ctx, nil, now.Add(time.Hour)); err != nil {
		t.Fatalf("renewing no claim: %v", err)
	}
	lapsed := now.Add(2 * time.Minute)
	if got := claim(lapsed); !slices.Equal(got, ids[len(ids)-1:]) {
		t.Fatalf("after the first claims lapsed: claimed %v, want only the one not renewed %v", got, ids[len(ids)-1:])
	}
	if n, err := db.Notification(ctx, a.ID, ids[0]); err != nil || n.DeliveryStatus != boxwatch.DeliverySucceeded {
		t.Fatalf("the delivered notification after a renewal: %+v, %v", n, err)
	}
	want := slices.Clone(ids[1:])
	slices.Sort(want)
	if got := claim(now.Add(time.Hour)); !slices.Equal(got, want) {
		t.Fatalf("once the renewed claims lapsed: claimed %d, want the %d pending", len(got), len(want))
	}
}

// A webhook's notifications of one subject form a queue: only its head has a time due; when the
// head succeeds or fails, the earliest waiting one is due; one sent again (redelivered) while
// the queue has a head waits in it, in event order.
func testSubjectQueue(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	mustCreateWebhook(t, db, newWebhook(a.ID, base, eventFailed))
	box := boxwatch.NewID(base)
	event := func(key, container string, created time.Time) string {
		e := newEvent(a.ID, eventFailed, key, created)
		e.ContainerID = container
		ids := mustNotify(t, db, e)
		if len(ids) != 1 {
			t.Fatalf("notify %s: %v", key, ids)
		}
		return ids[0]
	}
	n1 := event("1", box, at(time.Second))
	n2 := event("2", box, at(2*time.Second))
	n3 := event("3", box, at(3*time.Second))
	other := event("other", boxwatch.NewID(base), at(4*time.Second))
	due := func(id string) time.Time {
		t.Helper()
		n, err := db.Notification(ctx, a.ID, id)
		if err != nil || n.DeliveryStatus != boxwatch.DeliveryPending {
			t.Fatalf("notification %s: %+v, %v; want pending", id, n, err)
		}
		return n.NextAttemptAt
	}
	wantQueue := func(step string, head string, waiting ...string) {
		t.Helper()
		if due(head).IsZero() {
			t.Fatalf("%s: the head %s has no time due", step, head)
		}
		for _, id := range waiting {
			if !due(id).IsZero() {
				t.Fatalf("%s: %s is due at %v, want it waiting behind %s", step, id, due(id), head)
			}
		}
	}
	wantQueue("notified", n1, n2, n3)
	if !due(other).Equal(at(4 * time.Second)) {
		t.Fatalf("another subject's notification is due at %v, want its event's time", due(other))
	}
	// The head fails for good: the next is due when that is saved.
	gaveUp := at(time.Hour)
	mustSetDeliveryStatus(t, db, n1, boxwatch.DeliveryFailed, gaveUp)
	wantQueue("after the head failed", n2, n3)
	if !due(n2).Equal(gaveUp) {
		t.Fatalf("the new head is due at %v, want %v (when the old one left)", due(n2), gaveUp)
	}
	// Sent again while n2 is the head: it waits, and, older than n3, goes next.
	redeliver := func(id string, now time.Time) {
		t.Helper()
		mustInTx(t, db, func(tx boxwatch.Tx) error {
			n, err := tx.LockNotification(ctx, id)
			if err != nil {
				return err
			}
			n.DeliveryStatus, n.NextAttemptAt, n.UpdatedAt = boxwatch.DeliveryPending, now, now
			return tx.SaveNotification(ctx, n)
		})
	}
	redeliver(n1, at(2*time.Hour))
	wantQueue("after the failed one was redelivered", n2, n1, n3)
	mustSetDeliveryStatus(t, db, n2, boxwatch.DeliverySucceeded, at(3*time.Hour))
	wantQueue("after the head succeeded", n1, n3)
	mustSetDeliveryStatus(t, db, n1, boxwatch.DeliverySucceeded, at(4*time.Hour))
	mustSetDeliveryStatus(t, db, n3, boxwatch.DeliverySucceeded, at(5*time.Hour))
	// Redelivered with its queue empty, it is due at once.
	redeliver(n2, at(6*time.Hour))
	if !due(n2).Equal(at(6 * time.Hour)) {
		t.Fatalf("redelivered alone: due at %v, want %v", due(n2), at(6*time.Hour))
	}
	// A retry keeps the head's place: its successors still wait.
	n4 := event("4", box, at(7*time.Hour))
	mustInTx(t, db, func(tx boxwatch.Tx) error {
		n, err := tx.LockNotification(ctx, n2)
		if err != nil {
			return err
		}
		n.Attempts, n.NextAttemptAt, n.UpdatedAt = n.Attempts+1, at(9*time.Hour), at(7*time.Hour)
		return tx.SaveNotification(ctx, n)
	})
	wantQueue("after a retry was scheduled", n2, n4)
	if got, err := db.ClaimDueNotifications(ctx, at(8*time.Hour), at(9*time.Hour), 10, boxwatch.ClaimBounds{}); err != nil || len(got) != 1 || got[0] != other {
		t.Fatalf("claimed %v (%v) while the container's head retries later, want only the other subject's %s", got, err, other)
	}
}

// A failing webhook, or one holding a claim older than SlowAfter, gets one claim at a time, from
// its account's failing budget; the account's healthy webhooks keep their own budget.
func testClaimFailingBudget(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	hookOf := map[string]string{}
	mk := func(failing bool) boxwatch.Webhook {
		w := newWebhook(a.ID, base, eventFailed)
		if failing {
			w.FailingSince = base
		}
		return mustCreateWebhook(t, db, w)
	}
	slow, f1, f2, f3 := mk(false), mk(true), mk(true), mk(true)
	for i := range 4 {
		for _, id := range mustNotify(t, db, newEvent(a.ID, eventFailed, fmt.Sprint("k", i), at(time.Duration(i)*time.Second))) {
			n, err := db.Notification(ctx, a.ID, id)
			if err != nil {
				t.Fatal(err)
			}
			hookOf[id] = n.WebhookID
		}
	}
	bounds := boxwatch.ClaimBounds{PerWebhook: 2, PerAccount: 2, PerAccountFailing: 2, SlowAfter: time.Minute}
	claim := func(now time.Time) map[string]int {
		t.Helper()
		ids, err := db.ClaimDueNotifications(ctx, now, now.Add(time.Hour), 20, bounds)
		if err != nil {
			t.Fatal(err)
		}
		per := map[string]int{}
		for _, id := range ids {
			per[hookOf[id]]++
		}
		return per
	}
	now := at(time.Hour)
	got := claim(now)
	if got[slow.ID] != 2 || got[f1.ID]+got[f2.ID]+got[f3.ID] != 2 || got[f1.ID] > 1 || got[f2.ID] > 1 || got[f3.ID] > 1 {
		t.Fatalf("first claim per webhook %v: want two of the healthy one and one each of two failing ones", got)
	}
	if got := claim(now.Add(time.Second)); len(got) != 0 {
		t.Fatalf("claimed %v while both budgets are full", got)
	}
	// The healthy webhook's claims run past SlowAfter: it counts as failing now, and a new healthy
	// webhook of the account gets the healthy budget.
	fresh := mk(false)
	for i := range 3 {
		for _, id := range mustNotify(t, db, newEvent(a.ID, eventFailed, fmt.Sprint("f", i), at(time.Minute+time.Duration(i)*time.Second))) {
			n, err := db.Notification(ctx, a.ID, id)
			if err != nil {
				t.Fatal(err)
			}
			hookOf[id] = n.WebhookID
		}
	}
	if got := claim(now.Add(2 * time.Minute)); !reflect.DeepEqual(got, map[string]int{fresh.ID: 2}) {
		t.Fatalf("once the first webhook's claims ran past SlowAfter: claimed %v, want two of the new healthy webhook", got)
	}
}

// A claim hands the dispatcher each notification with its webhook, and a recorded success ends
// the claim, keeps the body, logs the attempt and makes the next of the subject due.
func testClaimedDeliveries(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	hook := newWebhook(a.ID, base, eventFailed)
	hook.Headers = []boxwatch.WebhookHeader{{Name: "X-Team", Value: "ops"}}
	mustCreateWebhook(t, db, hook)
	box := boxwatch.NewID(base)
	event := func(key, container string, created time.Time) string {
		e := newEvent(a.ID, eventFailed, key, created)
		e.ContainerID = container
		ids := mustNotify(t, db, e)
		if len(ids) != 1 {
			t.Fatalf("notify %s: %v", key, ids)
		}
		return ids[0]
	}
	n1 := event("1", box, at(time.Second))
	n2 := event("2", box, at(2*time.Second))
	other := event("other", boxwatch.NewID(base), at(3*time.Second))

	now := at(time.Hour)
	claimed, err := db.ClaimDueDeliveries(ctx, now, now.Add(3*time.Hour), 10, boxwatch.ClaimBounds{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range claimed {
		got = append(got, c.Notification.ID)
		want, err := db.Notification(ctx, a.ID, c.Notification.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(c.Notification, want) {
			t.Errorf("claimed notification %+v, want %+v", c.Notification, want)
		}
		if c.Webhook.ID != hook.ID || c.Webhook.URL != hook.URL || c.Webhook.Secret != hook.Secret || !c.Webhook.Active ||
			!reflect.DeepEqual(c.Webhook.Headers, hook.Headers) || !slices.Equal(c.Webhook.Events, hook.Events) {
			t.Errorf("claimed with webhook %+v, want %+v", c.Webhook, hook)
		}
	}
	slices.Sort(got)
	if want := []string{n1, other}; !slices.Equal(got, sorted(want)) {
		t.Fatalf("claimed %v, want the heads %v", got, want)
	}
	if again, err := db.ClaimDueDeliveries(ctx, now, now.Add(time.Minute), 10, boxwatch.ClaimBounds{}); err != nil || len(again) != 0 {
		t.Fatalf("claimed again: %v %v, want nothing while the claims live", again, err)
	}

	done := at(2 * time.Hour)
	attempt := boxwatch.DeliveryAttempt{ID: boxwatch.NewID(done), NotificationID: n1, At: done, StatusCode: 204, Latency: 12 * time.Millisecond}
	if err := db.RecordDelivered(ctx, attempt, []byte(`{"data":1}`), done); err != nil {
		t.Fatal(err)
	}
	n, err := db.Notification(ctx, a.ID, n1)
	if err != nil || n.DeliveryStatus != boxwatch.DeliverySucceeded || n.Attempts != 1 || !n.NextAttemptAt.IsZero() ||
		string(n.Body) != `{"data":1}` || !n.UpdatedAt.Equal(done) {
		t.Fatalf("after the success: %+v %v", n, err)
	}
	if next, err := db.Notification(ctx, a.ID, n2); err != nil || !next.NextAttemptAt.Equal(done) {
		t.Fatalf("the next of the subject: %+v %v, want due at %v", next, err, done)
	}
	claimed, err = db.ClaimDueDeliveries(ctx, done, done.Add(time.Minute), 10, boxwatch.ClaimBounds{})
	if err != nil || len(claimed) != 1 || claimed[0].Notification.ID != n2 {
		t.Fatalf("claimed after the success: %+v %v, want only %s (the other's claim lives, the success's ended)", claimed, err, n2)
	}
	// A late success of a notification no longer pending is logged and changes nothing else.
	late := boxwatch.DeliveryAttempt{ID: boxwatch.NewID(done), NotificationID: n1, At: done, StatusCode: 200}
	if err := db.RecordDelivered(ctx, late, nil, done.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if again, err := db.Notification(ctx, a.ID, n1); err != nil || !reflect.DeepEqual(again, n) {
		t.Fatalf("after a late success: %+v %v, want unchanged %+v", again, err, n)
	}
	if head, err := db.Notification(ctx, a.ID, n2); err != nil || !head.NextAttemptAt.Equal(done) {
		t.Fatalf("the head after a late success of its predecessor: %+v %v", head, err)
	}
	attempts, err := db.DeliveryAttempts(ctx, n1)
	if err != nil || len(attempts) != 2 || attempts[0].StatusCode+attempts[1].StatusCode != 404 {
		t.Fatalf("attempts: %+v %v, want the two logged", attempts, err)
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// Successes recorded at the same time (which SQLite writes in one transaction) each end as if
// recorded alone: every one succeeded with its next of the subject due, and one that fails (a
// notification that does not exist) fails alone.
func testRecordDeliveredAtOnce(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	mustCreateWebhook(t, db, newWebhook(a.ID, base, eventFailed))
	const subjects = 12
	var heads, nexts []string
	for i := range subjects {
		box := boxwatch.NewID(base)
		for j := range 2 {
			e := newEvent(a.ID, eventFailed, fmt.Sprint(i, "-", j), at(time.Duration(2*i+j)*time.Second))
			e.ContainerID = box
			ids := mustNotify(t, db, e)
			if j == 0 {
				heads = append(heads, ids[0])
			} else {
				nexts = append(nexts, ids[0])
			}
		}
	}
	now := at(time.Hour)
	if claimed, err := db.ClaimDueNotifications(ctx, now, now.Add(time.Hour), 2*subjects, boxwatch.ClaimBounds{}); err != nil ||
		!slices.Equal(sorted(claimed), sorted(heads)) {
		t.Fatalf("claimed %v (%v), want the heads %v", claimed, err, heads)
	}
	done := at(2 * time.Hour)
	missing := boxwatch.NewID(done)
	errs := make([]error, subjects+1)
	var wg sync.WaitGroup
	for i, id := range append(slices.Clone(heads), missing) {
		wg.Go(func() {
			errs[i] = db.RecordDelivered(ctx, boxwatch.DeliveryAttempt{ID: boxwatch.NewID(done), NotificationID: id, At: done, StatusCode: 204},
				[]byte(fmt.Sprint(`{"n":`, i, `}`)), done)
		})
	}
	wg.Wait()
	if errs[subjects] == nil {
		t.Errorf("recording a success of a notification that does not exist: no error")
	}
	for i, id := range heads {
		if errs[i] != nil {
			t.Errorf("recording %s beside the others: %v", id, errs[i])
			continue
		}
		n, err := db.Notification(ctx, a.ID, id)
		if err != nil || n.DeliveryStatus != boxwatch.DeliverySucceeded || n.Attempts != 1 || string(n.Body) != fmt.Sprint(`{"n":`, i, `}`) {
			t.Errorf("after its success: %+v %v", n, err)
		}
		if log, err := db.DeliveryAttempts(ctx, id); err != nil || len(log) != 1 {
			t.Errorf("the log of %s: %+v %v, want its one attempt", id, log, err)
		}
		if next, err := db.Notification(ctx, a.ID, nexts[i]); err != nil || !next.NextAttemptAt.Equal(done) {
			t.Errorf("the next of subject %d: %+v %v, want due at %v", i, next, err, done)
		}
	}
}
