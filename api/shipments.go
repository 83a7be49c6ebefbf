package api

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/journey"
	"github.com/boxwatch/boxwatch/jsonapi"
	"github.com/boxwatch/boxwatch/store"
)

// shipmentRoutes are the shipment endpoints.
func (s *server) shipmentRoutes(rd jsonapi.Renderer) []route {
	st, now, tracker := s.cfg.Store, s.cfg.Clock, s.cfg.Tracker
	return []route{
		{
			method: "GET", path: "/v2/shipments", tag: "Shipments",
			summary: "List shipments",
			doc:     "Returns the account's shipments, newest first, one page at a time.",
			auth:    true, bucket: bucketDefault, params: shipmentListParams,
			status: http.StatusOK, resp: jsonapi.ShipmentListDocument{},
			errors:  []int{400, 401, 429},
			handler: handleShipmentList(st, rd, s.listLinks),
		},
		{
			method: "GET", path: "/v2/shipments/{id}", tag: "Shipments",
			summary: "Get a shipment",
			doc: "Returns one shipment: its route, times and containers. ETAs live here, not on containers. " +
				"boxwatch addition, for accounts with the map feature: pod_predicted_arrival_at while the vessel sails the last leg " +
				"(the map's predicted_arrival_at), absent otherwise.",
			auth: true, bucket: bucketDefault, params: []param{paramInclude(jsonapi.ShipmentRelationshipNames...)},
			status: http.StatusOK, resp: jsonapi.ShipmentDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handleShipmentGet(st, rd, s.cfg.Journey, s.baseURL),
		},
		{
			method: "PATCH", path: "/v2/shipments/{id}", tag: "Shipments",
			summary: "Update a shipment",
			doc: "Replaces the shipment's ref_numbers, tags, or both; a list left out is kept. Other attributes come from the carrier " +
				"and cannot be set.",
			auth: true, bucket: bucketDefault, body: shipmentUpdateBody{},
			status: http.StatusOK, resp: jsonapi.ShipmentDocument{},
			errors:  []int{400, 401, 404, 409, 413, 415, 422, 429},
			handler: handleShipmentUpdate(st, rd, now, s.baseURL),
		},
		{
			method: "PATCH", path: "/v2/shipments/{id}/stop_tracking", tag: "Shipments",
			summary: "Stop tracking a shipment",
			doc:     "Stops refreshing the shipment (line_tracking_stopped_reason cancelled_by_user). Stopping a stopped shipment changes nothing.",
			auth:    true, bucket: bucketDefault,
			status: http.StatusOK, resp: jsonapi.ShipmentDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handleShipmentTracking(tracker, st, rd, s.baseURL, false),
		},
		{
			method: "PATCH", path: "/v2/shipments/{id}/resume_tracking", tag: "Shipments",
			summary: "Resume tracking a shipment",
			doc: "Refreshes a stopped shipment again, starting now. Fails with 422 duplicate if the account meanwhile " +
				"tracks the same number in another pending or created request.",
			auth: true, bucket: bucketDefault,
			status: http.StatusOK, resp: jsonapi.ShipmentDocument{},
			errors:  []int{400, 401, 404, 422, 429},
			handler: handleShipmentTracking(tracker, st, rd, s.baseURL, true),
		},
	}
}

var shipmentListParams = []param{
	paramPageNumber, paramPageSize, paramInclude(jsonapi.ShipmentRelationshipNames...),
	{name: "filter[tracking_stopped]", typ: "string", enum: []string{"true", "false"}, doc: "Only shipments whose tracking has (true) or has not (false) stopped."},
	{name: "number", typ: "string", doc: "Only the shipment with this bill of lading, booking or request number."},
	{name: "q", typ: "string", doc: "Only shipments where this text is part of the bill of lading, booking, normalized or request number, " +
		"of a reference number, or of one of the shipment's container numbers (spaces and dashes in a container number are ignored). At most 100 characters."},
}

// shipmentDocumentStores reads what a shipment document shows besides the shipment: its
// containers with their milestones, and the terminals of the ports it includes.
type shipmentDocumentStores interface {
	boxwatch.ContainerStore
	boxwatch.TerminalStore
}

// shipmentStores reads shipments and what their documents show.
type shipmentStores interface {
	boxwatch.ShipmentStore
	shipmentDocumentStores
}

