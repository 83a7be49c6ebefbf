package jsonapi

import (
	"cmp"
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch"
)

// EventObject is the reference object of events that are not stored resources of their own: an
// estimate, a created or updated container, a change of terminal.
type EventObject struct {
	ID            string         `json:"id" format:"uuid"`
	Type          string         `json:"type" enum:"estimated_event,container_created_event,container_updated_event,container_pod_terminal_changed_event"`
	Attributes    map[string]any `json:"attributes"`
	Relationships map[string]any `json:"relationships"`
}

// Reference object types, as the reference names them.
const (
	objectTrackingRequest    = "tracking_request"
	objectTransportEvent     = "transport_event"
	objectEstimated          = "estimated_event"
	objectContainerCreated   = "container_created_event"
	objectContainerUpdated   = "container_updated_event"
	objectPODTerminalChanged = "container_pod_terminal_changed_event"
)

// minimalEvents are the events whose notification the reference sends with its reference object
// alone in included (Terminal49's webhook payload documentation and published examples): the
// terminal's availability, manual deliveries, estimates of single milestones, and the line's,
// terminal's and rail's last free days and appointments. A receiver reads the container named by
// the transport event's relationships.
var minimalEvents = map[string]bool{
	"container.transport.available":                               true,
	"container.transport.not_available":                           true,
	"container.transport.delivered":                               true,
	"container.transport.estimated.vessel_departed":               true,
	"container.transport.estimated.vessel_arrived":                true,
	"container.transport.estimated.arrived_at_inland_destination": true,
	"container.pickup_lfd_line.changed":                           true,
	"container.pickup_lfd_terminal.changed":                       true,
	"container.pickup_lfd_rail.changed":                           true,
	"container.pickup_appointment.changed":                        true,
}

// subject is what an event concerns, loaded from the store (or made up, for examples).
type subject struct {
	tr         *boxwatch.TrackingRequest
	shipment   *boxwatch.Shipment
	containers []boxwatch.Container
	container  *boxwatch.Container
	// containerEvents are the milestones of the container, or of every container of the
	// shipment for tracking_request.succeeded, by container id: their transport_events.
	containerEvents map[string][]boxwatch.TransportEvent
	transportEvent  *boxwatch.TransportEvent
	// terminals and vessels are those the reference object names, by id, as the store holds
	// them; a terminal missing here is rendered from the shipment's route, a vessel from its IMO.
	terminals map[string]boxwatch.Terminal
	vessels   map[string]boxwatch.Vessel
}

// NotificationSource is what rendering a notification reads: its event, and the tracking
// request, shipment, containers, milestones, terminals and vessels the event concerns.
type NotificationSource interface {
	boxwatch.EventStore
	boxwatch.TrackingRequestStore
	boxwatch.ShipmentStore
	boxwatch.ContainerStore
	boxwatch.TerminalStore
	boxwatch.VesselStore
}

// NotificationRenderer renders webhook notification documents, the bodies receivers get, from
// what the store holds. It is safe for concurrent use.
type NotificationRenderer struct {
	st NotificationSource
	rd Renderer
}

// NewNotificationRenderer returns a renderer over the store; ports may be nil.
func NewNotificationRenderer(st NotificationSource, carriers *boxwatch.Carriers, ports boxwatch.PortLookup) *NotificationRenderer {
	return &NotificationRenderer{st: st, rd: Renderer{Carriers: carriers, Ports: ports}}
}

