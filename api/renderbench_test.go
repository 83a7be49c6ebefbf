package api_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/api"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/jsonapi"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
	"github.com/boxwatch/boxwatch/webhook"
)

// BenchmarkRenderNotification times the rendering of a webhook body, as the dispatcher does it
// once per notification, for the kinds a journey sends: a tracking request's success with its
// shipment and containers, a vessel's arrival with its container, shipment, port, terminal and
// vessel, an estimate, a terminal's change. The baseline is the one read every rendering starts
// with (the event), on the same SQLite database.
func BenchmarkRenderNotification(b *testing.B) {
	ctx := context.Background()
	clock := trackingtest.NewClock(time.Now())
	voyage := func(t testing.TB, c *api.Config, db *store.DB) {
		c.Webhooks = webhook.Policy{AllowPrivate: true, Timeout: 2 * time.Second}
		// At full scale, so that tracking goes on for days after arrival.
		stack := trackingtest.Start(t, db, trackingtest.Options{Clock: clock, Webhooks: c.Webhooks, RetryScale: 1,
			Renderer: jsonapi.NewNotificationRenderer(db, c.Carriers, c.Ports)})
		c.Tracker, c.Redeliverer, c.Clock = stack.Engine, stack.Deliveries, clock.Now
	}
	ts := newTestServer(b, storetest.SQLite, voyage)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body) }))
	b.Cleanup(rc.Close)
	ts.do(b, "POST", "/v2/webhooks", ts.acme, `{"data":{"type":"webhook","attributes":{"url":"`+rc.URL+`","events":`+
		`["tracking_request.succeeded","container.transport.vessel_arrived","shipment.estimated.arrival","container.updated"]}}}`).want(b, 201)
	// Stage 7: the vessel is the next of its loop to arrive, and the terminal reports after
	// discharge; stage 6: at sea on the last leg, with moving estimates.
	var shipments []string
	for _, number := range []string{"MAEU123456787", "MAEU123456786"} {
		_, sid := ts.waitShipment(b, ts.acme, number, "MAEU")
		shipments = append(shipments, sid)
	}
	// Six hours at a time until the stage-7 vessel has arrived, then two days more.
	after := -1
	for step := 0; after < 8; step++ {
		if step == 4*30 {
			b.Fatalf("the vessel of a stage-7 number has not arrived within 30 days")
		}
		clock.Advance(6 * time.Hour)
		var arrived bool
		for k, sid := range shipments {
			trackingtest.Eventually(b, 30*time.Second, "no refresh", func() bool {
				r := ts.do(b, "GET", "/v2/shipments/"+sid, ts.acme, "").want(b, 200)
				at, _ := time.Parse(time.RFC3339, get(r.body, "data", "attributes", "line_tracking_last_succeeded_at").(string))
				if k == 0 {
					arrived = get(r.body, "data", "attributes", "pod_ata_at") != nil
				}
				return !at.Before(clock.Now().Add(-time.Second).Truncate(time.Second))
			})
		}
		if arrived || after >= 0 {
			after++
		}
	}
	acct, err := ts.db.AccountByName(ctx, "acme")
	if err != nil {
		b.Fatal(err)
	}
	list, _, err := ts.db.Notifications(ctx, acct.ID, boxwatch.NotificationFilter{}, boxwatch.Page{Number: 1, Size: 100})
	if err != nil {
		b.Fatal(err)
	}
	byEvent := map[string]boxwatch.Notification{}
	for _, n := range list {
		byEvent[n.Event] = n
	}
	nr := jsonapi.NewNotificationRenderer(ts.db, data.Carriers(), data.Ports())
	b.Run("baseline", func(b *testing.B) {
		n := byEvent["tracking_request.succeeded"]
		for b.Loop() {
			if _, err := ts.db.Event(ctx, acct.ID, n.EventID); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, event := range []string{"tracking_request.succeeded", "container.transport.vessel_arrived", "shipment.estimated.arrival", "container.updated"} {
		b.Run(event, func(b *testing.B) {
			n, ok := byEvent[event]
			if !ok {
				b.Fatalf("no %s notification among %d", event, len(list))
			}
			size := 0
			for b.Loop() {
				body, err := nr.Notification(ctx, n)
				if err != nil {
					b.Fatal(err)
				}
				size = len(body)
			}
			b.ReportMetric(float64(size), "bytes")
		})
	}
}
