package api

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
)

// definitionRoutes are the custom field definition endpoints, their options included.
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
		{
			method: "POST", path: "/v2/custom_field_definitions/{id}/options", tag: "Custom Fields",
			summary: "Add an option to an enum definition", doc: "Adds a choice (label and value, value unique in the definition) to an enum or enum_multi definition.",
			auth: true, bucket: bucketDefault, body: optionBody{},
			status: http.StatusCreated, resp: jsonapi.OptionDocument{},
			errors:  []int{400, 401, 404, 409, 413, 415, 422, 429},
			handler: handleOptionCreate(st, now, s.baseURL),
		},
		{
			method: "GET", path: "/v2/custom_field_definitions/{id}/options", tag: "Custom Fields",
			summary: "List a definition's options", doc: "Returns every option by position (those without last), then oldest first. Not paginated.",
			auth: true, bucket: bucketDefault,
			status: http.StatusOK, resp: jsonapi.OptionListDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handleOptionList(st, s.baseURL),
		},
		{
			method: "GET", path: "/v2/custom_field_definitions/{id}/options/{option_id}", tag: "Custom Fields",
			summary: "Get an option", doc: "Returns one option of a definition.",
			auth: true, bucket: bucketDefault,
			status: http.StatusOK, resp: jsonapi.OptionDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handleOptionGet(st, s.baseURL),
		},
		{
			method: "PATCH", path: "/v2/custom_field_definitions/{id}/options/{option_id}", tag: "Custom Fields",
			summary: "Update an option", doc: "Changes an option's label, value or position. Values that chose the old value keep it.",
			auth: true, bucket: bucketDefault, body: optionBody{},
			status: http.StatusOK, resp: jsonapi.OptionDocument{},
			errors:  []int{400, 401, 404, 409, 413, 415, 422, 429},
			handler: handleOptionUpdate(st, now, s.baseURL),
		},
		{
			method: "DELETE", path: "/v2/custom_field_definitions/{id}/options/{option_id}", tag: "Custom Fields",
			summary: "Delete an option", doc: "Removes an option. Answers 204.",
			auth: true, bucket: bucketDefault,
			status:  http.StatusNoContent,
			errors:  []int{400, 401, 404, 429},
			handler: handleOptionDelete(st),
		},
	}
}

// customFieldRoutes are the custom field endpoints, those under each resource that has them
// (entityCustomFieldRoutes) included.
func (s *server) customFieldRoutes() []route {
	st, now := s.cfg.Store, s.cfg.Clock
	return append([]route{
		{
			method: "POST", path: "/v2/custom_fields", tag: "Custom Fields",
			summary: "Set a custom field",
			doc: "Sets the value of the definition api_slug names on the resource relationships.entity names (a shipment, container " +
				"or tracking_request of the account); a value already set is replaced.",
			auth: true, bucket: bucketDefault, body: customFieldBody{},
			status: http.StatusCreated, resp: jsonapi.CustomFieldDocument{},
			errors:  []int{400, 401, 409, 413, 415, 422, 429},
			handler: handleCustomFieldCreate(st, now, s.baseURL, ""),
		},
		{
			method: "GET", path: "/v2/custom_fields", tag: "Custom Fields",
			summary: "List custom fields", doc: "Returns the account's custom field values, newest first.",
			auth: true, bucket: bucketDefault, params: customFieldListParams,
			status: http.StatusOK, resp: jsonapi.CustomFieldListDocument{},
			errors:  []int{400, 401, 429},
			handler: handleCustomFieldList(st, s.listLinks, ""),
		},
		{
			method: "GET", path: "/v2/custom_fields/{id}", tag: "Custom Fields",
			summary: "Get a custom field", doc: "Returns one custom field value.",
			auth: true, bucket: bucketDefault,
			status: http.StatusOK, resp: jsonapi.CustomFieldDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handleCustomFieldGet(st, s.baseURL),
		},
		{
			method: "PATCH", path: "/v2/custom_fields/{id}", tag: "Custom Fields",
			summary: "Change a custom field's value", doc: "Replaces the value, checked against the definition.",
			auth: true, bucket: bucketDefault, body: customFieldBody{},
			status: http.StatusOK, resp: jsonapi.CustomFieldDocument{},
			errors:  []int{400, 401, 404, 409, 413, 415, 422, 429},
			handler: handleCustomFieldUpdate(st, now, s.baseURL, ""),
		},
		{
			method: "DELETE", path: "/v2/custom_fields/{id}", tag: "Custom Fields",
			summary: "Delete a custom field", doc: "Clears the value. Answers 204.",
			auth: true, bucket: bucketDefault,
			status:  http.StatusNoContent,
			errors:  []int{400, 401, 404, 429},
			handler: handleCustomFieldDelete(st, ""),
		},
	}, s.entityCustomFieldRoutes()...)
}

