package jsonapi

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch"
)

// EventObject is the reference object of events that are not stored resources of their own: an
// estimate, a created or updated container.
type EventObject struct {
	ID            string         `json:"id" format:"uuid"`
	Type          string         `json:"type" enum:"estimated_event,container_created_event,container_updated_event,container_pod_terminal_changed_event"`
	Attributes    map[string]any `json:"attributes"`
	Relationships map[string]any `json:"relationships"`
}

// subject is what an event concerns, loaded from the store (or made up, for examples).
type subject struct {
	tr         *boxwatch.TrackingRequest
	shipment   *boxwatch.Shipment
	containers []boxwatch.Container
	container  *boxwatch.Container
	// containerEvents are the container's milestones, for its transport_events relationship.
	containerEvents []boxwatch.TransportEvent
	transportEvent  *boxwatch.TransportEvent
}

// NotificationSource is what rendering a notification reads: its event, and the tracking
// request, shipment, containers, milestones and port terminals the event concerns.
type NotificationSource interface {
	boxwatch.EventStore
	boxwatch.TrackingRequestStore
	boxwatch.ShipmentStore
	boxwatch.ContainerStore
	boxwatch.TerminalStore
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

// Notification renders the document delivered for n, with the reference object and what a
// receiver needs to act on it in included.
func (nr *NotificationRenderer) Notification(ctx context.Context, n boxwatch.Notification) ([]byte, error) {
	ev, err := nr.st.Event(ctx, n.AccountID, n.EventID)
	if err != nil {
		return nil, err
	}
	var sub subject
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
	if ev.ContainerID != "" {
		for i := range sub.containers {
			if sub.containers[i].ID == ev.ContainerID {
				sub.container = &sub.containers[i]
			}
		}
		byContainer, err := nr.st.TransportEventsOfContainers(ctx, n.AccountID, []string{ev.ContainerID})
		if err != nil {
			return nil, err
		}
		sub.containerEvents = byContainer[ev.ContainerID]
	}
	if ev.ObjectType == "transport_event" {
		te, err := nr.st.TransportEvent(ctx, n.AccountID, ev.ObjectID)
		if err != nil {
			return nil, err
		}
		sub.transportEvent = &te
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

func (rd Renderer) notificationDocument(n boxwatch.Notification, ev boxwatch.Event, sub subject) NotificationDocument {
	included := []any{}
	var pod boxwatch.RouteStop
	if sub.shipment != nil {
		pod, _ = sub.shipment.POD()
	}
	switch ev.ObjectType {
	case "tracking_request":
		if sub.tr != nil {
			included = append(included, TrackingRequest(*sub.tr))
		}
	case "transport_event":
		if sub.transportEvent != nil {
			var route []boxwatch.RouteStop
			if sub.shipment != nil {
				route = sub.shipment.Route
			}
			included = append(included, rd.TransportEvent(*sub.transportEvent, route))
			if pt, ok := rd.port(sub.transportEvent.LOCODE); ok {
				included = append(included, Port(pt))
			}
		}
	default:
		included = append(included, rd.eventObject(ev, sub, pod))
	}
	if sub.container != nil {
		included = append(included, rd.Container(*sub.container, pod, sub.containerEvents))
	}
	if sub.shipment != nil {
		included = append(included, rd.Shipment(*sub.shipment, sub.containers))
	}
	return NotificationDocument{Data: Notification(n, ev, nil), Included: included}
}

// eventObject renders the reference object kept in an event's data.
func (rd Renderer) eventObject(ev boxwatch.Event, sub subject, pod boxwatch.RouteStop) EventObject {
	obj := EventObject{ID: ev.ObjectID, Type: ev.ObjectType, Attributes: map[string]any{}, Relationships: map[string]any{}}
	var data map[string]any
	json.Unmarshal(ev.Data, &data)
	at := ev.CreatedAt.UTC().Format(boxwatch.TimeFormat)
	switch ev.ObjectType {
	case "estimated_event":
		locode, _ := data["location_locode"].(string)
		obj.Attributes = map[string]any{"event": ev.Name, "created_at": at, "estimated_timestamp": data["estimated_timestamp"],
			"voyage_number": data["voyage_number"], "location_locode": locode, "timezone": rd.timeZone(locode), "data_source": "shipping_line"}
		obj.Relationships["port"] = linkTo(portID(locode), "port")
		if imo, _ := data["vessel_imo"].(string); imo != "" {
			obj.Relationships["vessel"] = linkTo(boxwatch.VesselID(imo), "vessel")
		}
	case "container_updated_event":
		// The changeset with who reported it; events logged before the terminal source hold the bare changeset.
		changeset, source := any(data), "shipping_line"
		if cs, ok := data["changeset"].(map[string]any); ok {
			changeset = cs
			if ds, _ := data["data_source"].(string); ds != "" {
				source = ds
			}
		}
		obj.Attributes = map[string]any{"changeset": changeset, "timestamp": at, "data_source": source, "timezone": rd.timeZone(pod.LOCODE)}
		obj.Relationships["terminal"] = linkTo(terminalOf(sub, pod), "terminal")
	case "container_pod_terminal_changed_event":
		source, _ := data["data_source"].(string)
		terminal, _ := data["terminal_id"].(string)
		obj.Attributes = map[string]any{"timestamp": at, "data_source": source}
		obj.Relationships["terminal"] = linkTo(terminal, "terminal")
	default:
		obj.Attributes = map[string]any{"timestamp": at, "timezone": "Etc/UTC"}
	}
	obj.Relationships["shipment"] = linkTo(ev.ShipmentID, "shipment")
	if ev.ContainerID != "" {
		obj.Relationships["container"] = linkTo(ev.ContainerID, "container")
	}
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

// ExampleNotification renders a sample notification of an event, from made-up data in the shapes
// real ones have.
func (rd Renderer) ExampleNotification(name string, now time.Time) NotificationDocument {
	pol, pod := "CNSHA", "NLRTM"
	s := boxwatch.Shipment{ID: boxwatch.NewID(now), SCAC: "MAEU", BillOfLading: "MAEU123456789", NormalizedNumber: "123456789",
		RefNumbers: []string{"PO-1234"}, Tags: []string{}, CreatedAt: now.Add(-72 * time.Hour), UpdatedAt: now,
		LastAttemptedAt: now, LastSucceededAt: now,
		Route: []boxwatch.RouteStop{
			{Sequence: 1, LOCODE: pol, Role: boxwatch.RolePOL, ETD: now.Add(-48 * time.Hour), ATD: now.Add(-47 * time.Hour), OutboundVesselIMO: "9839430", OutboundVoyage: "247W"},
			{Sequence: 2, LOCODE: pod, Role: boxwatch.RolePOD, ETA: now.Add(600 * time.Hour), OriginalETA: now.Add(590 * time.Hour), InboundVesselIMO: "9839430", InboundVoyage: "247W"},
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
	ev := boxwatch.Event{ID: boxwatch.NewID(now), Name: name, ShipmentID: s.ID, CreatedAt: now}
	sub := subject{shipment: &s, containers: []boxwatch.Container{c}}
	switch {
	case strings.HasPrefix(name, "tracking_request."):
		if name == "tracking_request.failed" || name == "tracking_request.awaiting_manifest" {
			tr.Status, tr.ShipmentID, ev.ShipmentID, sub = boxwatch.Status(strings.TrimPrefix(name, "tracking_request.")), "", "", subject{}
			if name == "tracking_request.failed" {
				tr.FailedReason = boxwatch.ReasonNotFound
			}
		}
		ev.ObjectType, ev.ObjectID, ev.TrackingRequestID, sub.tr = "tracking_request", tr.ID, tr.ID, &tr
	case strings.HasPrefix(name, "container.transport."):
		te := boxwatch.TransportEvent{ID: boxwatch.NewID(now), ShipmentID: s.ID, ContainerID: c.ID, Event: name, Timestamp: now.Add(-47 * time.Hour),
			LOCODE: pol, VoyageNumber: "247W", VesselIMO: "9839430", DataSource: "shipping_line", CreatedAt: now}
		ev.ObjectType, ev.ObjectID, ev.ContainerID, sub.transportEvent, sub.container = "transport_event", te.ID, c.ID, &te, &sub.containers[0]
	case name == "shipment.estimated.arrival":
		data, _ := json.Marshal(map[string]any{"estimated_timestamp": now.Add(600 * time.Hour).UTC(), "location_locode": pod,
			"voyage_number": "247W", "vessel_imo": "9839430"})
		ev.ObjectType, ev.ObjectID, ev.Data = "estimated_event", boxwatch.NewID(now), data
	case name == "container.updated":
		data, _ := json.Marshal(map[string]any{"changeset": map[string]any{"available_for_pickup": []any{false, true}}, "data_source": "terminal"})
		ev.ObjectType, ev.ObjectID, ev.ContainerID, ev.Data, sub.container = "container_updated_event", boxwatch.NewID(now), c.ID, data, &sub.containers[0]
	case name == "container.pod_terminal_changed":
		data, _ := json.Marshal(map[string]any{"terminal_id": boxwatch.TerminalID(pod, "ECTDE"), "data_source": "terminal"})
		ev.ObjectType, ev.ObjectID, ev.ContainerID, ev.Data, sub.container = "container_pod_terminal_changed_event", boxwatch.NewID(now), c.ID, data, &sub.containers[0]
	case strings.HasPrefix(name, "container.pickup_"):
		lfd := now.Add(96 * time.Hour).UTC().Truncate(24 * time.Hour)
		te := boxwatch.TransportEvent{ID: boxwatch.NewID(now), ShipmentID: s.ID, ContainerID: c.ID, Event: name, Timestamp: lfd,
			LOCODE: pod, DataSource: "terminal", Value: lfd.Format(time.RFC3339), CreatedAt: now}
		ev.ObjectType, ev.ObjectID, ev.ContainerID, sub.transportEvent, sub.container = "transport_event", te.ID, c.ID, &te, &sub.containers[0]
	default:
		ev.ObjectType, ev.ObjectID, ev.ContainerID, sub.container = "container_created_event", boxwatch.NewID(now), c.ID, &sub.containers[0]
	}
	return rd.notificationDocument(n, ev, sub)
}
