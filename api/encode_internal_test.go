package api

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/jsonapi"
)

// standardJSON is what encodeJSON promises to write: encoding/json's Encoder without HTML escaping.
func standardJSON(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestEncodeJSONAsStandardLibrary: responses are byte for byte what encoding/json writes, for the
// documents the API sends and for the values where encoders most often differ. (One difference
// is known: a json.RawMessage is written as given, not compacted; the renderers compact theirs.)
func TestEncodeJSONAsStandardLibrary(t *testing.T) {
	at := time.Date(2026, 11, 27, 10, 3, 4, 500600700, time.FixedZone("", 3600))
	eta := at.Add(72 * time.Hour)
	tr := boxwatch.TrackingRequest{ID: boxwatch.NameUUID("tr"), RequestType: boxwatch.RequestBillOfLading, RequestNumber: "MEDU<&>1",
		SCAC: "MSCU", RefNumbers: []string{"PO \u2028 1", "\xff\xfe", "tab\tquote\"back\\slash"}, Status: boxwatch.StatusCreated,
		ShipmentID: boxwatch.NameUUID("s"), CreatedAt: at, UpdatedAt: at}
	s := boxwatch.Shipment{ID: tr.ShipmentID, TrackingRequestID: tr.ID, SCAC: "MSCU", BillOfLading: "MEDU<&>1", Tags: []string{"é", "\u2029"},
		Route:     []boxwatch.RouteStop{{Sequence: 1, LOCODE: "CNSHA", Role: boxwatch.RolePOL, ATD: at}, {Sequence: 2, LOCODE: "NLRTM", Role: boxwatch.RolePOD, ETA: eta}},
		CreatedAt: at, UpdatedAt: at}
	rd := jsonapi.Renderer{Carriers: data.Carriers(), Ports: data.Ports()}
	docs := map[string]any{
		"tracking request list": jsonapi.Document[[]jsonapi.TrackingRequestResource]{Data: []jsonapi.TrackingRequestResource{jsonapi.TrackingRequest(tr)},
			Included: []any{rd.Shipment(s, nil)}, Meta: &jsonapi.Meta{Total: 1, TotalIsLowerBound: true}},
		"empty list": jsonapi.Document[[]jsonapi.ShipmentResource]{Data: []jsonapi.ShipmentResource{}},
		"nil slice":  struct{ A []string }{},
		"floats":     []float64{0, math.Copysign(0, -1), 1e21, 1e20, 1e-7, 0.000001, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64, 51.9225, -4.47917},
		"float32":    []float32{1e21, 3.4e38, 0.1},
		"map":        map[string]any{"b": 1, "a": []any{nil, true, "x"}, "<": map[string]int{"z": 1, "y": 2}},
		// Raw values as PostgreSQL's jsonb gives them back: the renderers compact them.
		"raw values": []any{jsonapi.Definition(boxwatch.CustomFieldDefinition{DefaultValue: json.RawMessage(`{"a": [1, 2], "b": "x y"}`)}),
			jsonapi.CustomField(boxwatch.CustomField{Value: json.RawMessage(` "a b" `)}, nil)},
		"strings":  []string{"", "\x00\x1f\x7f", "<script>&amp;</script>", "\u2028\u2029", "\xed\xa0\x80", "日本語", "\U0001F6A2"},
		"pointers": struct{ P, Q *int }{P: new(int)},
		"omitted": struct {
			A int    `json:"a,omitempty"`
			B string `json:",omitempty"`
			C *bool  `json:"c"`
		}{},
		"time":        []time.Time{at, {}, at.UTC()},
		"int extreme": []int64{math.MinInt64, math.MaxInt64},
	}
	for name, v := range docs {
		t.Run(name, func(t *testing.T) {
			var got bytes.Buffer
			encodeJSON(&got, v)
			if want := standardJSON(t, v); !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("encodeJSON wrote\n%s\nencoding/json writes\n%s", got.Bytes(), want)
			}
		})
	}
}

// FuzzEncodeJSONAsStandardLibrary: any string and number the store may hold encodes as
// encoding/json encodes it.
func FuzzEncodeJSONAsStandardLibrary(f *testing.F) {
	for _, s := range []string{"", "<>&", "\u2028", "\xff", "a\"b\\c", "\x00"} {
		f.Add(s, 1.5, int64(-3))
	}
	f.Fuzz(func(t *testing.T, s string, x float64, n int64) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return // neither encoder accepts them, and the API never holds them
		}
		v := map[string]any{s: []any{s, x, n, float32(x)}, "k": struct {
			S string  `json:"s"`
			X float64 `json:"x,omitempty"`
		}{s, x}}
		var got bytes.Buffer
		encodeJSON(&got, v)
		if want := standardJSON(t, v); !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("encodeJSON wrote\n%s\nencoding/json writes\n%s", got.Bytes(), want)
		}
	})
}
