package api

import (
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/infer"
)

var fuzzCarriers = data.Carriers()

// checkDecodeError asserts that a rejected body yields a client error document, never a 500.
func checkDecodeError(t *testing.T, err error) {
	t.Helper()
	status, doc, _ := errorResponse(err, "fuzz")
	if status != http.StatusBadRequest && status != http.StatusConflict && status != http.StatusUnprocessableEntity {
		t.Fatalf("decoding error %v maps to status %d", err, status)
	}
	if len(doc.Errors) == 0 || doc.Errors[0].Detail == "" {
		t.Fatalf("decoding error %v has no detail", err)
	}
}

func FuzzDecodeTrackingRequestCreate(f *testing.F) {
	for _, s := range []string{
		`{"data":{"type":"tracking_request","attributes":{"request_type":"bill_of_lading","request_number":"MEDUFR030802","scac":"MSCU","ref_numbers":["PO1"]}}}`,
		`{"data":{"type":"tracking_request","attributes":{"request_type":"container","request_number":"CSQU3054383","scac":"HLCU"}}}`,
		`{"data":{"type":"tracking_request","attributes":{"request_type":"booking_number","request_number":"  abc709951 ","scac":"medu","shipment_tags":["x"],"auto_detect_vocc_scac":false}}}`,
		`{"data":{"type":"tracking_request","attributes":{"request_number":1e999}}}`,
		`{"data":{"type":"tracking_request","attributes":{"request_type":"container","request_number":"MSCU 123456-6","auto_detect_vocc_scac":true,` +
			`"initial_custom_fields":{"shipment":[{"api_slug":"a","value":1}],"containers":[{"api_slug":"b","value":["x"],"number":"msku-1"}]}},` +
			`"relationships":{"customer":{"data":{"type":"party","id":"01936e3a-0000-7000-8000-000000000000"}}}}}`,
		`{"data":{"type":"tracking_request","attributes":{"initial_custom_fields":{"containers":[{"value":1e999}]}}}}`,
		`{"data":{"type":"tracking_request","id":"x","relationships":{}}}`,
		`{"data":null}`, `{"data":[]}`, `[]`, `null`, `"x"`, `{}`, ``, `{"data":{"type":"shipment"}}`,
		`{"data":{"type":"tracking_request","attributes":{"ref_numbers":[null,{"a":1},["b"]]}}}`,
		"{\"data\":{\"type\":\"tracking_request\",\"attributes\":{\"request_number\":\"\\u0000\\ud800\"}}}",
		`{"data":{"type":"tracking_request","attributes":{"a~b/c":1}}}`,
		`{"data":{"type":"tracking_request","attributes":{}}} trailing`,
		strings.Repeat("[", 10000),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		n, _, _, err := decodeTrackingRequestCreate(body)
		if err != nil {
			checkDecodeError(t, err)
			return
		}
		if err := n.Validate(fuzzCarriers); err != nil {
			for _, e := range boxwatch.AllErrors(err) {
				if e.Kind != boxwatch.KindInvalid || !strings.HasPrefix(e.Pointer, "/data/attributes/") {
					t.Fatalf("validation error %+v lacks a pointer into the attributes", e)
				}
			}
			return
		}
		// What validates is normalised: upper-case letters, digits and dashes, a known primary SCAC.
		if n.RequestNumber == "" || len(n.RequestNumber) > boxwatch.MaxRequestNumberLen || strings.ToUpper(n.RequestNumber) != n.RequestNumber {
			t.Fatalf("accepted request number %q", n.RequestNumber)
		}
		if line, ok := fuzzCarriers.BySCAC(n.SCAC); !ok || line.SCAC != n.SCAC || !line.Support.Supports(n.RequestType) {
			t.Fatalf("accepted SCAC %q for %s", n.SCAC, n.RequestType)
		}
	})
}

