package api_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

var isoZ = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$`)

func TestCreateTrackingRequest(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ts := newTestServer(t, b)
		r := ts.do(t, "POST", "/v2/tracking_requests", ts.acme,
			createBody("bill_of_lading", "  medufr030802 ", "MEDU", `"ref_numbers":["PO12345"]`)).want(t, http.StatusCreated)
		if ct := r.header.Get("Content-Type"); ct != "application/vnd.api+json" {
			t.Fatalf("Content-Type %q", ct)
		}
		data := r.body["data"].(map[string]any)
		id, _ := data["id"].(string)
		if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`).MatchString(id) {
			t.Fatalf("id %q is not a UUID", id)
		}
		attrs := data["attributes"].(map[string]any)
		want := map[string]any{
			"request_number": "MEDUFR030802", "request_type": "bill_of_lading", "scac": "MSCU",
			"status": "pending", "failed_reason": nil, "is_retrying": false, "retry_count": nil,
		}
		for k, v := range want {
			got, present := attrs[k]
			if !present || got != v {
				t.Errorf("attributes.%s = %#v (present %v), want %#v", k, got, present, v)
			}
		}
		if fmt.Sprint(attrs["ref_numbers"]) != "[PO12345]" {
			t.Errorf("ref_numbers = %v", attrs["ref_numbers"])
		}
		for _, k := range []string{"created_at", "updated_at"} {
			if s, _ := attrs[k].(string); !isoZ.MatchString(s) {
				t.Errorf("%s = %q, want ISO 8601 UTC ending in Z", k, s)
			}
		}
		if rel := get(data, "relationships", "tracked_object"); rel == nil || get(rel, "data") != nil {
			t.Errorf("relationships.tracked_object = %#v, want {data: null}", rel)
		}
		if self := get(data, "links", "self"); self != "/v2/tracking_requests/"+id {
			t.Errorf("links.self = %v", self)
		}
		if loc := r.header.Get("Location"); loc != ts.URL+"/v2/tracking_requests/"+id {
			t.Errorf("Location = %q", loc)
		}

		// Without ref_numbers the list is empty, not null or absent.
		r = ts.do(t, "POST", "/v2/tracking_requests", ts.acme, createBody("container", "CSQU3054383", "HLCU")).want(t, http.StatusCreated)
		if refs, ok := get(r.body, "data", "attributes", "ref_numbers").([]any); !ok || len(refs) != 0 {
			t.Fatalf("ref_numbers = %#v, want []", get(r.body, "data", "attributes", "ref_numbers"))
		}
	})
}

