package api_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/api"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// TestListQueriesPerPageAreConstant shows that a page of a listing costs as many statements
// whatever its size: related rows are read in batches, never one query per row.
func TestListQueriesPerPageAreConstant(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		// Without PostgreSQL's read cache: whether it holds a page's related rows depends on
		// what was read before, not on how the page reads them.
		db := b.OpenWith(t, store.Options{DisableReadCache: true})
		statements := db.CountStatements()
		// Limits lifted: on PostgreSQL a replica takes rate-limit tokens a batch at a time, one
		// statement every so many requests, which would blur the count.
		ts := serveOn(t, db, withLimits(api.Limits{}))
		acct, err := db.AccountByName(context.Background(), "acme")
		if err != nil {
			t.Fatal(err)
		}
		containerID := seedListings(t, db, acct.ID, 100)

		for _, path := range []string{
			"/v2/tracking_requests?include=tracked_object",
			"/v2/shipments?include=containers,pod_terminal,port_of_lading,port_of_discharge,destination,destination_terminal",
			"/v2/containers?include=shipment,pod_terminal,pickup_facility,transport_events",
			"/v2/containers/" + containerID + "/transport_events?include=location,vessel",
			"/v2/webhooks",
			"/v2/webhook_notifications?include=webhook_notification_logs",
		} {
			count := func(size int) int64 {
				sep := "?"
				if strings.Contains(path, "?") {
					sep = "&"
				}
				url := fmt.Sprintf("%s%spage[size]=%d", path, sep, size)
				ts.do(t, "GET", url, ts.acme, "").want(t, 200) // warms the key cache
				before := statements.Load()
				r := ts.do(t, "GET", url, ts.acme, "").want(t, 200)
				n := statements.Load() - before
				if got := len(r.body["data"].([]any)); got != size && !strings.HasPrefix(path, "/v2/webhooks") {
					t.Fatalf("%s: %d records, want %d", url, got, size)
				}
				return n
			}
			one, hundred := count(1), count(100)
			t.Logf("%s: %d statements for a page of 1, %d for a page of 100", path, one, hundred)
			if one != hundred {
				t.Errorf("%s: %d statements for a page of 1 but %d for a page of 100", path, one, hundred)
			}
		}
	})
}