// entityCustomFieldRoutes are the custom field routes under each resource that has them: the same
// four endpoints for shipments, containers and tracking requests.
func (s *server) entityCustomFieldRoutes() []route {
	st, now := s.cfg.Store, s.cfg.Clock
	var out []route
	for _, e := range []struct{ resources, entity, name string }{
		{"shipments", boxwatch.EntityShipment, "shipment"},
		{"containers", boxwatch.EntityContainer, "container"},
		{"tracking_requests", boxwatch.EntityTrackingRequest, "tracking request"},
	} {
		base := "/v2/" + e.resources + "/{id}/custom_fields"
		out = append(out,
			route{
				method: "GET", path: base, tag: "Custom Fields",
				summary: "List a " + e.name + "'s custom fields", doc: "Returns the custom field values of one " + e.name + ", newest first.",
				auth: true, bucket: bucketDefault, params: []param{paramPageNumber, paramPageSize},
				status: http.StatusOK, resp: jsonapi.CustomFieldListDocument{},
				errors:  []int{400, 401, 404, 429},
				handler: handleCustomFieldList(st, s.listLinks, e.entity),
			},
			route{
				method: "POST", path: base, tag: "Custom Fields",
				summary: "Set a " + e.name + "'s custom field",
				doc:     "Sets the value of the " + e.entity + " definition api_slug names on the " + e.name + "; a value already set is replaced.",
				auth:    true, bucket: bucketDefault, body: customFieldBody{},
				status: http.StatusCreated, resp: jsonapi.CustomFieldDocument{},
				errors:  []int{400, 401, 404, 409, 413, 415, 422, 429},
				handler: handleCustomFieldCreate(st, now, s.baseURL, e.entity),
			},
			route{
				method: "PATCH", path: base + "/{api_slug}", tag: "Custom Fields",
				summary: "Change a " + e.name + "'s custom field",
				doc:     "Sets the value of the definition the path's api_slug names, replacing any value.",
				auth:    true, bucket: bucketDefault, body: customFieldBody{},
				status: http.StatusOK, resp: jsonapi.CustomFieldDocument{},
				errors:  []int{400, 401, 404, 409, 413, 415, 422, 429},
				handler: handleCustomFieldUpdate(st, now, s.baseURL, e.entity),
			},
			route{
				method: "DELETE", path: base + "/{api_slug}", tag: "Custom Fields",
				summary: "Clear a " + e.name + "'s custom field", doc: "Removes the value of the definition the path's api_slug names. Answers 204.",
				auth: true, bucket: bucketDefault,
				status:  http.StatusNoContent,
				errors:  []int{400, 401, 404, 429},
				handler: handleCustomFieldDelete(st, e.entity),
			},
		)
	}
	return out
}

// Custom fields: definitions with their options, and the values set on shipments, containers and
// tracking requests, reached by id or under the resource by the definition's API slug.

