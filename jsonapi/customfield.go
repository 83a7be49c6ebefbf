package jsonapi

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/boxwatch/boxwatch"
)

// Custom fields: definitions with their options, and the values set on shipments, containers and
// tracking requests.

// DefinitionAttributes is the wire form of a custom field definition.
type DefinitionAttributes struct {
	EntityType    string              `json:"entity_type" enum:"Shipment,Container,TrackingRequest"`
	APISlug       string              `json:"api_slug"`
	DisplayName   string              `json:"display_name"`
	Description   *string             `json:"description" doc:"Null: boxwatch keeps a display name, not a description."`
	DataType      string              `json:"data_type" enum:"short_text,number,date,datetime,boolean,enum,enum_multi,reference"`
	ReferenceType *string             `json:"reference_type" doc:"party for a reference field, null otherwise."`
	Validation    *map[string]float64 `json:"validation" doc:"max_length for short_text; min and max for number; null when none."`
	DefaultFormat *string             `json:"default_format"`
	DefaultValue  json.RawMessage     `json:"default_value" doc:"A value of the data type, or null."`
	CreatedAt     string              `json:"created_at" format:"date-time"`
	UpdatedAt     string              `json:"updated_at" format:"date-time"`
}

// DefinitionResource is a custom field definition as a JSON:API resource.
type DefinitionResource struct {
	ID         string               `json:"id" format:"uuid"`
	Type       string               `json:"type" enum:"custom_field_definition"`
	Attributes DefinitionAttributes `json:"attributes"`
	Links      ResourceLinks        `json:"links"`
}

// DefinitionDocument and DefinitionListDocument answer one definition and a page of them.
type DefinitionDocument = Document[DefinitionResource]
type DefinitionListDocument = Document[[]DefinitionResource]

// Definition renders a custom field definition.
func Definition(d boxwatch.CustomFieldDefinition) DefinitionResource {
	var validation *map[string]float64
	if d.Validation != nil {
		validation = &d.Validation
	}
	return DefinitionResource{ID: d.ID, Type: "custom_field_definition", Attributes: DefinitionAttributes{
		EntityType: d.EntityType, APISlug: d.APISlug, DisplayName: d.DisplayName, DataType: d.DataType,
		ReferenceType: optString(d.ReferenceType), Validation: validation, DefaultFormat: optString(d.DefaultFormat),
		DefaultValue: rawOrNull(d.DefaultValue), CreatedAt: timestamp(d.CreatedAt), UpdatedAt: timestamp(d.UpdatedAt),
	}, Links: ResourceLinks{Self: "/v2/custom_field_definitions/" + d.ID}}
}

// rawOrNull renders an unset value as null, and a value as compact JSON whatever spacing the
// database kept (PostgreSQL's jsonb puts a space after each colon and comma): the API's encoder
// writes raw values as they are.
func rawOrNull(v json.RawMessage) json.RawMessage {
	if len(v) == 0 {
		return json.RawMessage("null")
	}
	if bytes.ContainsAny(v, " \t\r\n") {
		var b bytes.Buffer
		if json.Compact(&b, v) == nil {
			return b.Bytes()
		}
	}
	return v
}

// OptionAttributes is the wire form of an option of an enum definition.
type OptionAttributes struct {
	Label     string `json:"label"`
	Value     string `json:"value"`
	Position  *int   `json:"position"`
	CreatedAt string `json:"created_at" format:"date-time"`
	UpdatedAt string `json:"updated_at" format:"date-time"`
}

// OptionRelationships link an option to its definition.
type OptionRelationships struct {
	Definition ToOne `json:"custom_field_definition"`
}

// OptionResource is an option as a JSON:API resource.
type OptionResource struct {
	ID            string              `json:"id" format:"uuid"`
	Type          string              `json:"type" enum:"custom_field_option"`
	Attributes    OptionAttributes    `json:"attributes"`
	Relationships OptionRelationships `json:"relationships"`
	Links         ResourceLinks       `json:"links"`
}

