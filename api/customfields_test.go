package api_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// ourPattern is boxwatch's route pattern of a reference operation's path.
func ourPattern(refPath string) string {
	return "/v2" + strings.NewReplacer("{definition_id}", "{id}", "{shipment_id}", "{id}", "{container_id}", "{id}",
		"{tracking_request_id}", "{id}").Replace(refPath)
}

// driveCustomFields calls every custom field operation once, in an order where each succeeds;
// send makes the call (the reference operation, method, path and body) and returns the answer's
// body. The ids are a shipment's, a container's and a tracking request's of the account.
func driveCustomFields(sid, cid, trID string, send func(op, method, path, body string) map[string]any) {
	def := func(entity, slug, typ string) string {
		return `{"data":{"type":"custom_field_definition","attributes":{"entity_type":"` + entity + `","api_slug":"` + slug +
			`","display_name":"` + slug + `","data_type":"` + typ + `"}}}`
	}
	value := func(v string) string { return `{"data":{"type":"custom_field","attributes":{"value":` + v + `}}}` }
	create := func(slug, v string) string {
		return `{"data":{"type":"custom_field","attributes":{"api_slug":"` + slug + `","value":` + v + `}}}`
	}
	mode := get(send("POST /custom_field_definitions", "POST", "/v2/custom_field_definitions", def("Shipment", "mode", "enum")), "data", "id").(string)
	send("GET /custom_field_definitions", "GET", "/v2/custom_field_definitions?filter[entity_type]=Shipment", "")
	send("GET /custom_field_definitions/{id}", "GET", "/v2/custom_field_definitions/"+mode, "")
	send("PATCH /custom_field_definitions/{id}", "PATCH", "/v2/custom_field_definitions/"+mode,
		`{"data":{"type":"custom_field_definition","attributes":{"display_name":"Transport mode"}}}`)
	opt := get(send("POST /custom_field_definitions/{definition_id}/options", "POST", "/v2/custom_field_definitions/"+mode+"/options",
		`{"data":{"type":"custom_field_option","attributes":{"label":"By sea","value":"sea","position":1}}}`), "data", "id").(string)
	send("GET /custom_field_definitions/{definition_id}/options", "GET", "/v2/custom_field_definitions/"+mode+"/options", "")
	send("GET /custom_field_definitions/{definition_id}/options/{option_id}", "GET", "/v2/custom_field_definitions/"+mode+"/options/"+opt, "")
	send("PATCH /custom_field_definitions/{definition_id}/options/{option_id}", "PATCH", "/v2/custom_field_definitions/"+mode+"/options/"+opt,
		`{"data":{"type":"custom_field_option","attributes":{"label":"Ocean"}}}`)

	field := get(send("POST /custom_fields", "POST", "/v2/custom_fields",
		`{"data":{"type":"custom_field","attributes":{"api_slug":"mode","value":"sea"},"relationships":{"entity":{"data":{"type":"shipment","id":"`+sid+`"}}}}}`),
		"data", "id").(string)
	send("GET /custom_fields", "GET", "/v2/custom_fields?filter[entity_id]="+sid, "")
	send("GET /custom_fields/{id}", "GET", "/v2/custom_fields/"+field, "")
	send("PATCH /custom_fields/{id}", "PATCH", "/v2/custom_fields/"+field, value(`"sea"`))
	send("DELETE /custom_fields/{id}", "DELETE", "/v2/custom_fields/"+field, "")

	for _, e := range []struct{ entity, resources, id string }{
		{"Shipment", "shipments", sid}, {"Container", "containers", cid}, {"TrackingRequest", "tracking_requests", trID},
	} {
		param := map[string]string{"shipments": "shipment_id", "containers": "container_id", "tracking_requests": "tracking_request_id"}[e.resources]
		slug := "note_" + strings.ToLower(e.entity)
		send("POST /custom_field_definitions", "POST", "/v2/custom_field_definitions", def(e.entity, slug, "short_text"))
		base := "/v2/" + e.resources + "/" + e.id + "/custom_fields"
		op := "/" + e.resources + "/{" + param + "}/custom_fields"
		send("POST "+op, "POST", base, create(slug, `"first"`))
		send("GET "+op, "GET", base, "")
		send("PATCH "+op+"/{api_slug}", "PATCH", base+"/"+slug, value(`"second"`))
		send("DELETE "+op+"/{api_slug}", "DELETE", base+"/"+slug, "")
	}
	send("DELETE /custom_field_definitions/{definition_id}/options/{option_id}", "DELETE", "/v2/custom_field_definitions/"+mode+"/options/"+opt, "")
	send("DELETE /custom_field_definitions/{id}", "DELETE", "/v2/custom_field_definitions/"+mode, "")
}

