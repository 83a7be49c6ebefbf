package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/client"
	"github.com/boxwatch/boxwatch/store/storetest"
)

var ctx = context.Background()

func mustClient(t *testing.T, url, key string) *client.Client {
	t.Helper()
	c, err := client.New(url, key)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// settle polls a tracking request until its lookup is over.
func settle(t *testing.T, c *client.Client, id string) client.TrackingRequest {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		tr, err := c.TrackingRequest(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Settled() {
			return tr
		}
		if time.Now().After(deadline) {
			t.Fatalf("tracking request %s still %s after a minute", id, tr.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func wantAPIError(t *testing.T, what string, err error, status int, code string) {
	t.Helper()
	var e *client.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: err = %v, want an *client.Error", what, err)
	}
	if e.StatusCode != status || e.Code() != code || e.Detail() == "" {
		t.Fatalf("%s: got %d %q %q, want %d %q with a detail", what, e.StatusCode, e.Code(), e.Detail(), status, code)
	}
}

func TestNew(t *testing.T) {
	for _, tt := range []struct{ name, url, key string }{
		{"NoScheme", "127.0.0.1:8080", ""},
		{"OtherScheme", "ftp://example.com", ""},
		{"NoHost", "http://", ""},
		{"Query", "http://127.0.0.1:8080/?x=1", ""},
		{"Credentials", "http://u:p@127.0.0.1:8080", ""},
		{"KeyWithNewline", "http://127.0.0.1:8080", "bw_x\r\nX-Evil: 1"},
		{"KeyWithSpace", "http://127.0.0.1:8080", "bw_x y"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := client.New(tt.url, tt.key); err == nil {
				t.Fatalf("New(%q, %q) succeeded", tt.url, tt.key)
			}
		})
	}
	c, err := client.New(" http://127.0.0.1:8080/prefix/ ", "")
	if err != nil || c.BaseURL() != "http://127.0.0.1:8080/prefix" {
		t.Fatalf("New with a path prefix: %v, %v", c, err)
	}
}

func TestErrors(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		s := startServer(t, b)
		_, err := mustClient(t, s.URL, "bw_0000000000000000_00000000000000000000000000000000").ShippingLines(ctx)
		wantAPIError(t, "wrong key", err, 401, "unauthorized")
		c := mustClient(t, s.URL, s.key)
		_, err = c.TrackingRequest(ctx, "not-an-id")
		wantAPIError(t, "unknown id", err, 404, "not_found")
		if !client.IsNotFound(err) || client.IsRouteNotFound(err) {
			t.Fatalf("unknown id: IsNotFound %v, IsRouteNotFound %v", client.IsNotFound(err), client.IsRouteNotFound(err))
		}
		// An id cannot reach another route: it is one escaped path segment.
		_, err = c.Shipment(ctx, "../tracking_requests")
		wantAPIError(t, "id with a slash", err, 404, "not_found")

		_, err = c.CreateTrackingRequest(ctx, client.NewTrackingRequest{RequestType: "parcel", RequestNumber: "", SCAC: "MSCU"})
		var e *client.Error
		if !errors.As(err, &e) || e.StatusCode != 422 || len(e.Errors) < 2 || !strings.Contains(err.Error(), "/data/attributes/") {
			t.Fatalf("invalid request: %v; want a 422 listing each member", err)
		}
		_, err = c.Shipments(ctx, client.ShipmentQuery{Q: strings.Repeat("x", 101)})
		wantAPIError(t, "long q", err, 400, "invalid")
		if !strings.Contains(err.Error(), "(q)") {
			t.Fatalf("long q: %v, want the parameter named", err)
		}
		_, err = c.InferNumber(ctx, strings.Repeat("9", 41))
		wantAPIError(t, "long number", err, 422, "too_long")

		down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadGateway)
			w.Write([]byte("<html>proxy error</html>"))
		}))
		defer down.Close()
		_, err = mustClient(t, down.URL, s.key).ShippingLines(ctx)
		wantAPIError(t, "not a JSON:API answer", err, 502, "")
	})
}