// Notification renders the document delivered for n: its reference object and, in included,
// what the reference sends with it (see notificationDocument).
func (nr *NotificationRenderer) Notification(ctx context.Context, n boxwatch.Notification) ([]byte, error) {
	ev, err := nr.st.Event(ctx, n.AccountID, n.EventID)
	if err != nil {
		return nil, err
	}
	sub := subject{containerEvents: map[string][]boxwatch.TransportEvent{}, terminals: map[string]boxwatch.Terminal{},
		vessels: map[string]boxwatch.Vessel{}}
	if ev.TrackingRequestID != "" {
		tr, err := nr.st.TrackingRequest(ctx, n.AccountID, ev.TrackingRequestID)
		if err != nil {
			return nil, err
		}
		sub.tr = &tr
	}
	if ev.ShipmentID != "" {
		s, err := nr.st.Shipment(ctx, n.AccountID, ev.ShipmentID)
		if err != nil {
			return nil, err
		}
		sub.shipment = &s
		if sub.containers, err = nr.st.ShipmentContainers(ctx, n.AccountID, s.ID); err != nil {
			return nil, err
		}
	}
	var eventsOf []string
	if ev.ContainerID != "" {
		for i := range sub.containers {
			if sub.containers[i].ID == ev.ContainerID {
				sub.container = &sub.containers[i]
			}
		}
		eventsOf = []string{ev.ContainerID}
	}
	if ev.Name == "tracking_request.succeeded" {
		for _, c := range sub.containers {
			eventsOf = append(eventsOf, c.ID)
		}
	}
	if len(eventsOf) > 0 {
		if sub.containerEvents, err = nr.st.TransportEventsOfContainers(ctx, n.AccountID, eventsOf); err != nil {
			return nil, err
		}
	}
	if ev.ObjectType == objectTransportEvent {
		te, err := nr.st.TransportEvent(ctx, n.AccountID, ev.ObjectID)
		if err != nil {
			return nil, err
		}
		sub.transportEvent = &te
	}
	// The terminals and vessels the reference object names, as the store knows them.
	_, related := nr.rd.referenceObject(ev, sub)
	for _, id := range related {
		switch id.Type {
		case "terminal":
			t, err := nr.st.Terminal(ctx, id.ID)
			if err == nil {
				sub.terminals[id.ID] = t
			} else if !boxwatch.IsKind(err, boxwatch.KindNotFound) {
				return nil, err
			}
		case "vessel":
			v, err := nr.st.Vessel(ctx, id.ID)
			if err == nil {
				sub.vessels[id.ID] = v
			} else if !boxwatch.IsKind(err, boxwatch.KindNotFound) {
				return nil, err
			}
		}
	}
	n.DeliveryStatus = boxwatch.DeliveryPending // as it stands when sent
	doc := nr.rd.notificationDocument(n, ev, sub)
	if doc.Included, err = WithTerminals(ctx, nr.st, doc.Included); err != nil {
		return nil, err
	}
	return json.Marshal(doc)
}

// ReferenceIncludes adds to included what the document of each notification in list includes
// (its reference object and the resources around it), in the JSON form receivers get, each
// resource once. It renders every notification in turn, so it reads in proportion to len(list).
func (nr *NotificationRenderer) ReferenceIncludes(ctx context.Context, list []boxwatch.Notification, included []any) ([]any, error) {
	seen := map[[2]string]bool{}
	for _, res := range included {
		if k, ok := resourceKey(res); ok {
			seen[k] = true
		}
	}
	for _, n := range list {
		b, err := nr.Notification(ctx, n)
		if err != nil {
			return nil, err
		}
		var doc NotificationDocument
		if err := json.Unmarshal(b, &doc); err != nil {
			return nil, err
		}
		for _, res := range doc.Included {
			k, ok := resourceKey(res)
			if ok && seen[k] {
				continue
			}
			seen[k] = true
			included = append(included, res)
		}
	}
	return included, nil
}

// resourceKey is the type and id of a rendered resource decoded from JSON.
func resourceKey(res any) ([2]string, bool) {
	m, ok := res.(map[string]any)
	if !ok {
		return [2]string{}, false
	}
	typ, _ := m["type"].(string)
	id, _ := m["id"].(string)
	return [2]string{typ, id}, typ != "" && id != ""
}

