package api

import (
	"net/http"
	"strings"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
)

// Custom fields are the values of custom field definitions (definitions.go, options.go) set on
// shipments, containers and tracking requests, reached by id or under the resource by the
// definition's API slug.

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
			auth: true, bucket: bucketDefault, body: customFieldCreateBody{},
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
			auth: true, bucket: bucketDefault, body: customFieldValueBody{},
			status: http.StatusOK, resp: jsonapi.CustomFieldDocument{},
			errors:  []int{400, 401, 404, 409, 413, 415, 422, 429},
			handler: handleCustomFieldUpdate(st, now, s.baseURL, ""),
		},
		{
			method: "DELETE", path: "/v2/custom_fields/{id}", tag: "Custom Fields",
			summary: "Delete a custom field", doc: "Clears the value. Answers 200 without a body, as the reference does.",
			auth: true, bucket: bucketDefault,
			status:  http.StatusOK,
			errors:  []int{400, 401, 404, 429},
			handler: handleCustomFieldDelete(st, "", http.StatusOK),
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
				auth:    true, bucket: bucketDefault, body: customFieldSetBody{},
				status: http.StatusCreated, resp: jsonapi.CustomFieldDocument{},
				errors:  []int{400, 401, 404, 409, 413, 415, 422, 429},
				handler: handleCustomFieldCreate(st, now, s.baseURL, e.entity),
			},
			route{
				method: "PATCH", path: base + "/{api_slug}", tag: "Custom Fields",
				summary: "Change a " + e.name + "'s custom field",
				doc:     "Sets the value of the definition the path's api_slug names, replacing any value.",
				auth:    true, bucket: bucketDefault, body: customFieldValueBody{},
				status: http.StatusOK, resp: jsonapi.CustomFieldDocument{},
				errors:  []int{400, 401, 404, 409, 413, 415, 422, 429},
				handler: handleCustomFieldUpdate(st, now, s.baseURL, e.entity),
			},
			route{
				method: "DELETE", path: base + "/{api_slug}", tag: "Custom Fields",
				summary: "Clear a " + e.name + "'s custom field", doc: "Removes the value of the definition the path's api_slug names. Answers 204, as the reference does.",
				auth: true, bucket: bucketDefault,
				status:  http.StatusNoContent,
				errors:  []int{400, 401, 404, 429},
				handler: handleCustomFieldDelete(st, e.entity, http.StatusNoContent),
			},
		)
	}
	return out
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

// partyExists tells whether the account has a party, for reference values.
func partyExists(r *http.Request, st boxwatch.PartyStore) func(string) bool {
	return func(id string) bool {
		_, err := st.Party(r.Context(), account(r).ID, id)
		return err == nil
	}
}

// customFieldCreateBody is the body of POST /v2/custom_fields, which names the resource the
// value is set on.
type customFieldCreateBody struct {
	Data struct {
		Type          string              `json:"type" enum:"custom_field"`
		Relationships entityRelationships `json:"relationships"`
		Attributes    customFieldSetting  `json:"attributes"`
		resourceMeta
	} `json:"data"`
	documentMeta
}

// customFieldSetBody is the body of POST /v2/{resources}/{id}/custom_fields.
type customFieldSetBody struct {
	Data struct {
		Type       string             `json:"type" enum:"custom_field"`
		Attributes customFieldSetting `json:"attributes"`
		resourceMeta
	} `json:"data"`
	documentMeta
}

// customFieldSetting names a definition and gives its value.
type customFieldSetting struct {
	APISlug string `json:"api_slug" minLength:"1" blank:"api_slug can't be blank: it names the definition." doc:"The definition's API slug."`
	Value   any    `json:"value" blank:"value can't be blank; delete the custom field to clear it." doc:"A value of the definition's data type."`
}

