package api

import (
	"net/http"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
)

// route is one endpoint: its method and path, its rules, its handler, and what the OpenAPI document
// says of it. Every endpoint is listed in routes, so the whole API surface reads from one place.
type route struct {
	method, path string
	tag          string
	summary, doc string
	auth         bool
	// feature is the account feature the route needs, if any: an account without it gets 403
	// with the feature's own message. Only routes behind auth can need one.
	feature boxwatch.Feature
	// forbidden, when set, is the 403 an account without feature gets instead of the feature's.
	forbidden *httpError
	bucket    bucket
	params    []param
	// body and resp are values of the request and success response types, for the document.
	body    any
	status  int
	resp    any
	errors  []int
	handler handlerFunc
}

func (s *server) routes() []route {
	st, carriers, now, tracker := s.cfg.Store, s.cfg.Carriers, s.cfg.Clock, s.cfg.Tracker
	ports := portRenderer{ports: s.cfg.Ports}
	rd := jsonapi.Renderer{Carriers: carriers, Ports: s.cfg.Ports}
	nr := jsonapi.NewNotificationRenderer(st, carriers, s.cfg.Ports)
	policy := s.cfg.Webhooks
	return append([]route{
		{
			method: "POST", path: "/v2/tracking_requests", tag: "Tracking Requests",
			summary: "Create a tracking request",
			doc: "Starts tracking a bill of lading, booking or container number with a shipping line. " +
				"The request is answered at once with status pending; the lookup with the carrier follows. " +
				"A number and SCAC that already have a pending or created request in the account are a duplicate.",
			auth: true, bucket: bucketCreate, body: trackingRequestCreateBody{},
			status: http.StatusCreated, resp: jsonapi.TrackingRequestDocument{},
			errors:  []int{400, 401, 409, 413, 415, 422, 429},
			handler: handleTrackingRequestCreate(st, tracker, carriers, s.cfg.Infer, now, s.baseURL),
		},
		{
			method: "POST", path: "/v2/tracking_requests/infer_number", tag: "Tracking Requests",
			summary: "Infer the number type and shipping line of a number",
			doc: "Tells whether a number is a container, bill of lading or booking number, checks it, and ranks " +
				"the shipping lines that may have issued it. decision is auto_select from a confidence of 0.95, " +
				"needs_confirmation from 0.70, no_prediction below. Leased containers and bare numbers several " +
				"lines could have issued are never auto-selected. The body is plain JSON: {\"number\": \"...\"}.",
			auth: true, bucket: bucketInfer, body: inferBody{},
			status: http.StatusOK, resp: inferDocument{},
			errors:  []int{400, 401, 413, 415, 422, 429},
			handler: handleInferNumber(s.cfg.Infer, now),
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
			handler: handleShipmentGet(st, rd, s.maps, s.baseURL),
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
			auth: true, bucket: bucketDefault, body: containerUpdateBody{},
			status: http.StatusOK, resp: jsonapi.ContainerDocument{},
			errors:  []int{400, 401, 404, 409, 413, 415, 422, 429},
			handler: handleContainerUpdate(st, rd, now, s.baseURL, true),
		},
		{
			method: "GET", path: "/v2/containers/{id}/transport_events", tag: "Containers",
			summary: "List a container's transport events",
			doc:     "Returns the container's milestones (container.transport.*), oldest first.",
			auth:    true, bucket: bucketDefault, params: []param{paramPageNumber, paramPageSize, paramInclude(jsonapi.TransportEventRelationshipNames...)},
			status: http.StatusOK, resp: jsonapi.TransportEventListDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handleTransportEvents(st, rd, s.listLinks),
		},
		{
			method: "GET", path: "/v2/containers/{id}/raw_events", tag: "Containers",
			summary: "List a container's raw events",
			doc: "Returns the carrier's own records for the container as its last answer gave them, estimated and planned ones " +
				"included (estimated: true), each with the milestone it stands for (event) and the carrier's code spelled out (original_event).",
			auth: true, bucket: bucketDefault,
			status: http.StatusOK, resp: jsonapi.RawEventListDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handleRawEvents(st, rd, s.baseURL),
		},
		{
			method: "GET", path: "/v2/search", tag: "Search",
			summary: "Search shipments, containers and tracking requests",
			doc: "Finds the account's shipments, containers (type cargo) and tracking requests whose bill of lading, booking, container, " +
				"request or reference number contains query (case-insensitive; spaces and dashes in container numbers are ignored). " +
				"At most 25 of each kind, newest first.",
			auth: true, bucket: bucketDefault, params: []param{{name: "query", typ: "string", doc: "Required: a number or part of one; at most 100 characters."}},
			status: http.StatusOK, resp: jsonapi.SearchDocument{},
			errors:  []int{400, 401, 429},
			handler: handleSearch(st, rd),
		},
		{
			method: "GET", path: "/v2/terminals/{id}", tag: "Ports",
			summary: "Get a terminal",
			doc: "Returns a terminal carriers named at a port of a route, by SMDG code (the simulator's terminals have SX codes and " +
				"names that end in (simulated)). Shipments, containers and transport events link to it.",
			auth: true, bucket: bucketDefault,
			status: http.StatusOK, resp: jsonapi.TerminalDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handleTerminalGet(st, rd, s.baseURL),
		},
		{
			method: "GET", path: "/v2/metro_areas/{id}", tag: "Ports",
			summary: "Get a metro area",
			doc:     "Returns the city area of a port by the port's id or UN/LOCODE: boxwatch knows the cities of its ports, not inland ones.",
			auth:    true, bucket: bucketDefault,
			status: http.StatusOK, resp: jsonapi.MetroAreaDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handleMetroAreaGet(ports, s.baseURL),
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
				"predicted_arrival_at (that distance at the speed made good over the last 12 hours of track, null below 2 knots). " +
				"A container without route data has no features. Answers carry an ETag (If-None-Match gives 304); a journey " +
				"ended (arrived at the port of discharge, tracking stopped) is cacheable for a year, one under way for 15 minutes.",
			auth: true, feature: boxwatch.FeatureMap, bucket: bucketDefault, params: mapParams,
			status: http.StatusOK, resp: featureCollection{},
			errors:  []int{400, 401, 404, 429},
			handler: handleContainerMap(st, s.maps, s.mapCache, now),
		},
		{
			method: "GET", path: "/v2/ports/{id}", tag: "Ports",
			summary: "Get a port",
			doc:     "Returns a port by its id or UN/LOCODE.",
			auth:    true, bucket: bucketDefault,
			status: http.StatusOK, resp: jsonapi.PortDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handlePortGet(st, ports, s.baseURL),
		},
		{
			method: "GET", path: "/v2/vessels/{id}", tag: "Vessels",
			summary: "Get a vessel",
			doc: "Returns a vessel by its id or IMO number. With show_positions[from_timestamp] or show_positions[to_timestamp] " +
				"(accounts with the map feature) it adds positions[], its stored AIS positions in that window, oldest first, at most 20,000.",
			auth: true, bucket: bucketDefault, params: vesselGetParams,
			status: http.StatusOK, resp: vesselDocument{},
			errors:  []int{400, 401, 403, 404, 429},
			handler: handleVesselGet(st, s.cfg.Positions, now, s.baseURL),
		},
		{
			method: "GET", path: "/v2/vessels/{id}/future_positions", tag: "Vessels",
			summary: "Get the vessel's estimated path between two ports",
			doc: "Returns the vessel with positions[]: the sea route from previous_port_id to port_id as positions one minute " +
				"apart (estimated: true), timed from now at the speed the vessel made good over its last 12 hours of track " +
				"(16 knots when that is unknown or under 2 knots), at most 60 days of them.",
			auth: true, feature: boxwatch.FeatureMap, bucket: bucketDefault, params: futureParams,
			status: http.StatusOK, resp: vesselDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handleFuturePositions(st, s.maps, false, s.baseURL),
		},
		{
			method: "GET", path: "/v2/vessels/{id}/future_positions_with_coordinates", tag: "Vessels",
			summary: "Get the vessel's estimated path from a point to a port",
			doc:     "As future_positions, from latitude and longitude (where the vessel is) instead of the previous port.",
			auth:    true, feature: boxwatch.FeatureMap, bucket: bucketDefault, params: futureWithCoordinatesParams,
			status: http.StatusOK, resp: vesselDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handleFuturePositions(st, s.maps, true, s.baseURL),
		},
		{
			method: "POST", path: "/v2/webhooks", tag: "Webhooks",
			summary: "Register a webhook",
			doc: "Subscribes a URL to events. The URL must be https and resolve to public addresses (checked again at every " +
				"delivery). The secret that signs deliveries is generated and returned.",
			auth: true, bucket: bucketDefault, body: webhookBody{},
			status: http.StatusCreated, resp: jsonapi.WebhookDocument{},
			errors:  []int{400, 401, 409, 413, 415, 422, 429},
			handler: handleWebhookCreate(st, policy, now, s.baseURL),
		},
		{
			method: "GET", path: "/v2/webhooks", tag: "Webhooks",
			summary: "List webhooks", doc: "Returns the account's webhooks, newest first.",
			auth: true, bucket: bucketDefault, params: []param{paramPageNumber, paramPageSize},
			status: http.StatusOK, resp: jsonapi.WebhookListDocument{},
			errors:  []int{400, 401, 429},
			handler: handleWebhookList(st, s.listLinks),
		},
		{
			method: "GET", path: "/v2/webhooks/events", tag: "Webhooks",
			summary: "List the events webhooks can subscribe to", doc: "Every event name with a description, grouped by category.",
			auth: true, bucket: bucketDefault,
			status: http.StatusOK, resp: eventCategoryListDocument{},
			errors:  []int{400, 401, 429},
			handler: handleWebhookEvents(),
		},
		{
			method: "POST", path: "/v2/webhooks/trigger", tag: "Webhooks",
			summary: "Send a sample delivery now",
			doc: "Sends one sample notification of an event to a URL and returns the request sent and the response seen. " +
				"The body is plain JSON: {\"url\", \"event\", \"secret\"}.",
			auth: true, bucket: bucketDefault, body: triggerBody{},
			status: http.StatusOK, resp: triggerResult{},
			errors:  []int{400, 401, 413, 415, 422, 429},
			handler: handleWebhookTrigger(rd, policy, s.cfg.WebhookClient, now),
		},
		{
			method: "GET", path: "/v2/webhooks/ips", tag: "Webhooks",
			summary: "List the addresses webhooks are sent from",
			doc: "The operator's list of the addresses deliveries leave from (serve --webhook-egress-ips), for receivers that allow " +
				"callers by address; empty when the operator gave none. Plain JSON, as the reference answers it.",
			auth: true, bucket: bucketDefault,
			status: http.StatusOK, resp: webhookIPs{},
			errors:  []int{400, 401, 429},
			handler: handleWebhookIPs(s.cfg.WebhookEgressIPs, now),
		},
		{
			method: "GET", path: "/v2/webhooks/{id}", tag: "Webhooks",
			summary: "Get a webhook", doc: "Returns one webhook with its secret.",
			auth: true, bucket: bucketDefault,
			status: http.StatusOK, resp: jsonapi.WebhookDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handleWebhookGet(st, s.baseURL),
		},
		{
			method: "PATCH", path: "/v2/webhooks/{id}", tag: "Webhooks",
			summary: "Update a webhook",
			doc:     "Changes url, active, events or headers. Setting active to true clears a deactivation.",
			auth:    true, bucket: bucketDefault, body: webhookBody{},
			status: http.StatusOK, resp: jsonapi.WebhookDocument{},
			errors:  []int{400, 401, 404, 409, 413, 415, 422, 429},
			handler: handleWebhookUpdate(st, policy, now, s.baseURL),
		},
		{
			method: "DELETE", path: "/v2/webhooks/{id}", tag: "Webhooks",
			summary: "Delete a webhook", doc: "Removes the webhook and its notifications. Answers 204.",
			auth: true, bucket: bucketDefault,
			status:  http.StatusNoContent,
			errors:  []int{400, 401, 404, 429},
			handler: handleWebhookDelete(st),
		},
		{
			method: "POST", path: "/v2/webhooks/{id}/redeliver", tag: "Webhooks",
			summary: "Redeliver failed notifications since a time",
			doc: "Queues every failed notification of the webhook created at or after since for delivery again, with " +
				"their original ids: recovery after an outage. The webhook must be active.",
			auth: true, bucket: bucketDefault, params: []param{{name: "since", typ: "string", format: "date-time", doc: "Required."}},
			status: http.StatusAccepted, resp: redeliveredDocument{},
			errors:  []int{400, 401, 404, 409, 429},
			handler: handleWebhookRedeliver(s.cfg.Redeliverer),
		},
		{
			method: "GET", path: "/v2/webhook_notifications", tag: "Webhooks",
			summary: "List webhook notifications", doc: "Returns the account's notifications, newest first.",
			auth: true, bucket: bucketDefault, params: notificationListParams,
			status: http.StatusOK, resp: jsonapi.NotificationListDocument{},
			errors:  []int{400, 401, 429},
			handler: handleNotificationList(st, nr, s.listLinks),
		},
		{
			method: "GET", path: "/v2/webhook_notifications/examples", tag: "Webhooks",
			summary: "Get a sample notification", doc: "Returns a sample payload of an event: data is a list holding one notification.",
			auth: true, bucket: bucketDefault, params: []param{{name: "event", typ: "string", doc: "Required: an event name."}},
			status: http.StatusOK, resp: jsonapi.NotificationListDocument{},
			errors:  []int{400, 401, 429},
			handler: handleNotificationExample(rd, now, s.baseURL),
		},
		{
			method: "GET", path: "/v2/webhook_notifications/{id}", tag: "Webhooks",
			summary: "Get a webhook notification",
			doc:     "Returns one notification with its delivery status; include=webhook_notification_logs adds each attempt.",
			auth:    true, bucket: bucketDefault, params: []param{paramInclude("reference_object", "webhook", "webhook_notification_logs")},
			status: http.StatusOK, resp: jsonapi.NotificationDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handleNotificationGet(st, nr, s.baseURL),
		},
		{
			method: "POST", path: "/v2/webhook_notifications/{id}/redeliver", tag: "Webhooks",
			summary: "Redeliver a notification", doc: "Sends the notification again, with the same id and body. The webhook must be active.",
			auth: true, bucket: bucketDefault,
			status: http.StatusAccepted, resp: jsonapi.NotificationDocument{},
			errors:  []int{400, 401, 404, 409, 429},
			handler: handleNotificationRedeliver(s.cfg.Redeliverer, st, s.baseURL),
		},
		{
			method: "POST", path: "/v2/parties", tag: "Parties",
			summary: "Create a party",
			doc:     "Stores a customer of the account. A tracking request names it in relationships.customer; its shipment then shows customer_name.",
			auth:    true, bucket: bucketDefault, body: partyBody{},
			status: http.StatusCreated, resp: jsonapi.PartyDocument{},
			errors:  []int{400, 401, 409, 413, 415, 422, 429},
			handler: handlePartyCreate(st, now, s.baseURL),
		},
		{
			method: "GET", path: "/v2/parties", tag: "Parties",
			summary: "List parties", doc: "Returns the account's parties, newest first.",
			auth: true, bucket: bucketDefault, params: []param{paramPageNumber, paramPageSize},
			status: http.StatusOK, resp: jsonapi.PartyListDocument{},
			errors:  []int{400, 401, 429},
			handler: handlePartyList(st, s.listLinks),
		},
		{
			method: "GET", path: "/v2/parties/{id}", tag: "Parties",
			summary: "Get a party", doc: "Returns one party.",
			auth: true, bucket: bucketDefault,
			status: http.StatusOK, resp: jsonapi.PartyDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handlePartyGet(st, s.baseURL),
		},
		{
			method: "PATCH", path: "/v2/parties/{id}", tag: "Parties",
			summary: "Rename a party", doc: "Changes the company name; the shipments of the party show the new name.",
			auth: true, bucket: bucketDefault, body: partyBody{},
			status: http.StatusOK, resp: jsonapi.PartyDocument{},
			errors:  []int{400, 401, 404, 409, 413, 415, 422, 429},
			handler: handlePartyUpdate(st, now, s.baseURL),
		},
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
		{
			method: "GET", path: "/v2/shipping_lines", tag: "Shipping Lines",
			summary: "List shipping lines",
			doc: "Returns every shipping line boxwatch knows and which number types each can be tracked by. Not paginated. " +
				"search keeps the lines whose name or short name contains it, or that use it as a SCAC.",
			auth: true, bucket: bucketDefault, params: []param{{name: "search", typ: "string", doc: "Part of a line's name, or one of its SCACs; at most 100 characters."}},
			status: http.StatusOK, resp: jsonapi.ShippingLineListDocument{},
			errors:  []int{400, 401, 429},
			handler: handleShippingLineList(carriers, s.baseURL),
		},
		{
			method: "GET", path: "/v2/shipping_lines/{id}", tag: "Shipping Lines",
			summary: "Get a shipping line",
			doc:     "Returns one shipping line by its id or by any of its SCACs.",
			auth:    true, bucket: bucketDefault,
			status: http.StatusOK, resp: jsonapi.ShippingLineDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handleShippingLineGet(carriers, s.baseURL),
		},
		{
			method: "GET", path: "/v2/openapi.json", tag: "Meta",
			summary: "OpenAPI document",
			doc:     "This document: every endpoint of the API as OpenAPI 3.1. Needs no API key.",
			status:  http.StatusOK, resp: map[string]any{},
			handler: s.handleOpenAPI(),
		},
		{
			method: "GET", path: "/healthz", tag: "Meta",
			summary: "Liveness", doc: "Answers 200 while the process serves requests. Needs no API key.",
			status: http.StatusOK, resp: healthDocument{},
			handler: handleHealthz(),
		},
		{
			method: "GET", path: "/readyz", tag: "Meta",
			summary: "Readiness", doc: "Answers 200 when the database answers, 503 otherwise. Needs no API key.",
			status: http.StatusOK, resp: healthDocument{}, errors: []int{503},
			handler: handleReadyz(st),
		},
	}, append(s.entityCustomFieldRoutes(), s.cfg.testRoutes...)...)
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
