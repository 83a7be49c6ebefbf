package api

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/journey"
	"github.com/boxwatch/boxwatch/jsonapi"
	"github.com/boxwatch/boxwatch/store"
)

// containerRoutes are the container endpoints, the map included.
func (s *server) containerRoutes(rd jsonapi.Renderer) []route {
	st, now, tracker := s.cfg.Store, s.cfg.Clock, s.cfg.Tracker
	return []route{
		{
			method: "GET", path: "/v2/containers", tag: "Containers",
			summary: "List containers",
			doc:     "Returns the account's containers, newest first, one page at a time; filter[number] finds a container by its number.",
			auth:    true, bucket: bucketDefault, params: containerListParams,
			status: http.StatusOK, resp: jsonapi.ContainerListDocument{},
			errors:  []int{400, 401, 429},
			handler: handleContainerList(st, rd, s.listLinks),
		},
		{
			method: "GET", path: "/v2/containers/{id}", tag: "Containers",
			summary: "Get a container",
			doc:     "Returns one container with its status and milestone times.",
			auth:    true, bucket: bucketDefault, params: []param{paramInclude(jsonapi.ContainerRelationshipNames...)},
			status: http.StatusOK, resp: jsonapi.ContainerDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handleContainerGet(st, rd, s.baseURL),
		},
		{
			method: "PATCH", path: "/v2/containers/{id}", tag: "Containers",
			summary: "Update a container",
			doc: "Replaces the container's ref_numbers (a list, possibly empty); other attributes come from the carrier " +
				"and cannot be set. A carrier's refresh keeps them.",
			auth: true, bucket: bucketDefault, body: containerUpdateBody{},
			status: http.StatusOK, resp: jsonapi.ContainerDocument{},
			errors:  []int{400, 401, 404, 409, 413, 415, 422, 429},
			handler: handleContainerUpdate(st, rd, now, s.baseURL, false),
		},
		{
			method: "PATCH", path: "/v2/containers", tag: "Containers",
			summary: "Edit a container",
			doc: "The reference's form of PATCH /v2/containers/{id}: the same update, the container named by data.id " +
				"(required) instead of the path.",
			auth: true, bucket: bucketDefault, body: containerEditBody{},
			status: http.StatusOK, resp: jsonapi.ContainerDocument{},
			errors:  []int{400, 401, 404, 409, 413, 415, 422, 429},
			handler: handleContainerUpdate(st, rd, now, s.baseURL, true),
		},
		{
			method: "PATCH", path: "/v2/containers/{id}/refresh", tag: "Containers",
			summary: "Refresh a container now",
			doc: "Schedules an immediate lookup of the container's shipment with its shipping line (a shipment whose tracking " +
				"stopped is left stopped). Limited to 10 a minute per account. Answers {\"message\": ...} (plain JSON). " +
				"An account without the map feature gets the reference's 403, titled \"API access not enabled\".",
			auth: true, feature: boxwatch.FeatureMap, bucket: bucketRefresh, forbidden: errRefreshNotEnabled,
			status: http.StatusOK, resp: refreshAnswer{},
			errors:  []int{400, 401, 404, 429},
			handler: handleContainerRefresh(st, tracker),
		},
		{
			method: "GET", path: "/v2/containers/{id}/map_geojson", tag: "Containers",
			summary: "Get the container's map as GeoJSON",
			doc: "Returns the container's journey as a GeoJSON FeatureCollection (RFC 7946, [longitude, latitude]), features " +
				"in route order: each port (feature_type port, labelled POL, TS1…, POD), and after a port the leg that left it " +
				"if it has started: the vessel's position while at sea (current_vessel), the path sailed from stored AIS " +
				"positions (past_vessel_locations) and the routed path from the vessel to the next port " +
				"(estimated_partial_leg); then the routed paths of the legs not started (estimated_full_legs). " +
				"boxwatch additions: a past path drawn by the sea router because no AIS position of the leg is stored has " +
				"estimated: true; current_vessel has distance_to_go_nm (sea distance to the next port) and " +
				"predicted_arrival_at (when the vessel should berth: that distance at the speed it made good over its last 48 hours " +
				"under way, plus the waits recently seen at the canals on the way and at the port's anchorage; null when its speed " +
				"is unknown or below 2 knots). When the carrier reports an inland leg past the port of discharge, it follows " +
				"the port of discharge: inland_leg, a straight segment from the port to the inland destination (the carriers " +
				"report no stops between) with its mode (rail, truck, barge), progress (ahead, under_way, past) and times, then " +
				"inland_destination, the destination as a point with its ETA and ATA. " +
				"A container without route data has no features. Answers carry an ETag (If-None-Match gives 304); a journey " +
				"ended (arrived at the port of discharge, tracking stopped) is cacheable for a year, one under way for 15 minutes.",
			auth: true, feature: boxwatch.FeatureMap, bucket: bucketDefault, params: mapParams,
			status: http.StatusOK, resp: journey.FeatureCollection{},
			errors:  []int{400, 401, 404, 429},
			handler: handleContainerMap(s.cfg.Journey),
		},
	}
}