func TestTrackingToContainer(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		s := startServer(t, b)
		c := mustClient(t, s.URL, s.key)

		in, err := c.InferNumber(ctx, "MAEU123456784")
		if err != nil || in.NumberType != "bill_of_lading" || in.ShippingLine.Selected == nil || in.ShippingLine.Selected.SCAC != "MAEU" {
			t.Fatalf("InferNumber = %+v, %v", in, err)
		}
		tr, err := c.CreateTrackingRequest(ctx, client.NewTrackingRequest{RequestType: client.BillOfLading,
			RequestNumber: "MAEU123456784", SCAC: "MAEU", RefNumbers: []string{"PO-1"}})
		if err != nil || tr.Status != client.StatusPending || tr.ID == "" || !slices.Equal(tr.RefNumbers, []string{"PO-1"}) {
			t.Fatalf("CreateTrackingRequest = %+v, %v", tr, err)
		}
		tr = settle(t, c, tr.ID)
		if tr.Status != client.StatusCreated || tr.ShipmentID == "" {
			t.Fatalf("settled request = %+v, want created with a shipment", tr)
		}
		list, err := c.TrackingRequests(ctx, client.TrackingRequestQuery{Status: client.StatusCreated, Q: "456784"})
		if err != nil || list.Total != 1 || len(list.Items) != 1 || list.Items[0].ID != tr.ID || list.Page != 1 || list.LastPage != 1 {
			t.Fatalf("TrackingRequests = %+v, %v", list, err)
		}

		sh, err := c.Shipment(ctx, tr.ShipmentID)
		if err != nil || sh.Number() != "MAEU123456784" || sh.ShippingLineSCAC != "MAEU" || len(sh.Containers) == 0 ||
			len(sh.Containers) != len(sh.ContainerIDs) || sh.PortOfDischargeLOCODE == nil {
			t.Fatalf("Shipment = %+v, %v", sh, err)
		}
		box := sh.Containers[0]
		for _, q := range []string{"3456784", "po-1", strings.ToLower(box.Number[:8])} {
			found, err := c.Shipments(ctx, client.ShipmentQuery{Q: q})
			if err != nil || found.Total != 1 || found.Items[0].ID != sh.ID {
				t.Fatalf("Shipments(q=%q) = %+v, %v", q, found, err)
			}
		}
		stopped := true
		if found, err := c.Shipments(ctx, client.ShipmentQuery{Q: "3456784", TrackingStopped: &stopped}); err != nil || found.Total != 0 {
			t.Fatalf("Shipments(q, stopped) = %+v, %v; want none", found, err)
		}

		got, err := c.ContainerByNumber(ctx, strings.ToLower(box.Number[:4])+" "+box.Number[4:])
		if err != nil || got.ID != box.ID || got.ShipmentID != sh.ID {
			t.Fatalf("ContainerByNumber = %+v, %v; want %s", got, err, box.ID)
		}
		if _, err := c.ContainerByNumber(ctx, "ZZZU0000000"); !client.IsNotFound(err) {
			t.Fatalf("ContainerByNumber of an unknown box: %v, want 404", err)
		}
		if got, err := c.Container(ctx, box.ID); err != nil || got.Number != box.Number || got.CurrentStatus == "" ||
			got.Shipment != nil || got.TransportEvents != nil {
			t.Fatalf("Container = %+v, %v", got, err)
		}
		if page, err := c.Containers(ctx, client.Page{Number: 1, Size: 1}); err != nil || page.Total != len(sh.Containers) || len(page.Items) != 1 {
			t.Fatalf("Containers = %+v, %v", page, err)
		}
		with, err := c.Container(ctx, box.ID, "shipment", "transport_events")
		if err != nil || with.Shipment == nil || with.Shipment.ID != sh.ID || with.Shipment.Number() != sh.Number() ||
			with.Shipment.PODTimezone == nil || len(with.TransportEvents) == 0 {
			t.Fatalf("Container with its shipment and events = %+v, %v", with, err)
		}
		if page, err := c.Containers(ctx, client.Page{Size: 1}, "shipment"); err != nil || page.Items[0].Shipment == nil || page.Items[0].Shipment.ID != sh.ID {
			t.Fatalf("Containers with their shipments = %+v, %v", page, err)
		}
		_, err = c.Container(ctx, box.ID, "cargo")
		wantAPIError(t, "an include the API does not know", err, 400, "invalid")

		matches, err := c.Search(ctx, "3456784")
		if err != nil || len(matches) < 2 || matches[0].Type != client.MatchShipment || matches[0].ID != sh.ID ||
			!slices.ContainsFunc(matches, func(m client.Match) bool { return m.Type == client.MatchTrackingRequest && m.ID == tr.ID }) {
			t.Fatalf("Search = %+v, %v", matches, err)
		}
		if matches, err := c.Search(ctx, box.Number); err != nil || !slices.ContainsFunc(matches, func(m client.Match) bool {
			return m.Type == client.MatchContainer && m.ID == box.ID && m.ShipmentID != nil && *m.ShipmentID == sh.ID
		}) {
			t.Fatalf("Search(container) = %+v, %v", matches, err)
		}
		_, err = c.Search(ctx, "")
		wantAPIError(t, "an empty search", err, 400, "invalid")

		// A second request for the number is a duplicate; the live one is found.
		_, err = c.CreateTrackingRequest(ctx, client.NewTrackingRequest{RequestType: client.BillOfLading, RequestNumber: "MAEU123456784", SCAC: "MAEU"})
		wantAPIError(t, "a duplicate", err, 422, "duplicate")
		for _, scac := range []string{"MAEU", ""} {
			if live, err := c.LiveTrackingRequest(ctx, "maeu123456784", scac); err != nil || live.ID != tr.ID {
				t.Fatalf("LiveTrackingRequest(%q) = %+v, %v", scac, live, err)
			}
		}
		if _, err := c.LiveTrackingRequest(ctx, "MAEU999999999", ""); !client.IsNotFound(err) {
			t.Fatalf("LiveTrackingRequest of a number never tracked: %v", err)
		}
		// Without a SCAC the request is created with none, and its lookup finds the line.
		auto, err := c.CreateTrackingRequest(ctx, client.NewTrackingRequest{RequestType: in.RequestType(), RequestNumber: "MAEU123456785", AutoDetect: true})
		if err != nil || auto.SCAC != "" || auto.Status != "pending" || auto.RequestType != client.BillOfLading {
			t.Fatalf("CreateTrackingRequest detecting the line = %+v, %v; want pending without a scac", auto, err)
		}
		if auto = settle(t, c, auto.ID); auto.SCAC != "MAEU" || auto.Status != "created" {
			t.Fatalf("the detected request settled as %+v; want created with MAEU", auto)
		}
		events, err := c.TransportEvents(ctx, box.ID)
		if err != nil || len(events) == 0 {
			t.Fatalf("TransportEvents = %v, %v", events, err)
		}
		for i, e := range events {
			if !strings.HasPrefix(e.Event, "container.transport.") || e.Timestamp == nil {
				t.Fatalf("event %d = %+v", i, e)
			}
			if i > 0 && e.Timestamp.Before(*events[i-1].Timestamp) {
				t.Fatalf("events not oldest first: %v before %v", events[i-1].Timestamp, e.Timestamp)
			}
		}
		if e := events[0]; e.LocationLOCODE == nil || e.LocationName == "" {
			t.Fatalf("first event has no place: %+v", e)
		}

		if sh.PODVesselIMO != nil {
			v, err := c.Vessel(ctx, *sh.PODVesselIMO)
			if err != nil || v.IMO != *sh.PODVesselIMO || v.Name == "" {
				t.Fatalf("Vessel(%s) = %+v, %v", *sh.PODVesselIMO, v, err)
			}
		}

		// Another account sees none of it.
		other := mustClient(t, s.URL, s.keyB)
		if _, err := other.Shipment(ctx, sh.ID); !client.IsNotFound(err) {
			t.Fatalf("other account's Shipment: %v", err)
		}
		if _, err := other.ContainerByNumber(ctx, box.Number); !client.IsNotFound(err) {
			t.Fatalf("other account's ContainerByNumber: %v", err)
		}

		t.Run("Map", func(t *testing.T) {
			fc, err := c.ContainerMap(ctx, box.ID)
			if err != nil || !json.Valid(fc) {
				t.Fatalf("ContainerMap = %s, %v", fc, err)
			}
		})
	})
}

