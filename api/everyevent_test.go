package api_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/api"
	"github.com/boxwatch/boxwatch/jsonapi"
	"github.com/boxwatch/boxwatch/jsonapi/payloadtest"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
	"github.com/boxwatch/boxwatch/webhook"
)

// lastLegNumbers are tracked by TestEveryEventAndStatus besides the demo numbers (whose journeys
// start between the port of lading and the arrival): a request that fails and one that waits for
// its manifest; a bill still at its booking, its boxes new; feeders' hops; and journeys that go on
// by rail to an inland ramp (docs/carriers.md, the 7750 marker), first looked up at sea and once
// discharged.
var lastLegNumbers = []struct {
	typ          boxwatch.RequestType
	number, scac string
}{
	{boxwatch.RequestBillOfLading, "TEST-TR-FAILED", "TEST"},
	{boxwatch.RequestBillOfLading, "MAEU987650000", "MAEU"},
	{boxwatch.RequestBillOfLading, "MAEU123456780", "MAEU"},
	{boxwatch.RequestBillOfLading, "161234560", "MAEU"},
	{boxwatch.RequestBillOfLading, "321234561", "MAEU"},
	{boxwatch.RequestBillOfLading, "254667750", "MAEU"},
	{boxwatch.RequestBillOfLading, "254387750", "MAEU"},
	{boxwatch.RequestBillOfLading, "MEDUEF387750", "MSCU"},
}