// seedListings stores n of everything a listing relates: tracking requests with their shipments,
// two containers each, n transport events on one container each with its own vessel, and n
// notifications with a delivery attempt each. It returns the container with the events.
func seedListings(t *testing.T, db *store.DB, accountID string, n int) string {
	t.Helper()
	ctx := context.Background()
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	hook := boxwatch.Webhook{ID: boxwatch.NewID(at), AccountID: accountID, URL: "https://example.com/hook", Active: true,
		Events: []string{"container.transport.vessel_loaded"}, Headers: []boxwatch.WebhookHeader{}, Secret: "s", CreatedAt: at, UpdatedAt: at}
	if err := db.CreateWebhook(ctx, hook); err != nil {
		t.Fatal(err)
	}
	var eventsContainer string
	err := db.InTx(ctx, func(tx boxwatch.Tx) error {
		for i := range n {
			created := at.Add(time.Duration(i) * time.Minute)
			tr := boxwatch.TrackingRequest{ID: boxwatch.NewID(created), AccountID: accountID, RequestType: boxwatch.RequestBillOfLading,
				RequestNumber: fmt.Sprintf("MAEU%09d", i), SCAC: "MAEU", RefNumbers: []string{}, ShipmentTags: []string{},
				Status: boxwatch.StatusPending, CreatedAt: created, UpdatedAt: created}
			if err := tx.CreateTrackingRequest(ctx, tr); err != nil {
				return err
			}
			s := boxwatch.Shipment{ID: boxwatch.NewID(created), AccountID: accountID, TrackingRequestID: tr.ID, SCAC: "MAEU",
				BillOfLading: tr.RequestNumber, RefNumbers: []string{}, Tags: []string{}, CreatedAt: created, UpdatedAt: created,
				Route: []boxwatch.RouteStop{{Sequence: 1, LOCODE: "CNSHA", Role: boxwatch.RolePOL}, {Sequence: 2, LOCODE: "NLRTM", Role: boxwatch.RolePOD}}}
			if err := tx.InsertShipment(ctx, s); err != nil {
				return err
			}
			tr.Status, tr.ShipmentID = boxwatch.StatusCreated, s.ID
			if err := tx.SaveTrackingRequestState(ctx, tr); err != nil {
				return err
			}
			for j := range 2 {
				c := boxwatch.Container{ID: boxwatch.NewID(created), AccountID: accountID, ShipmentID: s.ID,
					Number: fmt.Sprintf("MSKU%06d%d", i, j), CurrentStatus: boxwatch.ContainerOnShip, CreatedAt: created, UpdatedAt: created}
				if err := tx.SaveContainer(ctx, c); err != nil {
					return err
				}
				if eventsContainer == "" {
					eventsContainer = c.ID
				}
			}
			imo := fmt.Sprintf("9%06d", i)
			if err := tx.SaveVessel(ctx, boxwatch.Vessel{ID: boxwatch.VesselID(imo), IMO: imo, Name: "Vessel " + imo}, created); err != nil {
				return err
			}
			te := boxwatch.TransportEvent{ID: boxwatch.NewID(created), AccountID: accountID, ShipmentID: s.ID, ContainerID: eventsContainer,
				Event: "container.transport.vessel_loaded", Timestamp: created, LOCODE: fmt.Sprintf("ZZ%03d", i), VesselIMO: imo,
				DataSource: "shipping_line", CreatedAt: created}
			if _, err := tx.InsertTransportEvent(ctx, te); err != nil {
				return err
			}
			ev := boxwatch.Event{ID: boxwatch.NewID(created), AccountID: accountID, Name: te.Event, ObjectType: "transport_event",
				ObjectID: te.ID, ShipmentID: s.ID, ContainerID: eventsContainer, Key: "te:" + te.ID, CreatedAt: created}
			if _, err := tx.AppendEvent(ctx, ev); err != nil {
				return err
			}
			ids, err := tx.Notify(ctx, ev)
			if err != nil {
				return err
			}
			for _, id := range ids {
				if err := tx.AddDeliveryAttempt(ctx, boxwatch.DeliveryAttempt{ID: boxwatch.NewID(created), NotificationID: id,
					At: created, StatusCode: 500, Latency: time.Millisecond}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return eventsContainer
}

// TestContainerKeepsEveryTransportEvent shows a container answers with all its milestones, however
// many: none is cut off silently.
func TestContainerKeepsEveryTransportEvent(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, storetest.SQLite)
	acct, err := ts.db.AccountByName(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	containerID := seedListings(t, ts.db, acct.ID, 1)
	const n = 1001
	err = ts.db.InTx(context.Background(), func(tx boxwatch.Tx) error {
		c, err := ts.db.Container(context.Background(), acct.ID, containerID)
		if err != nil {
			return err
		}
		for i := range n {
			at := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)
			if _, err := tx.InsertTransportEvent(context.Background(), boxwatch.TransportEvent{ID: boxwatch.NewID(at), AccountID: acct.ID,
				ShipmentID: c.ShipmentID, ContainerID: c.ID, Event: "container.transport.vessel_discharged", Timestamp: at,
				LOCODE: fmt.Sprintf("Z%04d", i), DataSource: "shipping_line", CreatedAt: at}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r := ts.do(t, "GET", "/v2/containers/"+containerID+"?include=transport_events", ts.acme, "").want(t, 200)
	related := get(r.body, "data", "relationships", "transport_events", "data").([]any)
	if want := n + 1; len(related) != want || len(r.body["included"].([]any)) != want {
		t.Fatalf("%d related and %d included transport events, want %d", len(related), len(r.body["included"].([]any)), want)
	}
}