func FuzzDecodeTrackingRequestUpdate(f *testing.F) {
	const id = "01936e3a-0000-7000-8000-000000000000"
	for _, s := range []string{
		`{"data":{"type":"tracking_request","id":"` + id + `","attributes":{"ref_numbers":["A","B"]}}}`,
		`{"data":{"type":"tracking_request","attributes":{"ref_number":"A"}}}`,
		`{"data":{"type":"tracking_request","attributes":{"ref_numbers":null}}}`,
		`{"data":{"type":"tracking_request","id":7,"attributes":{}}}`,
		`{"data":{"type":"tracking_request","attributes":{"scac":"MAEU"}}}`,
		`{"data":{"type":"tracking_request","attributes":null}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		refs, err := decodeTrackingRequestUpdate(body, id)
		if err != nil {
			checkDecodeError(t, err)
			return
		}
		if refs == nil || len(refs) > boxwatch.MaxRefNumbers {
			t.Fatalf("accepted ref numbers %#v", refs)
		}
		for _, r := range refs {
			if strings.TrimSpace(r) == "" || len(r) > boxwatch.MaxRefNumberLen {
				t.Fatalf("accepted ref number %q", r)
			}
		}
	})
}

// FuzzDecodeBodies: whatever the bytes, the decoder of every route's body answers a value or a
// client error, never a panic or a 500.
func FuzzDecodeBodies(f *testing.F) {
	s := &server{cfg: Config{Carriers: fuzzCarriers, Clock: boxwatch.SystemClock}}
	var bodies []reflect.Type
	for _, rt := range s.routes() {
		if rt.body != nil {
			bodies = append(bodies, reflect.TypeOf(rt.body))
			f.Add(mustJSON(sample(s.openAPI(), map[string]any{"$ref": "#/components/schemas/" + componentName(reflect.TypeOf(rt.body))})))
		}
	}
	for _, b := range []string{`{"data":{"type":"x","id":7,"relationships":{"entity":[],"customer":{"data":7}},"attributes":{"validation":{"a":"1"},"position":1e999}}}`,
		`{"data":{"type":"tracking_request","attributes":{"initial_custom_fields":{"shipment":null,"containers":[null]}}}}`, `[]`, `{}`} {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		doc, err := parseJSON(body)
		if err != nil {
			checkDecodeError(t, err)
			return
		}
		for _, bt := range bodies {
			for _, id := range []string{"", testID} {
				if err := decodeDocument(doc, reflect.New(bt).Elem(), id); err != nil {
					checkDecodeError(t, err)
				}
			}
		}
	})
}

func FuzzListQuery(f *testing.F) {
	for _, s := range []string{
		"page[number]=2&page[size]=3&filter[scac]=maeu",
		"filter[status]=pending&filter[created_at][start]=2026-01-01T00:00:00Z&filter[created_at][end]=2026-12-31T23:59:59.999Z",
		"q=PO%25_1&include=tracked_object",
		"page[size]=1e3", "page[number]=99999999999999999999", "%zz", "a=1&a=2", "filter[scac]=%00",
		"filter[updated_at][start]=2026-02-30T00:00:00Z",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r := &http.Request{URL: &url.URL{Path: "/v2/tracking_requests", RawQuery: raw}}
		if err := checkParams(r, trackingRequestListParams); err != nil {
			checkDecodeError(t, err)
			return
		}
		q := r.URL.Query()
		p, err := pageParams(q)
		if err != nil {
			checkDecodeError(t, err)
			return
		}
		if p.Number < 1 || p.Size < 1 || p.Size > maxPageSize {
			t.Fatalf("accepted page %+v", p)
		}
		if _, err := trackingRequestFilter(q, fuzzCarriers); err != nil {
			checkDecodeError(t, err)
		}
		if _, err := includes(q, "tracked_object"); err != nil {
			checkDecodeError(t, err)
		}
		s := &server{}
		l, m := s.listLinks(r, p, boxwatch.Total{N: 1234})
		if l.Self == "" || l.First == "" || l.Last == "" || m.Pagination.Current != p.Number {
			t.Fatalf("links %+v meta %+v", l, m)
		}
	})
}

func FuzzInferNumberBody(f *testing.F) {
	engine := newFuzzEngine(f)
	for _, s := range []string{
		`{"number":"MSCU1234566"}`, `{"number":" mscu-123456.6 "}`, `{"number":"MEDUAB123456"}`,
		`{"number":""}`, `{"number":null}`, `{"number":1}`, `{}`, `[]`, `{"number":"\u00e9\u0000"}`,
		`{"number":"` + strings.Repeat("9", 41) + `"}`, `{"number":"x","y":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		n, err := decodeInferBody(body)
		if err != nil {
			checkDecodeError(t, err)
			return
		}
		if _, err := engine.Infer(n); err != nil {
			checkDecodeError(t, err)
			if e := boxwatch.AsError(err); e == nil || e.Pointer != "/number" {
				t.Fatalf("infer error %v does not point at /number", err)
			}
		}
	})
}

func newFuzzEngine(f *testing.F) *infer.Engine {
	e, err := infer.New(fuzzCarriers, data.Lessors())
	if err != nil {
		f.Fatal(err)
	}
	return e
}
