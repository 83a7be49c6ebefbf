package api

import "net/http"

// route is one endpoint: its method and path, its rules, its handler, and what the OpenAPI document
// says of it. Every endpoint is listed in routes, so the whole API surface reads from one place.
type route struct {
	method, path string
	tag          string
	summary, doc string
	auth         bool
	bucket       bucket
	params       []param
	// body and resp are values of the request and success response types, for the document.
	body    any
	status  int
	resp    any
	errors  []int
	handler handlerFunc
}

func (s *server) routes() []route {
	st, carriers, now := s.cfg.Store, s.cfg.Carriers, s.cfg.Clock
	return []route{
		{
			method: "POST", path: "/v2/tracking_requests", tag: "Tracking Requests",
			summary: "Create a tracking request",
			doc: "Starts tracking a bill of lading, booking or container number with a shipping line. " +
				"The request is answered at once with status pending; the lookup with the carrier follows. " +
				"A number and SCAC that already have a pending or created request in the account are a duplicate.",
			auth: true, bucket: bucketCreate, body: trackingRequestCreateBody{},
			status: http.StatusCreated, resp: trackingRequestDocument{},
			errors:  []int{400, 401, 409, 413, 415, 422, 429},
			handler: handleTrackingRequestCreate(st, carriers, now, s.baseURL),
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
			status: http.StatusOK, resp: trackingRequestListDocument{},
			errors:  []int{400, 401, 429},
			handler: handleTrackingRequestList(st, carriers, s.listLinks),
		},
		{
			method: "GET", path: "/v2/tracking_requests/{id}", tag: "Tracking Requests",
			summary: "Get a tracking request",
			doc:     "Returns one tracking request; poll it to follow the lookup, or register a webhook.",
			auth:    true, bucket: bucketDefault, params: []param{paramInclude("tracked_object")},
			status: http.StatusOK, resp: trackingRequestDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handleTrackingRequestGet(st, s.baseURL),
		},
		{
			method: "PATCH", path: "/v2/tracking_requests/{id}", tag: "Tracking Requests",
			summary: "Update a tracking request",
			doc: "Replaces the reference numbers of a tracking request. ref_numbers takes a list; " +
				"ref_number (the reference API's form) takes one value and replaces the list with it.",
			auth: true, bucket: bucketDefault, body: trackingRequestUpdateBody{},
			status: http.StatusOK, resp: trackingRequestDocument{},
			errors:  []int{400, 401, 404, 409, 413, 415, 422, 429},
			handler: handleTrackingRequestUpdate(st, now, s.baseURL),
		},
		{
			method: "GET", path: "/v2/shipping_lines", tag: "Shipping Lines",
			summary: "List shipping lines",
			doc:     "Returns every shipping line boxwatch knows and which number types each can be tracked by. Not paginated.",
			auth:    true, bucket: bucketDefault,
			status: http.StatusOK, resp: shippingLineListDocument{},
			errors:  []int{400, 401, 429},
			handler: handleShippingLineList(carriers, s.baseURL),
		},
		{
			method: "GET", path: "/v2/shipping_lines/{id}", tag: "Shipping Lines",
			summary: "Get a shipping line",
			doc:     "Returns one shipping line by its id or by any of its SCACs.",
			auth:    true, bucket: bucketDefault,
			status: http.StatusOK, resp: shippingLineDocument{},
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
	}
}