func TestCustomFieldValues(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ts := newTestServer(t, b, tracked)
		trID, sid := ts.waitShipment(t, ts.acme, "MAEU123456784", "MAEU")
		party := get(ts.do(t, "POST", "/v2/parties", ts.acme, `{"data":{"type":"party","attributes":{"company_name":"Acme"}}}`).want(t, 201).body, "data", "id").(string)
		define := func(slug, typ, extra string) string {
			t.Helper()
			r := ts.do(t, "POST", "/v2/custom_field_definitions", ts.acme, `{"data":{"type":"custom_field_definition","attributes":{"entity_type":"Shipment","api_slug":"`+
				slug+`","display_name":"`+slug+`","data_type":"`+typ+`"`+extra+`}}}`).want(t, 201)
			return get(r.body, "data", "id").(string)
		}
		define("po", "short_text", `,"validation":{"max_length":5}`)
		define("weight", "number", `,"validation":{"min":0,"max":1000}`)
		define("eta", "date", "")
		define("seen", "datetime", "")
		define("hot", "boolean", "")
		define("owner", "reference", `,"reference_type":"party"`)
		for _, slug := range []string{"mode", "modes"} {
			typ := map[string]string{"mode": "enum", "modes": "enum_multi"}[slug]
			id := define(slug, typ, "")
			for _, v := range []string{"sea", "air"} {
				ts.do(t, "POST", "/v2/custom_field_definitions/"+id+"/options", ts.acme,
					`{"data":{"type":"custom_field_option","attributes":{"label":"`+strings.ToUpper(v)+`","value":"`+v+`"}}}`).want(t, 201)
			}
		}
		set := func(slug, value string) response {
			return ts.do(t, "POST", "/v2/shipments/"+sid+"/custom_fields", ts.acme,
				`{"data":{"type":"custom_field","attributes":{"api_slug":"`+slug+`","value":`+value+`}}}`)
		}
		for _, tt := range []struct {
			slug, value, stored, display string
		}{
			{"po", `"AB-12"`, `"AB-12"`, "AB-12"},
			{"weight", `12.5`, `12.5`, "12.5"},
			{"eta", `"2026-04-01"`, `"2026-04-01"`, "2026-04-01"},
			{"seen", `"2026-04-01T10:00:00+02:00"`, `"2026-04-01T08:00:00Z"`, "2026-04-01T08:00:00Z"},
			{"hot", `true`, `true`, "true"},
			{"owner", `"` + party + `"`, `"` + party + `"`, party},
			{"mode", `"sea"`, `"sea"`, "SEA"},
			{"modes", `["air","sea","air"]`, `["air","sea"]`, "AIR, SEA"},
		} {
			t.Run("OK "+tt.slug, func(t *testing.T) {
				r := set(tt.slug, tt.value).want(t, 201)
				if got := string(mustJSON(t, get(r.body, "data", "attributes", "value"))); got != tt.stored {
					t.Errorf("stored %s, want %s", got, tt.stored)
				}
				if got := get(r.body, "data", "attributes", "display_value"); got != tt.display {
					t.Errorf("display_value %v, want %s", got, tt.display)
				}
				if get(r.body, "data", "relationships", "entity", "data", "id") != sid {
					t.Errorf("entity: %s", r.raw)
				}
			})
		}
		for _, tt := range []struct{ name, slug, value, code string }{
			{"ErrTooLong", "po", `"ABCDEF"`, "too_long"},
			{"ErrNotAString", "po", `12`, "invalid"},
			{"ErrBelowMin", "weight", `-1`, "invalid"},
			{"ErrAboveMax", "weight", `1e9`, "invalid"},
			{"ErrHugeNumber", "weight", `1e999`, "invalid"},
			{"ErrNumberAsText", "weight", `"12"`, "invalid"},
			{"ErrDate", "eta", `"01/04/2026"`, "invalid"},
			{"ErrDatetimeNoZone", "seen", `"2026-04-01T10:00:00"`, "invalid"},
			{"ErrBoolean", "hot", `"yes"`, "invalid"},
			{"ErrReferenceUnknown", "owner", `"00000000-0000-7000-8000-000000000000"`, "invalid"},
			{"ErrReferenceHostile", "owner", `"' OR 1=1 --"`, "invalid"},
			{"ErrEnum", "mode", `"rail"`, "invalid"},
			{"ErrEnumMultiItem", "modes", `["sea",1]`, "invalid"},
			{"ErrEnumMultiNotAList", "modes", `"sea"`, "invalid"},
			{"ErrNull", "po", `null`, "blank"},
			{"ErrObject", "po", `{"$ne":null}`, "invalid"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				set(tt.slug, tt.value).wantError(t, 422, tt.code, "/data/attributes/value", "")
			})
		}
		set("nope", `"x"`).wantError(t, 422, "not_found", "/data/attributes/api_slug", "")
		set("po", `"`+strings.Repeat("x", 2<<20)+`"`).wantError(t, 413, "", "", "")

		// Definitions are checked on create.
		for _, tt := range []struct{ name, attrs, pointer string }{
			{"ErrSlug", `"entity_type":"Shipment","api_slug":"Bad Slug","display_name":"x","data_type":"number"`, "/data/attributes/api_slug"},
			{"ErrEntity", `"entity_type":"Vessel","api_slug":"x","display_name":"x","data_type":"number"`, "/data/attributes/entity_type"},
			{"ErrDataType", `"entity_type":"Shipment","api_slug":"x","display_name":"x","data_type":"blob"`, "/data/attributes/data_type"},
			{"ErrBlankName", `"entity_type":"Shipment","api_slug":"x","display_name":" ","data_type":"number"`, "/data/attributes/display_name"},
			{"ErrReferenceType", `"entity_type":"Shipment","api_slug":"x","display_name":"x","data_type":"reference","reference_type":"vessel"`, "/data/attributes/reference_type"},
			{"ErrValidationKey", `"entity_type":"Shipment","api_slug":"x","display_name":"x","data_type":"boolean","validation":{"max_length":3}}`, "/data/attributes/validation/max_length"},
			{"ErrDefault", `"entity_type":"Shipment","api_slug":"x","display_name":"x","data_type":"number","default_value":"ten"`, "/data/attributes/default_value"},
			{"ErrDefaultOutOfRange", `"entity_type":"Shipment","api_slug":"x","display_name":"x","data_type":"number","default_value":1e999`, "/data/attributes/default_value"},
			{"ErrCreatedAt", `"entity_type":"Shipment","api_slug":"x","display_name":"x","data_type":"number","created_at":"2026-01-01T00:00:00Z"`, "/data/attributes/created_at"},
			{"ErrTaken", `"entity_type":"Shipment","api_slug":"po","display_name":"x","data_type":"number"`, "/data/attributes/api_slug"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				body := `{"data":{"type":"custom_field_definition","attributes":{` + strings.TrimSuffix(tt.attrs, "}") + `}}}`
				ts.do(t, "POST", "/v2/custom_field_definitions", ts.acme, body).wantError(t, 422, "", tt.pointer, "")
			})
		}
		// Options belong to enum definitions, and values are unique.
		r := ts.do(t, "GET", "/v2/custom_field_definitions?filter[data_type]=short_text", ts.acme, "").want(t, 200)
		po := get(r.body, "data", 0, "id").(string)
		ts.do(t, "POST", "/v2/custom_field_definitions/"+po+"/options", ts.acme,
			`{"data":{"type":"custom_field_option","attributes":{"label":"A","value":"a"}}}`).wantError(t, 422, "not_supported", "", "")
		ts.do(t, "PATCH", "/v2/custom_field_definitions/"+po, ts.acme,
			`{"data":{"type":"custom_field_definition","attributes":{"data_type":"number"}}}`).wantError(t, 422, "invalid", "/data/attributes/data_type", "")
		ts.do(t, "GET", "/v2/custom_field_definitions?filter[entity_type]=Vessel", ts.acme, "").wantError(t, 400, "invalid", "", "filter[entity_type]")

		// Another account sees none of it, and cannot set fields on these resources.
		ts.do(t, "GET", "/v2/custom_field_definitions/"+po, ts.globex, "").wantError(t, 404, "", "", "")
		ts.do(t, "GET", "/v2/shipments/"+sid+"/custom_fields", ts.globex, "").wantError(t, 404, "", "", "")
		ts.do(t, "POST", "/v2/custom_fields", ts.globex, `{"data":{"type":"custom_field","attributes":{"api_slug":"po","value":"x"},`+
			`"relationships":{"entity":{"data":{"type":"tracking_request","id":"`+trID+`"}}}}}`).wantError(t, 422, "not_found", "/data/relationships/entity/data/id", "")
		r = ts.do(t, "GET", "/v2/shipments/"+sid+"/custom_fields", ts.acme, "").want(t, 200)
		if n := len(asList(r.body["data"])); n != 8 {
			t.Errorf("the shipment has %d custom fields, want 8: %s", n, r.raw)
		}
		ts.do(t, "DELETE", "/v2/shipments/"+sid+"/custom_fields/nope", ts.acme, "").wantError(t, 404, "", "", "")
	})
}