// notificationDocument builds the document delivered for n. included holds the reference object
// and every resource its non-null relationships name (shipment, container, port, terminal,
// vessel), and for tracking_request.succeeded the shipment's containers too; nothing more. The
// events the reference sends minimal (minimalEvents) include the reference object alone.
func (rd Renderer) notificationDocument(n boxwatch.Notification, ev boxwatch.Event, sub subject) NotificationDocument {
	obj, related := rd.referenceObject(ev, sub)
	doc := NotificationDocument{Data: Notification(n, ev, nil), Included: []any{}}
	if obj == nil {
		return doc
	}
	doc.Included = append(doc.Included, obj)
	if minimalEvents[ev.Name] {
		return doc
	}
	var route []boxwatch.RouteStop
	var pod boxwatch.RouteStop
	if sub.shipment != nil {
		route = sub.shipment.Route
		pod, _ = sub.shipment.POD()
	}
	for _, id := range related {
		switch id.Type {
		case "shipment":
			if sub.shipment != nil && sub.shipment.ID == id.ID {
				doc.Included = append(doc.Included, rd.Shipment(*sub.shipment, sub.containers))
			}
		case "container":
			if sub.container != nil && sub.container.ID == id.ID {
				doc.Included = append(doc.Included, rd.Container(*sub.container, pod, sub.containerEvents[id.ID]))
			}
		case "port":
			if pt, ok := rd.portByID(id.ID, route, sub); ok {
				doc.Included = append(doc.Included, Port(pt))
			}
		case "terminal":
			if t, ok := sub.terminals[id.ID]; ok {
				doc.Included = append(doc.Included, rd.Terminal(t))
			} else if t, ok := routeTerminal(route, id.ID); ok {
				doc.Included = append(doc.Included, rd.Terminal(t))
			}
		case "vessel":
			v, ok := sub.vessels[id.ID]
			if !ok {
				v = boxwatch.Vessel{ID: id.ID, IMO: vesselIMO(ev, sub)}
			}
			doc.Included = append(doc.Included, Vessel(v))
		}
	}
	if ev.Name == "tracking_request.succeeded" && sub.shipment != nil {
		for _, c := range sub.containers {
			doc.Included = append(doc.Included, rd.Container(c, pod, sub.containerEvents[c.ID]))
		}
	}
	return doc
}

// referenceObject renders an event's reference object and lists the resources its non-null
// relationships name, in the order of its relationships. obj is nil when the event's object
// cannot be rendered (its tracking request or transport event is gone, or it is of no type
// boxwatch renders).
func (rd Renderer) referenceObject(ev boxwatch.Event, sub subject) (obj any, related []ResourceIdentifier) {
	switch ev.ObjectType {
	case objectTrackingRequest:
		if sub.tr == nil {
			return nil, nil
		}
		tr := TrackingRequest(*sub.tr)
		return tr, nonNull(tr.Relationships.TrackedObject)
	case objectTransportEvent:
		if sub.transportEvent == nil {
			return nil, nil
		}
		var route []boxwatch.RouteStop
		if sub.shipment != nil {
			route = sub.shipment.Route
		}
		te := rd.TransportEvent(*sub.transportEvent, route)
		r := te.Relationships
		return te, nonNull(r.Shipment, r.Container, r.Location, r.Terminal, r.Vessel)
	default:
		if _, ok := eventObjectRelationships[ev.ObjectType]; !ok {
			return nil, nil
		}
		eo := rd.eventObject(ev, sub)
		var links []ToOne
		for _, name := range eventObjectRelationships[eo.Type] {
			links = append(links, eo.Relationships[name].(ToOne))
		}
		return eo, nonNull(links...)
	}
}

// eventObjectRelationships are the relationships of each event object, in the reference's order.
var eventObjectRelationships = map[string][]string{
	objectEstimated:          {"shipment", "port", "vessel"},
	objectContainerCreated:   {"container", "shipment"},
	objectContainerUpdated:   {"container", "terminal", "shipment"},
	objectPODTerminalChanged: {"container", "shipment", "terminal"},
}

// nonNull lists the resources that links name, leaving out the null ones.
func nonNull(links ...ToOne) []ResourceIdentifier {
	var out []ResourceIdentifier
	for _, l := range links {
		if l.Data != nil {
			out = append(out, *l.Data)
		}
	}
	return out
}

