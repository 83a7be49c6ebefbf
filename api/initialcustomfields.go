package api

import (
	"fmt"
	"net/http"

	"github.com/boxwatch/boxwatch"
)

// A tracking request's initial custom fields are values it sets on its shipment and containers
// once the lookup creates them: checked against their definitions when the request is made.

// stagedBody documents one value of initial_custom_fields.
type stagedBody struct {
	APISlug string `json:"api_slug"`
	Value   any    `json:"value"`
	Number  string `json:"number,omitempty" doc:"Containers only: the container the value is for; every container when left out."`
}

// stagedInput is one value of a create body's initial_custom_fields, before its definition is found.
type stagedInput struct {
	entityType, slug, number, pointer string
	value                             any
}

// decodeStaged reads initial_custom_fields: {"shipment": [...], "containers": [...]}, each entry
// {"api_slug", "value"} and, for containers, an optional "number".
func decodeStaged(attrs object) ([]stagedInput, error) {
	raw, ok := attrs.m["initial_custom_fields"]
	if !ok || raw == nil {
		return nil, nil
	}
	pointer := attrs.pointer + "/initial_custom_fields"
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, boxwatch.Invalid(pointer, boxwatch.CodeInvalid, "initial_custom_fields is an object with shipment and containers lists.")
	}
	var out []stagedInput
	for key, v := range m {
		entity := map[string]string{"shipment": boxwatch.EntityShipment, "containers": boxwatch.EntityContainer}[key]
		if entity == "" {
			return nil, boxwatch.Invalid(pointer+"/"+escapePointer(key), boxwatch.CodeInvalid, "initial_custom_fields takes shipment and containers only.")
		}
		list, ok := v.([]any)
		if !ok {
			return nil, boxwatch.Invalid(pointer+"/"+key, boxwatch.CodeInvalid, "%s is a list of {\"api_slug\", \"value\"}.", key)
		}
		for i, item := range list {
			at := fmt.Sprintf("%s/%s/%d", pointer, key, i)
			e, ok := item.(map[string]any)
			if !ok {
				return nil, boxwatch.Invalid(at, boxwatch.CodeInvalid, "An entry is an object with api_slug and value.")
			}
			entry := object{m: e, pointer: at}
			allowed := []string{"api_slug", "value"}
			if entity == boxwatch.EntityContainer {
				allowed = append(allowed, "number")
			}
			if err := entry.only(allowed...); err != nil {
				return nil, err
			}
			in := stagedInput{entityType: entity, pointer: at}
			var err error
			if in.slug, _, err = entry.str("api_slug"); err != nil {
				return nil, err
			}
			if in.number, _, err = entry.str("number"); err != nil {
				return nil, err
			}
			in.number = boxwatch.NormalizeContainerNumber(in.number)
			if e["value"] == nil {
				return nil, boxwatch.Invalid(at+"/value", boxwatch.CodeBlank, "value can't be blank.")
			}
			if in.value, err = plainJSON(e["value"]); err != nil {
				return nil, boxwatch.Invalid(at+"/value", boxwatch.CodeInvalid, "The number is out of range.")
			}
			out = append(out, in)
		}
	}
	if len(out) > boxwatch.MaxStagedCustomFields {
		return nil, boxwatch.Invalid(pointer, boxwatch.CodeTooLong, "initial_custom_fields holds at most %d values.", boxwatch.MaxStagedCustomFields)
	}
	return out, nil
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
