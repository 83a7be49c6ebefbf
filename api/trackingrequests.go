package api

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
	"github.com/boxwatch/boxwatch/store"
)

// trackingRequestRoutes are the tracking request endpoints.
func (s *server) trackingRequestRoutes(rd jsonapi.Renderer) []route {
	st, now, tracker := s.cfg.Store, s.cfg.Clock, s.cfg.Tracker
	return []route{
		{
			method: "POST", path: "/v2/tracking_requests", tag: "Tracking Requests",
			summary: "Create a tracking request",
			doc: "Starts tracking a bill of lading, booking or container number with a shipping line. " +
				"The request is answered at once with status pending; the lookup with the carrier follows. " +
				"A number and SCAC that already have a pending or created request in the account are a duplicate.",
			auth: true, bucket: bucketCreate, body: trackingRequestCreateBody{},
			status: http.StatusCreated, resp: jsonapi.TrackingRequestDocument{},
			errors:  []int{400, 401, 409, 413, 415, 422, 429},
			handler: handleTrackingRequestCreate(st, tracker, s.cfg.Carriers, now, s.baseURL),
		},
		{
			method: "GET", path: "/v2/tracking_requests", tag: "Tracking Requests",
			summary: "List tracking requests",
			doc:     "Returns the account's tracking requests, newest first, one page at a time.",
			auth:    true, bucket: bucketDefault, params: trackingRequestListParams,
			status: http.StatusOK, resp: jsonapi.TrackingRequestListDocument{},
			errors:  []int{400, 401, 429},
			handler: handleTrackingRequestList(st, rd, s.listLinks),
		},
		{
			method: "GET", path: "/v2/tracking_requests/{id}", tag: "Tracking Requests",
			summary: "Get a tracking request",
			doc:     "Returns one tracking request with its shipment (tracked_object) included, as the list does; poll it to follow the lookup, or register a webhook.",
			auth:    true, bucket: bucketDefault, params: []param{paramInclude(jsonapi.TrackingRequestRelationshipNames...)},
			status: http.StatusOK, resp: jsonapi.TrackingRequestDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handleTrackingRequestGet(st, rd, s.baseURL),
		},
		{
			method: "PATCH", path: "/v2/tracking_requests/{id}", tag: "Tracking Requests",
			summary: "Update a tracking request",
			doc: "Replaces the reference numbers of a tracking request. ref_numbers takes a list; " +
				"ref_number (the reference API's form) takes one value and replaces the list with it.",
			auth: true, bucket: bucketDefault, body: trackingRequestUpdateBody{},
			status: http.StatusOK, resp: jsonapi.TrackingRequestDocument{},
			errors:  []int{400, 401, 404, 409, 413, 415, 422, 429},
			handler: handleTrackingRequestUpdate(st, now, s.baseURL),
		},
	}
}

// attrPointer is where a tracking request's attributes are, for errors about them.
const attrPointer = "/data/attributes/"

// nonNil turns a list left out into an empty one.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// trackingRequestCreateBody is the body of POST /v2/tracking_requests.
type trackingRequestCreateBody struct {
	Data struct {
		Type          string                `json:"type" enum:"tracking_request"`
		Relationships customerRelationships `json:"relationships,omitempty"`
		Attributes    struct {
			InitialCustomFields *initialCustomFields `json:"initial_custom_fields,omitempty" doc:"Custom field values set on the shipment and its containers (all of them, or the one named by number) once the lookup creates them; checked against their definitions now."`
			AutoDetect          bool                 `json:"auto_detect_vocc_scac,omitempty" doc:"With true and no scac, the request is created with scac null and the lookup detects the line: the lines infer_number ranks for the number are asked in turn, and the first that knows it becomes the request's scac; when none does, the request fails with scac_auto_detect_failed."`
			RequestType         string               `json:"request_type" enum:"bill_of_lading,booking_number,container"`
			RequestNumber       string               `json:"request_number" doc:"Trimmed and upper-cased. A container number must be valid ISO 6346."`
			SCAC                string               `json:"scac" doc:"The shipping line's SCAC or one of its alternative SCACs; stored as its primary SCAC."`
			RefNumbers          []string             `json:"ref_numbers,omitempty"`
			ShipmentTags        []string             `json:"shipment_tags,omitempty"`
		} `json:"attributes"`
		resourceMeta
	} `json:"data"`
	documentMeta
}