// TestEveryEventAndStatus is the acceptance of the simulated world (issue 22): a customer's
// receiver on loopback, subscribed through a real webhook to every event, tracks the demo numbers
// (trackingtest.DemoNumbers) and lastLegNumbers with the simulated carriers and terminals, a
// simulated day at a time, until every journey ended. It fails when any of the 41 events in scope
// (the reference's 43 but the two document events) was never delivered, or when the containers
// never showed one of the 13 current_status values, as the API and the notifications' included
// containers show them, and it checks every body against the reference's shape of its event.
//
// It runs alone, not in parallel with the package's other tests: its hundred shipments' refreshes,
// terminal checks and deliveries would starve their timed steps under the race detector. Its own
// bounds are sized for a hundred shipments there.
func TestEveryEventAndStatus(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		clock := trackingtest.NewClock(time.Now())
		world := func(t testing.TB, c *api.Config, db *store.DB) {
			c.Webhooks = webhook.Policy{AllowPrivate: true, Timeout: 2 * time.Second}
			// At full scale: tracking follows each journey to its end, as in the demo.
			stack := trackingtest.Start(t, db, trackingtest.Options{Clock: clock, Webhooks: c.Webhooks, RetryScale: 1,
				RefreshInterval: time.Hour, Renderer: jsonapi.NewNotificationRenderer(db, c.Carriers, c.Ports)})
			c.Tracker, c.Redeliverer, c.Clock = stack.Engine, stack.Deliveries, clock.Now
		}
		ts := newTestServer(t, b, world)
		rc := newReceiver(t, always(200))
		var inScope []string
		for _, c := range webhook.Categories() {
			for _, e := range c.Events {
				if !strings.HasPrefix(e.Name, "document.") {
					inScope = append(inScope, e.Name)
				}
			}
		}
		if len(inScope) != 41 {
			t.Fatalf("%d events in scope, want the reference's 43 but the two document events", len(inScope))
		}
		ts.register(t, ts.acme, rc, inScope...)
		for _, n := range trackingtest.DemoNumbers(t) {
			ts.mustCreate(t, ts.acme, string(n.Type), n.Number, n.SCAC)
		}
		for _, n := range lastLegNumbers {
			ts.mustCreate(t, ts.acme, string(n.typ), n.number, n.scac)
		}

		statuses := map[string]bool{}
		// pages lists every resource of a collection, a hundred at a time.
		pages := func(path string) []any {
			var all []any
			for page := 1; ; page++ {
				r := ts.do(t, "GET", fmt.Sprintf("%s?page[size]=100&page[number]=%d", path, page), ts.acme, "").want(t, 200)
				list := asList(r.body["data"])
				all = append(all, list...)
				if len(list) < 100 {
					return all
				}
			}
		}
		// settled reports whether no refresh and no terminal check is due at the clock's time:
		// every one due ran.
		settled := func() bool {
			now := clock.Now()
			shipments, err := ts.db.DueShipments(t.Context(), now, 1)
			if err != nil {
				t.Fatal(err)
			}
			boxes, err := ts.db.DueTerminalChecks(t.Context(), now, 1)
			if err != nil {
				t.Fatal(err)
			}
			return len(shipments) == 0 && len(boxes) == 0
		}
		// observe notes every container's status, and returns how many shipments are tracked.
		observe := func() (live int) {
			for _, c := range pages("/v2/containers") {
				statuses[fmt.Sprint(get(c, "attributes", "current_status"))] = true
			}
			for _, s := range pages("/v2/shipments") {
				if get(s, "attributes", "line_tracking_stopped_at") == nil {
					live++
				}
			}
			return live
		}
		trackingtest.Eventually(t, 3*time.Minute, "the first lookups did not end", func() bool {
			for _, tr := range pages("/v2/tracking_requests") {
				if get(tr, "attributes", "status") == "pending" {
					return false
				}
			}
			return settled()
		})
		live := observe()
		// A day at a time until every journey ended (the longest, from the port of lading
		// through a hub, lasts about two months), and a day more.
		const limit = 120 * 24 * time.Hour
		start, after := clock.Now(), 0
		for after < 2 {
			if clock.Now().Sub(start) > limit {
				t.Fatalf("%d shipments still tracked after %v", live, limit)
			}
			clock.Advance(24 * time.Hour)
			trackingtest.Eventually(t, 2*time.Minute, "the shipments were not refreshed", settled)
			if live = observe(); live == 0 {
				after++
			}
			if clock.Now().Sub(start)%(10*24*time.Hour) == 0 {
				t.Logf("%v simulated: %d shipments tracked, statuses %v", clock.Now().Sub(start), live, statuses)
			}
		}
		trackingtest.Eventually(t, 60*time.Second, "notifications still pending", func() bool {
			clock.Advance(time.Second)
			r := ts.do(t, "GET", "/v2/webhook_notifications?filter[delivery_status]=pending", ts.acme, "").want(t, 200)
			return get(r.body, "meta", "total") == float64(0)
		})

		seen := map[string]int{}
		for _, d := range rc.deliveries() {
			event, problems := payloadtest.Check(d.body)
			seen[event]++
			if len(problems) > 0 && seen[event] <= 2 {
				t.Errorf("%s\n%s", payloadtest.Summary(event, problems), d.body)
			}
			var doc struct {
				Included []struct {
					Type       string
					Attributes struct {
						CurrentStatus string `json:"current_status"`
					}
				}
			}
			if err := json.Unmarshal(d.body, &doc); err != nil {
				t.Fatalf("%s: %v", event, err)
			}
			for _, inc := range doc.Included {
				if inc.Type == "container" {
					statuses[inc.Attributes.CurrentStatus] = true
				}
			}
		}
		var heard []string
		for name, n := range seen {
			heard = append(heard, fmt.Sprintf("%s %d", name, n))
		}
		sort.Strings(heard)
		t.Logf("%v simulated, %d deliveries: %s", clock.Now().Sub(start).Round(time.Hour), len(rc.deliveries()), strings.Join(heard, ", "))
		for _, name := range inScope {
			if seen[name] == 0 {
				t.Errorf("no %s was delivered", name)
			}
		}
		for _, status := range boxwatch.ContainerStatuses {
			if !statuses[status] {
				t.Errorf("no container was ever %s", status)
			}
		}
		for status := range statuses {
			if !slices.Contains(boxwatch.ContainerStatuses, status) {
				t.Errorf("a container was %q, not a status of the reference", status)
			}
		}
	})
}
