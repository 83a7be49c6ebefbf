package api_test

import (
	"fmt"
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

// receiverNumbers are tracked by TestReceiverGetsReferencePayloads: five lines, the three request
// types, and first lookups at every stage of the journey (the last digit places it, see
// docs/carriers.md), so that the days the test runs through pass every milestone.
func receiverNumbers(t *testing.T) []struct{ requestType, number, scac string } {
	t.Helper()
	type tracked = struct{ requestType, number, scac string }
	var out []tracked
	for stage := range 10 {
		out = append(out,
			tracked{"bill_of_lading", fmt.Sprintf("MAEU12345678%d", stage), "MAEU"},
			tracked{"bill_of_lading", fmt.Sprintf("MEDUFR03080%d", stage), "MSCU"})
	}
	for _, stage := range []int{1, 4, 5, 7, 8} {
		out = append(out,
			tracked{"bill_of_lading", fmt.Sprintf("HLCUHAM26054100%d", stage), "HLCU"},
			tracked{"booking_number", fmt.Sprintf("CMDUSHZ52237%d", stage), "CMDU"},
			tracked{"container", containerEndingIn(t, "ONEU", stage), "ONEY"})
	}
	// Late on a first leg that ends at a transshipment hub within the first day.
	out = append(out, tracked{"bill_of_lading", "MAEU123400024", "MAEU"}, tracked{"bill_of_lading", "MEDUFR030024", "MSCU"},
		tracked{"booking_number", "CMDUSHZ50054", "CMDU"})
	// Feeders' hops to Busan, then on to California: one booked (feeder_loaded), one leaving
	// within hours (feeder_departed, feeder_arrived, feeder_discharged).
	out = append(out, tracked{"bill_of_lading", "161234560", "MAEU"}, tracked{"bill_of_lading", "321234561", "MAEU"})
	// Discharged at Tacoma and going on by rail to an inland ramp: the rail and inland events.
	out = append(out, tracked{"bill_of_lading", "254387750", "MAEU"})
	// A request that fails, and one that waits for its manifest.
	return append(out, tracked{"bill_of_lading", "TEST-TR-FAILED", "TEST"}, tracked{"bill_of_lading", "MAEU987650000", "MAEU"})
}

// containerEndingIn is a valid container number of an owner whose check digit is digit.
func containerEndingIn(t *testing.T, owner string, digit int) string {
	t.Helper()
	for serial := 100000; serial < 200000; serial++ {
		s := fmt.Sprintf("%sU%06d", owner[:3], serial)
		if d, ok := boxwatch.ContainerCheckDigit(s); ok && int(d) == digit {
			return fmt.Sprintf("%s%d", s, d)
		}
	}
	t.Fatalf("no %s container with check digit %d", owner, digit)
	return ""
}

// TestReceiverGetsReferencePayloads is a customer's webhook receiver, on loopback, subscribed to
// every event: it tracks numbers of five lines by the three request types through every stage of
// their journeys, over sixteen simulated days, and checks every body it gets against the reference's
// shape of its event (jsonapi/payloadtest): the reference object's type, attribute and relationship
// names, and included holding what its relationships name and nothing more.
func TestReceiverGetsReferencePayloads(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		clock := trackingtest.NewClock(time.Now())
		voyage := func(t testing.TB, c *api.Config, db *store.DB) {
			c.Webhooks = webhook.Policy{AllowPrivate: true, Timeout: 2 * time.Second}
			// At full scale, so that tracking goes on for days after arrival.
			stack := trackingtest.Start(t, db, trackingtest.Options{Clock: clock, Webhooks: c.Webhooks, RetryScale: 1,
				RefreshInterval: time.Hour, Renderer: jsonapi.NewNotificationRenderer(db, c.Carriers, c.Ports)})
			c.Tracker, c.Redeliverer, c.Clock = stack.Engine, stack.Deliveries, clock.Now
		}
		ts := newTestServer(t, b, voyage)
		rc := newReceiver(t, always(200))
		var every []string
		for _, c := range webhook.Categories() {
			for _, e := range c.Events {
				every = append(every, e.Name)
			}
		}
		ts.register(t, ts.acme, rc, every...)
		requests := map[string]string{}
		for _, n := range receiverNumbers(t) {
			requests[ts.mustCreate(t, ts.acme, n.requestType, n.number, n.scac)] = n.number
		}
		// settled reports whether every request has left pending and every live shipment was
		// refreshed at the clock's time.
		settled := func() bool {
			for id := range requests {
				if get(ts.do(t, "GET", "/v2/tracking_requests/"+id, ts.acme, "").want(t, 200).body, "data", "attributes", "status") == "pending" {
					return false
				}
			}
			r := ts.do(t, "GET", "/v2/shipments?page[size]=100", ts.acme, "").want(t, 200)
			for _, s := range asList(r.body["data"]) {
				if get(s, "attributes", "line_tracking_stopped_at") != nil {
					continue
				}
				at, _ := time.Parse(time.RFC3339, fmt.Sprint(get(s, "attributes", "line_tracking_last_succeeded_at")))
				if at.Before(clock.Now().Add(-time.Second).Truncate(time.Second)) {
					return false
				}
			}
			return true
		}
		trackingtest.Eventually(t, 60*time.Second, "the first lookups did not end", settled)
		// Every number but the two meant to fail is tracked: each line and request type counts.
		for id, number := range requests {
			r := ts.do(t, "GET", "/v2/tracking_requests/"+id, ts.acme, "").want(t, 200)
			status := get(r.body, "data", "attributes", "status")
			if want := map[string]string{"TEST-TR-FAILED": "failed", "MAEU987650000": "awaiting_manifest"}[number]; want != "" && status != want ||
				want == "" && status != "created" && status != "tracking_stopped" {
				t.Errorf("%s is %v: %s", number, status, r.raw)
			}
		}
		for range 32 {
			clock.Advance(12 * time.Hour)
			trackingtest.Eventually(t, 60*time.Second, "the shipments were not refreshed", settled)
		}
		// Every notification written is delivered before the bodies are read. A delivery put
		// back for a moment (its webhook's slots were busy) waits on the engine's clock, so the
		// clock moves on by seconds meanwhile.
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
		}
		var names []string
		for name, n := range seen {
			names = append(names, fmt.Sprintf("%s %d", name, n))
		}
		sort.Strings(names)
		t.Logf("%d deliveries: %s", len(rc.deliveries()), strings.Join(names, ", "))
		for _, want := range []string{
			"tracking_request.succeeded", "tracking_request.failed", "tracking_request.awaiting_manifest", "tracking_request.tracking_stopped",
			"container.created", "container.transport.empty_out", "container.transport.full_in", "container.transport.vessel_loaded",
			"container.transport.vessel_departed", "container.transport.transshipment_arrived", "container.transport.transshipment_discharged",
			"container.transport.transshipment_loaded", "container.transport.transshipment_departed", "container.transport.vessel_arrived",
			"container.transport.vessel_discharged", "container.transport.available", "container.transport.full_out",
			"container.transport.empty_in", "shipment.estimated.arrival", "container.updated", "container.pickup_lfd.changed",
			"container.transport.estimated.vessel_departed", "container.transport.estimated.vessel_arrived",
			"container.transport.feeder_loaded", "container.transport.feeder_departed", "container.transport.feeder_arrived",
			"container.transport.feeder_discharged",
		} {
			if seen[want] == 0 {
				t.Errorf("no %s was delivered", want)
			}
		}
	})
}