// portByID finds the port of a port id among those the event and its route name.
func (rd Renderer) portByID(id string, route []boxwatch.RouteStop, sub subject) (boxwatch.Port, bool) {
	locodes := []string{}
	if sub.transportEvent != nil {
		locodes = append(locodes, sub.transportEvent.LOCODE)
	}
	for _, s := range route {
		locodes = append(locodes, s.LOCODE)
	}
	for _, l := range locodes {
		if l != "" && portID(l) == id {
			return rd.port(l)
		}
	}
	return boxwatch.Port{}, false
}

// routeTerminal is the terminal of id among those a route names.
func routeTerminal(route []boxwatch.RouteStop, id string) (boxwatch.Terminal, bool) {
	for _, s := range route {
		if s.TerminalID() == id {
			return stopTerminal(s)
		}
	}
	return boxwatch.Terminal{}, false
}

// vesselIMO is the IMO number of the vessel an event names.
func vesselIMO(ev boxwatch.Event, sub subject) string {
	if sub.transportEvent != nil {
		return sub.transportEvent.VesselIMO
	}
	var data struct {
		IMO string `json:"vessel_imo"`
	}
	json.Unmarshal(ev.Data, &data)
	return data.IMO
}

// eventObject renders the reference object kept in an event's data.
func (rd Renderer) eventObject(ev boxwatch.Event, sub subject) EventObject {
	obj := EventObject{ID: ev.ObjectID, Type: ev.ObjectType, Attributes: map[string]any{}, Relationships: map[string]any{}}
	var data map[string]any
	json.Unmarshal(ev.Data, &data)
	var pod boxwatch.RouteStop
	if sub.shipment != nil {
		pod, _ = sub.shipment.POD()
	}
	at := ev.CreatedAt.UTC().Format(boxwatch.TimeFormat)
	obj.Relationships["shipment"] = linkTo(ev.ShipmentID, "shipment")
	switch ev.ObjectType {
	case objectEstimated:
		locode, _ := data["location_locode"].(string)
		obj.Attributes = map[string]any{"event": ev.Name, "created_at": at, "estimated_timestamp": data["estimated_timestamp"],
			"voyage_number": data["voyage_number"], "location_locode": locode, "timezone": rd.timeZone(locode), "data_source": "shipping_line"}
		obj.Relationships["port"] = linkTo(portID(locode), "port")
		obj.Relationships["vessel"] = ToOne{}
		if imo, _ := data["vessel_imo"].(string); imo != "" {
			obj.Relationships["vessel"] = linkTo(boxwatch.VesselID(imo), "vessel")
		}
		return obj
	case objectContainerUpdated:
		// The changeset with who reported it: the reference's only data_source for this object is
		// the terminal; events logged before the terminal source hold the bare changeset.
		changeset, source := any(data), "terminal"
		if cs, ok := data["changeset"].(map[string]any); ok {
			changeset = cs
			if ds, _ := data["data_source"].(string); ds != "" {
				source = ds
			}
		}
		obj.Attributes = map[string]any{"changeset": changeset, "timestamp": at, "data_source": source, "timezone": rd.timeZone(pod.LOCODE)}
		obj.Relationships["terminal"] = linkTo(terminalOf(sub, pod), "terminal")
	case objectPODTerminalChanged:
		source, _ := data["data_source"].(string)
		terminal, _ := data["terminal_id"].(string)
		obj.Attributes = map[string]any{"timestamp": at, "data_source": cmp.Or(source, "shipping_line")}
		obj.Relationships["terminal"] = linkTo(cmp.Or(terminal, terminalOf(sub, pod)), "terminal")
	default:
		obj.Attributes = map[string]any{"timestamp": at, "timezone": "Etc/UTC"}
	}
	obj.Relationships["container"] = linkTo(ev.ContainerID, "container")
	return obj
}

// terminalOf is the terminal the event's container is at: the one its terminal named, else the
// port of discharge's.
func terminalOf(sub subject, pod boxwatch.RouteStop) string {
	if sub.container != nil && sub.container.PODTerminalID != "" {
		return sub.container.PODTerminalID
	}
	return pod.TerminalID()
}