var containerListParams = []param{
	paramPageNumber, paramPageSize, paramInclude(jsonapi.ContainerRelationshipNames...),
	{name: "filter[number]", typ: "string", doc: "Only the container with this number; spaces and dashes are ignored (MSCU 123456-6)."},
}

// containerStores reads containers with their milestones, and their shipments.
type containerStores interface {
	boxwatch.ContainerStore
	boxwatch.ShipmentStore
	boxwatch.TerminalStore
}

// containerTerminal is the terminal a container is at as the store holds it, when include asks for
// it: the one its terminal named, else its port of discharge's; zero when none is known.
func containerTerminal(ctx context.Context, st boxwatch.TerminalStore, inc map[string]bool, c boxwatch.Container, s boxwatch.Shipment) (boxwatch.Terminal, error) {
	pod, _ := s.POD()
	id := cmp.Or(c.PODTerminalID, pod.TerminalID())
	if id == "" || !inc["pod_terminal"] && !inc["pickup_facility"] {
		return boxwatch.Terminal{}, nil
	}
	t, err := st.Terminal(ctx, id)
	if errors.Is(err, boxwatch.ErrNotFound) {
		return boxwatch.Terminal{}, nil
	}
	return t, err
}

// containerListQuery reads the containers list's include and filter.
func containerListQuery(q url.Values) (map[string]bool, boxwatch.ContainerFilter, error) {
	f := boxwatch.ContainerFilter{Number: q.Get("filter[number]")}
	inc, err := includes(q, jsonapi.ContainerRelationshipNames...)
	if err != nil {
		return nil, f, err
	}
	if len(f.Number) > 100 {
		return nil, f, boxwatch.BadParameter("filter[number]", "filter[number] is at most 100 characters.")
	}
	return inc, f, nil
}

func handleContainerList(st containerStores, rd jsonapi.Renderer, pageLinks pageLinker) handlerFunc {
	return handleFragmentList(pageLinks, containerPage(pager(st), rd), func(r *http.Request, page boxwatch.Page) (listPage[jsonapi.ContainerResource], error) {
		var lp listPage[jsonapi.ContainerResource]
		inc, f, err := containerListQuery(r.URL.Query())
		if err != nil {
			return lp, err
		}
		acct := account(r).ID
		list, total, err := st.Containers(r.Context(), acct, f, page)
		if err != nil {
			return lp, err
		}
		shipments, err := st.ShipmentsByID(r.Context(), acct, idsOf(list, func(c boxwatch.Container) string { return c.ShipmentID }))
		if err != nil {
			return lp, err
		}
		events, err := st.TransportEventsOfContainers(r.Context(), acct, idsOf(list, func(c boxwatch.Container) string { return c.ID }))
		if err != nil {
			return lp, err
		}
		siblings := map[string][]boxwatch.Container{}
		if inc["shipment"] {
			if siblings, err = st.ContainersOfShipments(r.Context(), acct, idsOf(list, func(c boxwatch.Container) string { return c.ShipmentID })); err != nil {
				return lp, err
			}
		}
		lp.data, lp.included, lp.total = make([]jsonapi.ContainerResource, len(list)), []any{}, total
		seen := map[string]bool{}
		for i, c := range list {
			s := shipments[c.ShipmentID]
			pod, _ := s.POD()
			lp.data[i] = rd.Container(c, pod, events[c.ID])
			at, err := containerTerminal(r.Context(), st, inc, c, s)
			if err != nil {
				return lp, err
			}
			lp.included = rd.ContainerIncludes(inc, s, siblings[s.ID], events[c.ID], at, seen, lp.included)
		}
		return lp, nil
	})
}

func handleContainerGet(st containerStores, rd jsonapi.Renderer, base func(*http.Request) string) handlerFunc {
	rs := renderer(st)
	return func(w http.ResponseWriter, r *http.Request) error {
		inc, err := includes(r.URL.Query(), jsonapi.ContainerRelationshipNames...)
		if err != nil {
			return err
		}
		acct := account(r).ID
		key, keep := renderedKey(r, base, "container")
		if !keep || rs == nil {
			c, err := st.Container(r.Context(), acct, r.PathValue("id"))
			if err != nil {
				return err
			}
			return writeContainer(w, r, st, rd, base, c, inc)
		}
		if parts, ok := rs.CachedRender(key, acct); ok {
			writeParts(w, parts.Parts...)
			return nil
		}
		stamp := rs.StampReads(store.ContainerRead(r.PathValue("id")))
		c, err := st.Container(r.Context(), acct, r.PathValue("id"))
		if err != nil {
			return err
		}
		if strings.EqualFold(c.ID, r.PathValue("id")) {
			stamp = rs.ExtendStamp(stamp, store.ContainerEventsRead(c.ID), store.ShipmentRead(c.ShipmentID))
		} else {
			stamp = store.ReadStamp{} // the path names it otherwise than the store's key: not kept
		}
		res, included, err := renderContainer(r, st, rd, c, inc)
		if err != nil {
			return err
		}
		doc := encodeResource(base(r)+res.Links.Self, res, included)
		rs.StoreRender(stamp, key, acct, store.Render{Parts: [][]byte{doc}})
		writeParts(w, doc)
		return nil
	}
}