func TestCreateTrackingRequestErrors(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, storetest.SQLite)
	tests := []struct {
		name    string
		body    string
		status  int
		code    string
		pointer string
	}{
		{"ErrMalformedJSON", `{"data":`, 400, "invalid_json", ""},
		{"ErrTrailingData", createBody("bill_of_lading", "A1", "MSCU") + `{}`, 400, "invalid_json", ""},
		{"ErrNotAnObject", `[1,2]`, 422, "invalid", "/"},
		{"ErrMissingData", `{"meta":{}}`, 422, "blank", "/data"},
		{"ErrDataNotObject", `{"data":"x"}`, 422, "invalid", "/data"},
		{"ErrUnknownTopLevel", `{"data":{},"foo":1}`, 422, "invalid", "/foo"},
		{"ErrMissingType", `{"data":{"attributes":{}}}`, 422, "blank", "/data/type"},
		{"ErrTypeNotString", `{"data":{"type":7}}`, 422, "invalid", "/data/type"},
		{"ErrWrongType", `{"data":{"type":"shipment","attributes":{}}}`, 409, "type_mismatch", ""},
		{"ErrClientID", `{"data":{"type":"tracking_request","id":"x","attributes":{}}}`, 422, "invalid", "/data/id"},
		{"ErrRelationships", `{"data":{"type":"tracking_request","relationships":{"shipment":{"data":null}}}}`, 422, "not_supported", "/data/relationships/shipment"},
		{"ErrAttributesNotObject", `{"data":{"type":"tracking_request","attributes":[]}}`, 422, "invalid", "/data/attributes"},
		{"ErrUnknownAttribute", createBody("bill_of_lading", "A1", "MSCU", `"colour":"red"`), 422, "invalid", "/data/attributes/colour"},
		{"ErrNumberNotString", `{"data":{"type":"tracking_request","attributes":{"request_type":"bill_of_lading","request_number":12345,"scac":"MSCU"}}}`, 422, "invalid", "/data/attributes/request_number"},
		{"ErrRefNumbersNotArray", createBody("bill_of_lading", "A1", "MSCU", `"ref_numbers":"PO1"`), 422, "invalid", "/data/attributes/ref_numbers"},
		{"ErrRefNumberNotString", createBody("bill_of_lading", "A1", "MSCU", `"ref_numbers":["ok",7]`), 422, "invalid", "/data/attributes/ref_numbers/1"},
		{"ErrRefNumberBlank", createBody("bill_of_lading", "A1", "MSCU", `"ref_numbers":["ok"," "]`), 422, "blank", "/data/attributes/ref_numbers/1"},
		{"ErrTooManyRefNumbers", createBody("bill_of_lading", "A1", "MSCU", `"ref_numbers":[`+strings.Repeat(`"x",`, 50)+`"x"]`), 422, "too_long", "/data/attributes/ref_numbers"},
		{"ErrBlankNumber", createBody("bill_of_lading", " ", "MSCU"), 422, "blank", "/data/attributes/request_number"},
		{"ErrNumberTooLong", createBody("bill_of_lading", strings.Repeat("A", 36), "MSCU"), 422, "too_long", "/data/attributes/request_number"},
		{"ErrNumberCharacters", createBody("bill_of_lading", "AB/12", "MSCU"), 422, "invalid", "/data/attributes/request_number"},
		{"ErrNumberHostile", createBody("bill_of_lading", `A1'; DROP TABLE x`, "MSCU"), 422, "invalid", "/data/attributes/request_number"},
		{"ErrBadRequestType", createBody("house_bill", "A1", "MSCU"), 422, "invalid", "/data/attributes/request_type"},
		{"ErrBlankRequestType", createBody("", "A1", "MSCU"), 422, "blank", "/data/attributes/request_type"},
		{"ErrContainerCheckDigit", createBody("container", "CSQU3054384", "HLCU"), 422, "invalid", "/data/attributes/request_number"},
		{"ErrContainerShape", createBody("container", "MEDUFR030802", "MSCU"), 422, "invalid", "/data/attributes/request_number"},
		{"ErrBlankSCAC", createBody("bill_of_lading", "A1", ""), 422, "blank", "/data/attributes/scac"},
		{"ErrUnknownSCAC", createBody("bill_of_lading", "A1", "XXXX"), 422, "not_recognized", "/data/attributes/scac"},
		{"ErrSCACNotSupported", createBody("bill_of_lading", "A1", "UALC"), 422, "not_supported", "/data/attributes/scac"},
		{"ErrContainerNotSupported", createBody("container", "CSQU3054383", "SQQY"), 422, "not_supported", "/data/attributes/scac"},
		{"ErrAutoDetectNotABool", createBody("bill_of_lading", "A1", "MSCU", `"auto_detect_vocc_scac":"yes"`), 422, "invalid", "/data/attributes/auto_detect_vocc_scac"},
		{"ErrCustomFieldsEntity", createBody("bill_of_lading", "A1", "MSCU", `"initial_custom_fields":{"vessels":[]}`), 422, "invalid", "/data/attributes/initial_custom_fields/vessels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ts.do(t, "POST", "/v2/tracking_requests", ts.acme, tt.body)
			r.wantError(t, tt.status, tt.code, tt.pointer, "")
		})
	}
	// Nothing was stored by any of them.
	r := ts.do(t, "GET", "/v2/tracking_requests", ts.acme, "").want(t, 200)
	if n := get(r.body, "meta", "total"); n != float64(0) {
		t.Fatalf("after rejected creates, total = %v, want 0", n)
	}
}

func TestCreateTrackingRequestReportsEveryProblem(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, storetest.SQLite)
	r := ts.do(t, "POST", "/v2/tracking_requests", ts.acme, createBody("", "", "")).want(t, 422)
	var pointers []string
	for _, e := range r.body["errors"].([]any) {
		pointers = append(pointers, get(e, "source", "pointer").(string))
	}
	if got := strings.Join(pointers, " "); got != "/data/attributes/request_type /data/attributes/request_number /data/attributes/scac" {
		t.Fatalf("pointers = %s", got)
	}
}

func TestCreateTrackingRequestDuplicate(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, storetest.SQLite)
	ts.mustCreate(t, ts.acme, "bill_of_lading", "MEDUFR030802", "MSCU")
	// The same number under an alternative SCAC of the same line, in another case, is the same request.
	e := ts.do(t, "POST", "/v2/tracking_requests", ts.acme, createBody("bill_of_lading", "medufr030802", "MEDU")).
		wantError(t, 422, "duplicate", "/data/attributes/request_number", "")
	if e["title"] != "Unprocessable Entity" || !strings.Contains(e["detail"].(string), "MEDUFR030802") {
		t.Fatalf("duplicate error = %v", e)
	}
	// Another account may track the same number.
	ts.mustCreate(t, ts.globex, "bill_of_lading", "MEDUFR030802", "MSCU")
}