// customerRelationships is the one relationship a tracking request may set: the party its
// shipment is for.
type customerRelationships struct {
	Customer customerLink `json:"customer" doc:"The party the shipment is for; data null for none."`
}

// customerLink names a party.
type customerLink struct {
	Data *partyIdentifier `json:"data,omitempty"`
}

// partyIdentifier is a party's resource identifier.
type partyIdentifier struct {
	Type string `json:"type" enum:"party"`
	ID   string `json:"id" format:"uuid"`
}

func (customerLink) ignoresOtherMembers()    {}
func (partyIdentifier) ignoresOtherMembers() {}

// decodeMember reads relationships.customer, the only relationship a tracking request may set.
func (c *customerRelationships) decodeMember(raw any, present bool, pointer string) error {
	if !present {
		return nil
	}
	rels, ok := raw.(map[string]any)
	if !ok {
		return boxwatch.Invalid(pointer, boxwatch.CodeInvalid, "relationships must be an object.")
	}
	for k := range rels {
		if k != "customer" {
			return boxwatch.Invalid(pointer+"/"+escapePointer(k), boxwatch.CodeNotSupported, "Only the customer relationship can be set on a tracking request.")
		}
	}
	customer, ok := rels["customer"].(map[string]any)
	if !ok {
		return boxwatch.Invalid(pointer+"/customer", boxwatch.CodeInvalid, "customer must be an object with a data member.")
	}
	switch ident := customer["data"].(type) {
	case nil:
		return nil
	case map[string]any:
		if ident["type"] != "party" {
			return boxwatch.Invalid(pointer+"/customer/data/type", boxwatch.CodeInvalid, "A customer is a party.")
		}
		id, _ := ident["id"].(string)
		if !boxwatch.IsUUID(id) {
			return boxwatch.Invalid(pointer+"/customer/data/id", boxwatch.CodeInvalid, "The customer's id must be a party's UUID.")
		}
		c.Customer.Data = &partyIdentifier{Type: "party", ID: id}
		return nil
	default:
		return boxwatch.Invalid(pointer+"/customer/data", boxwatch.CodeInvalid, "customer.data must be a resource identifier or null.")
	}
}

// decodeTrackingRequestCreate reads a create body into a NewTrackingRequest; autoDetect is
// auto_detect_vocc_scac, staged the initial custom field values.
func decodeTrackingRequestCreate(body []byte) (n boxwatch.NewTrackingRequest, autoDetect bool, staged []stagedInput, err error) {
	b, err := decodeBody[trackingRequestCreateBody](body, "")
	if err != nil {
		return n, false, nil, err
	}
	a := b.Data.Attributes
	n = boxwatch.NewTrackingRequest{RequestType: boxwatch.RequestType(a.RequestType), RequestNumber: a.RequestNumber, SCAC: a.SCAC,
		RefNumbers: a.RefNumbers, ShipmentTags: a.ShipmentTags}
	if c := b.Data.Relationships.Customer.Data; c != nil {
		n.CustomerID = c.ID
	}
	return n, a.AutoDetect, a.InitialCustomFields.inputs(attrPointer + "initial_custom_fields"), nil
}

