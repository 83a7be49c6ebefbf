package api_test

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch/store/storetest"
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

func TestShipmentUpdate(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ts := newTestServer(t, b, tracked)
		_, sid := ts.waitShipment(t, ts.acme, "MAEU123456784", "MAEU")
		path := "/v2/shipments/" + sid
		body := func(attrs string) string {
			return `{"data":{"type":"shipment","id":"` + sid + `","attributes":{` + attrs + `}}}`
		}
		r := ts.do(t, "PATCH", path, ts.acme, body(`"ref_numbers":["A-1","B-2"],"tags":["hot"]`)).want(t, 200)
		if refs, tags := asList(get(r.body, "data", "attributes", "ref_numbers")), asList(get(r.body, "data", "attributes", "tags")); len(refs) != 2 || len(tags) != 1 || tags[0] != "hot" {
			t.Fatalf("after update: refs %v tags %v", refs, tags)
		}
		// A list left out is kept.
		r = ts.do(t, "PATCH", path, ts.acme, body(`"tags":[]`)).want(t, 200)
		if refs, tags := asList(get(r.body, "data", "attributes", "ref_numbers")), asList(get(r.body, "data", "attributes", "tags")); len(refs) != 2 || len(tags) != 0 {
			t.Fatalf("after clearing tags: refs %v tags %v", refs, tags)
		}
		if get(r.body, "data", "relationships", "containers", "data", 0) == nil {
			t.Errorf("updated shipment lost its containers: %s", r.raw)
		}

		for _, tt := range []struct {
			name, body, code, pointer string
			status                    int
		}{
			{"ErrEmpty", body(``), "blank", "/data/attributes", 422},
			{"ErrReadOnly", body(`"bill_of_lading_number":"X"`), "invalid", "/data/attributes/bill_of_lading_number", 422},
			{"ErrNotAList", body(`"tags":"hot"`), "invalid", "/data/attributes/tags", 422},
			{"ErrBlankTag", body(`"tags":[" "]`), "blank", "/data/attributes/tags/0", 422},
			{"ErrLongRef", body(`"ref_numbers":["` + strings.Repeat("x", 101) + `"]`), "too_long", "/data/attributes/ref_numbers/0", 422},
			{"ErrTooManyTags", body(`"tags":[` + strings.Repeat(`"t",`, 50) + `"t"]`), "too_long", "/data/attributes/tags", 422},
			{"ErrHostile", body(`"tags":[{"$ne":1}]`), "invalid", "/data/attributes/tags/0", 422},
			{"ErrType", `{"data":{"type":"container","attributes":{"tags":[]}}}`, "type_mismatch", "", 409},
			{"ErrMalformed", `{"data":`, "invalid", "", 400},
		} {
			t.Run(tt.name, func(t *testing.T) {
				r := ts.do(t, "PATCH", path, ts.acme, tt.body)
				if tt.status == 400 {
					if r.status != 400 {
						t.Fatalf("status %d: %s", r.status, r.raw)
					}
					return
				}
				r.wantError(t, tt.status, tt.code, tt.pointer, "")
			})
		}
		ts.do(t, "PATCH", path, ts.acme, `{"data":{"type":"shipment","attributes":{"tags":["`+strings.Repeat("x", 2<<20)+`"]}}}`).wantError(t, 413, "", "", "")
		ts.do(t, "PATCH", path, ts.globex, body(`"tags":[]`)).wantError(t, 404, "", "", "")
		ts.do(t, "PATCH", "/v2/shipments/not-an-id", ts.acme, body(`"tags":[]`)).wantError(t, 404, "", "", "")
		ts.do(t, "PATCH", path, "", body(`"tags":[]`)).wantError(t, 401, "", "", "")
	})
}