// customFieldValueBody is the body of PATCH /v2/custom_fields/{id} and of PATCH
// /v2/{resources}/{id}/custom_fields/{api_slug}: the new value.
type customFieldValueBody struct {
	Data struct {
		Type       string `json:"type" enum:"custom_field"`
		Attributes struct {
			Value any `json:"value" blank:"value can't be blank; delete the custom field to clear it." doc:"A value of the definition's data type."`
		} `json:"attributes"`
		resourceMeta
	} `json:"data"`
	documentMeta
}

// entityRelationships names the resource a custom field is set on.
type entityRelationships struct {
	Entity entityLink `json:"entity" doc:"The shipment, container or tracking request."`
	// entityType and id are what Entity names, entityType as boxwatch.EntityTypes keys it.
	entityType, id string
}

// entityLink names a shipment, container or tracking request.
type entityLink struct {
	Data entityIdentifier `json:"data"`
}

// entityIdentifier is the resource identifier of a shipment, container or tracking request.
type entityIdentifier struct {
	Type string `json:"type" enum:"shipment,container,tracking_request"`
	ID   string `json:"id" format:"uuid"`
}

func (entityLink) ignoresOtherMembers()       {}
func (entityIdentifier) ignoresOtherMembers() {}

// decodeMember reads relationships.entity, which is required.
func (e *entityRelationships) decodeMember(raw any, _ bool, pointer string) error {
	rels, ok := raw.(map[string]any)
	if !ok {
		return boxwatch.Invalid(pointer, boxwatch.CodeBlank, "relationships.entity names the shipment, container or tracking request.")
	}
	for k := range rels {
		if k != "entity" {
			return boxwatch.Invalid(pointer+"/"+escapePointer(k), boxwatch.CodeNotSupported, "Only the entity relationship can be set.")
		}
	}
	ident, _ := rels["entity"].(map[string]any)
	ident, _ = ident["data"].(map[string]any)
	typ, _ := ident["type"].(string)
	e.id, _ = ident["id"].(string)
	for name, jsonType := range boxwatch.EntityTypes {
		if jsonType == typ {
			e.entityType = name
		}
	}
	if e.entityType == "" {
		return boxwatch.Invalid(pointer+"/entity/data/type", boxwatch.CodeInvalid, "The entity is a shipment, container or tracking_request.")
	}
	e.Entity.Data = entityIdentifier{Type: typ, ID: e.id}
	return nil
}

// customFieldInput is what a custom field body says.
type customFieldInput struct {
	slug, entityType, entityID string
	value                      any
}

// decodeCustomField reads a custom field body. withSlug: the body names the definition
// (create); withEntity: it names the resource in relationships.entity (POST /v2/custom_fields).
func decodeCustomField(body []byte, withSlug, withEntity bool) (customFieldInput, error) {
	switch {
	case withEntity:
		b, err := decodeBody[customFieldCreateBody](body, "")
		rel, a := b.Data.Relationships, b.Data.Attributes
		return customFieldInput{slug: a.APISlug, entityType: rel.entityType, entityID: rel.id, value: a.Value}, err
	case withSlug:
		b, err := decodeBody[customFieldSetBody](body, "")
		return customFieldInput{slug: b.Data.Attributes.APISlug, value: b.Data.Attributes.Value}, err
	default:
		b, err := decodeBody[customFieldValueBody](body, "")
		return customFieldInput{value: b.Data.Attributes.Value}, err
	}
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
		lp.data, lp.included, lp.total = make([]jsonapi.CustomFieldResource, len(list)), []any{}, boxwatch.Total{N: total}
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

// handleCustomFieldDelete clears a value and answers status, which the reference documents per path.
func handleCustomFieldDelete(st entityFieldStores, entityType string, status int) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		f, _, err := customFieldOfPath(r, st, entityType)
		if err != nil {
			return err
		}
		if err := st.DeleteCustomField(r.Context(), account(r).ID, f.ID); err != nil {
			return err
		}
		writeEmpty(w, status)
		return nil
	}
}
