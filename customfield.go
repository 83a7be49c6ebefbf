package boxwatch

import (
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Custom fields are an account's own attributes on its shipments, containers and tracking
// requests: a definition names one (its API slug, display name and data type), enum definitions
// list their options, and a custom field is the value of one definition on one resource.

// Entity types a custom field definition applies to, as the reference API spells them; the path
// and relationship names are their JSON:API types.
const (
	EntityShipment        = "Shipment"
	EntityContainer       = "Container"
	EntityTrackingRequest = "TrackingRequest"
)

// EntityTypes maps each entity type to its JSON:API resource type.
var EntityTypes = map[string]string{EntityShipment: "shipment", EntityContainer: "container", EntityTrackingRequest: "tracking_request"}

// Custom field data types.
const (
	DataShortText = "short_text"
	DataNumber    = "number"
	DataDate      = "date"
	DataDatetime  = "datetime"
	DataBoolean   = "boolean"
	DataEnum      = "enum"
	DataEnumMulti = "enum_multi"
	DataReference = "reference"
)

// DataTypes lists the data types in the reference's order.
var DataTypes = []string{DataShortText, DataNumber, DataDate, DataDatetime, DataBoolean, DataEnum, DataEnumMulti, DataReference}

// Limits on custom fields.
const (
	MaxShortTextLen    = 255
	MaxDisplayNameLen  = 100
	MaxOptionLen       = 100
	MaxDefaultFormat   = 50
	MaxEnumMultiValues = 100
)

// CustomFieldDefinition defines a custom field of one entity type.
type CustomFieldDefinition struct {
	ID          string
	AccountID   string
	EntityType  string
	APISlug     string
	DisplayName string
	DataType    string
	// ReferenceType is what a reference field points at: "party" is the one boxwatch knows.
	ReferenceType string
	// Validation holds the definition's limits: max_length for short_text, min and max for
	// number; nil when none.
	Validation    map[string]float64
	DefaultFormat string
	// DefaultValue is JSON (null when none), a value of the data type.
	DefaultValue json.RawMessage
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// CustomFieldOption is one choice of an enum or enum_multi definition.
type CustomFieldOption struct {
	ID           string
	AccountID    string
	DefinitionID string
	Label        string
	Value        string
	// Position orders the options; nil when not given.
	Position  *int
	CreatedAt time.Time
	UpdatedAt time.Time
}

// CustomField is the value of one definition on one resource.
type CustomField struct {
	ID           string
	AccountID    string
	DefinitionID string
	// APISlug and EntityType are the definition's, read with the field.
	APISlug    string
	EntityType string
	EntityID   string
	// Value is JSON, a value of the definition's data type.
	Value     json.RawMessage
	CreatedAt time.Time
	UpdatedAt time.Time
}

// CustomFieldDefinitionFilter narrows a listing of definitions; zero fields do not filter.
type CustomFieldDefinitionFilter struct {
	EntityType, DataType, DisplayName string
}

// CustomFieldFilter narrows a listing of custom fields; zero fields do not filter.
type CustomFieldFilter struct {
	EntityType, EntityID, DefinitionID string
}

var apiSlugPattern = regexp.MustCompile(`^[a-z][a-z0-9_]{0,62}$`)

// validationKeys are the limits each data type takes.
var validationKeys = map[string][]string{DataShortText: {"max_length"}, DataNumber: {"min", "max"}}

// Validate checks a new or changed definition, every problem with its pointer into the attributes.
func (d *CustomFieldDefinition) Validate() error {
	var errs Errors
	d.DisplayName = strings.TrimSpace(d.DisplayName)
	if _, ok := EntityTypes[d.EntityType]; !ok {
		errs = append(errs, Invalid(attrPointer+"entity_type", CodeInvalid, "entity_type must be Shipment, Container or TrackingRequest"))
	}
	if !apiSlugPattern.MatchString(d.APISlug) {
		errs = append(errs, Invalid(attrPointer+"api_slug", CodeInvalid, "api_slug is a lower-case letter, then up to 62 lower-case letters, digits and underscores"))
	}
	switch {
	case d.DisplayName == "":
		errs = append(errs, Invalid(attrPointer+"display_name", CodeBlank, "display_name can't be blank"))
	case len([]rune(d.DisplayName)) > MaxDisplayNameLen:
		errs = append(errs, Invalid(attrPointer+"display_name", CodeTooLong, "display_name is at most %d characters", MaxDisplayNameLen))
	}
	if !slices.Contains(DataTypes, d.DataType) {
		errs = append(errs, Invalid(attrPointer+"data_type", CodeInvalid, "data_type must be one of %s", strings.Join(DataTypes, ", ")))
	}
	switch {
	case d.DataType == DataReference && d.ReferenceType != "party":
		errs = append(errs, Invalid(attrPointer+"reference_type", CodeInvalid, "A reference field points at a party: reference_type must be \"party\""))
	case d.DataType != DataReference && d.ReferenceType != "":
		errs = append(errs, Invalid(attrPointer+"reference_type", CodeInvalid, "Only a reference field has a reference_type"))
	}
	for k, v := range d.Validation {
		switch {
		case !slices.Contains(validationKeys[d.DataType], k):
			errs = append(errs, Invalid(attrPointer+"validation/"+k, CodeNotSupported, "A %s field takes no %s limit", d.DataType, k))
		case k == "max_length" && (v < 1 || v > MaxShortTextLen || v != math.Trunc(v)):
			errs = append(errs, Invalid(attrPointer+"validation/max_length", CodeInvalid, "max_length is a whole number from 1 to %d", MaxShortTextLen))
		}
	}
	if lo, ok := d.Validation["min"]; ok {
		if hi, ok := d.Validation["max"]; ok && lo > hi {
			errs = append(errs, Invalid(attrPointer+"validation/min", CodeInvalid, "min is more than max"))
		}
	}
	if len(d.DefaultFormat) > MaxDefaultFormat {
		errs = append(errs, Invalid(attrPointer+"default_format", CodeTooLong, "default_format is at most %d characters", MaxDefaultFormat))
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// CheckValue checks a value (decoded JSON) against the definition and returns it as stored.
// Enum values must be among options' values; a reference must satisfy exists. Errors point at
// pointer. A null value is refused: a field without value is deleted, not set to null.
func (d CustomFieldDefinition) CheckValue(v any, pointer string, options []CustomFieldOption, exists func(id string) bool) (json.RawMessage, error) {
	bad := func(format string, args ...any) (json.RawMessage, error) {
		return nil, Invalid(pointer, CodeInvalid, format, args...)
	}
	optionValue := func(s string) bool {
		return slices.ContainsFunc(options, func(o CustomFieldOption) bool { return o.Value == s })
	}
	switch d.DataType {
	case DataShortText:
		s, ok := v.(string)
		if !ok {
			return bad("A %s value is a string", d.DataType)
		}
		limit := MaxShortTextLen
		if n, ok := d.Validation["max_length"]; ok {
			limit = int(n)
		}
		if len([]rune(s)) > limit {
			return nil, Invalid(pointer, CodeTooLong, "The value is at most %d characters", limit)
		}
	case DataNumber:
		n, ok := v.(float64)
		if !ok || math.IsInf(n, 0) || math.IsNaN(n) {
			return bad("A number value is a JSON number")
		}
		if lo, ok := d.Validation["min"]; ok && n < lo {
			return bad("The value is less than the minimum %v", lo)
		}
		if hi, ok := d.Validation["max"]; ok && n > hi {
			return bad("The value is more than the maximum %v", hi)
		}
	case DataDate:
		s, _ := v.(string)
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return bad("A date value is written YYYY-MM-DD")
		}
	case DataDatetime:
		s, _ := v.(string)
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return bad("A datetime value is an ISO 8601 time with its offset, such as 2026-03-01T09:00:00Z")
		}
		v = t.UTC().Format(time.RFC3339)
	case DataBoolean:
		if _, ok := v.(bool); !ok {
			return bad("A boolean value is true or false")
		}
	case DataEnum:
		s, ok := v.(string)
		if !ok || !optionValue(s) {
			return bad("The value must be one of the definition's option values")
		}
	case DataEnumMulti:
		list, ok := v.([]any)
		if !ok || len(list) > MaxEnumMultiValues {
			return bad("An enum_multi value is a list of at most %d option values", MaxEnumMultiValues)
		}
		seen := map[string]bool{}
		out := []string{}
		for _, item := range list {
			s, ok := item.(string)
			if !ok || !optionValue(s) {
				return bad("Every value must be one of the definition's option values")
			}
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
		v = out
	case DataReference:
		s, _ := v.(string)
		if !IsUUID(s) || exists == nil || !exists(strings.ToLower(s)) {
			return bad("The value must be the id of one of the account's parties")
		}
		v = strings.ToLower(s)
	default:
		return bad("The definition's data type %q takes no values", d.DataType)
	}
	return json.Marshal(v)
}

// StagedCustomField is a custom field value sent with a tracking request (initial_custom_fields),
// set on the shipment or its containers once the lookup creates them.
type StagedCustomField struct {
	DefinitionID string
	// EntityType is EntityShipment or EntityContainer.
	EntityType string
	// Number is the container a Container value is for; empty for every container of the shipment.
	Number string `json:",omitempty"`
	// Value is JSON, checked against the definition when it was sent.
	Value json.RawMessage
}

// MaxStagedCustomFields is how many values one tracking request may stage.
const MaxStagedCustomFields = 50