// ExampleNotification renders a sample notification of an event whose reference object is of type
// objectType (the event catalogue's), from made-up data in the shapes real ones have. An event
// with no reference object boxwatch renders (objectType "") gets a notification whose
// reference_object is null and nothing in included.
func (rd Renderer) ExampleNotification(name, objectType string, now time.Time) NotificationDocument {
	const vesselIMO, feederIMO = "9839430", "9321483"
	pol, ts, pod := "CNSHA", "SGSIN", "NLRTM"
	s := boxwatch.Shipment{ID: boxwatch.NewID(now), SCAC: "MAEU", BillOfLading: "MAEU123456789", NormalizedNumber: "123456789",
		RefNumbers: []string{"PO-1234"}, Tags: []string{}, CreatedAt: now.Add(-72 * time.Hour), UpdatedAt: now,
		LastAttemptedAt: now, LastSucceededAt: now,
		Route: []boxwatch.RouteStop{
			{Sequence: 1, LOCODE: pol, Role: boxwatch.RolePOL, ETD: now.Add(-48 * time.Hour), ATD: now.Add(-47 * time.Hour),
				OutboundVesselIMO: feederIMO, OutboundVoyage: "247W", TerminalCode: "SGH"},
			{Sequence: 2, LOCODE: ts, Role: boxwatch.RoleTS, ETA: now.Add(120 * time.Hour), ETD: now.Add(140 * time.Hour),
				InboundVesselIMO: feederIMO, InboundVoyage: "247W", OutboundVesselIMO: vesselIMO, OutboundVoyage: "031W", TerminalCode: "PPT"},
			{Sequence: 3, LOCODE: pod, Role: boxwatch.RolePOD, ETA: now.Add(600 * time.Hour), OriginalETA: now.Add(590 * time.Hour),
				InboundVesselIMO: vesselIMO, InboundVoyage: "031W", TerminalCode: "ECTDELTA", TerminalName: "ECT Delta"},
		}}
	tr := boxwatch.TrackingRequest{ID: boxwatch.NewID(now), RequestType: boxwatch.RequestBillOfLading, RequestNumber: s.BillOfLading,
		SCAC: s.SCAC, RefNumbers: s.RefNumbers, ShipmentTags: []string{}, Status: boxwatch.StatusCreated, ShipmentID: s.ID,
		CreatedAt: s.CreatedAt, UpdatedAt: now}
	s.TrackingRequestID = tr.ID
	c := boxwatch.Container{ID: boxwatch.NewID(now), ShipmentID: s.ID, Number: "MSKU1234565", ISOCode: "45G1", SealNumber: "ML123456",
		CurrentStatus: boxwatch.ContainerOnShip, LoadedAt: now.Add(-50 * time.Hour), DepartedAt: now.Add(-47 * time.Hour),
		CreatedAt: s.CreatedAt, UpdatedAt: now}
	boxwatch.DescribeEquipment(&c)
	n := boxwatch.Notification{ID: boxwatch.NewID(now), WebhookID: boxwatch.NewID(now), Event: name, DeliveryStatus: boxwatch.DeliveryPending, CreatedAt: now}
	ev := boxwatch.Event{ID: boxwatch.NewID(now), Name: name, ObjectType: objectType, ObjectID: boxwatch.NewID(now), ShipmentID: s.ID, CreatedAt: now}
	sub := subject{shipment: &s, containers: []boxwatch.Container{c}, containerEvents: map[string][]boxwatch.TransportEvent{},
		terminals: map[string]boxwatch.Terminal{}, vessels: map[string]boxwatch.Vessel{}}
	for _, imo := range []string{vesselIMO, feederIMO} {
		sub.vessels[boxwatch.VesselID(imo)] = boxwatch.Vessel{ID: boxwatch.VesselID(imo), IMO: imo, Name: "EXAMPLE " + imo}
	}
	switch objectType {
	case objectTrackingRequest:
		ev.ObjectID, ev.TrackingRequestID, sub.tr = tr.ID, tr.ID, &tr
		switch name {
		case "tracking_request.failed", "tracking_request.awaiting_manifest":
			tr.Status, tr.ShipmentID, ev.ShipmentID, sub.shipment, sub.containers = boxwatch.Status(strings.TrimPrefix(name, "tracking_request.")), "", "", nil, nil
			if name == "tracking_request.failed" {
				tr.FailedReason = boxwatch.ReasonNotFound
			}
		case "tracking_request.tracking_stopped":
			tr.Status, s.StoppedAt, s.StoppedReason = boxwatch.StatusTrackingStopped, now, boxwatch.StopAllContainersTerminated
		}
	case objectTransportEvent:
		te := exampleTransportEvent(name, s, c, now)
		ev.ObjectID, ev.ContainerID, sub.transportEvent, sub.container = te.ID, c.ID, &te, &sub.containers[0]
	case objectEstimated:
		data, _ := json.Marshal(map[string]any{"estimated_timestamp": now.Add(600 * time.Hour).UTC(), "location_locode": pod,
			"voyage_number": "031W", "vessel_imo": vesselIMO})
		ev.Data = data
	case objectContainerUpdated:
		data, _ := json.Marshal(map[string]any{"changeset": map[string]any{"available_for_pickup": []any{false, true}}, "data_source": "terminal"})
		ev.ContainerID, ev.Data, sub.container = c.ID, data, &sub.containers[0]
	case objectPODTerminalChanged:
		moved := boxwatch.Terminal{ID: boxwatch.TerminalID(pod, "ECTDE"), LOCODE: pod, SMDGCode: "ECTDE", Name: "ECT Delta Terminal",
			CreatedAt: now, UpdatedAt: now}
		data, _ := json.Marshal(map[string]any{"terminal_id": moved.ID, "data_source": "terminal"})
		ev.ContainerID, ev.Data, sub.container, sub.terminals[moved.ID] = c.ID, data, &sub.containers[0], moved
	case objectContainerCreated:
		ev.ContainerID, sub.container = c.ID, &sub.containers[0]
	default:
		ev.ObjectID, ev.ShipmentID, sub = "", "", subject{}
	}
	return rd.notificationDocument(n, ev, sub)
}

