package main

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boxwatch/boxwatch/assistant"
	"github.com/boxwatch/boxwatch/client"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// TestMCPAnswersAsTheAPIDoes calls every tool, prompt and resource over HTTP and over stdio on
// demo data, checks each answer against the REST API's, and checks that both transports answer
// alike.
func TestMCPAnswersAsTheAPIDoes(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		dsn := b.DSN(t)
		w := startDemoWorld(t, dsn)
		web, stdio := mcpHTTP(t, w.url, w.key), mcpStdio(t, w.url, w.key)
		both := []*mcp.ClientSession{web, stdio}
		box := w.atSea.Containers[0]

		t.Run("search_container", func(t *testing.T) {
			var got assistant.SearchResult
			summary := same(t, both, "search_container", map[string]any{"query": w.atSea.Number()}, &got)
			matches, err := w.rest.Search(ctx, w.atSea.Number())
			if err != nil {
				t.Fatal(err)
			}
			var want, have []string
			for _, m := range matches {
				want = append(want, m.Type+" "+m.ID)
			}
			for _, c := range got.Containers {
				have = append(have, "cargo "+c.ID)
			}
			for _, s := range got.Shipments {
				have = append(have, "shipment "+s.ID)
			}
			for _, r := range got.TrackingRequests {
				have = append(have, "tracking_request "+r.ID)
			}
			slices.Sort(want)
			slices.Sort(have)
			if !slices.Equal(have, want) || got.TotalResults != len(matches) || len(got.Shipments) != 1 || got.Shipments[0].ID != w.atSea.ID {
				t.Errorf("search found %v (total %d), the API %v", have, got.TotalResults, want)
			}
			if !strings.Contains(summary, w.atSea.Number()) {
				t.Errorf("summary %q", summary)
			}
		})

		t.Run("get_container", func(t *testing.T) {
			var got assistant.Container
			summary := same(t, both, "get_container", map[string]any{"id": box.ID}, &got)
			want, err := w.rest.Container(ctx, box.ID, "shipment")
			if err != nil {
				t.Fatal(err)
			}
			checkContainer(t, got, want)
			if got.Shipment == nil || got.Shipment.ID != want.ShipmentID || got.PODTerminal != nil || got.TransportEvents != nil {
				t.Errorf("the default include is the shipment alone: %+v", got)
			}
			if !strings.Contains(summary, box.Number) || !strings.Contains(summary, "on a vessel") {
				t.Errorf("summary %q", summary)
			}

			// At the terminal, with every include.
			dis := w.atTerminal.Containers[0]
			got = assistant.Container{}
			summary = same(t, both, "get_container", map[string]any{"id": dis.ID, "include": []string{"pod_terminal", "transport_events"}}, &got)
			if want, err = w.rest.Container(ctx, dis.ID, "pod_terminal", "transport_events"); err != nil {
				t.Fatal(err)
			}
			checkContainer(t, got, want)
			if got.Shipment != nil || got.PODTerminal == nil || want.PODTerminal == nil || got.PODTerminal.Name != want.PODTerminal.Name ||
				len(got.TransportEvents) != len(want.TransportEvents) || len(want.TransportEvents) == 0 {
				t.Errorf("include pod_terminal and transport_events: %+v, the API %+v", got, want)
			}
			// Whether a discharged box can be picked up is its terminal's to say, in a check of
			// its own: the summary says what the API says, known or not yet.
			switch {
			case want.PODDischargedAt == nil:
				t.Errorf("the container at the terminal is not discharged: %+v", want)
			case want.AvailableForPickup == nil && !strings.Contains(summary, "terminal has not said"),
				want.AvailableForPickup != nil && *want.AvailableForPickup && !strings.Contains(summary, "available for pickup"):
				t.Errorf("a discharged container (available %v): summary %q", want.AvailableForPickup, summary)
			}
		})

		t.Run("get_shipment_details", func(t *testing.T) {
			var got assistant.ShipmentDetails
			summary := same(t, both, "get_shipment_details", map[string]any{"id": w.atSea.ID}, &got)
			want, err := w.rest.Shipment(ctx, w.atSea.ID)
			if err != nil {
				t.Fatal(err)
			}
			checkShipment(t, got.Shipment, want)
			if len(got.Containers) != len(want.Containers) || len(want.Containers) == 0 || got.Containers[0].ID != want.Containers[0].ID {
				t.Errorf("containers %+v, the API %+v", got.Containers, want.Containers)
			}
			if !strings.Contains(summary, w.atSea.Number()) || !strings.Contains(summary, box.Number) {
				t.Errorf("summary %q", summary)
			}
			got = assistant.ShipmentDetails{}
			same(t, both, "get_shipment_details", map[string]any{"id": w.atSea.ID, "include_containers": false}, &got)
			if got.Containers != nil || len(got.ContainerNumbers) != len(want.Containers) {
				t.Errorf("include_containers false: %+v", got)
			}
		})

		t.Run("get_container_transport_events", func(t *testing.T) {
			var got assistant.Events
			same(t, both, "get_container_transport_events", map[string]any{"id": box.ID}, &got)
			want, err := w.rest.TransportEvents(ctx, box.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.TotalEvents != len(want) || len(got.Timeline) != len(want) || len(want) == 0 {
				t.Fatalf("%d events, the API %d", len(got.Timeline), len(want))
			}
			for i, e := range want {
				g := got.Timeline[i]
				if g.ID != e.ID || g.Event != e.Event || g.Location.Name == nil || *g.Location.Name != e.LocationName || g.DataSource != e.DataSource {
					t.Errorf("event %d: %+v, the API %+v", i, g, e)
				}
				wantTime(t, e.Event, g.At, e.Timestamp, e.Timezone)
			}
		})

		t.Run("get_supported_shipping_lines", func(t *testing.T) {
			for _, search := range []string{"", "maersk", "MSCU"} {
				var got assistant.ShippingLines
				same(t, both, "get_supported_shipping_lines", map[string]any{"search": search}, &got)
				want, err := w.rest.FindShippingLines(ctx, search)
				if err != nil {
					t.Fatal(err)
				}
				if got.TotalLines != len(want) || len(want) == 0 {
					t.Fatalf("search %q: %d lines, the API %d", search, got.TotalLines, len(want))
				}
				for i, l := range want {
					g := got.ShippingLines[i]
					if g.SCAC != l.SCAC || g.Name != l.Name || g.Tracks.Container != l.ContainerNumberTrackingSupport || !slices.Equal(g.AlternativeSCACs, l.AlternativeSCACs) {
						t.Errorf("search %q: line %d %+v, the API %+v", search, i, g, l)
					}
				}
			}
		})

		t.Run("get_container_route", func(t *testing.T) {
			var got assistant.Route
			summary := same(t, both, "get_container_route", map[string]any{"id": box.ID}, &got)
			ports, _ := restMap(t, w, box.ID)
			if got.TotalLegs != len(ports)-1 || len(got.Legs) != got.TotalLegs || got.TotalLegs != 2 {
				t.Fatalf("%d legs over %d ports", got.TotalLegs, len(ports))
			}
			for i, l := range got.Legs {
				from, to := ports[i], ports[i+1]
				if *l.From.Name != from.Name || *l.To.Name != to.Name || l.From.Label != from.Label || l.To.Label != to.Label {
					t.Errorf("leg %d: %+v, the map's ports %+v %+v", i, l, from, to)
				}
				wantTime(t, "ATD", l.From.ATD, from.OutboundATDAt, from.TimeZone)
				wantTime(t, "ETD", l.From.ETD, from.OutboundETDAt, from.TimeZone)
				wantTime(t, "ETA", l.To.ETA, to.InboundETAAt, to.TimeZone)
				wantTime(t, "ATA", l.To.ATA, to.InboundATAAt, to.TimeZone)
			}
			if got.Legs[0].Status != "at_sea" || got.Legs[1].Status != "not_started" {
				t.Errorf("leg statuses %s, %s", got.Legs[0].Status, got.Legs[1].Status)
			}
			if !strings.Contains(summary, "→") {
				t.Errorf("summary %q", summary)
			}

			// Every leg of a discharged container was sailed, each by a vessel the API names.
			dis := w.atTerminal.Containers[0]
			got = assistant.Route{}
			same(t, both, "get_container_route", map[string]any{"id": dis.ID}, &got)
			for i, l := range got.Legs {
				if l.Status != "sailed" || l.Vessel == nil || l.Vessel.IMO == nil {
					t.Fatalf("leg %d of a discharged container: %+v", i, l)
				}
				v, err := w.rest.Vessel(ctx, *l.Vessel.IMO)
				if err != nil || *l.Vessel.Name != v.Name {
					t.Errorf("leg %d: vessel %+v, the API %+v %v", i, l.Vessel, v, err)
				}
			}
			if len(got.Legs) == 0 {
				t.Error("a discharged container has no route")
			}
		})

		t.Run("get_container_journey", func(t *testing.T) {
			// The vessel moves: compare with the map when it did not change around the call.
			for try := 0; ; try++ {
				var got assistant.Journey
				ports, before := restMap(t, w, box.ID)
				summary := callTool(t, web, "get_container_journey", map[string]any{"id": box.ID}, &got)
				if _, after := restMap(t, w, box.ID); !jsonEqual(t, before, after) {
					if try == 10 {
						t.Fatal("the map never held still around a call")
					}
					continue
				}
				checkJourney(t, got, ports, before, summary)
				break
			}
			var arrived assistant.Journey
			same(t, both, "get_container_journey", map[string]any{"id": w.atTerminal.Containers[0].ID}, &arrived)
			if arrived.Status != "arrived" || arrived.Position != nil || arrived.From == nil || arrived.From.Label != "POD" {
				t.Errorf("a discharged container's journey: %+v", arrived)
			}
		})

		t.Run("list_shipments", func(t *testing.T) {
			var got assistant.Shipments
			same(t, both, "list_shipments", map[string]any{"page_size": 1}, &got)
			want, err := w.rest.Shipments(ctx, client.ShipmentQuery{Page: client.Page{Size: 1}})
			if err != nil {
				t.Fatal(err)
			}
			if got.Total != 2 || want.Total != 2 || !got.HasMore || len(got.Items) != 1 || got.Items[0].ID != want.Items[0].ID || got.Items[0].Containers != nil {
				t.Errorf("page 1 of 1: %+v, the API %+v", got, want)
			}
			same(t, both, "list_shipments", map[string]any{"number": w.atTerminal.Number(), "include_containers": true}, &got)
			if got.Total != 1 || got.Items[0].ID != w.atTerminal.ID || len(got.Items[0].Containers) != len(w.atTerminal.Containers) {
				t.Errorf("by number: %+v", got)
			}
			for _, stopped := range []bool{false, true} {
				same(t, both, "list_shipments", map[string]any{"tracking_stopped": stopped}, &got)
				want, err := w.rest.Shipments(ctx, client.ShipmentQuery{TrackingStopped: &stopped})
				if err != nil {
					t.Fatal(err)
				}
				if got.Total != want.Total || len(got.Items) != len(want.Items) || len(want.Items) > 0 && got.Items[0].ID != want.Items[0].ID {
					t.Errorf("tracking_stopped %v: %+v, the API %+v", stopped, got, want)
				}
			}
		})

		t.Run("list_containers", func(t *testing.T) {
			var got assistant.Containers
			summary := same(t, both, "list_containers", map[string]any{"include": "shipment, pod_terminal", "page_size": 100}, &got)
			want, err := w.rest.Containers(ctx, client.Page{Size: 100}, "shipment", "pod_terminal")
			if err != nil {
				t.Fatal(err)
			}
			if got.Total != want.Total || len(got.Items) != len(want.Items) || got.HasMore {
				t.Fatalf("%d of %d containers, the API %d of %d", len(got.Items), got.Total, len(want.Items), want.Total)
			}
			for i, c := range want.Items {
				checkContainer(t, got.Items[i], c)
				if got.Items[i].Shipment == nil || got.Items[i].Shipment.ID != c.ShipmentID {
					t.Errorf("container %s: no shipment included", c.Number)
				}
			}
			if !strings.Contains(summary, "on_ship") {
				t.Errorf("summary %q", summary)
			}
		})

		t.Run("list_tracking_requests", func(t *testing.T) {
			var got assistant.TrackingRequests
			same(t, both, "list_tracking_requests", map[string]any{"status": "created", "filters": map[string]string{"scac": "MAEU", "filter[request_number]": w.atSea.Number()}}, &got)
			want, err := w.rest.TrackingRequests(ctx, client.TrackingRequestQuery{Status: "created", SCAC: "MAEU", RequestNumber: w.atSea.Number()})
			if err != nil {
				t.Fatal(err)
			}
			if got.Total != 1 || want.Total != 1 || got.Items[0].ID != want.Items[0].ID || *got.Items[0].ShipmentID != w.atSea.ID {
				t.Errorf("%+v, the API %+v", got, want)
			}
			for _, s := range both {
				if msg := toolError(t, s, "list_tracking_requests", map[string]any{"request_type": "container"}); !strings.Contains(msg, "filter[request_type]") {
					t.Errorf("request_type: %q", msg)
				}
			}
		})

		t.Run("infer_number", func(t *testing.T) {
			var got assistant.Inference
			summary := same(t, both, "infer_number", map[string]any{"number": "MSCU 123456-6"}, &got)
			want, err := w.rest.InferNumber(ctx, "MSCU 123456-6")
			if err != nil {
				t.Fatal(err)
			}
			if got.NumberType != want.NumberType || got.RequestType != "container" || got.ShippingLine.Decision != want.ShippingLine.Decision ||
				len(got.ShippingLine.Candidates) != len(want.ShippingLine.Candidates) || got.ShippingLine.Candidates[0].SCAC != want.ShippingLine.Candidates[0].SCAC {
				t.Errorf("%+v, the API %+v", got, want)
			}
			if !strings.Contains(summary, "container") {
				t.Errorf("summary %q", summary)
			}
		})

		t.Run("list_failed_deliveries", func(t *testing.T) {
			var got assistant.Deliveries
			summary := same(t, both, "list_failed_deliveries", map[string]any{"webhook_id": w.webhook.ID}, &got)
			want, err := w.rest.Notifications(ctx, client.NotificationQuery{WebhookID: w.webhook.ID, DeliveryStatus: client.DeliveryFailed, WithLog: true})
			if err != nil {
				t.Fatal(err)
			}
			if got.Total != 2 || len(got.Items) != len(want.Items) {
				t.Fatalf("%+v, the API %+v", got, want)
			}
			for i, n := range want.Items {
				g := got.Items[i]
				if g.ID != n.ID || g.Attempts != n.Attempts || g.WebhookID != w.webhook.ID || len(n.Log) == 0 || g.LastAttempt == nil {
					t.Fatalf("delivery %d: %+v, the API %+v", i, g, n)
				}
				last := n.Log[len(n.Log)-1]
				if !equalPtr(g.LastAttempt.StatusCode, last.StatusCode) || !equalPtr(g.LastAttempt.Error, last.Error) || g.LastAttempt.At != last.AttemptedAt.UTC().Format(time.RFC3339) {
					t.Errorf("delivery %d: last attempt %+v, the API %+v", i, *g.LastAttempt, last)
				}
			}
			if !strings.Contains(summary, got.Items[0].Event) {
				t.Errorf("summary %q", summary)
			}
		})

		t.Run("redeliver_failed_deliveries", func(t *testing.T) {
			list, err := w.rest.Notifications(ctx, client.NotificationQuery{WebhookID: w.webhook.ID, DeliveryStatus: client.DeliveryFailed})
			if err != nil {
				t.Fatal(err)
			}
			// An inactive webhook (boxwatch turns off one whose deliveries all fail) must be turned on first.
			for _, active := range []bool{false, true} {
				if _, err := w.rest.UpdateWebhook(ctx, w.webhook.ID, client.WebhookChange{Active: &active}); err != nil {
					t.Fatal(err)
				}
				if active {
					break
				}
				if msg := toolError(t, web, "redeliver_failed_deliveries", map[string]any{"notification_id": list.Items[0].ID}); !strings.Contains(msg, "active") {
					t.Errorf("redelivering to an inactive webhook: %q", msg)
				}
			}
			var one assistant.Redelivered
			callTool(t, web, "redeliver_failed_deliveries", map[string]any{"notification_id": list.Items[0].ID}, &one)
			if one.Redelivered != 1 || one.Notification == nil || one.Notification.ID != list.Items[0].ID {
				t.Errorf("redelivering one: %+v", one)
			}
			waitDelivery(t, w, list.Items[0].ID)
			var all assistant.Redelivered
			callTool(t, stdio, "redeliver_failed_deliveries", map[string]any{"webhook_id": w.webhook.ID,
				"since": w.webhook.CreatedAt.Add(-time.Minute).Format(time.RFC3339)}, &all)
			if all.Redelivered < 1 {
				t.Errorf("redelivering since: %+v", all)
			}
			waitDelivery(t, w, list.Items[1].ID)
		})

		t.Run("track_container", func(t *testing.T) {
			var made assistant.Tracked
			summary := callTool(t, web, "track_container", map[string]any{"number": "MAEU123456784", "refNumbers": []string{"PO-7"}}, &made)
			tr := made.TrackingRequest
			if !made.Created || made.Inference == nil || made.Inference.RequestType != "bill_of_lading" || tr.SCAC != "" ||
				tr.RequestType != "bill_of_lading" || !slices.Equal(tr.RefNumbers, []string{"PO-7"}) || !strings.Contains(summary, "created") {
				t.Fatalf("track: %+v %q", made, summary)
			}
			if want, err := w.rest.TrackingRequest(ctx, tr.ID); err != nil || want.RequestNumber != tr.RequestNumber || want.RequestType != tr.RequestType {
				t.Fatalf("the API has %+v, %v", want, err)
			}
			if settled := settle(t, w.rest, tr.ID); settled.SCAC != "MAEU" {
				t.Fatalf("the lookup detected %q, want MAEU", settled.SCAC)
			}
			var again assistant.Tracked
			summary = callTool(t, stdio, "track_container", map[string]any{"number": "maeu123456784", "scac": "MAEU", "numberType": "bill_of_lading"}, &again)
			if again.Created || again.TrackingRequest.ID != tr.ID || again.Shipment == nil || again.Inference != nil || !strings.Contains(summary, "tracked already") {
				t.Errorf("tracking it again: %+v %q", again, summary)
			}
			var booking assistant.Tracked
			callTool(t, web, "track_container", map[string]any{"bookingNumber": "MAEU123456785", "scac": "MAEU"}, &booking)
			if want, err := w.rest.TrackingRequest(ctx, booking.TrackingRequest.ID); err != nil || want.RequestType != client.BookingNumber || booking.Inference != nil {
				t.Errorf("the deprecated bookingNumber: %+v, the API %+v %v", booking, want, err)
			}
		})

		t.Run("resources", func(t *testing.T) {
			for _, s := range both {
				text := readResource(t, s, "boxwatch://container/"+box.ID)
				if !strings.Contains(text, "# Container "+box.Number) || !strings.Contains(text, w.atSea.Number()) {
					t.Errorf("the container resource:\n%s", text)
				}
				if _, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "boxwatch://container/00000000-0000-4000-8000-000000000000"}); err == nil {
					t.Error("an unknown container was read")
				}
				cats, err := w.rest.WebhookEvents(ctx)
				if err != nil {
					t.Fatal(err)
				}
				text = readResource(t, s, "boxwatch://docs/milestone-glossary")
				for _, e := range cats[1].Events {
					if !strings.Contains(text, "`"+e.Name+"`: "+e.Description) {
						t.Errorf("the glossary misses %s", e.Name)
					}
				}
				if text = readResource(t, s, "boxwatch://docs/mcp-query-guidance"); !strings.Contains(text, "search_container") {
					t.Errorf("the guidance:\n%s", text)
				}
				var columns map[string][]struct{ Key, Label string }
				if err := json.Unmarshal([]byte(readResource(t, s, "boxwatch://docs/list-display-columns")), &columns); err != nil || len(columns["list_containers"]) == 0 {
					t.Errorf("the display columns: %v %v", columns, err)
				}
			}
		})

		t.Run("AnotherAccountSeesNothing", func(t *testing.T) {
			rival := accountKey(t, dsn, "rival", "--feature", "map")
			failedOnes, err := w.rest.Notifications(ctx, client.NotificationQuery{WebhookID: w.webhook.ID})
			if err != nil || failedOnes.Total == 0 {
				t.Fatal(failedOnes, err)
			}
			for _, s := range []*mcp.ClientSession{mcpHTTP(t, w.url, rival), mcpStdio(t, w.url, rival)} {
				var found assistant.SearchResult
				callTool(t, s, "search_container", map[string]any{"query": w.atSea.Number()}, &found)
				if found.TotalResults != 0 {
					t.Errorf("search found %+v", found)
				}
				for name, arg := range map[string]string{"get_container": box.ID, "get_container_transport_events": box.ID, "get_container_route": box.ID,
					"get_container_journey": box.ID, "get_shipment_details": w.atSea.ID} {
					if msg := toolError(t, s, name, map[string]any{"id": arg}); !strings.Contains(msg, "of this account has that id") {
						t.Errorf("%s of another account's: %q", name, msg)
					}
				}
				var page struct {
					Items []json.RawMessage `json:"items"`
					assistant.Paging
				}
				for _, name := range []string{"list_containers", "list_shipments", "list_tracking_requests", "list_failed_deliveries"} {
					callTool(t, s, name, map[string]any{}, &page)
					if page.Total != 0 || len(page.Items) != 0 {
						t.Errorf("%s lists another account's: %+v", name, page)
					}
				}
				if msg := toolError(t, s, "redeliver_failed_deliveries", map[string]any{"notification_id": failedOnes.Items[0].ID}); !strings.Contains(msg, "of this account has that id") {
					t.Errorf("redelivering another account's: %q", msg)
				}
				if msg := toolError(t, s, "list_failed_deliveries", map[string]any{"webhook_id": "not-an-id"}); !strings.Contains(msg, "not a boxwatch id") {
					t.Errorf("a malformed webhook id: %q", msg)
				}
				if _, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "boxwatch://container/" + box.ID}); err == nil {
					t.Error("another account read the container resource")
				}
			}
			// A feature the account lacks is named, with what to do.
			basic := mcpHTTP(t, w.url, accountKey(t, dsn, "basic"))
			if msg := toolError(t, basic, "get_container_route", map[string]any{"id": box.ID}); !strings.Contains(msg, "feature") {
				t.Errorf("the route without the map feature: %q", msg)
			}
		})

		t.Run("Authentication", func(t *testing.T) {
			// Terminal49's scheme works too.
			var found assistant.SearchResult
			callTool(t, mcpHTTPScheme(t, w.url, "Token", w.key), "search_container", map[string]any{"query": w.atSea.Number()}, &found)
			if found.TotalResults == 0 {
				t.Error("Token KEY found nothing")
			}
			body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
			for _, auth := range []string{"", "Bearer bw_0000000000000000_00000000000000000000000000000000", "Basic " + w.key} {
				req, _ := http.NewRequest("POST", w.url+"/mcp", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if auth != "" {
					req.Header.Set("Authorization", auth)
				}
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				var doc struct {
					Errors []struct{ Code string } `json:"errors"`
				}
				err = json.NewDecoder(res.Body).Decode(&doc)
				res.Body.Close()
				if res.StatusCode != http.StatusUnauthorized || err != nil || len(doc.Errors) != 1 || doc.Errors[0].Code != "unauthorized" {
					t.Errorf("%q: %d %+v %v", auth, res.StatusCode, doc, err)
				}
			}
			// Behind a reverse proxy on the same machine the request names the public host; an
			// oversized body is refused before it is read whole.
			for _, tt := range []struct {
				body   string
				status int
			}{{body, http.StatusOK}, {`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"` + strings.Repeat("x", 1<<20) + `"}}`, http.StatusRequestEntityTooLarge}} {
				req, _ := http.NewRequest("POST", w.url+"/mcp", strings.NewReader(tt.body))
				req.Host = "track.example.com"
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Authorization", "Bearer "+w.key)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				raw, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != tt.status || tt.status == http.StatusOK && !strings.Contains(string(raw), "search_container") {
					t.Errorf("a %d-byte request through a proxy: %d %.200s", len(tt.body), res.StatusCode, raw)
				}
			}
			if _, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx,
				&mcp.StreamableClientTransport{Endpoint: w.url + "/mcp", MaxRetries: -1}, nil); err == nil {
				t.Error("an MCP client without a key connected")
			}
		})

		t.Run("HostileInput", func(t *testing.T) {
			for _, s := range both {
				for _, tt := range []struct {
					tool string
					args map[string]any
					says string
				}{
					{"get_container", map[string]any{"id": box.Number}, "search_container"},
					{"get_container", map[string]any{"id": "00000000-0000-4000-8000-000000000000"}, "of this account has that id"},
					{"get_container", map[string]any{"id": strings.Repeat("a", 5000)}, "id"},
					{"get_container", map[string]any{"id": 42}, "id"},
					{"get_container", map[string]any{}, "id"},
					{"get_container", map[string]any{"id": box.ID, "include": []string{"cargo"}}, "include"},
					{"get_container", map[string]any{"id": box.ID, "colour": "red"}, "colour"},
					{"get_container", map[string]any{"id": "\u202e\x00\xff"}, "not a boxwatch id"},
					{"search_container", map[string]any{"query": ""}, "query"},
					{"search_container", map[string]any{"query": "MAEU\x00"}, "query"},
					{"search_container", map[string]any{"query": strings.Repeat("9", 201)}, "query"},
					{"list_shipments", map[string]any{"page": 0}, "page"},
					{"list_shipments", map[string]any{"page_size": 1000}, "page_size"},
					{"list_shipments", map[string]any{"tracking_stopped": "yes"}, "tracking_stopped"},
					{"list_containers", map[string]any{"include": "cargo"}, "include"},
					{"list_tracking_requests", map[string]any{"filters": map[string]string{"filter[colour]": "red"}}, "filter[colour]"},
					{"list_tracking_requests", map[string]any{"filters": map[string]string{"created_at[start]": "yesterday"}}, "filter[created_at][start]"},
					{"list_tracking_requests", map[string]any{"status": "succeeded"}, "status"},
					{"track_container", map[string]any{}, "number is required"},
					{"track_container", map[string]any{"number": "MAEU123456784", "containerNumber": "MSCU1234566"}, "differ"},
					{"track_container", map[string]any{"number": "MSCU1234567", "numberType": "container", "scac": "MSCU"}, "request_number"},
					{"track_container", map[string]any{"number": "MAEU123456784", "numberType": "parcel"}, "numberType"},
					{"track_container", map[string]any{"number": "MAEU123456784", "scac": "NOPE", "numberType": "bill_of_lading"}, "NOPE"},
					{"infer_number", map[string]any{"number": strings.Repeat("9", 41)}, "40"},
					{"track_container", map[string]any{"number": "MAEU123456784", "refNumbers": slices.Repeat([]string{"PO"}, 21)}, "more than 20"},
					{"list_tracking_requests", map[string]any{"filters": map[string]string{strings.Repeat("x", 300): "1"}}, "member name"},
					{"redeliver_failed_deliveries", map[string]any{}, "notification_id"},
					{"redeliver_failed_deliveries", map[string]any{"webhook_id": w.webhook.ID}, "since is required"},
					{"redeliver_failed_deliveries", map[string]any{"webhook_id": w.webhook.ID, "since": "yesterday"}, "ISO 8601"},
					{"redeliver_failed_deliveries", map[string]any{"notification_id": w.webhook.ID, "webhook_id": w.webhook.ID}, "not both"},
				} {
					if msg := toolError(t, s, tt.tool, tt.args); !strings.Contains(msg, tt.says) {
						t.Errorf("%s(%v): %q, want it to say %q", tt.tool, tt.args, msg, tt.says)
					}
				}
				if _, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "delete_everything"}); err == nil {
					t.Error("an unknown tool was called")
				}
			}
		})

		t.Run("prompts", func(t *testing.T) {
			for _, s := range both {
				for name, args := range map[string]map[string]string{
					"track-shipment":  {"container_number": box.Number, "carrier": "MAEU"},
					"check-demurrage": {"container_id": box.ID},
					"analyze-delays":  {"container_id": box.ID},
				} {
					res, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
					if err != nil || len(res.Messages) != 1 || !strings.Contains(res.Messages[0].Content.(*mcp.TextContent).Text, slices.Collect(maps.Values(args))[0]) {
						t.Errorf("%s: %v %v", name, res, err)
					}
					if _, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: name}); err == nil || !strings.Contains(err.Error(), "required") {
						t.Errorf("%s without arguments: %v", name, err)
					}
				}
			}
		})
	})
}