func TestCreateTrackingRequestConcurrentDuplicates(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ts := newTestServer(t, b)
		const n = 30
		statuses := make([]int, n)
		codes := make([]string, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				req, _ := http.NewRequest("POST", ts.URL+"/v2/tracking_requests", strings.NewReader(createBody("bill_of_lading", "MAEU123456789", "MAEU")))
				req.Header.Set("Authorization", "Token "+ts.acme)
				req.Header.Set("Content-Type", "application/vnd.api+json")
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				defer res.Body.Close()
				statuses[i] = res.StatusCode
				var doc struct {
					Errors []struct{ Code string }
				}
				if res.StatusCode != 201 {
					if err := decodeJSON(res.Body, &doc); err == nil && len(doc.Errors) > 0 {
						codes[i] = doc.Errors[0].Code
					}
				}
			}()
		}
		close(start)
		wg.Wait()
		created := 0
		for i, s := range statuses {
			switch {
			case s == 201:
				created++
			case s == 422 && codes[i] == "duplicate":
			default:
				t.Fatalf("request %d: status %d code %q", i, s, codes[i])
			}
		}
		if created != 1 {
			t.Fatalf("%d identical concurrent POSTs created %d requests, want exactly 1", n, created)
		}
		r := ts.do(t, "GET", "/v2/tracking_requests", ts.acme, "").want(t, 200)
		if total := get(r.body, "meta", "total"); total != float64(1) {
			t.Fatalf("stored %v requests, want 1", total)
		}
	})
}

func TestContentNegotiation(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, storetest.SQLite)
	body := createBody("bill_of_lading", "A1", "MSCU")
	tests := []struct {
		name, contentType string
		status            int
	}{
		{"OKJSONAPI", "application/vnd.api+json", 201},
		{"OKJSON", "application/json", 201},
		{"OKJSONCharset", "application/json; charset=utf-8", 201},
		{"ErrMissing", "", 415},
		{"ErrText", "text/plain", 415},
		{"ErrForm", "application/x-www-form-urlencoded", 415},
		{"ErrJSONAPIParams", "application/vnd.api+json; ext=bulk", 415},
		{"ErrJSONOtherCharset", "application/json; charset=latin1", 415},
		{"ErrGarbage", ";;;", 415},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", ts.URL+"/v2/tracking_requests", strings.NewReader(strings.Replace(body, "A1", fmt.Sprintf("A%d", i), 1)))
			req.Header.Set("Authorization", "Token "+ts.acme)
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", res.StatusCode, tt.status)
			}
			if ct := res.Header.Get("Content-Type"); ct != "application/vnd.api+json" {
				t.Fatalf("response Content-Type %q", ct)
			}
		})
	}
}

func TestBodyTooLarge(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, storetest.SQLite)
	huge := `{"data":{"type":"tracking_request","attributes":{"request_type":"bill_of_lading","request_number":"A1","scac":"MSCU","ref_numbers":["` +
		strings.Repeat("x", 1<<20) + `"]}}}`
	ts.do(t, "POST", "/v2/tracking_requests", ts.acme, huge).wantError(t, 413, "too_large", "", "")
	// Without a Content-Length the limit still holds while reading.
	req, _ := http.NewRequest("POST", ts.URL+"/v2/tracking_requests", struct{ *strings.Reader }{strings.NewReader(huge)})
	req.Header.Set("Authorization", "Token "+ts.acme)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 413 {
		t.Fatalf("streamed body: status %d, want 413", res.StatusCode)
	}
}