func handleTrackingRequestCreate(st valueStores, tracker boxwatch.Tracker, carriers *boxwatch.Carriers, now boxwatch.Clock, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		body, err := readBody(w, r)
		if err != nil {
			return err
		}
		n, autoDetect, stagedIn, err := decodeTrackingRequestCreate(body)
		if err != nil {
			return err
		}
		staged, err := resolveStaged(r, st, stagedIn)
		if err != nil {
			return err
		}
		// Without a scac, auto-detection leaves the line to the lookup: never a 422 for a number
		// whose line is uncertain.
		n.AutoDetect = autoDetect
		if err := n.Validate(carriers); err != nil {
			return err
		}
		if n.CustomerID != "" {
			if _, err := st.Party(r.Context(), account(r).ID, n.CustomerID); err != nil {
				if boxwatch.IsKind(err, boxwatch.KindNotFound) {
					return boxwatch.Invalid("/data/relationships/customer/data/id", boxwatch.CodeNotFound, "No party of this account has the id '%s'.", n.CustomerID)
				}
				return err
			}
		}
		t := now()
		tr := boxwatch.TrackingRequest{
			ID: boxwatch.NewID(t), AccountID: account(r).ID, RequestType: n.RequestType,
			RequestNumber: n.RequestNumber, SCAC: n.SCAC, RefNumbers: nonNil(n.RefNumbers),
			ShipmentTags: nonNil(n.ShipmentTags), CustomerID: boxwatch.LowerASCII(n.CustomerID), InitialCustomFields: staged,
			Status: boxwatch.StatusPending, CreatedAt: t, UpdatedAt: t,
		}
		if err := tracker.CreateTrackingRequest(r.Context(), tr); err != nil {
			return err
		}
		res := jsonapi.TrackingRequest(tr)
		w.Header().Set("Location", base(r)+res.Links.Self)
		writeResource(w, http.StatusCreated, base(r)+res.Links.Self, res, nil)
		return nil
	}
}

// trackedStores reads tracking requests and the shipments and containers they track: what a
// tracking request includes, what a search finds, and what custom fields are set on.
type trackedStores interface {
	boxwatch.TrackingRequestStore
	boxwatch.ShipmentStore
	boxwatch.ContainerStore
}

// trackedObjects renders the shipments of requests, each once, for include=tracked_object.
func trackedObjects(r *http.Request, st trackedStores, rd jsonapi.Renderer, trs []boxwatch.TrackingRequest) ([]any, error) {
	acct := account(r).ID
	ids := idsOf(trs, func(tr boxwatch.TrackingRequest) string { return tr.ShipmentID })
	shipments, err := st.ShipmentsByID(r.Context(), acct, ids)
	if err != nil {
		return nil, err
	}
	containers, err := st.ContainersOfShipments(r.Context(), acct, ids)
	if err != nil {
		return nil, err
	}
	included := []any{}
	for _, id := range ids {
		if s, ok := shipments[id]; ok {
			included = append(included, rd.Shipment(s, containers[id]))
		}
	}
	return included, nil
}

func handleTrackingRequestGet(st trackedStores, rd jsonapi.Renderer, base func(*http.Request) string) handlerFunc {
	rs := renderer(st)
	return func(w http.ResponseWriter, r *http.Request) error {
		// The reference API includes tracked_object by default, here as in the list.
		if _, err := includes(r.URL.Query(), jsonapi.TrackingRequestRelationshipNames...); err != nil {
			return err
		}
		acct := account(r).ID
		key, keep := renderedKey(r, base, "tracking_request")
		var stamp store.ReadStamp
		if keep && rs != nil {
			if parts, ok := rs.CachedRender(key, acct); ok {
				writeParts(w, parts.Parts...)
				return nil
			}
			stamp = rs.StampReads(store.TrackingRequestRead(r.PathValue("id")))
		}
		tr, err := st.TrackingRequest(r.Context(), acct, r.PathValue("id"))
		if err != nil {
			return err
		}
		switch {
		case !keep || rs == nil:
		case !strings.EqualFold(tr.ID, r.PathValue("id")):
			stamp = store.ReadStamp{} // the path names it otherwise than the store's key: not kept
		case tr.ShipmentID != "":
			stamp = rs.ExtendStamp(stamp, store.ShipmentRead(tr.ShipmentID), store.ShipmentContainersRead(tr.ShipmentID))
		}
		included, err := trackedObjects(r, st, rd, []boxwatch.TrackingRequest{tr})
		if err != nil {
			return err
		}
		res := jsonapi.TrackingRequest(tr)
		if !keep || rs == nil {
			writeResource(w, http.StatusOK, base(r)+res.Links.Self, res, included)
			return nil
		}
		doc := encodeResource(base(r)+res.Links.Self, res, included)
		rs.StoreRender(stamp, key, acct, store.Render{Parts: [][]byte{doc}})
		writeParts(w, doc)
		return nil
	}
}