// plainJSON turns the decoder's json.Number values into float64, as the domain reads values.
func plainJSON(v any) (any, error) {
	switch v := v.(type) {
	case json.Number:
		f, err := v.Float64()
		if err != nil || math.IsInf(f, 0) {
			return nil, boxwatch.Invalid("/data/attributes/value", boxwatch.CodeInvalid, "The number is out of range.")
		}
		return f, nil
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			var err error
			if out[i], err = plainJSON(item); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return v, nil
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

// valueStores reads what checking a custom field value needs (its definition and options, and
// the parties reference values name) and stores definitions and values.
type valueStores interface {
	boxwatch.CustomFieldStore
	boxwatch.PartyStore
}

// entityFieldStores reads custom fields and the resources they are set on.
type entityFieldStores interface {
	boxwatch.CustomFieldStore
	trackedStores
}

// fieldStores reads and sets custom fields, checking their values.
type fieldStores interface {
	entityFieldStores
	boxwatch.PartyStore
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

func partyExists(r *http.Request, st boxwatch.PartyStore) func(string) bool {
	return func(id string) bool {
		_, err := st.Party(r.Context(), account(r).ID, id)
		return err == nil
	}
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

// optionBody documents an option's create and update body.
type optionBody struct {
	Data struct {
		Type       string `json:"type" enum:"custom_field_option"`
		ID         string `json:"id,omitempty" format:"uuid"`
		Attributes struct {
			Label    string `json:"label" doc:"1 to 100 characters."`
			Value    string `json:"value" doc:"1 to 100 characters, unique in the definition."`
			Position *int   `json:"position,omitempty"`
		} `json:"attributes"`
	} `json:"data"`
}

// decodeOption reads an option's create body into o (id "") or its update body over o.
func decodeOption(body []byte, o *boxwatch.CustomFieldOption, id string) error {
	doc, err := parseJSON(body)
	if err != nil {
		return err
	}
	attrs, err := resourceObject(doc, "custom_field_option", id)
	if err != nil {
		return err
	}
	if err := attrs.only("label", "value", "position"); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"label", &o.Label}, {"value", &o.Value}} {
		v, present, err := attrs.str(f.name)
		if err != nil {
			return err
		}
		if present || id == "" {
			*f.dst = strings.TrimSpace(v)
		}
		switch {
		case *f.dst == "":
			return boxwatch.Invalid(attrs.pointer+"/"+f.name, boxwatch.CodeBlank, "%s can't be blank.", f.name)
		case len([]rune(*f.dst)) > boxwatch.MaxOptionLen:
			return boxwatch.Invalid(attrs.pointer+"/"+f.name, boxwatch.CodeTooLong, "%s is at most %d characters.", f.name, boxwatch.MaxOptionLen)
		}
	}
	if raw, ok := attrs.m["position"]; ok {
		o.Position = nil
		if raw != nil {
			n, ok := raw.(json.Number)
			p, err := n.Int64()
			if !ok || err != nil || p < 0 || p > 10000 {
				return boxwatch.Invalid(attrs.pointer+"/position", boxwatch.CodeInvalid, "position is a whole number from 0 to 10000, or null.")
			}
			pos := int(p)
			o.Position = &pos
		}
	}
	return nil
}

// enumDefinition returns the account's definition of the path if it takes options.
func enumDefinition(r *http.Request, st boxwatch.CustomFieldStore) (boxwatch.CustomFieldDefinition, error) {
	d, err := st.CustomFieldDefinition(r.Context(), account(r).ID, r.PathValue("id"))
	if err != nil {
		return d, err
	}
	if d.DataType != boxwatch.DataEnum && d.DataType != boxwatch.DataEnumMulti {
		return d, boxwatch.Invalid("/data", boxwatch.CodeNotSupported, "Only enum and enum_multi definitions have options; this one is %s.", d.DataType)
	}
	return d, nil
}

func handleOptionCreate(st boxwatch.CustomFieldStore, now boxwatch.Clock, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		d, err := enumDefinition(r, st)
		if err != nil {
			return err
		}
		body, err := readBody(w, r)
		if err != nil {
			return err
		}
		t := now()
		o := boxwatch.CustomFieldOption{ID: boxwatch.NewID(t), AccountID: d.AccountID, DefinitionID: d.ID, CreatedAt: t, UpdatedAt: t}
		if err := decodeOption(body, &o, ""); err != nil {
			return err
		}
		if err := st.CreateCustomFieldOption(r.Context(), o); err != nil {
			return err
		}
		res := jsonapi.Option(o)
		w.Header().Set("Location", base(r)+res.Links.Self)
		writeResource(w, http.StatusCreated, base(r)+res.Links.Self, res, nil)
		return nil
	}
}

func handleOptionList(st boxwatch.CustomFieldStore, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		d, err := st.CustomFieldDefinition(r.Context(), account(r).ID, r.PathValue("id"))
		if err != nil {
			return err
		}
		list, err := st.CustomFieldOptions(r.Context(), d.AccountID, d.ID)
		if err != nil {
			return err
		}
		data := make([]jsonapi.OptionResource, len(list))
		for i, o := range list {
			data[i] = jsonapi.Option(o)
		}
		writeJSON(w, http.StatusOK, jsonapi.OptionListDocument{Data: data, Links: &jsonapi.Links{Self: base(r) + r.URL.Path}})
		return nil
	}
}