func TestGetTrackingRequest(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ts := newTestServer(t, b)
		id := ts.mustCreate(t, ts.acme, "booking_number", "ABC709951", "HLCU")
		r := ts.do(t, "GET", "/v2/tracking_requests/"+id, ts.acme, "").want(t, 200)
		if get(r.body, "data", "id") != id || get(r.body, "data", "attributes", "request_type") != "booking_number" {
			t.Fatalf("got %s", r.raw)
		}
		if self := get(r.body, "links", "self"); self != ts.URL+"/v2/tracking_requests/"+id {
			t.Fatalf("top-level links.self = %v, want absolute", self)
		}
		ts.do(t, "GET", "/v2/tracking_requests/"+strings.ToUpper(id), ts.acme, "").want(t, 200)
		ts.do(t, "GET", "/v2/tracking_requests/"+id+"?include=tracked_object", ts.acme, "").want(t, 200)
		ts.do(t, "GET", "/v2/tracking_requests/"+id+"?include=containers", ts.acme, "").wantError(t, 400, "invalid", "", "include")
		ts.do(t, "GET", "/v2/tracking_requests/"+id+"?page[size]=2", ts.acme, "").wantError(t, 400, "invalid", "", "page[size]")

		for name, path := range map[string]string{
			"ErrOtherAccount": "/v2/tracking_requests/" + id,
			"ErrUnknown":      "/v2/tracking_requests/01936e3a-0000-7000-8000-000000000000",
			"ErrNotUUID":      "/v2/tracking_requests/not-a-uuid",
			"ErrInjection":    "/v2/tracking_requests/1%27%20OR%20%271%27=%271",
		} {
			t.Run(name, func(t *testing.T) {
				r := ts.do(t, "GET", path, ts.globex, "")
				r.wantError(t, 404, "not_found", "", "")
			})
		}
	})
}

func TestUpdateTrackingRequest(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ts := newTestServer(t, b)
		id := ts.mustCreate(t, ts.acme, "bill_of_lading", "MEDUFR030802", "MSCU", `"ref_numbers":["A"]`)
		path := "/v2/tracking_requests/" + id
		patch := func(attrs string) string {
			return `{"data":{"type":"tracking_request","id":"` + id + `","attributes":{` + attrs + `}}}`
		}
		r := ts.do(t, "PATCH", path, ts.acme, patch(`"ref_numbers":["B","C"]`)).want(t, 200)
		if fmt.Sprint(get(r.body, "data", "attributes", "ref_numbers")) != "[B C]" {
			t.Fatalf("after PATCH: %s", r.raw)
		}
		r = ts.do(t, "PATCH", path, ts.acme, patch(`"ref_number":"D"`)).want(t, 200)
		if fmt.Sprint(get(r.body, "data", "attributes", "ref_numbers")) != "[D]" {
			t.Fatalf("after PATCH ref_number: %s", r.raw)
		}
		r = ts.do(t, "PATCH", path, ts.acme, patch(`"ref_numbers":[]`)).want(t, 200)
		if fmt.Sprint(get(r.body, "data", "attributes", "ref_numbers")) != "[]" {
			t.Fatalf("after clearing: %s", r.raw)
		}
		r = ts.do(t, "GET", path, ts.acme, "").want(t, 200)
		if fmt.Sprint(get(r.body, "data", "attributes", "ref_numbers")) != "[]" {
			t.Fatalf("GET after clearing: %s", r.raw)
		}

		ts.do(t, "PATCH", path, ts.acme, patch(`"ref_numbers":["x"],"ref_number":"y"`)).wantError(t, 422, "invalid", "/data/attributes/ref_number", "")
		ts.do(t, "PATCH", path, ts.acme, patch(`"scac":"MAEU"`)).wantError(t, 422, "invalid", "/data/attributes/scac", "")
		ts.do(t, "PATCH", path, ts.acme, patch(`"ref_numbers":[1]`)).wantError(t, 422, "invalid", "/data/attributes/ref_numbers/0", "")
		ts.do(t, "PATCH", path, ts.acme, patch(``)).wantError(t, 422, "blank", "/data/attributes/ref_numbers", "")
		ts.do(t, "PATCH", path, ts.acme, `{"data":{"type":"tracking_request","id":"01936e3a-0000-7000-8000-000000000000","attributes":{"ref_numbers":[]}}}`).
			wantError(t, 409, "id_mismatch", "", "")
		ts.do(t, "PATCH", path, ts.globex, patch(`"ref_numbers":["stolen"]`)).wantError(t, 404, "not_found", "", "")
		r = ts.do(t, "GET", path, ts.acme, "").want(t, 200)
		if fmt.Sprint(get(r.body, "data", "attributes", "ref_numbers")) != "[]" {
			t.Fatalf("a rejected PATCH changed the request: %s", r.raw)
		}
	})
}

