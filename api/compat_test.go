package api_test

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
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
			{"ErrControlCharacter", body(`"ref_numbers":["PO\u0000"]`), "invalid", "/data/attributes/ref_numbers/0", 422},
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

func TestContainerUpdate(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ts := newTestServer(t, b, tracked)
		_, sid := ts.waitShipment(t, ts.acme, "MAEU123456784", "MAEU")
		shipment := ts.do(t, "GET", "/v2/shipments/"+sid, ts.acme, "").want(t, 200).body
		cid := get(shipment, "data", "relationships", "containers", "data", 0, "id").(string)
		path := "/v2/containers/" + cid
		// stringsOf is a JSON array of strings, nil if v is not an array.
		stringsOf := func(v any) []string {
			l, ok := v.([]any)
			if !ok {
				return nil
			}
			out := []string{}
			for _, e := range l {
				out = append(out, fmt.Sprint(e))
			}
			return out
		}
		refsOf := func(r response) []string { return stringsOf(get(r.body, "data", "attributes", "ref_numbers")) }
		if refs := refsOf(ts.do(t, "GET", path, ts.acme, "").want(t, 200)); refs == nil || len(refs) != 0 {
			t.Fatalf("new container: ref_numbers %v, want []", refs)
		}

		// The JSON:API form, the id in the path (and, if sent, the same in data.id).
		r := ts.do(t, "PATCH", path, ts.acme, `{"data":{"type":"container","id":"`+strings.ToUpper(cid)+`","attributes":{"ref_numbers":["PO-1","Ünï 'x'"]}}}`).want(t, 200)
		if refs := refsOf(r); len(refs) != 2 || refs[0] != "PO-1" || refs[1] != "Ünï 'x'" {
			t.Fatalf("after PATCH %s: ref_numbers %v", path, refs)
		}
		if get(r.body, "data", "id") != cid || get(r.body, "data", "relationships", "shipment", "data", "id") != sid || get(r.body, "links", "self") == nil {
			t.Errorf("PATCH %s does not answer the container document: %s", path, r.raw)
		}
		// The reference's form, the id in data.id; every rendering shows the list.
		ts.do(t, "PATCH", "/v2/containers", ts.acme, `{"data":{"type":"container","id":"`+cid+`","attributes":{"ref_numbers":["PO-2"]}}}`).want(t, 200)
		for _, read := range []string{path, "/v2/containers?include=shipment", "/v2/shipments/" + sid + "?include=containers"} {
			r := ts.do(t, "GET", read, ts.acme, "").want(t, 200)
			var found []string
			resources := append(asList(r.body["data"]), asList(r.body["included"])...)
			if one, ok := r.body["data"].(map[string]any); ok {
				resources = append(resources, one)
			}
			for _, res := range resources {
				if get(res, "id") == cid && get(res, "type") == "container" {
					found = stringsOf(get(res, "attributes", "ref_numbers"))
				}
			}
			if len(found) != 1 || found[0] != "PO-2" {
				t.Errorf("GET %s: container ref_numbers %v, want [PO-2]", read, found)
			}
		}

		body := func(id, attrs string) string {
			return `{"data":{"type":"container","id":"` + id + `","attributes":{` + attrs + `}}}`
		}
		for _, tt := range []struct {
			name, path, body, code, pointer string
			status                          int
		}{
			{"ErrEmpty", path, body(cid, ``), "blank", "/data/attributes/ref_numbers", 422},
			{"ErrNull", path, body(cid, `"ref_numbers":null`), "blank", "/data/attributes/ref_numbers", 422},
			{"ErrReadOnly", path, body(cid, `"ref_numbers":[],"number":"MSCU1234566"`), "invalid", "/data/attributes/number", 422},
			{"ErrNotAList", path, body(cid, `"ref_numbers":"PO-1"`), "invalid", "/data/attributes/ref_numbers", 422},
			{"ErrBlank", path, body(cid, `"ref_numbers":[" "]`), "blank", "/data/attributes/ref_numbers/0", 422},
			{"ErrNUL", path, body(cid, `"ref_numbers":["PO\u0000-1"]`), "invalid", "/data/attributes/ref_numbers/0", 422},
			{"ErrLineBreak", path, body(cid, `"ref_numbers":["PO-1","PO\n-2"]`), "invalid", "/data/attributes/ref_numbers/1", 422},
			{"ErrEscape", path, body(cid, `"ref_numbers":["\u001b[31mPO"]`), "invalid", "/data/attributes/ref_numbers/0", 422},
			{"ErrLong", path, body(cid, `"ref_numbers":["`+strings.Repeat("x", 101)+`"]`), "too_long", "/data/attributes/ref_numbers/0", 422},
			{"ErrTooMany", path, body(cid, `"ref_numbers":[`+strings.Repeat(`"r",`, 50)+`"r"]`), "too_long", "/data/attributes/ref_numbers", 422},
			{"ErrHostile", path, body(cid, `"ref_numbers":[{"$ne":1}]`), "invalid", "/data/attributes/ref_numbers/0", 422},
			{"ErrRelationships", path, `{"data":{"type":"container","relationships":{},"attributes":{"ref_numbers":[]}}}`, "", "/data/relationships", 422},
			{"ErrUnknownMember", path, `{"data":{"type":"container","extra":1,"attributes":{"ref_numbers":[]}}}`, "invalid", "/data/extra", 422},
			{"ErrUnknownTopLevel", path, `{"data":{"type":"container","attributes":{"ref_numbers":[]}},"included":[]}`, "invalid", "/included", 422},
			{"ErrType", path, `{"data":{"type":"shipment","attributes":{"ref_numbers":[]}}}`, "type_mismatch", "", 409},
			{"ErrIDMismatch", path, body(boxwatch.NewID(time.Now()), `"ref_numbers":[]`), "id_mismatch", "", 409},
			{"ErrMalformed", path, `{"data":`, "invalid_json", "", 400},
			{"ErrTwoValues", path, body(cid, `"ref_numbers":[]`) + `{}`, "invalid_json", "", 400},
			{"ErrBodyNoID", "/v2/containers", `{"data":{"type":"container","attributes":{"ref_numbers":[]}}}`, "blank", "/data/id", 422},
			{"ErrBodyNullID", "/v2/containers", `{"data":{"type":"container","id":null,"attributes":{"ref_numbers":[]}}}`, "blank", "/data/id", 422},
			{"ErrBodyNumberID", "/v2/containers", `{"data":{"type":"container","id":7,"attributes":{"ref_numbers":[]}}}`, "invalid", "/data/id", 422},
			{"ErrBodyMalformedID", "/v2/containers", body("x'; DROP TABLE containers; --", `"ref_numbers":[]`), "invalid", "/data/id", 422},
			{"ErrBodyNotADocument", "/v2/containers", `[]`, "invalid", "/", 422},
			{"ErrBodyNoData", "/v2/containers", `{"meta":{}}`, "blank", "/data", 422},
			{"ErrBodyUnknownAttribute", "/v2/containers", body(cid, `"ref_numbers":[],"current_status":"picked_up"`), "invalid", "/data/attributes/current_status", 422},
		} {
			t.Run(tt.name, func(t *testing.T) {
				ts.do(t, "PATCH", tt.path, ts.acme, tt.body).wantError(t, tt.status, tt.code, tt.pointer, "")
			})
		}
		// Nothing refused above reached the store.
		if refs := refsOf(ts.do(t, "GET", path, ts.acme, "").want(t, 200)); len(refs) != 1 || refs[0] != "PO-2" {
			t.Fatalf("after refused updates: ref_numbers %v, want [PO-2]", refs)
		}

		ts.do(t, "PATCH", path, ts.acme, body(cid, `"ref_numbers":["`+strings.Repeat("x", 2<<20)+`"]`)).wantError(t, 413, "", "", "")
		ts.do(t, "PATCH", path, ts.globex, body(cid, `"ref_numbers":[]`)).wantError(t, 404, "", "", "")
		ts.do(t, "PATCH", "/v2/containers", ts.globex, body(cid, `"ref_numbers":[]`)).wantError(t, 404, "", "", "")
		ts.do(t, "PATCH", "/v2/containers", ts.acme, body(boxwatch.NewID(time.Now()), `"ref_numbers":[]`)).wantError(t, 404, "", "", "")
		ts.do(t, "PATCH", "/v2/containers/not-an-id", ts.acme, body(cid, `"ref_numbers":[]`)).wantError(t, 404, "", "", "")
		ts.do(t, "PATCH", path, "", body(cid, `"ref_numbers":[]`)).wantError(t, 401, "", "", "")
		ts.do(t, "PATCH", "/v2/containers", "", body(cid, `"ref_numbers":[]`)).wantError(t, 401, "", "", "")
		if refs := refsOf(ts.do(t, "GET", path, ts.acme, "").want(t, 200)); len(refs) != 1 || refs[0] != "PO-2" {
			t.Fatalf("another account changed the container: ref_numbers %v", refs)
		}

		// An empty list clears them.
		if refs := refsOf(ts.do(t, "PATCH", "/v2/containers", ts.acme, body(cid, `"ref_numbers":[]`)).want(t, 200)); refs == nil || len(refs) != 0 {
			t.Fatalf("cleared: ref_numbers %v, want []", refs)
		}
	})
}