// OptionDocument and OptionListDocument answer one option and the list of them.
type OptionDocument = Document[OptionResource]
type OptionListDocument = Document[[]OptionResource]

// Option renders an option of an enum definition.
func Option(o boxwatch.CustomFieldOption) OptionResource {
	return OptionResource{ID: o.ID, Type: "custom_field_option", Attributes: OptionAttributes{Label: o.Label, Value: o.Value, Position: o.Position,
		CreatedAt: timestamp(o.CreatedAt), UpdatedAt: timestamp(o.UpdatedAt)},
		Relationships: OptionRelationships{Definition: linkTo(o.DefinitionID, "custom_field_definition")},
		Links:         ResourceLinks{Self: "/v2/custom_field_definitions/" + o.DefinitionID + "/options/" + o.ID}}
}

// CustomFieldAttributes is the wire form of a custom field: a definition's value on a resource.
type CustomFieldAttributes struct {
	APISlug      string          `json:"api_slug"`
	Value        json.RawMessage `json:"value" doc:"A value of the definition's data type."`
	DisplayValue *string         `json:"display_value" doc:"The value as text: an option's label for enums."`
	CreatedAt    string          `json:"created_at" format:"date-time"`
	UpdatedAt    string          `json:"updated_at" format:"date-time"`
}

// CustomFieldRelationships link a custom field to its resource and definition.
type CustomFieldRelationships struct {
	Entity     ToOne `json:"entity"`
	Definition ToOne `json:"definition"`
}

// CustomFieldResource is a custom field as a JSON:API resource.
type CustomFieldResource struct {
	ID            string                   `json:"id" format:"uuid"`
	Type          string                   `json:"type" enum:"custom_field"`
	Attributes    CustomFieldAttributes    `json:"attributes"`
	Relationships CustomFieldRelationships `json:"relationships"`
	Links         ResourceLinks            `json:"links"`
}

// CustomFieldDocument and CustomFieldListDocument answer one custom field and a page of them.
type CustomFieldDocument = Document[CustomFieldResource]
type CustomFieldListDocument = Document[[]CustomFieldResource]

// CustomField renders a custom field; options are its definition's, which label enum values.
func CustomField(f boxwatch.CustomField, options []boxwatch.CustomFieldOption) CustomFieldResource {
	return CustomFieldResource{ID: f.ID, Type: "custom_field", Attributes: CustomFieldAttributes{
		APISlug: f.APISlug, Value: rawOrNull(f.Value), DisplayValue: displayValue(f.Value, options),
		CreatedAt: timestamp(f.CreatedAt), UpdatedAt: timestamp(f.UpdatedAt),
	}, Relationships: CustomFieldRelationships{Entity: linkTo(f.EntityID, boxwatch.EntityTypes[f.EntityType]),
		Definition: linkTo(f.DefinitionID, "custom_field_definition")},
		Links: ResourceLinks{Self: "/v2/custom_fields/" + f.ID}}
}

// displayValue writes a value as text: an option's label for an option value, labels joined by
// ", " for a list, the text or number itself otherwise.
func displayValue(raw json.RawMessage, options []boxwatch.CustomFieldOption) *string {
	var v any
	if json.Unmarshal(raw, &v) != nil || v == nil {
		return nil
	}
	label := func(s string) string {
		for _, o := range options {
			if o.Value == s {
				return o.Label
			}
		}
		return s
	}
	var s string
	switch v := v.(type) {
	case string:
		s = label(v)
	case []any:
		var parts []string
		for _, item := range v {
			if str, ok := item.(string); ok {
				parts = append(parts, label(str))
			}
		}
		s = strings.Join(parts, ", ")
	case bool:
		s = strconv.FormatBool(v)
	case float64:
		s = strconv.FormatFloat(v, 'f', -1, 64)
	default:
		return nil
	}
	return &s
}
