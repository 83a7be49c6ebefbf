package api

import (
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strings"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
)

// definitionRoutes are the custom field definition endpoints.
func (s *server) definitionRoutes() []route {
	st, now := s.cfg.Store, s.cfg.Clock
	return []route{
		{
			method: "POST", path: "/v2/custom_field_definitions", tag: "Custom Fields",
			summary: "Create a custom field definition",
			doc: "Defines a custom field of shipments, containers or tracking requests: its api_slug (unique per entity type), " +
				"display name and data type. Values are checked by type: short_text (validation.max_length, at most 255), number " +
				"(validation.min, max), date (YYYY-MM-DD), datetime (ISO 8601), boolean, enum and enum_multi (option values), reference " +
				"(a party's id, reference_type party).",
			auth: true, bucket: bucketDefault, body: definitionBody{},
			status: http.StatusCreated, resp: jsonapi.DefinitionDocument{},
			errors:  []int{400, 401, 409, 413, 415, 422, 429},
			handler: handleDefinitionCreate(st, now, s.baseURL),
		},
		{
			method: "GET", path: "/v2/custom_field_definitions", tag: "Custom Fields",
			summary: "List custom field definitions", doc: "Returns the account's definitions, newest first.",
			auth: true, bucket: bucketDefault, params: definitionListParams,
			status: http.StatusOK, resp: jsonapi.DefinitionListDocument{},
			errors:  []int{400, 401, 429},
			handler: handleDefinitionList(st, s.listLinks),
		},
		{
			method: "GET", path: "/v2/custom_field_definitions/{id}", tag: "Custom Fields",
			summary: "Get a custom field definition", doc: "Returns one definition.",
			auth: true, bucket: bucketDefault,
			status: http.StatusOK, resp: jsonapi.DefinitionDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handleDefinitionGet(st, s.baseURL),
		},
		{
			method: "PATCH", path: "/v2/custom_field_definitions/{id}", tag: "Custom Fields",
			summary: "Update a custom field definition",
			doc:     "Changes display_name, validation, default_format or default_value; entity_type, api_slug and data_type are fixed. Stored values are not checked again.",
			auth:    true, bucket: bucketDefault, body: definitionBody{},
			status: http.StatusOK, resp: jsonapi.DefinitionDocument{},
			errors:  []int{400, 401, 404, 409, 413, 415, 422, 429},
			handler: handleDefinitionUpdate(st, now, s.baseURL),
		},
		{
			method: "DELETE", path: "/v2/custom_field_definitions/{id}", tag: "Custom Fields",
			summary: "Delete a custom field definition", doc: "Removes the definition with its options and values. Answers 204.",
			auth: true, bucket: bucketDefault,
			status:  http.StatusNoContent,
			errors:  []int{400, 401, 404, 429},
			handler: handleDefinitionDelete(st),
		},
	}
}

// definitionBody documents the create and update body of a definition.
type definitionBody struct {
	Data struct {
		Type       string                       `json:"type" enum:"custom_field_definition"`
		ID         string                       `json:"id,omitempty" format:"uuid"`
		Attributes jsonapi.DefinitionAttributes `json:"attributes"`
	} `json:"data"`
}

// decodeDefinition reads a definition's create body into d (id "") or its update body over d:
// an update may change display_name, validation, default_format and default_value only.
func decodeDefinition(body []byte, d *boxwatch.CustomFieldDefinition, id string) (defaultValue any, hasDefault bool, err error) {
	doc, err := parseJSON(body)
	if err != nil {
		return nil, false, err
	}
	attrs, err := resourceObject(doc, "custom_field_definition", id)
	if err != nil {
		return nil, false, err
	}
	changeable := []string{"display_name", "validation", "default_format", "default_value"}
	if id == "" {
		changeable = append(changeable, "entity_type", "api_slug", "data_type", "reference_type")
	} else {
		for _, fixed := range []string{"entity_type", "api_slug", "data_type", "reference_type"} {
			if _, ok := attrs.m[fixed]; ok {
				return nil, false, boxwatch.Invalid(attrs.pointer+"/"+fixed, boxwatch.CodeInvalid, "%s is fixed when the definition is created.", fixed)
			}
		}
	}
	if err := attrs.only(changeable...); err != nil {
		return nil, false, err
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"entity_type", &d.EntityType}, {"api_slug", &d.APISlug}, {"display_name", &d.DisplayName}, {"data_type", &d.DataType},
		{"reference_type", &d.ReferenceType}, {"default_format", &d.DefaultFormat}} {
		v, present, err := attrs.str(f.name)
		if err != nil {
			return nil, false, err
		}
		if present || id == "" {
			*f.dst = v
		} else if _, null := attrs.m[f.name]; null && f.name == "default_format" {
			*f.dst = ""
		}
	}
	if raw, ok := attrs.m["validation"]; ok {
		d.Validation = nil
		if raw != nil {
			m, ok := raw.(map[string]any)
			if !ok || len(m) > 4 {
				return nil, false, boxwatch.Invalid(attrs.pointer+"/validation", boxwatch.CodeInvalid, "validation is an object of numeric limits, or null.")
			}
			d.Validation = map[string]float64{}
			for k, v := range m {
				n, ok := v.(json.Number)
				f, err := n.Float64()
				if !ok || err != nil || math.IsInf(f, 0) {
					return nil, false, boxwatch.Invalid(attrs.pointer+"/validation/"+escapePointer(k), boxwatch.CodeInvalid, "A limit is a number.")
				}
				d.Validation[k] = f
			}
		}
	}
	if raw, ok := attrs.m["default_value"]; ok {
		v, err := plainJSON(raw)
		return v, true, err
	}
	return nil, false, nil
}

