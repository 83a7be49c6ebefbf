package api

import (
	"fmt"
	"net/http"
	"reflect"

	"github.com/boxwatch/boxwatch"
)

// A tracking request's initial custom fields are values it sets on its shipment and containers
// once the lookup creates them: checked against their definitions when the request is made.

// initialCustomFields describes initial_custom_fields.
type initialCustomFields struct {
	Shipment   []stagedShipmentValue  `json:"shipment,omitempty" doc:"Values set on the shipment."`
	Containers []stagedContainerValue `json:"containers,omitempty" doc:"Values set on its containers."`
}

// stagedShipmentValue is one value initial_custom_fields sets on the shipment.
type stagedShipmentValue struct {
	APISlug string `json:"api_slug"`
	Value   any    `json:"value" blank:"value can't be blank."`
}

// stagedContainerValue is one value initial_custom_fields sets on containers.
type stagedContainerValue struct {
	APISlug string `json:"api_slug"`
	Number  string `json:"number,omitempty" doc:"The container the value is for; every container when left out."`
	Value   any    `json:"value" blank:"value can't be blank."`
}

// decodeMember reads initial_custom_fields, whose lists are never null and which holds at most
// boxwatch.MaxStagedCustomFields values.
func (f *initialCustomFields) decodeMember(raw any, _ bool, pointer string) error {
	if raw == nil {
		return nil
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return boxwatch.Invalid(pointer, boxwatch.CodeInvalid, "initial_custom_fields is an object with shipment and containers lists.")
	}
	for key, v := range obj {
		list, ok := v.([]any)
		at := pointer + "/" + escapePointer(key)
		var err error
		switch {
		case key != "shipment" && key != "containers":
			return boxwatch.Invalid(at, boxwatch.CodeInvalid, "initial_custom_fields takes shipment and containers only.")
		case !ok:
			return boxwatch.Invalid(at, boxwatch.CodeInvalid, "%s is a list of {\"api_slug\", \"value\"}.", key)
		case key == "shipment":
			err = decodeEntries(list, &f.Shipment, at)
		default:
			err = decodeEntries(list, &f.Containers, at)
		}
		if err != nil {
			return err
		}
	}
	if len(f.Shipment)+len(f.Containers) > boxwatch.MaxStagedCustomFields {
		return boxwatch.Invalid(pointer, boxwatch.CodeTooLong, "initial_custom_fields holds at most %d values.", boxwatch.MaxStagedCustomFields)
	}
	return nil
}

// decodeEntries decodes the entries of one list of initial_custom_fields into dst.
func decodeEntries[T any](list []any, dst *[]T, pointer string) error {
	*dst = make([]T, len(list))
	for i, item := range list {
		err := decodeObject(item, reflect.ValueOf(&(*dst)[i]).Elem(), fmt.Sprintf("%s/%d", pointer, i),
			"An entry is an object with api_slug and value.")
		if err != nil {
			return err
		}
	}
	return nil
}

// stagedInput is one value of initial_custom_fields, before its definition is found.
type stagedInput struct {
	entityType, slug, number, pointer string
	value                             any
}

// inputs lists the values, pointer being where initial_custom_fields is.
func (f *initialCustomFields) inputs(pointer string) []stagedInput {
	if f == nil {
		return nil
	}
	var out []stagedInput
	for i, v := range f.Shipment {
		out = append(out, stagedInput{entityType: boxwatch.EntityShipment, slug: v.APISlug,
			pointer: fmt.Sprintf("%s/shipment/%d", pointer, i), value: v.Value})
	}
	for i, v := range f.Containers {
		out = append(out, stagedInput{entityType: boxwatch.EntityContainer, slug: v.APISlug, number: boxwatch.NormalizeContainerNumber(v.Number),
			pointer: fmt.Sprintf("%s/containers/%d", pointer, i), value: v.Value})
	}
	return out
}

// resolveStaged finds the definitions staged values name and checks each value against its own.
func resolveStaged(r *http.Request, st valueStores, in []stagedInput) ([]boxwatch.StagedCustomField, error) {
	var out []boxwatch.StagedCustomField
	for _, s := range in {
		d, err := definitionBySlug(r, st, s.entityType, s.slug, s.pointer+"/api_slug")
		if err != nil {
			return nil, err
		}
		options, err := st.CustomFieldOptions(r.Context(), d.AccountID, d.ID)
		if err != nil {
			return nil, err
		}
		value, err := d.CheckValue(s.value, s.pointer+"/value", options, partyExists(r, st))
		if err != nil {
			return nil, err
		}
		out = append(out, boxwatch.StagedCustomField{DefinitionID: d.ID, EntityType: s.entityType, Number: s.number, Value: value})
	}
	return out, nil
}
