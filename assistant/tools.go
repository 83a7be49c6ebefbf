package assistant

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addTools adds every tool: Terminal49's ten under their names and parameters, then boxwatch's.
// Each is listed with what it costs, the REST calls behind it (each takes one token of the
// bucket its endpoint takes).
func addTools(s *mcp.Server, connect Connect) {
	// GET /v2/search
	tool(s, connect, &mcp.Tool{Name: "search_container", Annotations: readOnly("Search containers"),
		Description: "Find the account's containers, shipments and tracking requests by container, bill of lading, booking or " +
			"reference number, or part of one (MSCU1234566, MAEU123456784, PO-42). The fastest way from a number to the ids " +
			"the other tools take.",
		InputSchema: inputSchema[searchIn](nil)}, searchContainer)

	// POST /v2/tracking_requests/infer_number when the number type is not given, POST /v2/tracking_requests,
	// GET /v2/tracking_requests when the number is tracked already, and GET /v2/shipments/{id} once it has a shipment.
	tool(s, connect, &mcp.Tool{Name: "track_container",
		Annotations: &mcp.ToolAnnotations{Title: "Track a container", IdempotentHint: true, DestructiveHint: new(false), OpenWorldHint: new(true)},
		Description: "Start tracking a container, bill of lading or booking number with its shipping line. The number type and " +
			"the line are inferred from the number when not given: the type as infer_number does, the line by the lookup itself, " +
			"which asks the likely lines in turn (scac stays null until one claims the number; the request fails with " +
			"scac_auto_detect_failed when none does). Creates the tracking request and returns its state; " +
			"the lookup with the carrier follows within minutes (poll list_tracking_requests or get_shipment_details). A number " +
			"already tracked returns its live request instead of a second one.",
		InputSchema: inputSchema[trackIn](func(p map[string]*jsonschema.Schema) {
			p["numberType"].Enum = []any{"container", "bill_of_lading", "booking_number"}
		})}, trackContainer)

	// GET /v2/containers/{id}?include=…
	tool(s, connect, &mcp.Tool{Name: "get_container", Annotations: readOnly("Get a container"),
		Description: "A container by id: its status, equipment, milestone times, and what the terminal at the port of discharge " +
			"says (available for pickup, last free day, holds, fees). include adds the shipment (route, ETA, vessel; the " +
			"default), the terminal, or every transport event.",
		InputSchema: inputSchema[getContainerIn](func(p map[string]*jsonschema.Schema) {
			p["include"].Items.Enum = []any{"shipment", "pod_terminal", "transport_events"}
			p["include"].MaxItems = new(3)
			p["include"].Default = json.RawMessage(`["shipment"]`)
		})}, getContainer)

	// GET /v2/shipments/{id}?include=containers
	tool(s, connect, &mcp.Tool{Name: "get_shipment_details", Annotations: readOnly("Get a shipment"),
		Description: "A shipment by id: bill of lading or booking, shipping line, ports of lading and discharge, the vessel, the " +
			"carrier's ETD, ETA and actual times, boxwatch's predicted arrival, whether tracking stopped, and its containers " +
			"(include_containers, true by default).",
		InputSchema: inputSchema[getShipmentIn](func(p map[string]*jsonschema.Schema) {
			p["include_containers"].Default = json.RawMessage(`true`)
		})}, getShipmentDetails)

	// GET /v2/containers/{id}/transport_events (one call per 100 events)
	tool(s, connect, &mcp.Tool{Name: "get_container_transport_events", Annotations: readOnly("Get a container's events"),
		Description: "Every milestone of a container, oldest first: gate in and out, loading, departure, transshipment, arrival, " +
			"discharge, availability, each at its place in that place's time zone, with the vessel and voyage. For \"what " +
			"happened\" and delay questions; the milestone-glossary resource explains each event.",
		InputSchema: inputSchema[idIn](nil)}, getContainerTransportEvents)

	// GET /v2/shipping_lines?search=
	tool(s, connect, &mcp.Tool{Name: "get_supported_shipping_lines", Annotations: readOnly("Get supported shipping lines"),
		Description: "The shipping lines boxwatch tracks, with their SCACs and which number types each tracks (bill of lading, " +
			"booking, container). search keeps the lines whose name contains it or one of whose SCACs it is.",
		InputSchema: inputSchema[linesIn](nil)}, getSupportedShippingLines)

	// GET /v2/containers/{id}/map_geojson, and GET /v2/vessels/{id} per vessel sailed before
	tool(s, connect, &mcp.Tool{Name: "get_container_route", Annotations: readOnly("Get a container's route"),
		Description: "The legs of a container's ocean journey: port of lading, transshipment ports and port of discharge, the " +
			"vessel and voyage of each leg, and the ETD, ATD, ETA and ATA at each port in its time zone. Needs the map feature.",
		InputSchema: inputSchema[idIn](nil)}, getContainerRoute)

	// GET /v2/shipments?include=containers
	tool(s, connect, &mcp.Tool{Name: "list_shipments", Annotations: readOnly("List shipments"),
		Description: "The account's shipments, newest first, one page at a time. number keeps the shipment of that bill of " +
			"lading, booking or request number; tracking_stopped keeps those whose tracking has (true) or has not (false) " +
			"stopped. include_containers adds each shipment's containers in full.",
		InputSchema: inputSchema[listShipmentsIn](pageBounds)}, listShipments)

	// GET /v2/containers?include=…
	tool(s, connect, &mcp.Tool{Name: "list_containers", Annotations: readOnly("List containers"),
		Description: "The account's containers, newest first, one page at a time, with their status and terminal facts. " +
			"include is a comma-separated list of shipment and pod_terminal, to add each container's shipment or terminal.",
		InputSchema: inputSchema[listContainersIn](pageBounds)}, listContainers)

	// GET /v2/tracking_requests
	tool(s, connect, &mcp.Tool{Name: "list_tracking_requests", Annotations: readOnly("List tracking requests"),
		Description: "The account's tracking requests, newest first, one page at a time: what was submitted, and whether each " +
			"became a shipment (created), waits (pending, awaiting_manifest) or failed and why. status keeps one status; " +
			"filters takes further filters of GET /v2/tracking_requests by name: filter[scac], filter[request_number], " +
			"filter[created_at][start], filter[created_at][end], filter[updated_at][start], filter[updated_at][end] (ISO 8601) " +
			"and q (part of a number). boxwatch has no request_type filter: it refuses one, naming the filters it has.",
		InputSchema: inputSchema[listTrackingRequestsIn](func(p map[string]*jsonschema.Schema) {
			pageBounds(p)
			p["status"].Enum = []any{"pending", "awaiting_manifest", "created", "failed", "tracking_stopped"}
			p["filters"].MaxProperties = new(maxItems)
		})}, listTrackingRequests)

	// GET /v2/containers/{id}/map_geojson
	tool(s, connect, &mcp.Tool{Name: "get_container_journey", Annotations: readOnly("Where is the container's vessel"),
		Description: "boxwatch's own answer to \"where is it and when will it arrive\": the vessel carrying the container, its " +
			"position now (AIS), the port it left and the port it sails to, the distance to go, and boxwatch's predicted " +
			"arrival (the speed the vessel made good under way, and the waits recently seen at the canals on the way and " +
			"at the port) beside the carrier's ETA. Needs the map feature.",
		InputSchema: inputSchema[idIn](nil)}, getContainerJourney)

	// POST /v2/tracking_requests/infer_number
	tool(s, connect, &mcp.Tool{Name: "infer_number", Annotations: readOnly("Infer a number's type and line"),
		Description: "What a bare number is: its type (container, bill of lading, booking), whether it is valid (a container's " +
			"ISO 6346 check digit), and the shipping lines likely to have issued it, ranked, with a decision: auto_select " +
			"(use the line), needs_confirmation (ask the user) or no_prediction.",
		InputSchema: inputSchema[numberIn](nil)}, inferNumber)

	// GET /v2/webhook_notifications?filter[delivery_status]=failed&include=webhook_notification_logs
	tool(s, connect, &mcp.Tool{Name: "list_failed_deliveries", Annotations: readOnly("List failed webhook deliveries"),
		Description: "The account's webhook notifications whose delivery failed for good, newest first, with each attempt's " +
			"time, status code and error: why a receiver missed events. webhook_id keeps one webhook's.",
		InputSchema: inputSchema[failedIn](pageBounds)}, listFailedDeliveries)

	// POST /v2/webhook_notifications/{id}/redeliver, or POST /v2/webhooks/{id}/redeliver?since=
	tool(s, connect, &mcp.Tool{Name: "redeliver_failed_deliveries",
		Annotations: &mcp.ToolAnnotations{Title: "Redeliver webhook notifications", DestructiveHint: new(false), OpenWorldHint: new(true)},
		Description: "Send webhook notifications again, with the same ids and bodies, to their receivers now: one notification " +
			"(notification_id), or every failed or still retrying notification of a webhook created since a time " +
			"(webhook_id and since, ISO 8601). The receiver gets them again: ask the user before calling.",
		InputSchema: inputSchema[redeliverIn](nil)}, redeliverFailedDeliveries)
}

