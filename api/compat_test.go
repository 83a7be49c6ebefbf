package api_test

import (
	"encoding/json"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/api"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// The include lists the Terminal49 SDK sends with every call of these methods.
const (
	sdkShipmentIncludes       = "containers,pod_terminal,port_of_lading,port_of_discharge,destination,destination_terminal"
	sdkContainerIncludes      = "shipment,pod_terminal,pickup_facility"
	sdkTransportEventIncludes = "location,terminal"
)

// relationshipNames lists a resource's relationships as rendered.
func relationshipNames(res any) []string {
	m, _ := get(res, "relationships").(map[string]any)
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestSDKIncludes(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ts := newTestServer(t, b, tracked)
		trID, sid := ts.waitShipment(t, ts.acme, "MAEU123456784", "MAEU")

		r := ts.do(t, "GET", "/v2/shipments/"+sid+"?include="+sdkShipmentIncludes, ts.acme, "").want(t, 200)
		if got, want := relationshipNames(r.body["data"]), []string{"containers", "destination", "destination_terminal",
			"line_tracking_stopped_by_user", "pod_terminal", "port_of_discharge", "port_of_lading"}; !slices.Equal(got, want) {
			t.Errorf("shipment relationships %v, want %v", got, want)
		}
		for _, k := range []string{"destination", "pod_terminal", "destination_terminal", "line_tracking_stopped_by_user"} {
			rel, ok := get(r.body, "data", "relationships", k).(map[string]any)
			if !ok || len(rel) != 1 {
				t.Errorf("relationship %s = %v, want {\"data\": ...}", k, rel)
			}
			if _, ok := rel["data"]; !ok {
				t.Errorf("relationship %s has no data member", k)
			}
		}
		ts.do(t, "GET", "/v2/shipments?include="+sdkShipmentIncludes, ts.acme, "").want(t, 200)
		cid := get(r.body, "data", "relationships", "containers", "data", 0, "id").(string)

		single := ts.do(t, "GET", "/v2/containers/"+cid+"?include="+sdkContainerIncludes, ts.acme, "").want(t, 200)
		if got, want := relationshipNames(single.body["data"]), []string{"pickup_facility", "pod_terminal", "raw_events", "shipment", "transport_events"}; !slices.Equal(got, want) {
			t.Errorf("container relationships %v, want %v", got, want)
		}
		events, _ := get(single.body, "data", "relationships", "transport_events", "data").([]any)
		if len(events) == 0 {
			t.Fatalf("container without transport_events: %s", single.raw)
		}
		// The container's relationships are the same on every route that renders it.
		want, _ := json.Marshal(get(single.body, "data", "relationships"))
		for _, path := range []string{
			"/v2/containers?include=" + sdkContainerIncludes,
			"/v2/shipments/" + sid + "?include=containers",
			"/v2/shipments?include=containers",
		} {
			r := ts.do(t, "GET", path, ts.acme, "").want(t, 200)
			found := false
			for _, res := range append(asList(r.body["data"]), asList(r.body["included"])...) {
				if get(res, "type") == "container" && get(res, "id") == cid {
					found = true
					if got, _ := json.Marshal(get(res, "relationships")); string(got) != string(want) {
						t.Errorf("%s: container relationships %s, want %s", path, got, want)
					}
				}
			}
			if !found {
				t.Errorf("%s: container %s missing: %s", path, cid, r.raw)
			}
		}
		// So are the shipment's, included from a container.
		r = ts.do(t, "GET", "/v2/containers/"+cid+"?include=shipment", ts.acme, "").want(t, 200)
		if got := get(r.body, "included", 0, "relationships", "containers", "data", 0, "id"); got != cid {
			t.Errorf("included shipment lists containers %v, want %s", get(r.body, "included", 0, "relationships", "containers"), cid)
		}

		r = ts.do(t, "GET", "/v2/containers/"+cid+"/transport_events?include="+sdkTransportEventIncludes, ts.acme, "").want(t, 200)
		if got, want := relationshipNames(get(r.body, "data", 0)), []string{"container", "location", "shipment", "terminal", "vessel"}; !slices.Equal(got, want) {
			t.Errorf("transport event relationships %v, want %v", got, want)
		}
		r = ts.do(t, "GET", "/v2/containers/"+cid+"/transport_events?include=shipment,container", ts.acme, "").want(t, 200)
		types := map[string]bool{}
		for _, inc := range asList(r.body["included"]) {
			types[get(inc, "type").(string)] = true
		}
		if !types["shipment"] || !types["container"] {
			t.Errorf("transport events include=shipment,container included %v", types)
		}

		r = ts.do(t, "GET", "/v2/tracking_requests/"+trID+"?include=tracked_object,customer", ts.acme, "").want(t, 200)
		if get(r.body, "data", "relationships", "customer") == nil {
			t.Errorf("tracking request without customer relationship: %s", r.raw)
		}

		// Names the reference does not define stay refused: the check is about typos.
		for _, path := range []string{
			"/v2/shipments/" + sid + "?include=container",
			"/v2/shipments?include=pod_terminals",
			"/v2/containers/" + cid + "?include=terminal",
			"/v2/containers?include=shipments",
			"/v2/containers/" + cid + "/transport_events?include=port",
			"/v2/tracking_requests/" + trID + "?include=shipment",
		} {
			ts.do(t, "GET", path, ts.acme, "").wantError(t, 400, "invalid", "", "include")
		}
	})
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func TestShippingLineSearch(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ts := newTestServer(t, b)
		scacs := func(path string) []string {
			r := ts.do(t, "GET", path, ts.acme, "").want(t, 200)
			var out []string
			for _, l := range asList(r.body["data"]) {
				out = append(out, get(l, "attributes", "scac").(string))
			}
			return out
		}
		if got := scacs("/v2/shipping_lines?search=maeu"); !slices.Equal(got, []string{"MAEU"}) {
			t.Errorf("search=maeu: %v", got)
		}
		if got := scacs("/v2/shipping_lines?search=Mediterranean"); !slices.Contains(got, "MSCU") {
			t.Errorf("search=Mediterranean: %v", got)
		}
		all := scacs("/v2/shipping_lines")
		if len(all) < 10 {
			t.Errorf("no search lists %d lines", len(all))
		}
		if got := scacs("/v2/shipping_lines?search=%3Cscript%3E"); len(got) != 0 {
			t.Errorf("hostile search matched %v", got)
		}
		long := make([]byte, 101)
		for i := range long {
			long[i] = 'a'
		}
		ts.do(t, "GET", "/v2/shipping_lines?search="+string(long), ts.acme, "").wantError(t, 400, "invalid", "", "search")
	})
}