func handleOptionGet(st boxwatch.CustomFieldStore, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		o, err := st.CustomFieldOption(r.Context(), account(r).ID, r.PathValue("id"), r.PathValue("option_id"))
		if err != nil {
			return err
		}
		res := jsonapi.Option(o)
		writeResource(w, http.StatusOK, base(r)+res.Links.Self, res, nil)
		return nil
	}
}

func handleOptionUpdate(st boxwatch.CustomFieldStore, now boxwatch.Clock, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		o, err := st.CustomFieldOption(r.Context(), account(r).ID, r.PathValue("id"), r.PathValue("option_id"))
		if err != nil {
			return err
		}
		body, err := readBody(w, r)
		if err != nil {
			return err
		}
		if err := decodeOption(body, &o, o.ID); err != nil {
			return err
		}
		o.UpdatedAt = now()
		if err := st.UpdateCustomFieldOption(r.Context(), o); err != nil {
			return err
		}
		res := jsonapi.Option(o)
		writeResource(w, http.StatusOK, base(r)+res.Links.Self, res, nil)
		return nil
	}
}

func handleOptionDelete(st boxwatch.CustomFieldStore) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := st.DeleteCustomFieldOption(r.Context(), account(r).ID, r.PathValue("id"), r.PathValue("option_id")); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}

// customFieldBody documents a custom field's create body; under a resource's path the
// relationships member is left out, and an update sends the value only.
type customFieldBody struct {
	Data struct {
		Type       string `json:"type" enum:"custom_field"`
		Attributes struct {
			APISlug string `json:"api_slug,omitempty" doc:"The definition's API slug; on create only."`
			Value   any    `json:"value" doc:"A value of the definition's data type."`
		} `json:"attributes"`
		Relationships struct {
			Entity jsonapi.ToOne `json:"entity" doc:"The shipment, container or tracking request; POST /v2/custom_fields only."`
		} `json:"relationships,omitempty"`
	} `json:"data"`
}

// customFieldInput is what a custom field body says.
type customFieldInput struct {
	slug, entityType, entityID string
	value                      any
}

