package api_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/api"
	"github.com/boxwatch/boxwatch/jsonapi"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
	"github.com/boxwatch/boxwatch/webhook"
)

func TestTerminals(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ts := newTestServer(t, b, tracked)
		_, sid := ts.waitShipment(t, ts.acme, "MAEU123456784", "MAEU")
		r := ts.do(t, "GET", "/v2/shipments/"+sid+"?include="+sdkShipmentIncludes, ts.acme, "").want(t, 200)
		tid, _ := get(r.body, "data", "relationships", "pod_terminal", "data", "id").(string)
		if tid == "" || get(r.body, "data", "relationships", "destination_terminal", "data") != nil {
			t.Fatalf("shipment terminals: %s", r.raw)
		}
		var included map[string]any
		for _, inc := range asList(r.body["included"]) {
			if get(inc, "type") == "terminal" && get(inc, "id") == tid {
				included, _ = inc.(map[string]any)
			}
		}
		if included == nil {
			t.Fatalf("include=pod_terminal did not include %s", tid)
		}
		term := ts.do(t, "GET", "/v2/terminals/"+tid, ts.acme, "").want(t, 200)
		attrs := get(term.body, "data", "attributes")
		pod := get(r.body, "data", "attributes", "port_of_discharge_locode").(string)
		code, _ := get(attrs, "smdg_code").(string)
		name, _ := get(attrs, "name").(string)
		if !strings.HasPrefix(code, "SX"+pod[2:]) || !strings.HasSuffix(name, "(simulated)") ||
			get(term.body, "data", "relationships", "port", "data", "type") != "port" || get(attrs, "firms_code") != nil {
			t.Errorf("terminal: %s", term.raw)
		}
		if got, _ := json.Marshal(get(term.body, "data")); string(got) != string(mustJSON(t, included)) {
			t.Errorf("GET /v2/terminals/{id} and the included terminal differ:\n%s\n%s", got, mustJSON(t, included))
		}
		// The port lists its terminals, here and wherever it is included.
		for _, path := range []string{"/v2/ports/" + pod, "/v2/shipments/" + sid + "?include=port_of_discharge"} {
			r := ts.do(t, "GET", path, ts.acme, "").want(t, 200)
			found := false
			for _, res := range append([]any{r.body["data"]}, asList(r.body["included"])...) {
				if get(res, "type") != "port" || get(res, "attributes", "code") != pod {
					continue
				}
				for _, ident := range asList(get(res, "relationships", "terminals", "data")) {
					found = found || get(ident, "id") == tid
				}
			}
			if !found {
				t.Errorf("%s: the port does not list terminal %s: %s", path, tid, r.raw)
			}
		}
		// The container is at the same terminal and picked up there.
		cid := get(r.body, "data", "relationships", "containers", "data", 0, "id").(string)
		c := ts.do(t, "GET", "/v2/containers/"+cid+"?include="+sdkContainerIncludes, ts.acme, "").want(t, 200)
		if get(c.body, "data", "relationships", "pod_terminal", "data", "id") != tid || get(c.body, "data", "relationships", "pickup_facility", "data", "id") != tid {
			t.Errorf("container terminals: %s", c.raw)
		}
		// Milestones at the port of lading name its terminal, another one.
		e := ts.do(t, "GET", "/v2/containers/"+cid+"/transport_events?include="+sdkTransportEventIncludes, ts.acme, "").want(t, 200)
		named := 0
		for _, ev := range asList(e.body["data"]) {
			if id, _ := get(ev, "relationships", "terminal", "data", "id").(string); id != "" {
				named++
				if id == tid {
					t.Errorf("a milestone before arrival is at the discharge terminal: %v", ev)
				}
			}
		}
		if named == 0 {
			t.Errorf("no milestone names its terminal: %s", e.raw)
		}
		for _, id := range []string{boxwatch.TerminalID(pod, "NOPE"), "SX" + pod[2:] + "1", "%27%20OR%201%3D1", strings.Repeat("f", 500)} {
			ts.do(t, "GET", "/v2/terminals/"+id, ts.acme, "").wantError(t, 404, "", "", "")
		}
		ts.do(t, "GET", "/v2/terminals/"+tid, "", "").wantError(t, 401, "", "", "")
	})
}