func TestShippingLines(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		c := mustClient(t, startServer(t, b).URL, "")
		_, err := c.ShippingLines(ctx)
		wantAPIError(t, "no key", err, 401, "unauthorized")
	})
	s := startServer(t, storetest.Backends[0])
	c := mustClient(t, s.URL, s.key)
	lines, err := c.ShippingLines(ctx)
	if err != nil || len(lines) < 10 || !slices.ContainsFunc(lines, func(l client.ShippingLine) bool { return l.SCAC == "MSCU" && l.ID != "" }) {
		t.Fatalf("ShippingLines = %d lines, %v", len(lines), err)
	}
	msc, err := c.ShippingLine(ctx, "MEDU")
	if err != nil || msc.SCAC != "MSCU" || !slices.Contains(msc.AlternativeSCACs, "MEDU") {
		t.Fatalf("ShippingLine(MEDU) = %+v, %v", msc, err)
	}
	for search, want := range map[string]string{"medu": "MSCU", "Mediterranean": "MSCU", "": ""} {
		found, err := c.FindShippingLines(ctx, search)
		if err != nil || want != "" && (len(found) != 1 || found[0].SCAC != want) || want == "" && len(found) != len(lines) {
			t.Fatalf("FindShippingLines(%q) = %+v, %v", search, found, err)
		}
	}
	cats, err := c.WebhookEvents(ctx)
	if err != nil || len(cats) < 3 || !slices.ContainsFunc(cats[0].Events, func(e client.EventInfo) bool {
		return e.Name == "tracking_request.succeeded" && e.Emitted && e.Description != ""
	}) {
		t.Fatalf("WebhookEvents = %+v, %v", cats, err)
	}
}

