package api

import (
	"encoding/json"
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
			auth: true, bucket: bucketDefault, body: definitionCreateBody{},
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
			auth:    true, bucket: bucketDefault, body: definitionUpdateBody{},
			status: http.StatusOK, resp: jsonapi.DefinitionDocument{},
			errors:  []int{400, 401, 404, 409, 413, 415, 422, 429},
			handler: handleDefinitionUpdate(st, now, s.baseURL),
		},
		{
			method: "DELETE", path: "/v2/custom_field_definitions/{id}", tag: "Custom Fields",
			summary: "Delete a custom field definition", doc: "Removes the definition with its options and values. Answers 200 without a body, as the reference does.",
			auth: true, bucket: bucketDefault,
			status:  http.StatusOK,
			errors:  []int{400, 401, 404, 429},
			handler: handleDefinitionDelete(st),
		},
	}
}

// definitionCreateBody is the body of POST /v2/custom_field_definitions.
type definitionCreateBody struct {
	Data struct {
		Type       string `json:"type" enum:"custom_field_definition"`
		Attributes struct {
			EntityType    string              `json:"entity_type" enum:"Shipment,Container,TrackingRequest"`
			APISlug       string              `json:"api_slug" doc:"Unique per entity type."`
			DisplayName   string              `json:"display_name"`
			DataType      string              `json:"data_type" enum:"short_text,number,date,datetime,boolean,enum,enum_multi,reference"`
			ReferenceType string              `json:"reference_type,omitempty" doc:"party, for a reference field."`
			DefaultFormat string              `json:"default_format,omitempty"`
			Validation    *map[string]float64 `json:"validation,omitempty" maxProperties:"4" invalid:"validation is an object of numeric limits, or null." items:"A limit is a number." doc:"max_length for short_text; min and max for number."`
			DefaultValue  any                 `json:"default_value,omitempty" doc:"A value of the data type, or null."`
		} `json:"attributes"`
		resourceMeta
	} `json:"data"`
	documentMeta
}

// definitionUpdateBody is the body of PATCH /v2/custom_field_definitions/{id}.
type definitionUpdateBody struct {
	Data struct {
		Type       string            `json:"type" enum:"custom_field_definition"`
		ID         string            `json:"id,omitempty" format:"uuid"`
		Attributes definitionChanges `json:"attributes"`
		resourceMeta
	} `json:"data"`
	documentMeta
}

// definitionChanges are what an update may change of a definition; null clears default_format,
// validation and default_value.
type definitionChanges struct {
	DisplayName   *string                      `json:"display_name,omitempty"`
	DefaultFormat optional[string]             `json:"default_format,omitempty"`
	Validation    optional[map[string]float64] `json:"validation,omitempty" maxProperties:"4" invalid:"validation is an object of numeric limits, or null." items:"A limit is a number." doc:"max_length for short_text; min and max for number."`
	DefaultValue  optional[any]                `json:"default_value,omitempty" doc:"A value of the data type, or null."`
}

func (definitionChanges) refused() ([]string, string) {
	return []string{"entity_type", "api_slug", "data_type", "reference_type"}, "%s is fixed when the definition is created."
}

// decodeDefinitionCreate reads a definition's create body into d, and returns its default value.
func decodeDefinitionCreate(body []byte, d *boxwatch.CustomFieldDefinition) (defaultValue any, err error) {
	b, err := decodeBody[definitionCreateBody](body, "")
	if err != nil {
		return nil, err
	}
	a := b.Data.Attributes
	d.EntityType, d.APISlug, d.DisplayName, d.DataType = a.EntityType, a.APISlug, a.DisplayName, a.DataType
	d.ReferenceType, d.DefaultFormat = a.ReferenceType, a.DefaultFormat
	if a.Validation != nil {
		d.Validation = *a.Validation
	}
	return a.DefaultValue, nil
}

// decodeDefinitionUpdate reads an update of definition d over it; hasDefault tells whether it
// sets the default value (to defaultValue, nil for none).
func decodeDefinitionUpdate(body []byte, d *boxwatch.CustomFieldDefinition) (defaultValue any, hasDefault bool, err error) {
	b, err := decodeBody[definitionUpdateBody](body, d.ID)
	if err != nil {
		return nil, false, err
	}
	a := b.Data.Attributes
	if a.DisplayName != nil {
		d.DisplayName = *a.DisplayName
	}
	if a.DefaultFormat.Set {
		d.DefaultFormat = ""
		if a.DefaultFormat.Value != nil {
			d.DefaultFormat = *a.DefaultFormat.Value
		}
	}
	if a.Validation.Set {
		d.Validation = nil
		if a.Validation.Value != nil {
			d.Validation = *a.Validation.Value
		}
	}
	if a.DefaultValue.Value != nil {
		defaultValue = *a.DefaultValue.Value
	}
	return defaultValue, a.DefaultValue.Set, nil
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
		def, err := decodeDefinitionCreate(body, &d)
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
		lp.data, lp.included, lp.total = make([]jsonapi.DefinitionResource, len(list)), []any{}, boxwatch.Total{N: total}
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
		def, hasDefault, err := decodeDefinitionUpdate(body, &d)
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
		writeEmpty(w, http.StatusOK)
		return nil
	}
}