// decodeCustomField reads a custom field body. withSlug: the body names the definition
// (create); withEntity: it names the resource in relationships.entity (POST /v2/custom_fields).
func decodeCustomField(body []byte, withSlug, withEntity bool) (customFieldInput, error) {
	var in customFieldInput
	doc, err := parseJSON(body)
	if err != nil {
		return in, err
	}
	if withEntity {
		if in.entityType, in.entityID, err = takeEntity(doc); err != nil {
			return in, err
		}
	}
	attrs, err := resourceObject(doc, "custom_field", "")
	if err != nil {
		return in, err
	}
	allowed := []string{"value"}
	if withSlug {
		allowed = append(allowed, "api_slug")
	}
	if err := attrs.only(allowed...); err != nil {
		return in, err
	}
	if withSlug {
		var present bool
		if in.slug, present, err = attrs.str("api_slug"); err != nil {
			return in, err
		}
		if !present || in.slug == "" {
			return in, boxwatch.Invalid(attrs.pointer+"/api_slug", boxwatch.CodeBlank, "api_slug can't be blank: it names the definition.")
		}
	}
	raw, ok := attrs.m["value"]
	if !ok || raw == nil {
		return in, boxwatch.Invalid(attrs.pointer+"/value", boxwatch.CodeBlank, "value can't be blank; delete the custom field to clear it.")
	}
	in.value, err = plainJSON(raw)
	return in, err
}

// takeEntity removes relationships.entity from a custom field body and returns the resource it names.
func takeEntity(doc any) (entityType, id string, err error) {
	top, _ := doc.(map[string]any)
	data, _ := top["data"].(map[string]any)
	rels, ok := data["relationships"].(map[string]any)
	if !ok {
		return "", "", boxwatch.Invalid("/data/relationships", boxwatch.CodeBlank, "relationships.entity names the shipment, container or tracking request.")
	}
	delete(data, "relationships")
	for k := range rels {
		if k != "entity" {
			return "", "", boxwatch.Invalid("/data/relationships/"+escapePointer(k), boxwatch.CodeNotSupported, "Only the entity relationship can be set.")
		}
	}
	ident, _ := rels["entity"].(map[string]any)
	ident, _ = ident["data"].(map[string]any)
	typ, _ := ident["type"].(string)
	id, _ = ident["id"].(string)
	for name, jsonType := range boxwatch.EntityTypes {
		if jsonType == typ {
			entityType = name
		}
	}
	if entityType == "" {
		return "", "", boxwatch.Invalid("/data/relationships/entity/data/type", boxwatch.CodeInvalid, "The entity is a shipment, container or tracking_request.")
	}
	return entityType, id, nil
}

// entityExists tells whether the account has the resource a custom field is set on.
func entityExists(r *http.Request, st trackedStores, entityType, id string) error {
	acct := account(r).ID
	var err error
	switch entityType {
	case boxwatch.EntityShipment:
		_, err = st.Shipment(r.Context(), acct, id)
	case boxwatch.EntityContainer:
		_, err = st.Container(r.Context(), acct, id)
	case boxwatch.EntityTrackingRequest:
		_, err = st.TrackingRequest(r.Context(), acct, id)
	default:
		err = boxwatch.ErrNotFound
	}
	return err
}

// setCustomField checks a value against its definition and stores it on the resource.
func setCustomField(r *http.Request, st valueStores, now boxwatch.Clock, d boxwatch.CustomFieldDefinition, entityID string, v any) (boxwatch.CustomField, []boxwatch.CustomFieldOption, error) {
	options, err := st.CustomFieldOptions(r.Context(), d.AccountID, d.ID)
	if err != nil {
		return boxwatch.CustomField{}, nil, err
	}
	value, err := d.CheckValue(v, "/data/attributes/value", options, partyExists(r, st))
	if err != nil {
		return boxwatch.CustomField{}, nil, err
	}
	t := now()
	f, err := st.SetCustomField(r.Context(), boxwatch.CustomField{ID: boxwatch.NewID(t), AccountID: d.AccountID, DefinitionID: d.ID,
		EntityID: entityID, Value: value, CreatedAt: t, UpdatedAt: t})
	return f, options, err
}