func TestAutoDetectSCAC(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, storetest.SQLite)
	create := func(number, scac string) response {
		attrs := `"request_type":"container","request_number":"` + number + `","auto_detect_vocc_scac":true`
		if scac != "" {
			attrs += `,"scac":"` + scac + `"`
		}
		return ts.do(t, "POST", "/v2/tracking_requests", ts.acme, `{"data":{"type":"tracking_request","attributes":{`+attrs+`}}}`)
	}
	// A line's own container prefix is auto-selected, as infer_number decides.
	r := create("MSCU 000006-0", "").want(t, 201)
	if get(r.body, "data", "attributes", "scac") != "MSCU" || get(r.body, "data", "attributes", "request_number") != "MSCU0000060" {
		t.Fatalf("auto-detected: %s", r.raw)
	}
	// A given scac stands.
	r = create("MSCU0000060", "MAEU").want(t, 201)
	if get(r.body, "data", "attributes", "scac") != "MAEU" {
		t.Fatalf("given scac: %s", r.raw)
	}
	// A leased container is never auto-selected: the answer lists what infer_number would.
	e := create("TGHU 000000-5", "").wantError(t, 422, "blank", "/data/attributes/scac", "")
	if d, _ := e["detail"].(string); !strings.Contains(d, "Candidates:") {
		t.Errorf("detail %q lists no candidates", d)
	}
	create("!!!", "").wantError(t, 422, "invalid", "/data/attributes/request_number", "")
	create(strings.Repeat("A", 500), "").wantError(t, 422, "", "/data/attributes/request_number", "")
	// false, as before, needs the scac.
	ts.do(t, "POST", "/v2/tracking_requests", ts.acme, createBody("container", "MSCU0000060", "", `"auto_detect_vocc_scac":false`)).
		wantError(t, 422, "blank", "/data/attributes/scac", "")
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