func handleShipmentList(st shipmentStores, rd jsonapi.Renderer, pageLinks pageLinker) handlerFunc {
	return handleFragmentList(pageLinks, shipmentPage(pager(st), rd), func(r *http.Request, page boxwatch.Page) (listPage[jsonapi.ShipmentResource], error) {
		var lp listPage[jsonapi.ShipmentResource]
		inc, f, err := shipmentListQuery(r.URL.Query())
		if err != nil {
			return lp, err
		}
		acct := account(r).ID
		list, total, err := st.Shipments(r.Context(), acct, f, page)
		if err != nil {
			return lp, err
		}
		containers, err := st.ContainersOfShipments(r.Context(), acct, idsOf(list, func(s boxwatch.Shipment) string { return s.ID }))
		if err != nil {
			return lp, err
		}
		events, err := containerEvents(r, st, inc, slices.Concat(slices.Collect(maps.Values(containers))...))
		if err != nil {
			return lp, err
		}
		lp.data, lp.included, lp.total = make([]jsonapi.ShipmentResource, len(list)), []any{}, total
		seen := map[string]bool{}
		for i, s := range list {
			lp.data[i] = rd.Shipment(s, containers[s.ID])
			lp.included = rd.ShipmentIncludes(inc, s, containers[s.ID], events, seen, lp.included)
		}
		lp.included, err = jsonapi.WithTerminals(r.Context(), st, lp.included)
		return lp, err
	})
}

// shipmentListQuery reads the shipments list's include and filters.
func shipmentListQuery(q url.Values) (map[string]bool, boxwatch.ShipmentFilter, error) {
	var f boxwatch.ShipmentFilter
	inc, err := includes(q, jsonapi.ShipmentRelationshipNames...)
	if err != nil {
		return nil, f, err
	}
	if v := q.Get("filter[tracking_stopped]"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, f, boxwatch.BadParameter("filter[tracking_stopped]", "filter[tracking_stopped] must be true or false.")
		}
		f.TrackingStopped = &b
	}
	f.Number = boxwatch.UpperASCII(strings.TrimSpace(q.Get("number")))
	if f.Query = strings.TrimSpace(q.Get("q")); len(f.Query) > 100 {
		return nil, f, boxwatch.BadParameter("q", "q is at most 100 characters.")
	}
	return inc, f, nil
}

// writeShipment answers one shipment with what include asks for.
func writeShipment(w http.ResponseWriter, r *http.Request, st shipmentDocumentStores, rd jsonapi.Renderer, base func(*http.Request) string, s boxwatch.Shipment, inc map[string]bool, predicted *string) error {
	res, included, err := renderShipment(r, st, rd, s, inc, predicted)
	if err != nil {
		return err
	}
	writeResource(w, http.StatusOK, base(r)+res.Links.Self, res, included)
	return nil
}

// renderShipment is a shipment document's resource and what include adds: it reads the
// shipment's containers, and what include asks for.
func renderShipment(r *http.Request, st shipmentDocumentStores, rd jsonapi.Renderer, s boxwatch.Shipment, inc map[string]bool, predicted *string) (jsonapi.ShipmentResource, []any, error) {
	containers, err := st.ShipmentContainers(r.Context(), s.AccountID, s.ID)
	if err != nil {
		return jsonapi.ShipmentResource{}, nil, err
	}
	events, err := containerEvents(r, st, inc, containers)
	if err != nil {
		return jsonapi.ShipmentResource{}, nil, err
	}
	res := rd.Shipment(s, containers)
	res.Attributes.PODPredictedArrivalAt = predicted
	included, err := jsonapi.WithTerminals(r.Context(), st, rd.ShipmentIncludes(inc, s, containers, events, map[string]bool{}, []any{}))
	return res, included, err
}

// containerEvents reads the milestones of containers a shipment includes, so that an included
// container lists its transport_events as GET /v2/containers/{id} does.
func containerEvents(r *http.Request, st boxwatch.ContainerStore, inc map[string]bool, containers []boxwatch.Container) (map[string][]boxwatch.TransportEvent, error) {
	if !inc["containers"] || len(containers) == 0 {
		return nil, nil
	}
	return st.TransportEventsOfContainers(r.Context(), account(r).ID, idsOf(containers, func(c boxwatch.Container) string { return c.ID }))
}

