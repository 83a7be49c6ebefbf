package tracking_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// TestRetentionJob: the engine's retention job deletes, in batches, the notifications delivered
// before the retention with their events, the events past theirs, and positions past theirs; a
// notification still retrying, its event, and what is recent stay.
func TestRetentionJob(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		db := b.Open(t)
		now := time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)
		old := now.Add(-100 * 24 * time.Hour)
		a := storetest.MustCreateAccount(t, db, "acme")
		hook := boxwatch.Webhook{ID: boxwatch.NewID(old), AccountID: a.ID, URL: "https://93.184.216.34/hook", Active: true,
			Events: []string{"tracking_request.failed"}, Headers: []boxwatch.WebhookHeader{}, Secret: "s", CreatedAt: old, UpdatedAt: old}
		if err := db.CreateWebhook(ctx, hook); err != nil {
			t.Fatal(err)
		}
		// notify logs an event at created and returns its notification, left pending or delivered.
		notify := func(key string, created time.Time, delivered bool) (event, notification string) {
			e := boxwatch.Event{ID: boxwatch.NewID(created), AccountID: a.ID, Name: "tracking_request.failed", ObjectType: "tracking_request",
				ObjectID: boxwatch.NewID(created), Key: key, CreatedAt: created}
			err := db.InTx(ctx, func(tx boxwatch.Tx) error {
				if _, err := tx.AppendEvent(ctx, e); err != nil {
					return err
				}
				ids, err := tx.Notify(ctx, e)
				if err != nil || len(ids) != 1 {
					return errors.Join(err, errors.New("not one notification"))
				}
				notification = ids[0]
				n, err := tx.LockNotification(ctx, notification)
				if err != nil {
					return err
				}
				n.Attempts, n.UpdatedAt = 1, created.Add(time.Minute)
				if delivered {
					n.DeliveryStatus, n.NextAttemptAt = boxwatch.DeliverySucceeded, time.Time{}
				} else {
					n.NextAttemptAt = now.Add(time.Hour) // retrying
				}
				return tx.SaveNotification(ctx, n)
			})
			if err != nil {
				t.Fatal(err)
			}
			return e.ID, notification
		}
		var goneEvents, goneNotifications []string
		for _, key := range []string{"a", "b", "c", "d", "e"} {
			e, n := notify("delivered-"+key, old, true)
			goneEvents, goneNotifications = append(goneEvents, e), append(goneNotifications, n)
		}
		retryingEvent, retrying := notify("retrying", old, false)
		recentEvent, recent := notify("recent", now.Add(-24*time.Hour), true)
		var ps []boxwatch.VesselPosition
		for i := range 5 {
			ps = append(ps, boxwatch.VesselPosition{MMSI: "220417000", Latitude: 1, Longitude: 100, Timestamp: now.Add(-200*24*time.Hour + time.Duration(i)*time.Hour)})
		}
		ps = append(ps, boxwatch.VesselPosition{MMSI: "220417000", Latitude: 2, Longitude: 101, Timestamp: now.Add(-time.Hour)})
		if _, err := db.SavePositions(ctx, ps); err != nil {
			t.Fatal(err)
		}

		if b.Name == storetest.Postgres.Name {
			splitCount(t, db, a.ID, old)
		}

		if err := tracking.Migrate(ctx, db); err != nil {
			t.Fatal(err)
		}
		e, err := tracking.New(tracking.Config{DB: db, Registry: data.Carriers(), Workers: 2, Clock: trackingtest.NewClock(now).Now,
			Retention: tracking.Retention{Notifications: tracking.DefaultNotificationRetention, Events: tracking.DefaultEventRetention,
				Positions: tracking.DefaultPositionRetention, Every: 50 * time.Millisecond, Batch: 2}})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			e.Stop(stopCtx)
		})
		trackingtest.Eventually(t, 20*time.Second, "history past retention was not deleted", func() bool {
			kept, err := db.VesselPositions(ctx, "220417000", now.Add(-300*24*time.Hour), now, 10)
			if err != nil || len(kept) != 1 {
				return false
			}
			for _, id := range goneEvents {
				if _, err := db.Event(ctx, a.ID, id); !errors.Is(err, boxwatch.ErrNotFound) {
					return false
				}
			}
			return true
		})
		for _, id := range goneNotifications {
			if _, err := db.Notification(ctx, a.ID, id); !errors.Is(err, boxwatch.ErrNotFound) {
				t.Fatalf("delivered notification past retention: %v", err)
			}
		}
		for _, id := range []string{retrying, recent} {
			if _, err := db.Notification(ctx, a.ID, id); err != nil {
				t.Fatalf("notification %s deleted: %v", id, err)
			}
		}
		for _, id := range []string{retryingEvent, recentEvent} {
			if _, err := db.Event(ctx, a.ID, id); err != nil {
				t.Fatalf("event %s deleted: %v", id, err)
			}
		}
		// The job folded the list totals' rows (splitCount left two on PostgreSQL): nothing is
		// left to fold, and the total is unchanged.
		if n, err := db.FoldListCounts(ctx, 100); err != nil || n != 0 {
			t.Fatalf("list totals left unfolded by the job: %d, %v", n, err)
		}
		if b.Name == storetest.Postgres.Name {
			if _, total, err := db.TrackingRequests(ctx, a.ID, boxwatch.TrackingRequestFilter{}, boxwatch.Page{Number: 1, Size: 1}); err != nil || total.N != 2 {
				t.Fatalf("tracking requests' total %+v, %v; want 2", total, err)
			}
		}
	})
}

// splitCount leaves the account's count of tracking requests in two rows on PostgreSQL: one
// request created while another transaction inserting one for the account is still open.
func splitCount(t *testing.T, db *store.DB, account string, at time.Time) {
	t.Helper()
	ctx := context.Background()
	request := func(number string) boxwatch.TrackingRequest {
		return boxwatch.TrackingRequest{ID: boxwatch.NewID(at), AccountID: account, RequestType: boxwatch.RequestBillOfLading,
			RequestNumber: number, SCAC: "MSCU", Status: boxwatch.StatusPending, CreatedAt: at, UpdatedAt: at}
	}
	inserted, release, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		done <- db.InTx(ctx, func(tx boxwatch.Tx) error {
			if err := tx.CreateTrackingRequest(ctx, request("HELD0001")); err != nil {
				return err
			}
			close(inserted)
			<-release
			return nil
		})
	}()
	select {
	case <-inserted:
	case err := <-done:
		t.Fatalf("held create: %v", err)
	}
	err := db.CreateTrackingRequest(ctx, request("FREE0001"))
	close(release)
	if err := errors.Join(err, <-done); err != nil {
		t.Fatal(err)
	}
}