func TestParties(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ts := newTestServer(t, b, tracked)
		body := func(name string) string {
			return `{"data":{"type":"party","attributes":{"company_name":` + name + `}}}`
		}
		r := ts.do(t, "POST", "/v2/parties", ts.acme, body(`"  Acme Imports "`)).want(t, 201)
		pid := get(r.body, "data", "id").(string)
		if get(r.body, "data", "attributes", "company_name") != "Acme Imports" || r.header.Get("Location") == "" {
			t.Fatalf("created: %s", r.raw)
		}
		theirs := get(ts.do(t, "POST", "/v2/parties", ts.globex, body(`"Globex"`)).want(t, 201).body, "data", "id").(string)
		r = ts.do(t, "GET", "/v2/parties", ts.acme, "").want(t, 200)
		if list := asList(r.body["data"]); len(list) != 1 || get(list[0], "id") != pid {
			t.Fatalf("list: %s", r.raw)
		}
		ts.do(t, "GET", "/v2/parties/"+pid, ts.acme, "").want(t, 200)
		ts.do(t, "GET", "/v2/parties/"+pid, ts.globex, "").wantError(t, 404, "", "", "")
		ts.do(t, "GET", "/v2/parties/nope", ts.acme, "").wantError(t, 404, "", "", "")

		for _, tt := range []struct {
			name, body, code, pointer string
			status                    int
		}{
			{"ErrBlank", body(`"   "`), "blank", "/data/attributes/company_name", 422},
			{"ErrMissing", `{"data":{"type":"party","attributes":{}}}`, "blank", "/data/attributes/company_name", 422},
			{"ErrTooLong", body(`"` + strings.Repeat("é", 201) + `"`), "too_long", "/data/attributes/company_name", 422},
			{"ErrNotAString", body(`{"$gt":""}`), "invalid", "/data/attributes/company_name", 422},
			{"ErrUnknown", `{"data":{"type":"party","attributes":{"company_name":"A","admin":true}}}`, "invalid", "/data/attributes/admin", 422},
			{"ErrType", `{"data":{"type":"shipment","attributes":{"company_name":"A"}}}`, "type_mismatch", "", 409},
		} {
			t.Run(tt.name, func(t *testing.T) {
				ts.do(t, "POST", "/v2/parties", ts.acme, tt.body).wantError(t, tt.status, tt.code, tt.pointer, "")
			})
		}
		ts.do(t, "POST", "/v2/parties", ts.acme, body(`"`+strings.Repeat("x", 2<<20)+`"`)).wantError(t, 413, "", "", "")
		ts.do(t, "POST", "/v2/parties", ts.acme, `{"data":`).want(t, 400)

		// A tracking request names its customer; the shipment shows the name, and a rename.
		customer := func(id string) string {
			return `"relationships":{"customer":{"data":{"type":"party","id":"` + id + `"}}}`
		}
		create := func(number, rel string) response {
			return ts.do(t, "POST", "/v2/tracking_requests", ts.acme,
				`{"data":{"type":"tracking_request",`+rel+`,"attributes":{"request_type":"bill_of_lading","request_number":"`+number+`","scac":"MAEU"}}}`)
		}
		r = create("MAEU123456784", customer(pid)).want(t, 201)
		trID := get(r.body, "data", "id").(string)
		if get(r.body, "data", "relationships", "customer", "data", "id") != pid {
			t.Fatalf("customer relationship: %s", r.raw)
		}
		var sid string
		trackingtest.Eventually(t, 20*time.Second, "no shipment", func() bool {
			sid, _ = get(ts.do(t, "GET", "/v2/tracking_requests/"+trID, ts.acme, "").want(t, 200).body, "data", "relationships", "tracked_object", "data", "id").(string)
			return sid != ""
		})
		if got := get(ts.do(t, "GET", "/v2/shipments/"+sid, ts.acme, "").want(t, 200).body, "data", "attributes", "customer_name"); got != "Acme Imports" {
			t.Errorf("customer_name %v", got)
		}
		ts.do(t, "PATCH", "/v2/parties/"+pid, ts.acme, `{"data":{"type":"party","id":"`+pid+`","attributes":{"company_name":"Acme Global"}}}`).want(t, 200)
		if got := get(ts.do(t, "GET", "/v2/shipments/"+sid, ts.acme, "").want(t, 200).body, "data", "attributes", "customer_name"); got != "Acme Global" {
			t.Errorf("customer_name after the rename %v", got)
		}
		ts.do(t, "PATCH", "/v2/parties/"+pid, ts.acme, body(`""`)).wantError(t, 422, "blank", "/data/attributes/company_name", "")
		ts.do(t, "PATCH", "/v2/parties/"+theirs, ts.acme, body(`"Mine"`)).wantError(t, 404, "", "", "")

		create("MAEU123456785", customer(theirs)).wantError(t, 422, "not_found", "/data/relationships/customer/data/id", "")
		create("MAEU123456786", customer("not-a-uuid")).wantError(t, 422, "invalid", "/data/relationships/customer/data/id", "")
		create("MAEU123456787", `"relationships":{"customer":{"data":{"type":"shipment","id":"`+pid+`"}}}`).wantError(t, 422, "invalid", "/data/relationships/customer/data/type", "")
		create("MAEU123456788", `"relationships":{"owner":{"data":null}}`).wantError(t, 422, "not_supported", "/data/relationships/owner", "")
		create("MAEU123456789", `"relationships":[]`).wantError(t, 422, "invalid", "/data/relationships", "")
		r = create("MAEU123456790", `"relationships":{"customer":{"data":null}}`).want(t, 201)
		if get(r.body, "data", "relationships", "customer", "data") != nil {
			t.Errorf("null customer: %s", r.raw)
		}
	})
}

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
	ts.register(t, ts.acme, rc, "container.pickup_lfd.changed", "container.updated", "container.transport.available")
	// Stage 7: the vessel arrives within 12 hours.
	_, sid := ts.waitShipment(t, ts.acme, "ONEYSH123457", "ONEY")
	for range 8 {
		clock.Advance(6 * time.Hour)
		trackingtest.Eventually(t, 30*time.Second, "no refresh", func() bool {
			r := ts.do(t, "GET", "/v2/shipments/"+sid, ts.acme, "").want(t, 200)
			at, _ := time.Parse(time.RFC3339, get(r.body, "data", "attributes", "line_tracking_last_succeeded_at").(string))
			return !at.Before(clock.Now().Add(-time.Second).Truncate(time.Second))
		})
	}
	trackingtest.Eventually(t, 30*time.Second, "no terminal event delivered", func() bool {
		events := map[string]bool{}
		for _, d := range rc.deliveries() {
			events[d.event] = d.t49OK && d.stdOK
		}
		return events["container.pickup_lfd.changed"] && events["container.updated"] && events["container.transport.available"]
	})
	r := ts.do(t, "GET", "/v2/webhook_notifications?filter[event]=container.pickup_lfd.changed", ts.acme, "").want(t, 200)
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
	if get(a, "pickup_lfd") == nil || get(a, "import_deadlines", "pickup_lfd_terminal") != get(a, "pickup_lfd") || get(a, "terminal_checked_at") == nil {
		t.Errorf("container terminal attributes: %s", c.raw)
	}
	// The catalogue says these events are sent.
	cat := ts.do(t, "GET", "/v2/webhooks/events", ts.acme, "").want(t, 200)
	emitted := map[string]bool{}
	for _, category := range asList(cat.body["data"]) {
		for _, e := range asList(get(category, "attributes", "events")) {
			emitted[get(e, "name").(string)], _ = get(e, "emitted").(bool)
		}
	}
	if !emitted["container.pickup_lfd.changed"] || !emitted["container.updated"] || !emitted["container.transport.available"] {
		t.Errorf("catalogue: pickup_lfd.changed %v, updated %v", emitted["container.pickup_lfd.changed"], emitted["container.updated"])
	}
}