// checkDefault checks a definition's default value against its type and options.
func checkDefault(r *http.Request, st valueStores, d *boxwatch.CustomFieldDefinition, v any) error {
	if v == nil {
		d.DefaultValue = json.RawMessage("null")
		return nil
	}
	options, err := st.CustomFieldOptions(r.Context(), d.AccountID, d.ID)
	if err != nil {
		return err
	}
	d.DefaultValue, err = d.CheckValue(v, "/data/attributes/default_value", options, partyExists(r, st))
	return err
}

func handleDefinitionCreate(st valueStores, now boxwatch.Clock, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		body, err := readBody(w, r)
		if err != nil {
			return err
		}
		t := now()
		d := boxwatch.CustomFieldDefinition{ID: boxwatch.NewID(t), AccountID: account(r).ID, CreatedAt: t, UpdatedAt: t}
		def, _, err := decodeDefinition(body, &d, "")
		if err != nil {
			return err
		}
		if err := d.Validate(); err != nil {
			return err
		}
		if err := checkDefault(r, st, &d, def); err != nil {
			return err
		}
		if err := st.CreateCustomFieldDefinition(r.Context(), d); err != nil {
			return err
		}
		res := jsonapi.Definition(d)
		w.Header().Set("Location", base(r)+res.Links.Self)
		writeResource(w, http.StatusCreated, base(r)+res.Links.Self, res, nil)
		return nil
	}
}

var definitionListParams = []param{
	paramPageNumber, paramPageSize,
	{name: "filter[entity_type]", typ: "string", enum: []string{"Shipment", "Container", "TrackingRequest"}, doc: "Only definitions of this entity type."},
	{name: "filter[data_type]", typ: "string", enum: boxwatch.DataTypes, doc: "Only definitions of this data type."},
	{name: "filter[display_name]", typ: "string", doc: "Only definitions whose display name contains this text; at most 100 characters."},
}

func handleDefinitionList(st boxwatch.CustomFieldStore, pageLinks pageLinker) handlerFunc {
	return handleList(pageLinks, func(r *http.Request, page boxwatch.Page) (listPage[jsonapi.DefinitionResource], error) {
		var lp listPage[jsonapi.DefinitionResource]
		q := r.URL.Query()
		f := boxwatch.CustomFieldDefinitionFilter{EntityType: q.Get("filter[entity_type]"), DataType: q.Get("filter[data_type]"),
			DisplayName: strings.TrimSpace(q.Get("filter[display_name]"))}
		if _, ok := boxwatch.EntityTypes[f.EntityType]; f.EntityType != "" && !ok {
			return lp, boxwatch.BadParameter("filter[entity_type]", "filter[entity_type] is Shipment, Container or TrackingRequest.")
		}
		if f.DataType != "" && !slices.Contains(boxwatch.DataTypes, f.DataType) {
			return lp, boxwatch.BadParameter("filter[data_type]", "filter[data_type] is one of %s.", strings.Join(boxwatch.DataTypes, ", "))
		}
		if len(f.DisplayName) > 100 {
			return lp, boxwatch.BadParameter("filter[display_name]", "filter[display_name] is at most 100 characters.")
		}
		list, total, err := st.CustomFieldDefinitions(r.Context(), account(r).ID, f, page)
		if err != nil {
			return lp, err
		}
		lp.data, lp.included, lp.total = make([]jsonapi.DefinitionResource, len(list)), []any{}, total
		for i, d := range list {
			lp.data[i] = jsonapi.Definition(d)
		}
		return lp, nil
	})
}

func handleDefinitionGet(st boxwatch.CustomFieldStore, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		d, err := st.CustomFieldDefinition(r.Context(), account(r).ID, r.PathValue("id"))
		if err != nil {
			return err
		}
		res := jsonapi.Definition(d)
		writeResource(w, http.StatusOK, base(r)+res.Links.Self, res, nil)
		return nil
	}
}

func handleDefinitionUpdate(st valueStores, now boxwatch.Clock, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		d, err := st.CustomFieldDefinition(r.Context(), account(r).ID, r.PathValue("id"))
		if err != nil {
			return err
		}
		body, err := readBody(w, r)
		if err != nil {
			return err
		}
		def, hasDefault, err := decodeDefinition(body, &d, r.PathValue("id"))
		if err != nil {
			return err
		}
		if err := d.Validate(); err != nil {
			return err
		}
		if hasDefault {
			if err := checkDefault(r, st, &d, def); err != nil {
				return err
			}
		}
		d.UpdatedAt = now()
		if err := st.UpdateCustomFieldDefinition(r.Context(), d); err != nil {
			return err
		}
		res := jsonapi.Definition(d)
		writeResource(w, http.StatusOK, base(r)+res.Links.Self, res, nil)
		return nil
	}
}

func handleDefinitionDelete(st boxwatch.CustomFieldStore) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := st.DeleteCustomFieldDefinition(r.Context(), account(r).ID, r.PathValue("id")); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}
