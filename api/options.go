package api

import (
	"net/http"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
)

// optionRoutes are the endpoints of the options of enum definitions.
func (s *server) optionRoutes() []route {
	st, now := s.cfg.Store, s.cfg.Clock
	return []route{
		{
			method: "POST", path: "/v2/custom_field_definitions/{id}/options", tag: "Custom Fields",
			summary: "Add an option to an enum definition", doc: "Adds a choice (label and value, value unique in the definition) to an enum or enum_multi definition.",
			auth: true, bucket: bucketDefault, body: optionCreateBody{},
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
			auth: true, bucket: bucketDefault, body: optionUpdateBody{},
			status: http.StatusOK, resp: jsonapi.OptionDocument{},
			errors:  []int{400, 401, 404, 409, 413, 415, 422, 429},
			handler: handleOptionUpdate(st, now, s.baseURL),
		},
		{
			method: "DELETE", path: "/v2/custom_field_definitions/{id}/options/{option_id}", tag: "Custom Fields",
			summary: "Delete an option", doc: "Removes an option. Answers 200 without a body, as the reference does.",
			auth: true, bucket: bucketDefault,
			status:  http.StatusOK,
			errors:  []int{400, 401, 404, 429},
			handler: handleOptionDelete(st),
		},
	}
}

// optionCreateBody is the body of POST /v2/custom_field_definitions/{id}/options.
type optionCreateBody struct {
	Data struct {
		Type       string `json:"type" enum:"custom_field_option"`
		Attributes struct {
			Label    string `json:"label" trim:"space" minLength:"1" maxLength:"100" blank:"%s can't be blank." doc:"Trimmed."`
			Value    string `json:"value" trim:"space" minLength:"1" maxLength:"100" blank:"%s can't be blank." doc:"Trimmed; unique in the definition."`
			Position *int   `json:"position,omitempty" minimum:"0" maximum:"10000" invalid:"position is a whole number from 0 to 10000, or null."`
		} `json:"attributes"`
		resourceMeta
	} `json:"data"`
	documentMeta
}

// optionUpdateBody is the body of PATCH /v2/custom_field_definitions/{id}/options/{option_id}.
type optionUpdateBody struct {
	Data struct {
		Type       string `json:"type" enum:"custom_field_option"`
		ID         string `json:"id,omitempty" format:"uuid"`
		Attributes struct {
			Label    *string       `json:"label,omitempty" trim:"space" minLength:"1" maxLength:"100" blank:"%s can't be blank." doc:"Trimmed."`
			Value    *string       `json:"value,omitempty" trim:"space" minLength:"1" maxLength:"100" blank:"%s can't be blank." doc:"Trimmed; unique in the definition."`
			Position optional[int] `json:"position,omitempty" minimum:"0" maximum:"10000" invalid:"position is a whole number from 0 to 10000, or null." doc:"null clears it."`
		} `json:"attributes"`
		resourceMeta
	} `json:"data"`
	documentMeta
}

// decodeOptionCreate reads an option's create body into o.
func decodeOptionCreate(body []byte, o *boxwatch.CustomFieldOption) error {
	b, err := decodeBody[optionCreateBody](body, "")
	if err != nil {
		return err
	}
	a := b.Data.Attributes
	o.Label, o.Value, o.Position = a.Label, a.Value, a.Position
	return nil
}

// decodeOptionUpdate reads an update of option o over it.
func decodeOptionUpdate(body []byte, o *boxwatch.CustomFieldOption) error {
	b, err := decodeBody[optionUpdateBody](body, o.ID)
	if err != nil {
		return err
	}
	a := b.Data.Attributes
	if a.Label != nil {
		o.Label = *a.Label
	}
	if a.Value != nil {
		o.Value = *a.Value
	}
	if a.Position.Set {
		o.Position = a.Position.Value
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
		if err := decodeOptionCreate(body, &o); err != nil {
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
		if err := decodeOptionUpdate(body, &o); err != nil {
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
		writeEmpty(w, http.StatusOK)
		return nil
	}
}