// Bounds on arguments, beyond the API's own checks: no argument of any tool needs more.
const (
	maxText     = 200
	maxPageSize = 100
)

// inputSchema is the input schema inferred from In, every string bounded to maxText characters
// and every list to maxItems items (as boundArguments enforces); adjust narrows members further.
func inputSchema[In any](adjust func(properties map[string]*jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("assistant: the input schema of %T: %v", *new(In), err))
	}
	for _, p := range s.Properties {
		bound(p)
	}
	if adjust != nil {
		adjust(s.Properties)
	}
	return s
}

func bound(p *jsonschema.Schema) {
	if p.Type == "string" || slices.Contains(p.Types, "string") {
		p.MaxLength = new(maxText)
	}
	if p.Items != nil {
		p.MaxItems = new(maxItems)
		bound(p.Items)
	}
	if p.AdditionalProperties != nil {
		bound(p.AdditionalProperties)
	}
}

// pageBounds bounds page (from 1) and page_size (1 to maxPageSize).
func pageBounds(p map[string]*jsonschema.Schema) {
	p["page"].Minimum, p["page"].Maximum = new(1.0), new(100000.0)
	p["page_size"].Minimum, p["page_size"].Maximum = new(1.0), new(float64(maxPageSize))
}

// pageIn selects a page of a list.
type pageIn struct {
	Page     int `json:"page,omitempty" jsonschema:"the page, from 1 (default 1)"`
	PageSize int `json:"page_size,omitempty" jsonschema:"how many per page, at most 100 (default 25)"`
}

func (p pageIn) size() int {
	if p.PageSize == 0 {
		return 25
	}
	return p.PageSize
}

// idIn names one resource.
type idIn struct {
	ID string `json:"id" jsonschema:"the container's boxwatch id (a UUID): search_container finds it from a number"`
}