// writeContainer answers 200 with the container document, inc naming the relationships to include.
func writeContainer(w http.ResponseWriter, r *http.Request, st containerStores, rd jsonapi.Renderer, base func(*http.Request) string, c boxwatch.Container, inc map[string]bool) error {
	res, included, err := renderContainer(r, st, rd, c, inc)
	if err != nil {
		return err
	}
	writeResource(w, http.StatusOK, base(r)+res.Links.Self, res, included)
	return nil
}

// renderContainer is the container document's resource and what include adds: it reads the
// container's shipment and events, and what include asks for.
func renderContainer(r *http.Request, st containerStores, rd jsonapi.Renderer, c boxwatch.Container, inc map[string]bool) (jsonapi.ContainerResource, []any, error) {
	acct := account(r).ID
	s, err := st.Shipment(r.Context(), acct, c.ShipmentID)
	if err != nil {
		return jsonapi.ContainerResource{}, nil, err
	}
	byContainer, err := st.TransportEventsOfContainers(r.Context(), acct, []string{c.ID})
	if err != nil {
		return jsonapi.ContainerResource{}, nil, err
	}
	events := byContainer[c.ID]
	pod, _ := s.POD()
	res := rd.Container(c, pod, events)
	var siblings []boxwatch.Container
	if inc["shipment"] {
		if siblings, err = st.ShipmentContainers(r.Context(), acct, s.ID); err != nil {
			return res, nil, err
		}
	}
	at, err := containerTerminal(r.Context(), st, inc, c, s)
	if err != nil {
		return res, nil, err
	}
	return res, rd.ContainerIncludes(inc, s, siblings, events, at, map[string]bool{}, []any{}), nil
}

// containerUpdateBody is the body of PATCH /v2/containers/{id}.
type containerUpdateBody struct {
	Data struct {
		Type       string              `json:"type" enum:"container"`
		ID         string              `json:"id,omitempty" format:"uuid"`
		Attributes containerRefNumbers `json:"attributes"`
		resourceMeta
	} `json:"data"`
	documentMeta
}

// containerEditBody is the body of PATCH /v2/containers: the update of PATCH
// /v2/containers/{id}, the container named by data.id instead of the path.
type containerEditBody struct {
	Data struct {
		Type       string              `json:"type" enum:"container"`
		ID         string              `json:"id" format:"uuid" blank:"data.id can't be blank: it names the container to edit." invalid:"data.id must be a container's id." doc:"The container's id."`
		Attributes containerRefNumbers `json:"attributes"`
		resourceMeta
	} `json:"data"`
	documentMeta
}

// containerRefNumbers are what an update sets of a container: its reference numbers.
type containerRefNumbers struct {
	RefNumbers []string `json:"ref_numbers" blank:"Send ref_numbers (a list, possibly empty) to replace the reference numbers." doc:"Replaces the reference numbers."`
}

// decodeContainerUpdate reads the reference numbers an update replaces, and the id of the
// container it edits: id, the path's, or, when id is "", data.id.
func decodeContainerUpdate(body []byte, id string) (string, []string, error) {
	var a containerRefNumbers
	if id == "" {
		b, err := decodeBody[containerEditBody](body, "")
		if err != nil {
			return "", nil, err
		}
		id, a = b.Data.ID, b.Data.Attributes
	} else {
		b, err := decodeBody[containerUpdateBody](body, id)
		if err != nil {
			return "", nil, err
		}
		a = b.Data.Attributes
	}
	if err := boxwatch.ValidateRefNumbers(a.RefNumbers); err != nil {
		return "", nil, err
	}
	return id, a.RefNumbers, nil
}

// handleContainerUpdate replaces a container's reference numbers, the container named by the path
// or, with idInBody, by data.id.
func handleContainerUpdate(st containerStores, rd jsonapi.Renderer, now boxwatch.Clock, base func(*http.Request) string, idInBody bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, acct := r.PathValue("id"), account(r).ID
		if !idInBody {
			// An id the caller cannot see is a 404 whatever the body holds.
			if _, err := st.Container(r.Context(), acct, id); err != nil {
				return err
			}
		}
		body, err := readBody(w, r)
		if err != nil {
			return err
		}
		id, refs, err := decodeContainerUpdate(body, id)
		if err != nil {
			return err
		}
		c, err := st.SetContainerRefNumbers(r.Context(), acct, id, refs, now())
		if err != nil {
			return err
		}
		return writeContainer(w, r, st, rd, base, c, nil)
	}
}