func readResource(t *testing.T, s *mcp.ClientSession, uri string) string {
	t.Helper()
	res, err := s.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil || len(res.Contents) != 1 || res.Contents[0].URI != uri {
		t.Fatalf("reading %s: %v %v", uri, res, err)
	}
	return res.Contents[0].Text
}

// waitDelivery waits until the receiver gets the notification id.
func waitDelivery(t *testing.T, w demoWorld, id string) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case got := <-w.received:
			if got == id {
				return
			}
		case <-deadline:
			t.Fatalf("notification %s was not delivered again", id)
		}
	}
}

func checkContainer(t *testing.T, got assistant.Container, want client.Container) {
	t.Helper()
	if got.ID != want.ID || got.Number != want.Number || got.ShipmentID != want.ShipmentID || got.CurrentStatus != want.CurrentStatus ||
		!slices.Equal(got.RefNumbers, nonNilStrings(want.RefNumbers)) || len(got.Terminal.Holds) != len(want.HoldsAtPODTerminal) ||
		len(got.Terminal.Fees) != len(want.FeesAtPODTerminal) || !equalPtr(got.Terminal.AvailableForPickup, want.AvailableForPickup) {
		t.Errorf("container %+v, the API %+v", got, want)
	}
	var polTZ *string
	if want.Shipment != nil {
		polTZ = want.Shipment.POLTimezone
		checkShipment(t, *got.Shipment, *want.Shipment)
	}
	m := got.Milestones
	wantTime(t, "full in", m.FullIn, want.POLFullInAt, polTZ)
	wantTime(t, "departed", m.VesselDeparted, want.POLVesselDeparted, polTZ)
	wantTime(t, "discharged", m.Discharged, want.PODDischargedAt, want.PODTimezone)
	wantTime(t, "last free day", got.Terminal.PickupLFD, want.PickupLFD, want.PODTimezone)
}