func TestNotificationIncludesWebhook(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, storetest.SQLite, delivering(nil))
	rc := newReceiver(t, always(200))
	hookID := ts.register(t, ts.acme, rc, "tracking_request.succeeded")
	ts.waitShipment(t, ts.acme, "HLCU123456785", "HLCU")
	trackingtest.Eventually(t, 30*time.Second, "no delivery", func() bool { return len(rc.deliveries()) > 0 })
	webhooks := func(path string) int {
		r := ts.do(t, "GET", path, ts.acme, "").want(t, 200)
		n := 0
		for _, inc := range asList(r.body["included"]) {
			if get(inc, "type") == "webhook" {
				if get(inc, "id") != hookID {
					t.Errorf("%s included webhook %v", path, get(inc, "id"))
				}
				n++
			}
		}
		return n
	}
	if n := webhooks("/v2/webhook_notifications?include=webhook"); n != 1 {
		t.Errorf("list included %d webhooks, want 1 (once)", n)
	}
	if n := webhooks("/v2/webhook_notifications/" + rc.deliveries()[0].id + "?include=webhook,reference_object"); n != 1 {
		t.Errorf("notification included %d webhooks", n)
	}
	if n := webhooks("/v2/webhook_notifications"); n != 0 {
		t.Errorf("without include: %d webhooks", n)
	}
	ts.do(t, "GET", "/v2/webhook_notifications?include=webhooks", ts.acme, "").wantError(t, 400, "invalid", "", "include")
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