func handleShipmentGet(st shipmentStores, rd jsonapi.Renderer, journeys *journey.Engine, base func(*http.Request) string) handlerFunc {
	rs := renderer(st)
	return func(w http.ResponseWriter, r *http.Request) error {
		inc, err := includes(r.URL.Query(), jsonapi.ShipmentRelationshipNames...)
		if err != nil {
			return err
		}
		acct := account(r).ID
		key, keep := renderedKey(r, base, "shipment")
		keep = keep && rs != nil
		// A document kept holds the shipment it was rendered from, for its predicted arrival: the
		// shipment is read, and copied out of the cache, only to render it.
		var stamp store.ReadStamp
		var cached [][]byte
		var s boxwatch.Shipment
		if keep {
			if doc, ok := rs.CachedRender(key, acct); ok && len(doc.Parts) == 2 {
				cached, s = doc.Parts, doc.Value.(boxwatch.Shipment)
			} else {
				id := r.PathValue("id")
				stamp = rs.StampReads(store.ShipmentRead(id), store.ShipmentContainersRead(id))
			}
		}
		if cached == nil {
			if s, err = st.Shipment(r.Context(), acct, r.PathValue("id")); err != nil {
				return err
			}
		}
		var predicted *string
		if account(r).Has(boxwatch.FeatureMap) {
			at, ok, err := journeys.PredictedArrival(r.Context(), s)
			if err != nil {
				return err
			}
			if ok {
				predicted = optTime(at)
			}
		}
		switch {
		case cached != nil:
			writeShipmentParts(w, cached[0], cached[1], predicted)
			return nil
		case !keep:
			return writeShipment(w, r, st, rd, base, s, inc, predicted)
		}
		hole := predictedHole
		res, included, err := renderShipment(r, st, rd, s, inc, &hole)
		if err != nil {
			return err
		}
		head, tail, ok := splitPredicted(encodeResource(base(r)+res.Links.Self, res, included))
		if !ok || !strings.EqualFold(s.ID, r.PathValue("id")) {
			return writeShipment(w, r, st, rd, base, s, inc, predicted)
		}
		rs.StoreRender(stamp, key, acct, store.Render{Parts: [][]byte{head, tail}, Value: s})
		writeShipmentParts(w, head, tail, predicted)
		return nil
	}
}

// handleShipmentTracking stops or resumes tracking; the body, if any, is ignored as the
// reference API does.
func handleShipmentTracking(tracker boxwatch.Tracker, st shipmentDocumentStores, rd jsonapi.Renderer, base func(*http.Request) string, resume bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		change := tracker.StopTracking
		if resume {
			change = tracker.ResumeTracking
		}
		s, err := change(r.Context(), account(r).ID, r.PathValue("id"))
		if err != nil {
			return err
		}
		return writeShipment(w, r, st, rd, base, s, nil, nil)
	}
}

// shipmentUpdateBody is the body of PATCH /v2/shipments/{id}.
type shipmentUpdateBody struct {
	Data struct {
		Type       string `json:"type" enum:"shipment"`
		ID         string `json:"id,omitempty" format:"uuid"`
		Attributes struct {
			RefNumbers []string `json:"ref_numbers,omitempty" doc:"Replaces the reference numbers."`
			Tags       []string `json:"tags,omitempty" doc:"Replaces the tags."`
		} `json:"attributes"`
		resourceMeta
	} `json:"data"`
	documentMeta
}

// decodeShipmentUpdate reads the lists an update of shipment id replaces; a list left out is nil.
func decodeShipmentUpdate(body []byte, id string) (refs, tags []string, err error) {
	b, err := decodeBody[shipmentUpdateBody](body, id)
	if err != nil {
		return nil, nil, err
	}
	refs, tags = b.Data.Attributes.RefNumbers, b.Data.Attributes.Tags
	if refs == nil && tags == nil {
		return nil, nil, boxwatch.Invalid("/data/attributes", boxwatch.CodeBlank, "Send ref_numbers or tags (a list, possibly empty) to replace them.")
	}
	if refs != nil {
		if err := boxwatch.ValidateRefNumbers(refs); err != nil {
			return nil, nil, err
		}
	}
	if tags != nil {
		if err := boxwatch.ValidateShipmentTags(tags); err != nil {
			return nil, nil, err
		}
	}
	return refs, tags, nil
}

func handleShipmentUpdate(st shipmentStores, rd jsonapi.Renderer, now boxwatch.Clock, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, acct := r.PathValue("id"), account(r).ID
		// An id the caller cannot see is a 404 whatever the body holds.
		if _, err := st.Shipment(r.Context(), acct, id); err != nil {
			return err
		}
		body, err := readBody(w, r)
		if err != nil {
			return err
		}
		refs, tags, err := decodeShipmentUpdate(body, id)
		if err != nil {
			return err
		}
		s, err := st.SetShipmentLabels(r.Context(), acct, id, refs, tags, now())
		if err != nil {
			return err
		}
		return writeShipment(w, r, st, rd, base, s, nil, nil)
	}
}