func checkShipment(t *testing.T, got assistant.Shipment, want client.Shipment) {
	t.Helper()
	if got.ID != want.ID || !equalPtr(got.BillOfLadingNumber, want.BillOfLadingNumber) || got.ShippingLine.SCAC != want.ShippingLineSCAC ||
		got.ShippingLine.Name != want.ShippingLineName || !equalPtr(got.PortOfLading.LOCODE, want.PortOfLadingLOCODE) ||
		!equalPtr(got.PortOfDischarge.Name, want.PortOfDischargeName) || !equalPtr(got.PODVessel.Name, want.PODVesselName) ||
		got.TrackingStopped != (want.LineTrackingStoppedAt != nil) || got.ContainerCount != len(want.ContainerIDs) || got.ContainerCount == 0 {
		t.Errorf("shipment %+v, the API %+v", got, want)
	}
	wantTime(t, "ETD", got.POLETD, want.POLETDAt, want.POLTimezone)
	wantTime(t, "ATD", got.POLATD, want.POLATDAt, want.POLTimezone)
	wantTime(t, "ETA", got.PODETA, want.PODETAAt, want.PODTimezone)
	wantTime(t, "ATA", got.PODATA, want.PODATAAt, want.PODTimezone)
	wantTime(t, "predicted arrival", got.PODPredictedETA, want.PODPredictedArrivalAt, want.PODTimezone)
}

