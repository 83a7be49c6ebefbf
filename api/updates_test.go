package api_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

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