// exampleTransportEvent is a made-up transport event of an example, where such an event happens:
// the origin's at the port of lading, the transshipment's at the transshipment port, the rest
// at the port of discharge; with the vessel for the moves of a vessel, and the new value for
// the changes of a last free day or an appointment.
func exampleTransportEvent(name string, s boxwatch.Shipment, c boxwatch.Container, now time.Time) boxwatch.TransportEvent {
	stop := s.Route[len(s.Route)-1]
	milestone := strings.TrimPrefix(strings.TrimPrefix(name, "container.transport."), "estimated.")
	switch {
	case milestone == "empty_out" || milestone == "full_in" || milestone == "vessel_loaded" || milestone == "vessel_departed":
		stop = s.Route[0]
	case strings.HasPrefix(milestone, "transshipment_") || strings.HasPrefix(milestone, "feeder_"):
		stop = s.Route[1]
	}
	te := boxwatch.TransportEvent{ID: boxwatch.NewID(now), ShipmentID: s.ID, ContainerID: c.ID, Event: name, Timestamp: now.Add(-47 * time.Hour),
		LOCODE: stop.LOCODE, DataSource: "shipping_line", CreatedAt: now}
	if strings.HasPrefix(milestone, "vessel_") || strings.HasPrefix(milestone, "transshipment_") || strings.HasPrefix(milestone, "feeder_") {
		te.VesselIMO, te.VoyageNumber = stop.InboundVesselIMO, stop.InboundVoyage
		if stop.Role == boxwatch.RolePOL || milestone == "transshipment_loaded" || milestone == "transshipment_departed" {
			te.VesselIMO, te.VoyageNumber = stop.OutboundVesselIMO, stop.OutboundVoyage
		}
	}
	switch {
	case strings.HasPrefix(name, "container.pickup_"):
		day := now.Add(96 * time.Hour).UTC().Truncate(24 * time.Hour)
		te.Timestamp, te.Value, te.DataSource = day, day.Format(time.RFC3339), "terminal"
	case milestone == "available" || milestone == "not_available":
		te.DataSource = "terminal"
	case strings.HasPrefix(name, "container.transport.estimated."):
		te.Timestamp = now.Add(240 * time.Hour)
	}
	return te
}
