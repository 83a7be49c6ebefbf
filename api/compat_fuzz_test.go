package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch"
)

// The decoders of the bodies the compatibility endpoints take: whatever the bytes, a value or a
// client error, never a panic or a 500.

func FuzzDecodeCustomFieldBodies(f *testing.F) {
	for _, s := range []string{
		`{"data":{"type":"custom_field","attributes":{"api_slug":"po","value":"A-1"}}}`,
		`{"data":{"type":"custom_field","attributes":{"api_slug":"w","value":1e308},"relationships":{"entity":{"data":{"type":"shipment","id":"01936e3a-0000-7000-8000-000000000000"}}}}}`,
		`{"data":{"type":"custom_field","attributes":{"value":["a",["b"],{"c":1}]}}}`,
		`{"data":{"type":"custom_field","relationships":[],"attributes":{}}}`,
		`{"data":{"type":"custom_field_definition","attributes":{"entity_type":"Shipment","api_slug":"x","display_name":"X","data_type":"number","validation":{"min":"0","max":1e999},"default_value":3}}}`,
		`{"data":{"type":"custom_field_option","attributes":{"label":"A","value":"a","position":-1}}}`,
		`{"data":{"type":"party","attributes":{"company_name":"\u0000"}}}`,
		`{"data":{"type":"shipment","attributes":{"ref_numbers":[null],"tags":"x"}}}`,
		`{"data":{"type":"container","id":"01936e3a-0000-7000-8000-000000000000","attributes":{"ref_numbers":["PO-1"]}}}`,
		`{"data":{"type":"container","id":["x"],"attributes":{"ref_numbers":["\u0007"],"number":"X"}}}`,
		`{"data":{"type":"tracking_request","relationships":{"customer":{"data":{"type":"party","id":7}}}}}`,
		strings.Repeat(`{"data":`, 500),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		const id = "01936e3a-0000-7000-8000-000000000000"
		check := func(err error) {
			if err != nil {
				checkDecodeError(t, err)
			}
		}
		_, err := decodeCustomField(body, true, true)
		check(err)
		_, err = decodeCustomField(body, true, false)
		check(err)
		_, err = decodeCustomField(body, false, false)
		check(err)
		var d boxwatch.CustomFieldDefinition
		if v, err := decodeDefinitionCreate(body, &d); err != nil {
			check(err)
		} else if err := d.Validate(); err != nil {
			check(err)
		} else if v != nil {
			if _, err := d.CheckValue(v, "/data/attributes/default_value", nil, func(string) bool { return true }); err != nil {
				check(err)
			}
		}
		d = boxwatch.CustomFieldDefinition{ID: id, EntityType: boxwatch.EntityShipment, APISlug: "po", DisplayName: "PO", DataType: boxwatch.DataShortText}
		if _, _, err := decodeDefinitionUpdate(body, &d); err != nil {
			check(err)
		} else {
			check(d.Validate())
		}
		o := boxwatch.CustomFieldOption{ID: id}
		check(decodeOptionUpdate(body, &o))
		check(decodeOptionCreate(body, &o))
		_, err = decodeParty(body, "")
		check(err)
		_, err = decodeParty(body, id)
		check(err)
		_, _, err = decodeShipmentUpdate(body, id)
		check(err)
		_, err = decodeBody[trackingRequestCreateBody](body, "")
		check(err)
		_, _, err = decodeContainerUpdate(body, id)
		check(err)
		_, _, err = decodeContainerUpdate(body, "")
		check(err)
	})
}

// FuzzCustomFieldValue: a value a definition accepts is stored as JSON that reads back as a
// value it accepts again.
func FuzzCustomFieldValue(f *testing.F) {
	for _, s := range []string{`"x"`, `1.5`, `true`, `"2026-01-02"`, `"2026-01-02T03:04:05+02:00"`, `["a","a"]`, `null`, `{}`, `"` + strings.Repeat("é", 300) + `"`} {
		f.Add(s)
	}
	options := []boxwatch.CustomFieldOption{{Value: "a"}, {Value: "b"}}
	f.Fuzz(func(t *testing.T, raw string) {
		var v any
		if json.Unmarshal([]byte(raw), &v) != nil {
			return
		}
		for _, typ := range boxwatch.DataTypes {
			d := boxwatch.CustomFieldDefinition{DataType: typ, ReferenceType: "party", Validation: map[string]float64{"max_length": 10, "min": -5, "max": 5}}
			stored, err := d.CheckValue(v, "/v", options, func(string) bool { return true })
			if err != nil {
				if e := boxwatch.AsError(err); e == nil || e.Pointer != "/v" {
					t.Fatalf("%s: error %v without its pointer", typ, err)
				}
				continue
			}
			var again any
			if err := json.Unmarshal(stored, &again); err != nil {
				t.Fatalf("%s: stored %s is not JSON", typ, stored)
			}
			if _, err := d.CheckValue(again, "/v", options, func(string) bool { return true }); err != nil {
				t.Fatalf("%s: stored %s is refused: %v", typ, stored, err)
			}
		}
	})
}