// TestTerminalEventsReachWebhooks: a simulated voyage arrives, the terminal reports on the
// discharged boxes, and a webhook hears the last free day and the terminal's updates.
func TestTerminalEventsReachWebhooks(t *testing.T) {
	t.Parallel()
	clock := trackingtest.NewClock(time.Now())
	voyage := func(t testing.TB, c *api.Config, db *store.DB) {
		c.Webhooks = webhook.Policy{AllowPrivate: true, Timeout: 300 * time.Millisecond}
		// At full scale, so that tracking goes on for days after arrival.
		stack := trackingtest.Start(t, db, trackingtest.Options{Clock: clock, Webhooks: c.Webhooks, RetryScale: 1,
			RefreshInterval: time.Hour, Renderer: jsonapi.NewNotificationRenderer(db, c.Carriers, c.Ports)})
		c.Tracker, c.Redeliverer, c.Clock = stack.Engine, stack.Deliveries, clock.Now
	}
	ts := newTestServer(t, storetest.SQLite, voyage)
	rc := newReceiver(t, always(200))
	ts.register(t, ts.acme, rc, "container.pickup_lfd.changed", "container.updated", "container.transport.available",
		"container.pickup_lfd_terminal.changed", "container.pickup_lfd_line.changed", "container.pickup_appointment.changed")
	// Stage 7: the vessel is the next of its loop to arrive (within a headway, and its delays).
	// Six hours at a time until it has arrived, then two days more for the terminal's reports.
	_, sid := ts.waitShipment(t, ts.acme, "ONEYSH123457", "ONEY")
	after := -1
	for step := 0; after < 8; step++ {
		if step == 4*30 {
			t.Fatalf("the vessel of a stage-7 number has not arrived within 30 days")
		}
		clock.Advance(6 * time.Hour)
		var arrived bool
		trackingtest.Eventually(t, 30*time.Second, "no refresh", func() bool {
			r := ts.do(t, "GET", "/v2/shipments/"+sid, ts.acme, "").want(t, 200)
			at, _ := time.Parse(time.RFC3339, get(r.body, "data", "attributes", "line_tracking_last_succeeded_at").(string))
			arrived = get(r.body, "data", "attributes", "pod_ata_at") != nil
			return !at.Before(clock.Now().Add(-time.Second).Truncate(time.Second))
		})
		if arrived || after >= 0 {
			after++
		}
	}
	trackingtest.Eventually(t, 30*time.Second, "no terminal event delivered", func() bool {
		events := map[string]bool{}
		for _, d := range rc.deliveries() {
			events[d.event] = d.t49OK && d.stdOK
		}
		return events["container.pickup_lfd.changed"] && events["container.updated"] && events["container.transport.available"] &&
			events["container.pickup_lfd_terminal.changed"] && events["container.pickup_lfd_line.changed"] && events["container.pickup_appointment.changed"]
	})
	// A container.updated from the terminal says so, with a changeset of the container's attributes.
	fromTerminal := false
	r := ts.do(t, "GET", "/v2/webhook_notifications?filter[event]=container.updated&page[size]=100", ts.acme, "").want(t, 200)
	for _, n := range asList(r.body["data"]) {
		r := ts.do(t, "GET", "/v2/webhook_notifications/"+get(n, "id").(string)+"?include=reference_object", ts.acme, "").want(t, 200)
		for _, inc := range asList(r.body["included"]) {
			if get(inc, "type") == "container_updated_event" && get(inc, "attributes", "data_source") == "terminal" {
				changeset, _ := get(inc, "attributes", "changeset").(map[string]any)
				fromTerminal = fromTerminal || changeset["holds_at_pod_terminal"] != nil || changeset["pickup_lfd"] != nil
				if get(inc, "relationships", "terminal", "data") == nil {
					t.Errorf("container_updated_event without its terminal: %v", inc)
				}
			}
		}
	}
	if !fromTerminal {
		t.Errorf("no container.updated from the terminal with holds or the last free day")
	}
	r = ts.do(t, "GET", "/v2/webhook_notifications?filter[event]=container.pickup_lfd.changed", ts.acme, "").want(t, 200)
	n := asList(r.body["data"])
	if len(n) == 0 {
		t.Fatalf("no notification: %s", r.raw)
	}
	r = ts.do(t, "GET", "/v2/webhook_notifications/"+get(n[0], "id").(string)+"?include=reference_object", ts.acme, "").want(t, 200)
	// The reference object is the terminal's transport event, its value the new day.
	var value any
	for _, inc := range asList(r.body["included"]) {
		if get(inc, "type") == "transport_event" && get(inc, "attributes", "event") == "container.pickup_lfd.changed" {
			value = get(inc, "attributes", "value")
			if get(inc, "attributes", "data_source") != "terminal" {
				t.Errorf("data_source: %v", inc)
			}
		}
	}
	if _, err := time.Parse(time.RFC3339, fmt.Sprint(value)); err != nil {
		t.Errorf("pickup_lfd.changed value %v: %s", value, r.raw)
	}
	// The payload's container lists its milestones, as GET /v2/containers/{id} does.
	for _, inc := range asList(r.body["included"]) {
		if get(inc, "type") == "container" && len(asList(get(inc, "relationships", "transport_events", "data"))) == 0 {
			t.Errorf("the payload's container has no transport_events: %v", inc)
		}
	}
	// The container shows what the terminal said.
	cid := get(ts.do(t, "GET", "/v2/shipments/"+sid, ts.acme, "").want(t, 200).body, "data", "relationships", "containers", "data", 0, "id").(string)
	c := ts.do(t, "GET", "/v2/containers/"+cid, ts.acme, "").want(t, 200)
	a := get(c.body, "data", "attributes")
	// The last free day in force is the line's (the reference's precedence: line, terminal, rail).
	if get(a, "pickup_lfd") == nil || get(a, "import_deadlines", "pickup_lfd_line") != get(a, "pickup_lfd") || get(a, "terminal_checked_at") == nil ||
		get(a, "import_deadlines", "pickup_lfd_terminal") == nil || get(a, "import_deadlines", "pickup_lfd_terminal") == get(a, "pickup_lfd") {
		t.Errorf("container terminal attributes: %s", c.raw)
	}
	// A listed terminal answers with its codes and address.
	term := ts.do(t, "GET", "/v2/terminals/"+boxwatch.TerminalID("USLAX", "APMT"), ts.acme, "").want(t, 200)
	if ta := get(term.body, "data", "attributes"); get(ta, "firms_code") != "W185" || get(ta, "nickname") != "APMT" || get(ta, "zip") != "90731" {
		t.Errorf("listed terminal: %s", term.raw)
	}
	// The catalogue says these events are sent.
	cat := ts.do(t, "GET", "/v2/webhooks/events", ts.acme, "").want(t, 200)
	emitted := map[string]bool{}
	for _, category := range asList(cat.body["data"]) {
		for _, e := range asList(get(category, "attributes", "events")) {
			emitted[get(e, "name").(string)], _ = get(e, "emitted").(bool)
		}
	}
	if !emitted["container.pickup_lfd.changed"] || !emitted["container.updated"] || !emitted["container.transport.available"] ||
		!emitted["container.pod_terminal_changed"] || !emitted["container.pickup_appointment.changed"] {
		t.Errorf("catalogue: pickup_lfd.changed %v, updated %v", emitted["container.pickup_lfd.changed"], emitted["container.updated"])
	}
}