var trackingRequestListParams = []param{
	paramPageNumber, paramPageSize, paramInclude(jsonapi.TrackingRequestRelationshipNames...),
	{name: "filter[status]", typ: "string", doc: "Only requests with this status.", enum: []string{"pending", "awaiting_manifest", "created", "failed", "tracking_stopped"}},
	{name: "filter[scac]", typ: "string", doc: "Only requests for this shipping line (any of its SCACs)."},
	{name: "filter[request_number]", typ: "string", doc: "Only requests for this number (compared after normalising)."},
	{name: "filter[created_at][start]", typ: "string", format: "date-time", doc: "Only requests created at or after this time."},
	{name: "filter[created_at][end]", typ: "string", format: "date-time", doc: "Only requests created at or before this time."},
	{name: "filter[updated_at][start]", typ: "string", format: "date-time", doc: "Only requests updated at or after this time."},
	{name: "filter[updated_at][end]", typ: "string", format: "date-time", doc: "Only requests updated at or before this time."},
	{name: "q", typ: "string", doc: "Only requests whose number or a reference number contains this text."},
}

// trackingRequestFilter reads the list filters; a value that cannot match is a 400, not an empty page.
func trackingRequestFilter(q url.Values, carriers *boxwatch.Carriers) (boxwatch.TrackingRequestFilter, error) {
	var f boxwatch.TrackingRequestFilter
	if v := q.Get("filter[status]"); v != "" {
		known := false
		for _, s := range boxwatch.Statuses {
			known = known || string(s) == v
		}
		if !known {
			return f, boxwatch.BadParameter("filter[status]", "'%s' is not a tracking request status.", v)
		}
		f.Status = boxwatch.Status(v)
	}
	if v := q.Get("filter[scac]"); v != "" {
		line, ok := carriers.BySCAC(boxwatch.UpperASCII(strings.TrimSpace(v)))
		if !ok {
			return f, boxwatch.BadParameter("filter[scac]", "Scac '%s' is not recognized.", v)
		}
		f.SCAC = line.SCAC
	}
	f.RequestNumber = boxwatch.UpperASCII(strings.TrimSpace(q.Get("filter[request_number]")))
	f.Query = strings.TrimSpace(q.Get("q"))
	if len(f.Query) > 100 {
		return f, boxwatch.BadParameter("q", "q is at most 100 characters.")
	}
	for _, t := range []struct {
		name string
		dst  *time.Time
	}{
		{"filter[created_at][start]", &f.CreatedAfter}, {"filter[created_at][end]", &f.CreatedBefore},
		{"filter[updated_at][start]", &f.UpdatedAfter}, {"filter[updated_at][end]", &f.UpdatedBefore},
	} {
		var err error
		if *t.dst, err = timeParam(q, t.name); err != nil {
			return f, err
		}
	}
	return f, nil
}

// trackingRequestListQuery reads the tracking requests list's filters, and checks its include:
// the reference API includes tracked_object in lists by default; include may name it too.
func trackingRequestListQuery(q url.Values, carriers *boxwatch.Carriers) (boxwatch.TrackingRequestFilter, error) {
	f, err := trackingRequestFilter(q, carriers)
	if err != nil {
		return f, err
	}
	_, err = includes(q, jsonapi.TrackingRequestRelationshipNames...)
	return f, err
}