func equalPtr[T comparable](a, b *T) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// mapPort is a port feature of the container map, as the API sends it.
type mapPort struct {
	Name          string     `json:"name"`
	Label         string     `json:"label"`
	TimeZone      *string    `json:"time_zone"`
	InboundETAAt  *time.Time `json:"inbound_eta_at"`
	InboundATAAt  *time.Time `json:"inbound_ata_at"`
	OutboundETDAt *time.Time `json:"outbound_etd_at"`
	OutboundATDAt *time.Time `json:"outbound_atd_at"`
}

// restMap reads a container's map through the API, and returns its ports in order and its raw body.
func restMap(t *testing.T, w demoWorld, id string) ([]mapPort, []byte) {
	t.Helper()
	raw, err := w.rest.ContainerMap(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var fc struct {
		Features []struct {
			Properties json.RawMessage `json:"properties"`
		} `json:"features"`
	}
	if err := json.Unmarshal(raw, &fc); err != nil {
		t.Fatal(err)
	}
	var ports []mapPort
	for _, f := range fc.Features {
		var p struct {
			FeatureType string `json:"feature_type"`
			mapPort
		}
		if err := json.Unmarshal(f.Properties, &p); err != nil {
			t.Fatal(err)
		}
		if p.FeatureType == "port" {
			ports = append(ports, p.mapPort)
		}
	}
	return ports, raw
}

// checkJourney checks the journey tool's answer against the map it was drawn from.
func checkJourney(t *testing.T, got assistant.Journey, ports []mapPort, raw []byte, summary string) {
	t.Helper()
	var fc struct {
		Features []struct {
			Geometry struct {
				Coordinates json.RawMessage `json:"coordinates"`
			} `json:"geometry"`
			Properties struct {
				FeatureType      string     `json:"feature_type"`
				VesselName       string     `json:"vessel_name"`
				DistanceToGoNM   *float64   `json:"distance_to_go_nm"`
				PredictedArrival *time.Time `json:"predicted_arrival_at"`
				ArrivalPortETA   *time.Time `json:"arrival_port_eta"`
			} `json:"properties"`
		} `json:"features"`
	}
	if err := json.Unmarshal(raw, &fc); err != nil {
		t.Fatal(err)
	}
	if got.Status != "at_sea" || got.From == nil || got.To == nil || got.From.Name == nil || *got.From.Name != ports[0].Name || *got.To.Name != ports[1].Name {
		t.Fatalf("the journey of a container at sea on its first leg: %+v", got)
	}
	wantTime(t, "carrier's ETA", got.CarrierETA, ports[1].InboundETAAt, ports[1].TimeZone)
	for _, f := range fc.Features {
		p := f.Properties
		if p.FeatureType != "current_vessel" {
			continue
		}
		var at []float64
		if err := json.Unmarshal(f.Geometry.Coordinates, &at); err != nil || len(at) != 2 {
			t.Fatalf("the vessel is at %s", f.Geometry.Coordinates)
		}
		if got.Position == nil || got.Position.Longitude != at[0] || got.Position.Latitude != at[1] ||
			*got.Vessel.Name != p.VesselName || !equalPtr(got.DistanceToGoNM, p.DistanceToGoNM) {
			t.Errorf("at sea: %+v, the map's vessel %+v at %v", got, p, at)
		}
		wantTime(t, "predicted arrival", got.PredictedArrival, p.PredictedArrival, ports[1].TimeZone)
		if !strings.Contains(summary, p.VesselName) || !strings.Contains(summary, "nautical miles to go") {
			t.Errorf("summary %q", summary)
		}
		return
	}
	if got.Position != nil || !strings.Contains(summary, "no position") {
		t.Errorf("no vessel on the map, yet %+v %q", got, summary)
	}
}

// accountKey creates an account with the given flags in the database at dsn and returns a key of it.
func accountKey(t *testing.T, dsn, name string, flags ...string) string {
	t.Helper()
	if _, _, err := runCmd(t, nil, append([]string{"account", "create", name, "--db", dsn}, flags...)...); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCmd(t, nil, "apikey", "create", name, "--db", dsn)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}