// definitionBySlug finds the definition a body or path names; an unknown slug is a 422 at its pointer.
func definitionBySlug(r *http.Request, st boxwatch.CustomFieldStore, entityType, slug, pointer string) (boxwatch.CustomFieldDefinition, error) {
	d, err := st.CustomFieldDefinitionBySlug(r.Context(), account(r).ID, entityType, slug)
	if boxwatch.IsKind(err, boxwatch.KindNotFound) && pointer != "" {
		return d, boxwatch.Invalid(pointer, boxwatch.CodeNotFound, "No %s custom field is called '%s'.", entityType, slug)
	}
	return d, err
}

func writeCustomField(w http.ResponseWriter, r *http.Request, status int, base func(*http.Request) string, f boxwatch.CustomField, options []boxwatch.CustomFieldOption) {
	res := jsonapi.CustomField(f, options)
	if status == http.StatusCreated {
		w.Header().Set("Location", base(r)+res.Links.Self)
	}
	writeResource(w, status, base(r)+res.Links.Self, res, nil)
}

// handleCustomFieldCreate serves POST /v2/custom_fields (entityType "": the body names the
// resource) and POST /v2/{resources}/{id}/custom_fields.
func handleCustomFieldCreate(st fieldStores, now boxwatch.Clock, base func(*http.Request) string, entityType string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		entityID := r.PathValue("id")
		if entityType != "" {
			if err := entityExists(r, st, entityType, entityID); err != nil {
				return err
			}
		}
		body, err := readBody(w, r)
		if err != nil {
			return err
		}
		in, err := decodeCustomField(body, true, entityType == "")
		if err != nil {
			return err
		}
		if entityType == "" {
			entityType, entityID = in.entityType, in.entityID
			if err := entityExists(r, st, entityType, entityID); err != nil {
				if boxwatch.IsKind(err, boxwatch.KindNotFound) {
					return boxwatch.Invalid("/data/relationships/entity/data/id", boxwatch.CodeNotFound, "The account has no %s with this id.", boxwatch.EntityTypes[entityType])
				}
				return err
			}
		}
		d, err := definitionBySlug(r, st, entityType, in.slug, "/data/attributes/api_slug")
		if err != nil {
			return err
		}
		f, options, err := setCustomField(r, st, now, d, entityID, in.value)
		if err != nil {
			return err
		}
		writeCustomField(w, r, http.StatusCreated, base, f, options)
		return nil
	}
}

var customFieldListParams = []param{
	paramPageNumber, paramPageSize,
	{name: "filter[entity_type]", typ: "string", enum: []string{"Shipment", "Container", "TrackingRequest"}, doc: "Only fields of this entity type."},
	{name: "filter[entity_id]", typ: "string", format: "uuid", doc: "Only fields of this resource."},
	{name: "filter[definition_id]", typ: "string", format: "uuid", doc: "Only fields of this definition."},
}

// handleCustomFieldList serves GET /v2/custom_fields (entityType "") and GET /v2/{resources}/{id}/custom_fields.
func handleCustomFieldList(st entityFieldStores, pageLinks pageLinker, entityType string) handlerFunc {
	return handleList(pageLinks, func(r *http.Request, page boxwatch.Page) (listPage[jsonapi.CustomFieldResource], error) {
		var lp listPage[jsonapi.CustomFieldResource]
		q := r.URL.Query()
		f := boxwatch.CustomFieldFilter{EntityType: q.Get("filter[entity_type]"), EntityID: q.Get("filter[entity_id]"), DefinitionID: q.Get("filter[definition_id]")}
		if entityType != "" {
			if err := entityExists(r, st, entityType, r.PathValue("id")); err != nil {
				return lp, err
			}
			f = boxwatch.CustomFieldFilter{EntityType: entityType, EntityID: r.PathValue("id")}
		} else if _, ok := boxwatch.EntityTypes[f.EntityType]; f.EntityType != "" && !ok {
			return lp, boxwatch.BadParameter("filter[entity_type]", "filter[entity_type] is Shipment, Container or TrackingRequest.")
		}
		list, total, err := st.CustomFields(r.Context(), account(r).ID, f, page)
		if err != nil {
			return lp, err
		}
		lp.data, lp.included, lp.total = make([]jsonapi.CustomFieldResource, len(list)), []any{}, total
		options := map[string][]boxwatch.CustomFieldOption{}
		for i, cf := range list {
			if _, ok := options[cf.DefinitionID]; !ok {
				if options[cf.DefinitionID], err = st.CustomFieldOptions(r.Context(), cf.AccountID, cf.DefinitionID); err != nil {
					return lp, err
				}
			}
			lp.data[i] = jsonapi.CustomField(cf, options[cf.DefinitionID])
		}
		return lp, nil
	})
}

