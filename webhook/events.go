package webhook

// EventSummary is one event name a webhook can subscribe to. It encodes to JSON as the
// {name, description} pair GET /v2/webhooks/events lists.
type EventSummary struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// ReferenceType is the type of the notification's reference_object ("" when not known).
	ReferenceType string `json:"-"`
	// Emitted reports whether boxwatch produces the event today. The others are the rest of
	// Terminal49's catalogue: accepted in subscriptions, so that clients written for Terminal49
	// can register unchanged, but never delivered yet.
	Emitted bool `json:"emitted" doc:"Whether boxwatch sends this event today; the others are accepted so that Terminal49 clients can register unchanged."`
}

// Category is a named group of events, as GET /v2/webhooks/events lists them.
type Category struct {
	ID     string // such as "tracking-request-events"
	Name   string // such as "Tracking Request Events"
	Events []EventSummary
}

// Reference object types.
const (
	refTrackingRequest   = "tracking_request"
	refTransportEvent    = "transport_event"
	refEstimatedEvent    = "estimated_event"
	refContainerCreated  = "container_created_event"
	refContainerUpdated  = "container_updated_event"
	refPODTerminalChange = "container_pod_terminal_changed_event"
)

// catalogue is every event name of the Terminal49 v2 API (its 43), grouped; Emitted marks those
// boxwatch produces.
var catalogue = []Category{
	{ID: "tracking-request-events", Name: "Tracking Request Events", Events: []EventSummary{
		{"tracking_request.succeeded", "The carrier recognised the number: the tracking request now has a shipment and its containers.", refTrackingRequest, true},
		{"tracking_request.failed", "Tracking could not start; the tracking request's failed_reason says why.", refTrackingRequest, true},
		{"tracking_request.awaiting_manifest", "The carrier knows the number but has not published the shipment yet; it is checked again until it appears.", refTrackingRequest, true},
		{"tracking_request.tracking_stopped", "Tracking of the request's shipment ended, because its journey finished or tracking was stopped.", refTrackingRequest, true},
	}},
	{ID: "container-transport-events", Name: "Container Transport Events", Events: []EventSummary{
		{"container.transport.empty_out", "The empty container was handed to the shipper for loading.", refTransportEvent, true},
		{"container.transport.full_in", "The loaded container was gated in at the port of lading.", refTransportEvent, true},
		{"container.transport.vessel_loaded", "The container was loaded onto the vessel at the port of lading.", refTransportEvent, true},
		{"container.transport.vessel_departed", "The vessel carrying the container left the port of lading.", refTransportEvent, true},
		{"container.transport.transshipment_arrived", "The container reached a transshipment port.", refTransportEvent, true},
		{"container.transport.transshipment_discharged", "The container was unloaded at a transshipment port.", refTransportEvent, true},
		{"container.transport.transshipment_loaded", "The container was loaded onto its next vessel at a transshipment port.", refTransportEvent, true},
		{"container.transport.transshipment_departed", "The container's next vessel left a transshipment port.", refTransportEvent, true},
		{"container.transport.feeder_arrived", "A feeder vessel carrying the container reached a port.", refTransportEvent, true},
		{"container.transport.feeder_discharged", "The container was unloaded from a feeder vessel.", refTransportEvent, true},
		{"container.transport.feeder_loaded", "The container was loaded onto a feeder vessel.", refTransportEvent, true},
		{"container.transport.feeder_departed", "A feeder vessel carrying the container left a port.", refTransportEvent, true},
		{"container.transport.vessel_arrived", "The vessel carrying the container reached the port of discharge.", refTransportEvent, true},
		{"container.transport.vessel_berthed", "The vessel carrying the container tied up at its berth at the port of discharge, as its terminal reports it.", refTransportEvent, true},
		{"container.transport.vessel_discharged", "The container was unloaded at the port of discharge.", refTransportEvent, true},
		{"container.transport.available", "The terminal at the port of discharge released the container for pickup.", refTransportEvent, true},
		{"container.transport.not_available", "The container can no longer be picked up at the port of discharge terminal.", refTransportEvent, true},
		{"container.transport.full_out", "The loaded container left the terminal of the port of discharge.", refTransportEvent, true},
		{"container.transport.delivered", "The container reached the consignee's door after its pickup (unloaded live, or dropped there), as the line reports it.", refTransportEvent, true},
		{"container.transport.empty_in", "The empty container was returned.", refTransportEvent, true},
		{"container.transport.rail_loaded", "The container was loaded onto a train.", refTransportEvent, true},
		{"container.transport.rail_departed", "The train carrying the container left a rail terminal.", refTransportEvent, true},
		{"container.transport.rail_arrived", "The train carrying the container reached a rail terminal or interchange.", refTransportEvent, true},
		{"container.transport.rail_unloaded", "The container was taken off the train.", refTransportEvent, true},
		{"container.transport.arrived_at_inland_destination", "The container reached its inland destination, by rail, truck or barge.", refTransportEvent, true},
	}},
	{ID: "estimate-events", Name: "Estimate Events", Events: []EventSummary{
		{"shipment.estimated.arrival", "The expected arrival of the shipment at its port of discharge changed.", refEstimatedEvent, true},
		{"container.transport.estimated.vessel_departed", "The expected departure of the container's vessel from the port of lading changed.", refTransportEvent, true},
		{"container.transport.estimated.vessel_arrived", "The expected arrival of the container's vessel at the port of discharge changed.", refTransportEvent, true},
		{"container.transport.estimated.arrived_at_inland_destination", "The expected arrival of the container at its inland destination changed; the transport event's timestamp is the new estimate.", refTransportEvent, true},
	}},
	{ID: "container-events", Name: "Container Events", Events: []EventSummary{
		{"container.created", "A container was added to a shipment that was already being tracked.", refContainerCreated, true},
		{"container.updated", "Terminal facts about a container changed, such as availability, holds or fees; the changeset lists the old and new values.", refContainerUpdated, true},
		{"container.pod_terminal_changed", "The container is at another terminal of the port of discharge than the one known so far, as its terminal says.", refPODTerminalChange, true},
	}},
	{ID: "container-pickup-events", Name: "Container Pickup Events", Events: []EventSummary{
		{"container.pickup_lfd.changed", "The last free day for picking the container up at the port of discharge changed; the transport event's value is the new day.", refTransportEvent, true},
		{"container.pickup_lfd_line.changed", "The shipping line's last free day for the container changed, as the terminal reports it; the transport event's value is the new day.", refTransportEvent, true},
		{"container.pickup_lfd_terminal.changed", "The terminal's last free day for the container changed; the transport event's value is the new day.", refTransportEvent, true},
		{"container.pickup_lfd_rail.changed", "The inland rail terminal's last free day for the container changed; the transport event's value is the new day.", refTransportEvent, true},
		{"container.pickup_appointment.changed", "The pickup appointment for the container was booked or moved; the transport event's value is the new time.", refTransportEvent, true},
	}},
	{ID: "document-events", Name: "Document Events", Events: []EventSummary{
		{"document.extracted", "Data was read out of an uploaded shipping document.", "", false},
		{"document.extraction_failed", "Data could not be read out of an uploaded shipping document.", "", false},
	}},
}

var byName = func() map[string]EventSummary {
	m := make(map[string]EventSummary)
	for _, c := range catalogue {
		for _, e := range c.Events {
			m[e.Name] = e
		}
	}
	return m
}()

// Known reports whether name is an event a webhook may subscribe to. Names are exact: no wildcards,
// no letter-case folding.
func Known(name string) bool {
	_, ok := byName[name]
	return ok
}

// Lookup returns the catalogue entry of name.
func Lookup(name string) (EventSummary, bool) {
	e, ok := byName[name]
	return e, ok
}

// Categories returns the whole catalogue in display order. The result is the caller's to modify.
func Categories() []Category {
	out := make([]Category, len(catalogue))
	for i, c := range catalogue {
		c.Events = append([]EventSummary(nil), c.Events...)
		out[i] = c
	}
	return out
}