func TestCustomFieldRoutes(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, storetest.SQLite, tracked)
	trID, sid := ts.waitShipment(t, ts.acme, "MAEU123456784", "MAEU")
	cid := get(ts.do(t, "GET", "/v2/shipments/"+sid, ts.acme, "").want(t, 200).body, "data", "relationships", "containers", "data", 0, "id").(string)
	seen := map[string]bool{}
	driveCustomFields(sid, cid, trID, func(op, method, path, body string) map[string]any {
		r := ts.do(t, method, path, ts.acme, body)
		if r.status >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, r.status, r.raw)
		}
		seen[op] = true
		return r.body
	})
	if len(seen) != 27 {
		t.Errorf("%d custom field operations driven, want the reference's 27", len(seen))
	}
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCustomFieldHostileInput(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, storetest.SQLite, tracked)
	_, sid := ts.waitShipment(t, ts.acme, "MAEU123456784", "MAEU")
	r := ts.do(t, "POST", "/v2/custom_field_definitions", ts.acme,
		`{"data":{"type":"custom_field_definition","attributes":{"entity_type":"Shipment","api_slug":"mode","display_name":"Mode","data_type":"enum"}}}`).want(t, 201)
	def := get(r.body, "data", "id").(string)
	option := func(attrs string) response {
		return ts.do(t, "POST", "/v2/custom_field_definitions/"+def+"/options", ts.acme, `{"data":{"type":"custom_field_option","attributes":{`+attrs+`}}}`)
	}
	for _, tt := range []struct{ name, attrs, code, pointer string }{
		{"ErrLongLabel", `"label":"` + strings.Repeat("x", 101) + `","value":"a"`, "too_long", "/data/attributes/label"},
		{"ErrBlankValue", `"label":"A","value":"  "`, "blank", "/data/attributes/value"},
		{"ErrPosition", `"label":"A","value":"a","position":1.5`, "invalid", "/data/attributes/position"},
		{"ErrNegativePosition", `"label":"A","value":"a","position":-1`, "invalid", "/data/attributes/position"},
		{"ErrValueNotAString", `"label":"A","value":{"$ne":1}`, "invalid", "/data/attributes/value"},
		{"ErrUnknownMember", `"label":"A","value":"a","color":"red"`, "invalid", "/data/attributes/color"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			option(tt.attrs).wantError(t, 422, tt.code, tt.pointer, "")
		})
	}
	option(`"label":"Sea","value":"sea"`).want(t, 201)
	option(`"label":"Sea again","value":"sea"`).wantError(t, 422, "taken", "/data/attributes/value", "")
	option(`"label":"`+strings.Repeat("x", 2<<20)+`","value":"x"`).wantError(t, 413, "", "", "")

	for _, path := range []string{
		"/v2/custom_field_definitions/%27%20OR%201%3D1--",
		"/v2/custom_field_definitions/" + def + "/options/..%2F..%2Fetc",
		"/v2/custom_fields/" + strings.Repeat("9", 300),
		"/v2/containers/not-a-uuid/custom_fields",
		"/v2/tracking_requests/00000000-0000-7000-8000-000000000000/custom_fields",
	} {
		ts.do(t, "GET", path, ts.acme, "").want(t, 404)
	}
	ts.do(t, "DELETE", "/v2/shipments/"+sid+"/custom_fields/%3Cscript%3E", ts.acme, "").want(t, 404)
	ts.do(t, "GET", "/v2/shipments/"+sid+"/custom_fields/mode", ts.acme, "").wantError(t, 405, "method_not_allowed", "", "")
	for _, path := range []string{
		"/v2/custom_fields?filter[entity_id]=%27%20OR%201%3D1",
		"/v2/custom_fields?filter[definition_id]=x",
	} {
		if r := ts.do(t, "GET", path, ts.acme, "").want(t, 200); len(asList(r.body["data"])) != 0 {
			t.Errorf("%s matched %s", path, r.raw)
		}
	}
	ts.do(t, "GET", "/v2/custom_fields?filter[entity_type]=Vessel", ts.acme, "").wantError(t, 400, "invalid", "", "filter[entity_type]")
	ts.do(t, "GET", "/v2/custom_field_definitions?filter[display_name]="+strings.Repeat("x", 101), ts.acme, "").wantError(t, 400, "invalid", "", "filter[display_name]")
	ts.do(t, "POST", "/v2/custom_fields", ts.acme, `{"data":{"type":"custom_field","attributes":{"api_slug":"mode","value":"sea"}}}`).
		wantError(t, 422, "blank", "/data/relationships", "")
	ts.do(t, "POST", "/v2/custom_fields", ts.acme, `{"data":{"type":"custom_field","attributes":{"api_slug":"mode","value":"sea"},"relationships":{"entity":{"data":{"type":"vessel","id":"x"}}}}}`).
		wantError(t, 422, "invalid", "/data/relationships/entity/data/type", "")
	ts.do(t, "DELETE", "/v2/custom_field_definitions/"+def, ts.globex, "").wantError(t, 404, "", "", "")
	ts.do(t, "DELETE", "/v2/custom_field_definitions/"+def, ts.acme, "").want(t, 200)
	ts.do(t, "GET", "/v2/custom_field_definitions/"+def+"/options", ts.acme, "").wantError(t, 404, "", "", "")
}

