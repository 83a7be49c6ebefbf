package api_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store/storetest"
)

func TestSearchMetroAreasRawEvents(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ts := newTestServer(t, b, tracked)
		trID, sid := ts.waitShipment(t, ts.acme, "MAEU123456784", "MAEU")
		ts.do(t, "PATCH", "/v2/tracking_requests/"+trID, ts.acme, `{"data":{"type":"tracking_request","attributes":{"ref_numbers":["PO-88"]}}}`).want(t, 200)
		r := ts.do(t, "GET", "/v2/shipments/"+sid, ts.acme, "").want(t, 200)
		cid := get(r.body, "data", "relationships", "containers", "data", 0, "id").(string)
		pod := get(r.body, "data", "attributes", "port_of_discharge_locode").(string)
		number := get(ts.do(t, "GET", "/v2/containers/"+cid, ts.acme, "").want(t, 200).body, "data", "attributes", "number").(string)

		matches := func(query string) map[string][]string {
			t.Helper()
			r := ts.do(t, "GET", "/v2/search?query="+url.QueryEscape(query), ts.acme, "").want(t, 200)
			out := map[string][]string{}
			for _, d := range asList(r.body["data"]) {
				typ := get(d, "type").(string)
				if get(d, "attributes", "entity_type") != typ {
					t.Errorf("entity_type disagrees with type: %v", d)
				}
				out[typ] = append(out[typ], get(d, "id").(string))
			}
			return out
		}
		if got := matches("123456784"); !slices.Equal(got["shipment"], []string{sid}) || !slices.Equal(got["tracking_request"], []string{trID}) {
			t.Errorf("by bill: %v", got)
		}
		if got := matches(number[:4] + " " + number[4:]); !slices.Equal(got["cargo"], []string{cid}) || !slices.Equal(got["shipment"], []string{sid}) {
			t.Errorf("by container number: %v", got)
		}
		if got := matches("po-88"); !slices.Equal(got["shipment"], []string{sid}) {
			t.Errorf("by reference number: %v", got)
		}
		if got := matches("%_"); len(got) != 0 {
			t.Errorf("wildcards matched %v", got)
		}
		if got := ts.do(t, "GET", "/v2/search?query=123456784", ts.globex, "").want(t, 200); len(asList(got.body["data"])) != 0 {
			t.Errorf("another account's search found %s", got.raw)
		}
		ts.do(t, "GET", "/v2/search", ts.acme, "").wantError(t, 400, "invalid", "", "query")
		ts.do(t, "GET", "/v2/search?query=%20", ts.acme, "").wantError(t, 400, "invalid", "", "query")
		ts.do(t, "GET", "/v2/search?query="+strings.Repeat("x", 101), ts.acme, "").wantError(t, 400, "invalid", "", "query")

		// Metro areas: the city of a port, by the port's id or UN/LOCODE.
		port := ts.do(t, "GET", "/v2/ports/"+pod, ts.acme, "").want(t, 200)
		for _, id := range []string{pod, strings.ToLower(pod), get(port.body, "data", "id").(string)} {
			r := ts.do(t, "GET", "/v2/metro_areas/"+id, ts.acme, "").want(t, 200)
			if get(r.body, "data", "type") != "metro_area" || get(r.body, "data", "attributes", "code") != pod {
				t.Errorf("metro area %s: %s", id, r.raw)
			}
		}
		for _, id := range []string{"XXXXX", boxwatch.NewID(time.Now()), "%27%3B--", strings.Repeat("a", 300)} {
			ts.do(t, "GET", "/v2/metro_areas/"+id, ts.acme, "").wantError(t, 404, "", "", "")
		}

		// Raw events: the carrier's records, actual and estimated.
		r = ts.do(t, "GET", "/v2/containers/"+cid+"/raw_events", ts.acme, "").want(t, 200)
		events := asList(r.body["data"])
		if len(events) == 0 {
			t.Fatalf("no raw events: %s", r.raw)
		}
		kinds := map[bool]int{}
		names := map[string]bool{}
		for i, e := range events {
			est := get(e, "attributes", "estimated").(bool)
			kinds[est]++
			if name, ok := get(e, "attributes", "event").(string); ok {
				names[name] = true
			}
			if get(e, "attributes", "index") != float64(i) || get(e, "attributes", "original_event") == "" {
				t.Errorf("raw event %d: %v", i, e)
			}
			if est == (get(e, "attributes", "estimated_at") == nil) || est != (get(e, "attributes", "actual_at") == nil) {
				t.Errorf("raw event %d: estimated %v with actual_at %v estimated_at %v", i, est, get(e, "attributes", "actual_at"), get(e, "attributes", "estimated_at"))
			}
		}
		if kinds[false] == 0 || kinds[true] == 0 || !names["vessel_departed"] || !names["empty_out"] {
			t.Errorf("raw events: %d actual, %d estimated, names %v", kinds[false], kinds[true], names)
		}
		ts.do(t, "GET", "/v2/containers/"+cid+"/raw_events", ts.globex, "").wantError(t, 404, "", "", "")
		ts.do(t, "GET", "/v2/containers/not-an-id/raw_events", ts.acme, "").wantError(t, 404, "", "", "")
	})
}