func TestListTrackingRequests(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		clock := trackingtest.NewClock(time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC))
		ts := newTestServer(t, b, withClock(clock))
		var ids []string
		for i := range 7 {
			ids = append(ids, ts.mustCreate(t, ts.acme, "bill_of_lading", fmt.Sprintf("MAEU%09d", i), "MAEU"))
			clock.Advance(time.Second) // distinct creation times
		}
		ts.mustCreate(t, ts.globex, "bill_of_lading", "GLOBEX1", "MSCU")

		r := ts.do(t, "GET", "/v2/tracking_requests?page[size]=3&page[number]=2&filter[scac]=maeu", ts.acme, "").want(t, 200)
		data := r.body["data"].([]any)
		if len(data) != 3 || get(data, 0, "id") != ids[3] || get(data, 2, "id") != ids[1] {
			t.Fatalf("page 2 of 3 newest first: got %s", r.raw)
		}
		base := ts.URL + "/v2/tracking_requests?filter[scac]=maeu&"
		wantLinks := map[string]string{
			"self":    base + "page[number]=2&page[size]=3",
			"current": base + "page[number]=2&page[size]=3",
			"first":   base + "page[number]=1&page[size]=3",
			"prev":    base + "page[number]=1&page[size]=3",
			"next":    base + "page[number]=3&page[size]=3",
			"last":    base + "page[number]=3&page[size]=3",
		}
		for k, v := range wantLinks {
			if got := get(r.body, "links", k); got != v {
				t.Errorf("links.%s = %v, want %s", k, got, v)
			}
		}
		if m := fmt.Sprint(r.body["meta"]); m != "map[pagination:map[current:2 last:3 next:3 records:7] size:3 total:7]" {
			t.Errorf("meta = %s", m)
		}

		// Following next to the end visits every record once; the last page has no next.
		seen := map[string]bool{}
		next := "/v2/tracking_requests?page[size]=3"
		for pages := 0; next != ""; pages++ {
			r := ts.do(t, "GET", strings.TrimPrefix(next, ts.URL), ts.acme, "").want(t, 200)
			for _, d := range r.body["data"].([]any) {
				seen[get(d, "id").(string)] = true
			}
			next, _ = get(r.body, "links", "next").(string)
			if pages > 5 {
				t.Fatal("next links do not end")
			}
		}
		if len(seen) != 7 {
			t.Fatalf("following next links saw %d records, want 7 (and none of globex's)", len(seen))
		}

		r = ts.do(t, "GET", "/v2/tracking_requests", ts.acme, "").want(t, 200)
		if _, hasPrev := get(r.body, "links").(map[string]any)["prev"]; hasPrev {
			t.Errorf("first page has a prev link: %s", r.raw)
		}
		if get(r.body, "meta", "pagination", "next") != nil {
			t.Errorf("single page has pagination.next")
		}

		for _, tt := range []struct{ query, param string }{
			{"foo=bar", "foo"},
			{"filter[colour]=red", "filter[colour]"},
			{"page[size]=101", "page[size]"},
			{"page[size]=0", "page[size]"},
			{"page[size]=ten", "page[size]"},
			{"page[number]=0", "page[number]"},
			{"page[number]=-1", "page[number]"},
			{"page[number]=1&page[number]=2", "page[number]"},
			{"filter[status]=lost", "filter[status]"},
			{"filter[scac]=XXXX", "filter[scac]"},
			{"filter[created_at][start]=yesterday", "filter[created_at][start]"},
			{"filter[updated_at][end]=2026-13-01T00:00:00Z", "filter[updated_at][end]"},
			{"include=shipment", "include"},
			{"q=" + strings.Repeat("x", 101), "q"},
		} {
			t.Run("Err"+tt.param, func(t *testing.T) {
				ts.do(t, "GET", "/v2/tracking_requests?"+tt.query, ts.acme, "").wantError(t, 400, "invalid", "", tt.param)
			})
		}

		for _, tt := range []struct {
			query string
			want  int
		}{
			{"filter[status]=pending", 7},
			{"filter[status]=failed", 0},
			{"filter[request_number]=maeu000000003", 1},
			{"q=00000000", 7},
			{"filter[created_at][start]=2000-01-01T00:00:00Z&filter[created_at][end]=2100-01-01T00:00:00Z", 7},
			{"filter[created_at][end]=2000-01-01T00:00:00Z", 0},
			{"filter[created_at][start]=2026-03-01T08:00:03Z", 4},
			{"filter[created_at][start]=2026-03-01T08:00:01Z&filter[created_at][end]=2026-03-01T08:00:02Z", 2},
			{"include=tracked_object", 7},
		} {
			t.Run(tt.query, func(t *testing.T) {
				r := ts.do(t, "GET", "/v2/tracking_requests?"+tt.query, ts.acme, "").want(t, 200)
				if total := get(r.body, "meta", "total"); total != float64(tt.want) {
					t.Fatalf("total %v, want %d", total, tt.want)
				}
			})
		}
	})
}