// customFieldOfPath finds the field a path names: /v2/custom_fields/{id}, or
// /v2/{resources}/{id}/custom_fields/{api_slug} when entityType is set.
func customFieldOfPath(r *http.Request, st entityFieldStores, entityType string) (boxwatch.CustomField, boxwatch.CustomFieldDefinition, error) {
	if entityType == "" {
		return customFieldByID(r, st)
	}
	acct := account(r).ID
	if err := entityExists(r, st, entityType, r.PathValue("id")); err != nil {
		return boxwatch.CustomField{}, boxwatch.CustomFieldDefinition{}, err
	}
	d, err := definitionBySlug(r, st, entityType, r.PathValue("api_slug"), "")
	if err != nil {
		return boxwatch.CustomField{}, d, err
	}
	list, _, err := st.CustomFields(r.Context(), acct, boxwatch.CustomFieldFilter{EntityID: r.PathValue("id"), DefinitionID: d.ID}, boxwatch.Page{Number: 1, Size: 1})
	if err != nil {
		return boxwatch.CustomField{}, d, err
	}
	if len(list) == 0 {
		return boxwatch.CustomField{EntityID: strings.ToLower(r.PathValue("id"))}, d, boxwatch.ErrNotFound
	}
	return list[0], d, nil
}

// customFieldByID finds the field /v2/custom_fields/{id} names, with its definition.
func customFieldByID(r *http.Request, st boxwatch.CustomFieldStore) (boxwatch.CustomField, boxwatch.CustomFieldDefinition, error) {
	acct := account(r).ID
	f, err := st.CustomField(r.Context(), acct, r.PathValue("id"))
	if err != nil {
		return f, boxwatch.CustomFieldDefinition{}, err
	}
	d, err := st.CustomFieldDefinition(r.Context(), acct, f.DefinitionID)
	return f, d, err
}

func handleCustomFieldGet(st boxwatch.CustomFieldStore, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		f, d, err := customFieldByID(r, st)
		if err != nil {
			return err
		}
		options, err := st.CustomFieldOptions(r.Context(), d.AccountID, d.ID)
		if err != nil {
			return err
		}
		writeCustomField(w, r, http.StatusOK, base, f, options)
		return nil
	}
}

// handleCustomFieldUpdate replaces a field's value; under a resource's path, a definition the
// resource has no value of yet gets one, as the reference's upsert by slug does.
func handleCustomFieldUpdate(st fieldStores, now boxwatch.Clock, base func(*http.Request) string, entityType string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		f, d, err := customFieldOfPath(r, st, entityType)
		if err != nil && !(entityType != "" && d.ID != "" && boxwatch.IsKind(err, boxwatch.KindNotFound)) {
			return err
		}
		body, err := readBody(w, r)
		if err != nil {
			return err
		}
		in, err := decodeCustomField(body, false, false)
		if err != nil {
			return err
		}
		f, options, err := setCustomField(r, st, now, d, f.EntityID, in.value)
		if err != nil {
			return err
		}
		writeCustomField(w, r, http.StatusOK, base, f, options)
		return nil
	}
}

func handleCustomFieldDelete(st entityFieldStores, entityType string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		f, _, err := customFieldOfPath(r, st, entityType)
		if err != nil {
			return err
		}
		if err := st.DeleteCustomField(r.Context(), account(r).ID, f.ID); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}

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