func handleTrackingRequestList(st trackedStores, rd jsonapi.Renderer, pageLinks pageLinker) handlerFunc {
	return handleFragmentList(pageLinks, trackingRequestPage(pager(st), rd), func(r *http.Request, page boxwatch.Page) (listPage[jsonapi.TrackingRequestResource], error) {
		var lp listPage[jsonapi.TrackingRequestResource]
		f, err := trackingRequestListQuery(r.URL.Query(), rd.Carriers)
		if err != nil {
			return lp, err
		}
		list, total, err := st.TrackingRequests(r.Context(), account(r).ID, f, page)
		if err != nil {
			return lp, err
		}
		if lp.included, err = trackedObjects(r, st, rd, list); err != nil {
			return lp, err
		}
		lp.data, lp.total = make([]jsonapi.TrackingRequestResource, len(list)), total
		for i, tr := range list {
			lp.data[i] = jsonapi.TrackingRequest(tr)
		}
		return lp, nil
	})
}

// trackingRequestUpdateBody is the body of PATCH /v2/tracking_requests/{id}.
type trackingRequestUpdateBody struct {
	Data struct {
		Type       string                 `json:"type" enum:"tracking_request"`
		ID         string                 `json:"id,omitempty" format:"uuid"`
		Attributes trackingRequestChanges `json:"attributes"`
		resourceMeta
	} `json:"data"`
	documentMeta
}

// trackingRequestChanges are what an update may change of a tracking request: its reference
// numbers.
type trackingRequestChanges struct {
	RefNumbers optional[[]string] `json:"ref_numbers,omitempty" doc:"Replaces the reference numbers; null clears them."`
	RefNumber  *string            `json:"ref_number,omitempty" doc:"Replaces the reference numbers with this one value."`
}

func (trackingRequestChanges) refused() ([]string, string) {
	return []string{"request_number", "request_type", "scac", "status", "failed_reason", "is_retrying",
		"retry_count", "created_at", "updated_at", "shipment_tags", "tags"}, "%s cannot be changed; only ref_numbers can."
}

// decodeTrackingRequestUpdate reads the reference numbers an update of request id replaces.
func decodeTrackingRequestUpdate(body []byte, id string) ([]string, error) {
	b, err := decodeBody[trackingRequestUpdateBody](body, id)
	if err != nil {
		return nil, err
	}
	a := b.Data.Attributes
	var refs []string
	switch {
	case a.RefNumbers.Value != nil && a.RefNumber != nil:
		return nil, boxwatch.Invalid(attrPointer+"ref_number", boxwatch.CodeInvalid, "Send ref_numbers or ref_number, not both.")
	case a.RefNumber != nil:
		refs = []string{*a.RefNumber}
	case a.RefNumbers.Value != nil:
		refs = *a.RefNumbers.Value
	case !a.RefNumbers.Set:
		return nil, boxwatch.Invalid(attrPointer+"ref_numbers", boxwatch.CodeBlank, "Send ref_numbers (a list, possibly empty) to replace the reference numbers.")
	}
	return nonNil(refs), boxwatch.ValidateRefNumbers(refs)
}

func handleTrackingRequestUpdate(st boxwatch.TrackingRequestStore, now boxwatch.Clock, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id := r.PathValue("id")
		acct := account(r).ID
		// An id the caller cannot see is a 404 whatever the body holds.
		if _, err := st.TrackingRequest(r.Context(), acct, id); err != nil {
			return err
		}
		body, err := readBody(w, r)
		if err != nil {
			return err
		}
		refs, err := decodeTrackingRequestUpdate(body, id)
		if err != nil {
			return err
		}
		tr, err := st.SetTrackingRequestRefNumbers(r.Context(), acct, id, refs, now())
		if err != nil {
			return err
		}
		res := jsonapi.TrackingRequest(tr)
		writeResource(w, http.StatusOK, base(r)+res.Links.Self, res, nil)
		return nil
	}
}