func TestInitialCustomFields(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ts := newTestServer(t, b, tracked)
		for _, d := range []string{`"entity_type":"Shipment","api_slug":"booking_reference","display_name":"Booking","data_type":"short_text"`,
			`"entity_type":"Container","api_slug":"po_number","display_name":"PO","data_type":"short_text"`} {
			ts.do(t, "POST", "/v2/custom_field_definitions", ts.acme, `{"data":{"type":"custom_field_definition","attributes":{`+d+`}}}`).want(t, 201)
		}
		create := func(number, fields string) response {
			return ts.do(t, "POST", "/v2/tracking_requests", ts.acme,
				createBody("bill_of_lading", number, "MAEU", `"initial_custom_fields":`+fields))
		}
		r := create("MAEU123456784", `{"shipment":[{"api_slug":"booking_reference","value":"BOOK-1"}],"containers":[{"api_slug":"po_number","value":"PO-9"}]}`).want(t, 201)
		trID := get(r.body, "data", "id").(string)
		var sid string
		trackingtest.Eventually(t, 20*time.Second, "no shipment", func() bool {
			sid, _ = get(ts.do(t, "GET", "/v2/tracking_requests/"+trID, ts.acme, "").want(t, 200).body, "data", "relationships", "tracked_object", "data", "id").(string)
			return sid != ""
		})
		values := func(path string) []any {
			var out []any
			for _, f := range asList(ts.do(t, "GET", path, ts.acme, "").want(t, 200).body["data"]) {
				out = append(out, get(f, "attributes", "value"))
			}
			return out
		}
		if got := values("/v2/shipments/" + sid + "/custom_fields"); len(got) != 1 || got[0] != "BOOK-1" {
			t.Errorf("shipment's fields: %v", got)
		}
		containers := asList(get(ts.do(t, "GET", "/v2/shipments/"+sid, ts.acme, "").want(t, 200).body, "data", "relationships", "containers", "data"))
		for _, c := range containers {
			if got := values("/v2/containers/" + get(c, "id").(string) + "/custom_fields"); len(got) != 1 || got[0] != "PO-9" {
				t.Errorf("container's fields: %v", got)
			}
		}
		for _, tt := range []struct{ name, fields, code, pointer string }{
			{"ErrUnknownSlug", `{"shipment":[{"api_slug":"nope","value":"x"}]}`, "not_found", "/data/attributes/initial_custom_fields/shipment/0/api_slug"},
			{"ErrWrongEntity", `{"containers":[{"api_slug":"booking_reference","value":"x"}]}`, "not_found", "/data/attributes/initial_custom_fields/containers/0/api_slug"},
			{"ErrValue", `{"shipment":[{"api_slug":"booking_reference","value":12}]}`, "invalid", "/data/attributes/initial_custom_fields/shipment/0/value"},
			{"ErrNullValue", `{"shipment":[{"api_slug":"booking_reference","value":null}]}`, "blank", "/data/attributes/initial_custom_fields/shipment/0/value"},
			{"ErrNumberOnShipment", `{"shipment":[{"api_slug":"booking_reference","value":"x","number":"MSCU1234566"}]}`, "invalid", "/data/attributes/initial_custom_fields/shipment/0/number"},
			{"ErrNotAList", `{"shipment":{"api_slug":"booking_reference"}}`, "invalid", "/data/attributes/initial_custom_fields/shipment"},
			{"ErrTooMany", `{"shipment":[` + strings.Repeat(`{"api_slug":"booking_reference","value":"x"},`, 50) + `{"api_slug":"booking_reference","value":"x"}]}`, "too_long", "/data/attributes/initial_custom_fields"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				create("MAEU123456785", tt.fields).wantError(t, 422, tt.code, tt.pointer, "")
			})
		}
	})
}