func TestFindingByNumbers(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ts := newTestServer(t, b, tracked)
		trID, sid := ts.waitShipment(t, ts.acme, "MAEU123456784", "MAEU")

		// Reference numbers set on the request reach its shipment.
		ts.do(t, "PATCH", "/v2/tracking_requests/"+trID, ts.acme,
			`{"data":{"type":"tracking_request","id":"`+trID+`","attributes":{"ref_numbers":["PO-4711"]}}}`).want(t, 200)
		r := ts.do(t, "GET", "/v2/shipments/"+sid, ts.acme, "").want(t, 200)
		if refs := asList(get(r.body, "data", "attributes", "ref_numbers")); len(refs) != 1 || refs[0] != "PO-4711" {
			t.Fatalf("shipment ref_numbers after the request's update: %v", refs)
		}
		cid := get(r.body, "data", "relationships", "containers", "data", 0, "id").(string)
		r = ts.do(t, "GET", "/v2/containers/"+cid, ts.acme, "").want(t, 200)
		number := get(r.body, "data", "attributes", "number").(string)
		printed := number[:4] + " " + number[4:10] + "-" + number[10:]

		ids := func(path string) []string {
			t.Helper()
			r := ts.do(t, "GET", path, ts.acme, "").want(t, 200)
			var out []string
			for _, d := range asList(r.body["data"]) {
				out = append(out, get(d, "id").(string))
			}
			return out
		}
		for _, path := range []string{
			"/v2/containers?filter[number]=" + number,
			"/v2/containers?filter[number]=" + url.QueryEscape(printed),
		} {
			if got := ids(path); !slices.Equal(got, []string{cid}) {
				t.Errorf("%s: %v, want [%s]", path, got, cid)
			}
		}
		for _, path := range []string{
			"/v2/shipments?q=" + number,
			"/v2/shipments?q=" + url.QueryEscape(printed),
			"/v2/shipments?q=po-4711",
			"/v2/shipments?q=123456784",
		} {
			if got := ids(path); !slices.Equal(got, []string{sid}) {
				t.Errorf("%s: %v, want [%s]", path, got, sid)
			}
		}
		for _, path := range []string{
			"/v2/containers?filter[number]=" + number[:6],
			"/v2/containers?filter[number]=%27%20OR%201%3D1--",
			"/v2/shipments?q=%25",
			"/v2/shipments?q=%27%20OR%201%3D1--",
		} {
			if got := ids(path); len(got) != 0 {
				t.Errorf("%s matched %v", path, got)
			}
		}
		long := strings.Repeat("9", 101)
		ts.do(t, "GET", "/v2/containers?filter[number]="+long, ts.acme, "").wantError(t, 400, "invalid", "", "filter[number]")
		ts.do(t, "GET", "/v2/shipments?q="+long, ts.acme, "").wantError(t, 400, "invalid", "", "q")

		// A container number as people print it is accepted on create and stored normalised.
		r = ts.do(t, "POST", "/v2/tracking_requests", ts.acme, createBody("container", "msku 123456-5", "MAEU")).want(t, 201)
		if got := get(r.body, "data", "attributes", "request_number"); got != "MSKU1234565" {
			t.Errorf("request_number %v, want MSKU1234565", got)
		}
		ts.do(t, "POST", "/v2/tracking_requests", ts.acme, createBody("container", "MSKU-123456-5", "MAEU")).wantError(t, 422, "duplicate", "/data/attributes/request_number", "")
	})
}

