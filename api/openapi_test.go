package api_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// TestOpenAPIMatchesResponses checks the served OpenAPI document against live answers: every
// documented operation is called, and each answer's body must validate against the schema the
// document gives for its status. A route added without its test, or a response shape that drifts
// from its documented type, fails here.
func TestOpenAPIMatchesResponses(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, storetest.SQLite, delivering(nil))
	rc := newReceiver(t, always(200))
	hookID := ts.register(t, ts.acme, rc, "tracking_request.succeeded")
	_, sid := ts.waitShipment(t, ts.acme, "HLCU123456785", "HLCU")
	trackingtest.Eventually(t, 30*time.Second, "no delivery", func() bool { return len(rc.deliveries()) > 0 })
	notificationID := rc.deliveries()[0].id
	shipment := ts.do(t, "GET", "/v2/shipments/"+sid, ts.acme, "").want(t, 200).body
	cid := get(shipment, "data", "relationships", "containers", "data", 0, "id").(string)
	pod := get(shipment, "data", "attributes", "port_of_discharge_locode").(string)
	terminal := get(shipment, "data", "relationships", "pod_terminal", "data", "id").(string)
	imo := get(shipment, "data", "attributes", "pod_vessel_imo").(string)
	r := ts.do(t, "GET", "/v2/openapi.json", "", "").want(t, 200)
	doc := r.body
	if doc["openapi"] != "3.1.0" {
		t.Fatalf("openapi = %v", doc["openapi"])
	}

	id := ts.mustCreate(t, ts.acme, "bill_of_lading", "MEDUFR030802", "MSCU")
	party := get(ts.do(t, "POST", "/v2/parties", ts.acme, `{"data":{"type":"party","attributes":{"company_name":"Acme"}}}`).want(t, 201).body, "data", "id").(string)
	calls := []struct {
		method, path, pattern, body string
		key                         string
	}{
		{"POST", "/v2/tracking_requests", "", createBody("bill_of_lading", "OA1", "MAEU", `"ref_numbers":["X"]`), ts.acme},
		{"POST", "/v2/tracking_requests", "", createBody("bill_of_lading", "MEDUFR030802", "MSCU"), ts.acme}, // 422
		{"POST", "/v2/tracking_requests", "", `{"data":{"type":"shipment"}}`, ts.acme},                       // 409
		{"POST", "/v2/tracking_requests", "", `nope`, ts.acme},                                               // 400
		{"POST", "/v2/tracking_requests/infer_number", "", `{"number":"MSCU 123456-6"}`, ts.acme},
		{"POST", "/v2/tracking_requests/infer_number", "", `{"number":"MEDUAB123456"}`, ts.acme},
		{"POST", "/v2/tracking_requests/infer_number", "", `{"number":"123456789012"}`, ts.acme},
		{"POST", "/v2/tracking_requests/infer_number", "", `{"number":"!"}`, ts.acme}, // 422
		{"GET", "/v2/tracking_requests?page[size]=1", "/v2/tracking_requests", "", ts.acme},
		{"GET", "/v2/tracking_requests?bogus=1", "/v2/tracking_requests", "", ts.acme}, // 400
		{"GET", "/v2/tracking_requests", "", "", ""},                                   // 401
		{"GET", "/v2/tracking_requests/" + id, "/v2/tracking_requests/{id}", "", ts.acme},
		{"GET", "/v2/tracking_requests/" + id, "/v2/tracking_requests/{id}", "", ts.globex}, // 404
		{"PATCH", "/v2/tracking_requests/" + id, "/v2/tracking_requests/{id}", `{"data":{"type":"tracking_request","attributes":{"ref_numbers":["A"]}}}`, ts.acme},
		{"DELETE", "/v2/tracking_requests/" + id, "/v2/tracking_requests/{id}", "", ts.acme}, // 405
		{"GET", "/v2/shipments?include=containers,port_of_lading,port_of_discharge", "/v2/shipments", "", ts.acme},
		{"GET", "/v2/shipments/" + sid + "?include=containers", "/v2/shipments/{id}", "", ts.acme},
		{"PATCH", "/v2/shipments/" + sid, "/v2/shipments/{id}", `{"data":{"type":"shipment","attributes":{"tags":["t"]}}}`, ts.acme},
		{"PATCH", "/v2/shipments/" + sid + "/stop_tracking", "/v2/shipments/{id}/stop_tracking", "", ts.acme},
		{"PATCH", "/v2/shipments/" + sid + "/resume_tracking", "/v2/shipments/{id}/resume_tracking", "", ts.acme},
		{"GET", "/v2/containers?include=shipment", "/v2/containers", "", ts.acme},
		{"GET", "/v2/containers/" + cid + "?include=shipment,transport_events", "/v2/containers/{id}", "", ts.acme},
		{"PATCH", "/v2/containers/" + cid, "/v2/containers/{id}", `{"data":{"type":"container","attributes":{"ref_numbers":["PO-1"]}}}`, ts.acme},
		{"PATCH", "/v2/containers", "", `{"data":{"type":"container","id":"` + cid + `","attributes":{"ref_numbers":[]}}}`, ts.acme},
		{"PATCH", "/v2/containers", "", `{"data":{"type":"container","attributes":{"ref_numbers":[]}}}`, ts.acme}, // 422
		{"GET", "/v2/containers/" + cid + "/transport_events?include=location,vessel", "/v2/containers/{id}/transport_events", "", ts.acme},
		{"GET", "/v2/ports/" + pod, "/v2/ports/{id}", "", ts.acme},
		{"GET", "/v2/metro_areas/" + pod, "/v2/metro_areas/{id}", "", ts.acme},
		{"GET", "/v2/terminals/" + terminal, "/v2/terminals/{id}", "", ts.acme},
		{"GET", "/v2/containers/" + cid + "/raw_events", "/v2/containers/{id}/raw_events", "", ts.acme},
		{"GET", "/v2/search?query=HLCU", "/v2/search", "", ts.acme},
		{"GET", "/v2/webhooks/ips", "", "", ts.acme},
		{"POST", "/v2/parties", "", `{"data":{"type":"party","attributes":{"company_name":"Globex"}}}`, ts.acme},
		{"GET", "/v2/parties", "", "", ts.acme},
		{"GET", "/v2/parties/" + party, "/v2/parties/{id}", "", ts.acme},
		{"PATCH", "/v2/parties/" + party, "/v2/parties/{id}", `{"data":{"type":"party","attributes":{"company_name":"Acme 2"}}}`, ts.acme},
		{"GET", "/v2/containers/" + cid + "/map_geojson", "/v2/containers/{id}/map_geojson", "", ts.acme},
		{"GET", "/v2/containers/" + cid + "/map_geojson?antimeridian=split", "/v2/containers/{id}/map_geojson", "", ts.acme},
		{"GET", "/v2/containers/" + cid + "/map_geojson", "/v2/containers/{id}/map_geojson", "", ts.globex}, // 403
		{"PATCH", "/v2/containers/" + cid + "/refresh", "/v2/containers/{id}/refresh", "", ts.acme},
		{"GET", "/v2/vessels/" + imo + "/future_positions?port_id=" + pod + "&previous_port_id=CNSHA", "/v2/vessels/{id}/future_positions", "", ts.acme},
		{"GET", "/v2/vessels/" + imo + "/future_positions_with_coordinates?port_id=" + pod + "&previous_port_id=CNSHA&latitude=30&longitude=123",
			"/v2/vessels/{id}/future_positions_with_coordinates", "", ts.acme},
		{"GET", "/v2/vessels/" + imo + "?show_positions[from_timestamp]=2026-01-01T00:00:00Z", "/v2/vessels/{id}", "", ts.acme},
		{"GET", "/v2/vessels/" + imo, "/v2/vessels/{id}", "", ts.acme},
		{"GET", "/v2/tracking_requests?include=tracked_object", "/v2/tracking_requests", "", ts.acme},
		{"GET", "/v2/shipping_lines", "", "", ts.acme},
		{"POST", "/v2/webhooks", "", `{"data":{"type":"webhook","attributes":{"url":"https://93.184.216.34/x","events":["container.updated"]}}}`, ts.acme},
		{"POST", "/v2/webhooks", "", `{"data":{"type":"webhook","attributes":{"url":"https://10.0.0.1/x","events":["nope"]}}}`, ts.acme}, // 422
		{"GET", "/v2/webhooks", "", "", ts.acme},
		{"GET", "/v2/webhooks/events", "", "", ts.acme},
		{"GET", "/v2/webhooks/" + hookID, "/v2/webhooks/{id}", "", ts.acme},
		{"PATCH", "/v2/webhooks/" + hookID, "/v2/webhooks/{id}", `{"data":{"type":"webhook","attributes":{"headers":[{"name":"X-A","value":"b"}]}}}`, ts.acme},
		{"POST", "/v2/webhooks/trigger", "", `{"url":"` + rc.URL + `","event":"shipment.estimated.arrival"}`, ts.acme},
		{"GET", "/v2/webhook_notifications?include=webhook_notification_logs", "/v2/webhook_notifications", "", ts.acme},
		{"GET", "/v2/webhook_notifications/examples?event=container.transport.full_out", "/v2/webhook_notifications/examples", "", ts.acme},
		{"GET", "/v2/webhook_notifications/" + notificationID + "?include=reference_object,webhook_notification_logs", "/v2/webhook_notifications/{id}", "", ts.acme},
		{"POST", "/v2/webhook_notifications/" + notificationID + "/redeliver", "/v2/webhook_notifications/{id}/redeliver", "", ts.acme},
		{"POST", "/v2/webhooks/" + hookID + "/redeliver?since=2026-01-01T00:00:00Z", "/v2/webhooks/{id}/redeliver", "", ts.acme},
		{"DELETE", "/v2/webhooks/" + hookID, "/v2/webhooks/{id}", "", ts.acme},
		{"GET", "/v2/shipping_lines/MSCU", "/v2/shipping_lines/{id}", "", ts.acme},
		{"GET", "/v2/openapi.json", "", "", ""},
		{"GET", "/healthz", "", "", ""},
		{"GET", "/readyz", "", "", ""},
	}
	covered := map[string]bool{}
	check := func(c struct {
		method, path, pattern, body string
		key                         string
	}) response {
		pattern := c.pattern
		if pattern == "" {
			pattern = c.path
		}
		var res response
		if strings.HasSuffix(c.path, "/trigger") {
			res = ts.do(t, c.method, c.path, c.key, c.body, "Content-Type", "application/json")
		} else {
			res = ts.do(t, c.method, c.path, c.key, c.body)
		}
		op, _ := get(doc, "paths", pattern, strings.ToLower(c.method)).(map[string]any)
		if op == nil {
			if res.status != 405 {
				t.Errorf("%s %s is not documented", c.method, pattern)
			}
			op, _ = firstOperation(doc, pattern)
		}
		resp, _ := get(op, "responses", fmt.Sprint(res.status)).(map[string]any)
		if resp == nil {
			t.Errorf("%s %s answered %d, which is not documented", c.method, pattern, res.status)
			return res
		}
		content, _ := resp["content"].(map[string]any)
		if content == nil && len(res.raw) > 0 {
			t.Errorf("%s %s %d has a body but documents none", c.method, pattern, res.status)
		}
		for mt, m := range content {
			if ct := res.header.Get("Content-Type"); ct != mt {
				t.Errorf("%s %s: Content-Type %q, documented %q", c.method, pattern, ct, mt)
			}
			var body any
			json.Unmarshal(res.raw, &body)
			if errs := validate(doc, get(m, "schema").(map[string]any), body, ""); len(errs) > 0 {
				t.Errorf("%s %s %d does not match its schema:\n  %s\nbody: %s", c.method, pattern, res.status, strings.Join(errs, "\n  "), res.raw)
			}
		}
		if res.status < 300 {
			covered[c.method+" "+pattern] = true
		}
		return res
	}
	for _, c := range calls {
		check(c)
	}
	driveCustomFields(sid, cid, id, func(op, method, path, body string) map[string]any {
		return check(struct {
			method, path, pattern, body string
			key                         string
		}{method, path, ourPattern(strings.SplitN(op, " ", 2)[1]), body, ts.acme}).body
	})
	var missing []string
	for path, item := range doc["paths"].(map[string]any) {
		for method := range item.(map[string]any) {
			if k := strings.ToUpper(method) + " " + path; !covered[k] {
				missing = append(missing, k)
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("documented operations never checked against a live success: %v", missing)
	}
}

func firstOperation(doc map[string]any, path string) (map[string]any, bool) {
	item, _ := get(doc, "paths", path).(map[string]any)
	for _, op := range item {
		return op.(map[string]any), true
	}
	return nil, false
}

// validate checks v against the subset of JSON Schema the generator emits.
func validate(doc map[string]any, sch map[string]any, v any, at string) []string {
	if ref, ok := sch["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		target, _ := get(doc, "components", "schemas", name).(map[string]any)
		if target == nil {
			return []string{at + ": unresolved " + ref}
		}
		return validate(doc, target, v, at)
	}
	if all, ok := sch["allOf"].([]any); ok {
		var errs []string
		for _, s := range all {
			errs = append(errs, validate(doc, s.(map[string]any), v, at)...)
		}
		if len(errs) > 0 {
			return errs
		}
	}
	if alts, ok := sch["oneOf"].([]any); ok {
		matched := 0
		for _, s := range alts {
			if len(validate(doc, s.(map[string]any), v, at)) == 0 {
				matched++
			}
		}
		if matched != 1 {
			return []string{fmt.Sprintf("%s: %v matches %d of oneOf", at, v, matched)}
		}
		return nil
	}
	if enum, ok := sch["enum"].([]any); ok {
		found := false
		for _, e := range enum {
			found = found || e == v
		}
		if !found {
			return []string{fmt.Sprintf("%s: %v not in enum %v", at, v, enum)}
		}
	}
	if types, ok := sch["type"].([]any); ok {
		for _, typ := range types {
			alt := map[string]any{"type": typ}
			if len(validate(doc, alt, v, at)) == 0 {
				return nil
			}
		}
		return []string{fmt.Sprintf("%s: %v is none of %v", at, v, types)}
	}
	switch sch["type"] {
	case nil:
		return nil
	case "null":
		if v != nil {
			return []string{at + ": want null"}
		}
	case "string":
		s, ok := v.(string)
		if !ok {
			return []string{fmt.Sprintf("%s: %v is not a string", at, v)}
		}
		switch sch["format"] {
		case "date-time":
			if !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$`).MatchString(s) {
				return []string{fmt.Sprintf("%s: %q is not a date-time", at, s)}
			}
		case "uuid":
			if !regexp.MustCompile(`^[0-9a-f-]{36}$`).MatchString(s) {
				return []string{fmt.Sprintf("%s: %q is not a uuid", at, s)}
			}
		case "uri":
			if !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") {
				return []string{fmt.Sprintf("%s: %q is not an absolute URI", at, s)}
			}
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return []string{fmt.Sprintf("%s: %v is not a boolean", at, v)}
		}
	case "integer", "number":
		f, ok := v.(float64)
		if !ok || sch["type"] == "integer" && f != float64(int64(f)) {
			return []string{fmt.Sprintf("%s: %v is not an %s", at, v, sch["type"])}
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: %v is not an array", at, v)}
		}
		var errs []string
		for i, e := range a {
			errs = append(errs, validate(doc, sch["items"].(map[string]any), e, fmt.Sprintf("%s/%d", at, i))...)
		}
		return errs
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: %v is not an object", at, v)}
		}
		var errs []string
		props, _ := sch["properties"].(map[string]any)
		for _, r := range asStrings(sch["required"]) {
			if _, ok := m[r]; !ok {
				errs = append(errs, at+": missing required "+r)
			}
		}
		for k, val := range m {
			p, ok := props[k].(map[string]any)
			if !ok {
				if sch["additionalProperties"] == false {
					errs = append(errs, at+": undocumented member "+k)
				}
				continue
			}
			errs = append(errs, validate(doc, p, val, at+"/"+k)...)
		}
		return errs
	}
	return nil
}

func asStrings(v any) []string {
	a, _ := v.([]any)
	out := make([]string, 0, len(a))
	for _, e := range a {
		out = append(out, e.(string))
	}
	return out
}

func TestOpenAPIValidatorCatchesDrift(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, storetest.SQLite)
	doc := ts.do(t, "GET", "/v2/openapi.json", "", "").want(t, 200).body
	sch := get(doc, "paths", "/v2/tracking_requests/{id}", "get", "responses", "200", "content", "application/vnd.api+json", "schema").(map[string]any)
	id := ts.mustCreate(t, ts.acme, "bill_of_lading", "DRIFT1", "MSCU")
	good := ts.do(t, "GET", "/v2/tracking_requests/"+id, ts.acme, "").want(t, 200).body
	if errs := validate(doc, sch, good, ""); len(errs) > 0 {
		t.Fatalf("a real answer fails: %v", errs)
	}
	for name, mutate := range map[string]func(m map[string]any){
		"ExtraMember":   func(m map[string]any) { get(m, "data", "attributes").(map[string]any)["colour"] = "red" },
		"MissingMember": func(m map[string]any) { delete(get(m, "data", "attributes").(map[string]any), "status") },
		"WrongType":     func(m map[string]any) { get(m, "data", "attributes").(map[string]any)["is_retrying"] = "no" },
		"BadEnum":       func(m map[string]any) { get(m, "data", "attributes").(map[string]any)["status"] = "lost" },
		"BadTime":       func(m map[string]any) { get(m, "data", "attributes").(map[string]any)["created_at"] = "yesterday" },
		"RelativeLink":  func(m map[string]any) { m["links"].(map[string]any)["self"] = "/v2/x" },
	} {
		t.Run(name, func(t *testing.T) {
			var m map[string]any
			b, _ := json.Marshal(good)
			json.Unmarshal(b, &m)
			mutate(m)
			if errs := validate(doc, sch, m, ""); len(errs) == 0 {
				t.Fatal("drifted document validates")
			}
		})
	}
}