func TestInferenceRequestType(t *testing.T) {
	for numberType, want := range map[string]string{"container": client.ContainerType, "bill_of_lading": client.BillOfLading,
		"booking": client.BookingNumber, "": "", "parcel": ""} {
		if got := (client.Inference{NumberType: numberType}).RequestType(); got != want {
			t.Errorf("%q: %q, want %q", numberType, got, want)
		}
	}
}

func TestWebhooks(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		s := startServer(t, b)
		c := mustClient(t, s.URL, s.key)
		var received atomic.Int32
		receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			received.Add(1)
			w.WriteHeader(http.StatusNoContent)
		}))
		defer receiver.Close()

		w, err := c.CreateWebhook(ctx, client.WebhookChange{URL: receiver.URL + "/hook", Events: []string{"tracking_request.succeeded"},
			Headers: []client.Header{{Name: "X-Team", Value: "ops"}}})
		if err != nil || w.ID == "" || !w.Active || w.Secret == "" || len(w.Headers) != 1 {
			t.Fatalf("CreateWebhook = %+v, %v", w, err)
		}
		_, err = c.CreateWebhook(ctx, client.WebhookChange{URL: "not a url", Events: []string{"tracking_request.succeeded"}})
		wantAPIError(t, "bad webhook URL", err, 422, "invalid")

		tr, err := c.CreateTrackingRequest(ctx, client.NewTrackingRequest{RequestType: client.BillOfLading, RequestNumber: "TEST-TR-SUCCEEDED", SCAC: "TEST"})
		if err != nil {
			t.Fatal(err)
		}
		settle(t, c, tr.ID)
		var n client.Notification
		deadline := time.Now().Add(30 * time.Second)
		for {
			list, err := c.Notifications(ctx, client.NotificationQuery{WebhookID: w.ID, WithLog: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(list.Items) == 1 && list.Items[0].DeliveryStatus == client.DeliverySucceeded {
				n = list.Items[0]
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no delivered notification: %+v", list)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if n.Event != "tracking_request.succeeded" || n.WebhookID != w.ID || n.Attempts != 1 || len(n.Log) != 1 ||
			n.Log[0].StatusCode == nil || *n.Log[0].StatusCode != 204 || received.Load() != 1 {
			t.Fatalf("notification = %+v, received %d", n, received.Load())
		}
		one, err := c.Notification(ctx, n.ID)
		if err != nil || one.ID != n.ID || len(one.Log) != 1 {
			t.Fatalf("Notification = %+v, %v", one, err)
		}
		again, err := c.Redeliver(ctx, n.ID)
		if err != nil || again.ID != n.ID || again.DeliveryStatus != client.DeliveryPending {
			t.Fatalf("Redeliver = %+v, %v", again, err)
		}
		// Once the redelivery is through, nothing is failed or waiting for a retry: RedeliverSince
		// has nothing to send.
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			got, err := c.Notification(ctx, n.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.DeliveryStatus == client.DeliverySucceeded && received.Load() == 2 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the redelivery never went through: %+v, received %d", got, received.Load())
			}
		}
		if count, err := c.RedeliverSince(ctx, w.ID, time.Now().Add(-time.Hour)); err != nil || count != 0 {
			t.Fatalf("RedeliverSince = %d, %v; want 0 (nothing failed or retrying)", count, err)
		}

		off := false
		if u, err := c.UpdateWebhook(ctx, w.ID, client.WebhookChange{Active: &off}); err != nil || u.Active || u.URL != w.URL {
			t.Fatalf("UpdateWebhook = %+v, %v", u, err)
		}
		if list, err := c.Webhooks(ctx); err != nil || len(list) != 1 || list[0].ID != w.ID || list[0].Active {
			t.Fatalf("Webhooks = %+v, %v", list, err)
		}
		if err := c.DeleteWebhook(ctx, w.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Webhook(ctx, w.ID); !client.IsNotFound(err) {
			t.Fatalf("deleted webhook: %v", err)
		}
		wantAPIError(t, "deleting twice", c.DeleteWebhook(ctx, w.ID), 404, "not_found")
	})
}