// TestAutoDetectSCAC: with auto_detect_vocc_scac and no scac the request is created at once,
// pending with scac null, whatever the number, as the reference does; the lookup then settles
// the line (or fails with scac_auto_detect_failed). Two of them for one number are duplicates.
func TestAutoDetectSCAC(t *testing.T) {
	t.Parallel()
	create := func(ts *testServer, typ, number, scac string) response {
		attrs := `"request_type":"` + typ + `","request_number":"` + number + `","auto_detect_vocc_scac":true`
		if scac != "" {
			attrs += `,"scac":"` + scac + `"`
		}
		return ts.do(t, "POST", "/v2/tracking_requests", ts.acme, `{"data":{"type":"tracking_request","attributes":{`+attrs+`}}}`)
	}
	// Requests stay pending here: the engine runs no lookups.
	ts := newTestServer(t, storetest.SQLite)
	for _, number := range []string{"MSCU 000006-0", "TGHU 000001-3"} { // an MSC box; a leased one, whose line infer_number cannot tell
		r := create(ts, "container", number, "").want(t, 201)
		if a := get(r.body, "data", "attributes"); get(a, "scac") != nil || get(a, "status") != "pending" || get(a, "request_number") != boxwatch.NormalizeContainerNumber(number) {
			t.Fatalf("%s: %s, want pending with scac null", number, r.raw)
		}
	}
	create(ts, "container", "MSCU0000060", "").wantError(t, 422, "duplicate", "/data/attributes/request_number", "")
	// A given scac stands, beside a request whose line is being detected.
	if r := create(ts, "container", "MSCU0000060", "MAEU").want(t, 201); get(r.body, "data", "attributes", "scac") != "MAEU" {
		t.Fatalf("given scac: %s", r.raw)
	}
	create(ts, "bill_of_lading", "!!!", "").wantError(t, 422, "invalid", "/data/attributes/request_number", "")
	create(ts, "container", "MSCU0000061", "").wantError(t, 422, "invalid", "/data/attributes/request_number", "")
	create(ts, "container", strings.Repeat("A", 500), "").wantError(t, 422, "", "/data/attributes/request_number", "")
	// false, as before, needs the scac.
	ts.do(t, "POST", "/v2/tracking_requests", ts.acme, createBody("container", "MSCU0000060", "", `"auto_detect_vocc_scac":false`)).
		wantError(t, 422, "blank", "/data/attributes/scac", "")

	// With the engine running, the lookup settles the line, or fails to.
	ts = newTestServer(t, storetest.SQLite, tracked)
	for _, tc := range []struct {
		typ, number, scac, status, reason string
	}{
		{"bill_of_lading", "MEDUAB123453", "MSCU", "created", ""},
		{"container", "TGHU0000013", "", "failed", boxwatch.ReasonSCACAutoDetectFailed},
	} {
		id := get(create(ts, tc.typ, tc.number, "").want(t, 201).body, "data", "id").(string)
		var a any
		trackingtest.Eventually(t, 20*time.Second, tc.number+" still pending", func() bool {
			a = get(ts.do(t, "GET", "/v2/tracking_requests/"+id, ts.acme, "").want(t, 200).body, "data", "attributes")
			return get(a, "status") != "pending"
		})
		scac, _ := get(a, "scac").(string)
		reason, _ := get(a, "failed_reason").(string)
		if get(a, "status") != tc.status || scac != tc.scac || reason != tc.reason {
			t.Errorf("%s: %v, want %s with scac %q and failed_reason %q", tc.number, a, tc.status, tc.scac, tc.reason)
		}
	}
}

func TestWebhookIPs(t *testing.T) {
	t.Parallel()
	egress := func(_ testing.TB, c *api.Config, _ *store.DB) {
		c.WebhookEgressIPs = []netip.Addr{netip.MustParseAddr("203.0.113.7"), netip.MustParseAddr("2001:db8::1")}
	}
	ts := newTestServer(t, storetest.SQLite, egress)
	r := ts.do(t, "GET", "/v2/webhooks/ips", ts.acme, "").want(t, 200)
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want plain JSON as the reference", ct)
	}
	ips := asList(r.body["webhook_notification_ips"])
	if len(ips) != 2 || ips[0] != "203.0.113.7" || ips[1] != "2001:db8::1" {
		t.Errorf("ips %v", ips)
	}
	if _, err := time.Parse(time.RFC3339, r.body["last_updated"].(string)); err != nil {
		t.Errorf("last_updated: %v", err)
	}
	// ips is not a webhook id: other methods are refused, not looked up.
	ts.do(t, "DELETE", "/v2/webhooks/ips", ts.acme, "").wantError(t, 405, "method_not_allowed", "", "")
	ts.do(t, "GET", "/v2/webhooks/ips", "", "").wantError(t, 401, "unauthorized", "", "")
	// Without the operator's list the answer is an empty list, never null.
	plain := newTestServer(t, storetest.SQLite)
	r = plain.do(t, "GET", "/v2/webhooks/ips", plain.acme, "").want(t, 200)
	if ips, ok := r.body["webhook_notification_ips"].([]any); !ok || len(ips) != 0 {
		t.Errorf("no list configured: %s", r.raw)
	}
}

// TestOutOfScopeAnswer404: documents and email submissions (AI document extraction), and the
// container route the reference dropped, are not served, whatever the method.
func TestOutOfScopeAnswer404(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, storetest.SQLite)
	id := boxwatch.NewID(time.Now())
	for _, c := range []struct{ method, path string }{
		{"GET", "/v2/documents"}, {"POST", "/v2/documents"}, {"GET", "/v2/documents/types"}, {"GET", "/v2/documents/" + id},
		{"PATCH", "/v2/documents/" + id}, {"DELETE", "/v2/documents/" + id}, {"GET", "/v2/documents/" + id + "/download_url"},
		{"POST", "/v2/documents/" + id + "/reextract"}, {"POST", "/v2/documents/" + id + "/reclassify"},
		{"POST", "/v2/documents/" + id + "/relink"}, {"POST", "/v2/documents/" + id + "/rotate"},
		{"GET", "/v2/document_schemas/" + id}, {"GET", "/v2/email_submissions"}, {"GET", "/v2/email_submissions/" + id},
		{"GET", "/v2/containers/" + id + "/route"},
	} {
		ts.do(t, c.method, c.path, ts.acme, "").wantError(t, 404, "route_not_found", "", "")
	}
}
