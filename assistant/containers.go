package assistant

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/boxwatch/boxwatch/client"
)

type searchIn struct {
	Query string `json:"query" jsonschema:"a container, bill of lading, booking or reference number, or part of one"`
}

// SearchResult is what a search found, by kind.
type SearchResult struct {
	Containers       []FoundContainer `json:"containers"`
	Shipments        []FoundShipment  `json:"shipments"`
	TrackingRequests []FoundRequest   `json:"tracking_requests"`
	TotalResults     int              `json:"total_results"`
}

// FoundContainer is a container a search found.
type FoundContainer struct {
	ID         string  `json:"id"`
	Number     string  `json:"number"`
	ShipmentID *string `json:"shipment_id"`
	SCAC       *string `json:"scac"`
}

// FoundShipment is a shipment a search found.
type FoundShipment struct {
	ID                    string   `json:"id"`
	Number                string   `json:"number" jsonschema:"the bill of lading, or the booking number"`
	SCAC                  *string  `json:"scac"`
	PortOfLadingName      *string  `json:"port_of_lading_name"`
	PortOfDischargeName   *string  `json:"port_of_discharge_name"`
	ContainerCount        int      `json:"container_count"`
	TrackingStopped       bool     `json:"tracking_stopped"`
	TrackingStoppedReason *string  `json:"tracking_stopped_reason"`
	RefNumbers            []string `json:"ref_numbers"`
}

// FoundRequest is a tracking request a search found.
type FoundRequest struct {
	ID           string  `json:"id"`
	Number       string  `json:"number"`
	SCAC         *string `json:"scac"`
	Status       *string `json:"status"`
	FailedReason *string `json:"failed_reason"`
	ShipmentID   *string `json:"shipment_id"`
}

func searchContainer(ctx context.Context, c *client.Client, in searchIn) (SearchResult, string, error) {
	matches, err := c.Search(ctx, in.Query)
	if err != nil {
		return SearchResult{}, "", failed(err, "")
	}
	r := SearchResult{Containers: []FoundContainer{}, Shipments: []FoundShipment{}, TrackingRequests: []FoundRequest{}, TotalResults: len(matches)}
	for _, m := range matches {
		switch m.Type {
		case client.MatchContainer:
			r.Containers = append(r.Containers, FoundContainer{ID: m.ID, Number: m.Number, ShipmentID: m.ShipmentID, SCAC: m.SCAC})
		case client.MatchShipment:
			s := FoundShipment{ID: m.ID, Number: m.Number, SCAC: m.SCAC, PortOfLadingName: m.PortOfLadingName,
				PortOfDischargeName: m.PortOfDischargeName, TrackingStoppedReason: m.TrackingStoppedReason, RefNumbers: nonNil(m.RefNumbers)}
			if m.ContainersCount != nil {
				s.ContainerCount = *m.ContainersCount
			}
			s.TrackingStopped = m.TrackingStopped != nil && *m.TrackingStopped
			r.Shipments = append(r.Shipments, s)
		case client.MatchTrackingRequest:
			r.TrackingRequests = append(r.TrackingRequests, FoundRequest{ID: m.ID, Number: m.Number, SCAC: m.SCAC, Status: m.Status,
				FailedReason: m.FailedReason, ShipmentID: m.ShipmentID})
		}
	}
	if r.TotalResults == 0 {
		return r, fmt.Sprintf("Nothing of this account matches %q: check the number, or start tracking it with track_container.", in.Query), nil
	}
	var parts []string
	for _, p := range []struct {
		n         int
		one, many string
		first     string
	}{
		{len(r.Containers), "container", "containers", firstOf(r.Containers, func(f FoundContainer) string { return f.Number })},
		{len(r.Shipments), "shipment", "shipments", firstOf(r.Shipments, func(f FoundShipment) string { return f.Number })},
		{len(r.TrackingRequests), "tracking request", "tracking requests", firstOf(r.TrackingRequests, func(f FoundRequest) string { return f.Number })},
	} {
		switch p.n {
		case 0:
		case 1:
			parts = append(parts, fmt.Sprintf("1 %s (%s)", p.one, p.first))
		default:
			parts = append(parts, fmt.Sprintf("%d %s (first %s)", p.n, p.many, p.first))
		}
	}
	return r, fmt.Sprintf("Found %s for %q. Read one by id with get_container or get_shipment_details.", strings.Join(parts, ", "), in.Query), nil
}

func firstOf[T any](list []T, name func(T) string) string {
	if len(list) == 0 {
		return ""
	}
	return name(list[0])
}

type getContainerIn struct {
	ID      string   `json:"id" jsonschema:"the container's boxwatch id (a UUID): search_container finds it from a number"`
	Include []string `json:"include,omitempty" jsonschema:"what to add: shipment (route, ETA, vessel; the default), pod_terminal, transport_events (every milestone)"`
}

func getContainer(ctx context.Context, c *client.Client, in getContainerIn) (Container, string, error) {
	if err := containerID.check("id", in.ID); err != nil {
		return Container{}, "", err
	}
	box, err := c.Container(ctx, in.ID, in.Include...)
	if err != nil {
		return Container{}, "", failed(err, containerID.notFound())
	}
	v := containerView(box, nil)
	return v, containerSummary(v), nil
}

// containerSummary says in a few sentences where a container is and what stands in its way.
func containerSummary(v Container) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Container %s", v.Number)
	if eq := equipment(v); eq != "" {
		fmt.Fprintf(&b, " (%s)", eq)
	}
	fmt.Fprintf(&b, " is %s.", v.Status)
	if s := v.Shipment; s != nil {
		fmt.Fprintf(&b, " %s", shipmentSentence(*s))
	}
	t := v.Terminal
	switch {
	case t.AvailableForPickup != nil && *t.AvailableForPickup:
		b.WriteString(" The terminal has it available for pickup.")
	case t.AvailableForPickup != nil:
		b.WriteString(" The terminal does not have it available for pickup.")
	}
	if t.PickupLFD != nil {
		fmt.Fprintf(&b, " Last free day: %s (%s).", t.PickupLFD.Local, t.PickupLFD.TimeZone)
	}
	for _, h := range t.Holds {
		fmt.Fprintf(&b, " Hold: %s (%s).", h.Name, h.Status)
	}
	for _, f := range t.Fees {
		fmt.Fprintf(&b, " Fee: %s %.2f %s.", f.Type, f.Amount, f.CurrencyCode)
	}
	if len(v.TransportEvents) > 0 {
		last := v.TransportEvents[len(v.TransportEvents)-1]
		fmt.Fprintf(&b, " Latest milestone: %s.", eventSentence(last))
	}
	return b.String()
}

func equipment(v Container) string {
	var parts []string
	if v.EquipmentLength != nil {
		parts = append(parts, fmt.Sprintf("%d ft", *v.EquipmentLength))
	}
	for _, p := range []*string{v.EquipmentHeight, v.EquipmentType} {
		if p != nil {
			parts = append(parts, strings.ReplaceAll(*p, "_", " "))
		}
	}
	return strings.Join(parts, " ")
}

type listContainersIn struct {
	Include string `json:"include,omitempty" jsonschema:"comma-separated: shipment, pod_terminal"`
	pageIn
}

// Containers is a page of containers.
type Containers struct {
	Items []Container `json:"items"`
	Paging
}

func listContainers(ctx context.Context, c *client.Client, in listContainersIn) (Containers, string, error) {
	var include []string
	for name := range strings.SplitSeq(in.Include, ",") {
		if name = strings.TrimSpace(name); name != "" {
			include = append(include, name)
		}
	}
	list, err := c.Containers(ctx, client.Page{Number: in.Page, Size: in.size()}, include...)
	if err != nil {
		return Containers{}, "", failed(err, "")
	}
	out := Containers{Items: []Container{}, Paging: pageOf(list)}
	counts := map[string]int{}
	for _, box := range list.Items {
		v := containerView(box, nil)
		out.Items = append(out.Items, v)
		counts[v.CurrentStatus]++
	}
	return out, listSummary("containers", out.Paging, len(out.Items), counts), nil
}

// listSummary counts a page of a list of things (plural), by status when counts has any.
func listSummary(things string, p Paging, n int, counts map[string]int) string {
	if p.Total == 0 {
		return fmt.Sprintf("This account has no %s matching these arguments.", things)
	}
	s := fmt.Sprintf("Page %d of %d: %d of %d %s", p.Page, p.LastPage, n, p.Total, things)
	var by []string
	for _, status := range slices.Sorted(maps.Keys(counts)) {
		by = append(by, fmt.Sprintf("%d %s", counts[status], status))
	}
	if len(by) > 0 {
		s += " (" + strings.Join(by, ", ") + ")"
	}
	s += "."
	if p.HasMore {
		s += fmt.Sprintf(" Ask for page %d for more.", p.Page+1)
	}
	return s
}

// Events is a container's milestones.
type Events struct {
	ContainerID string  `json:"container_id"`
	TotalEvents int     `json:"total_events"`
	Timeline    []Event `json:"timeline" jsonschema:"oldest first"`
}

func getContainerTransportEvents(ctx context.Context, c *client.Client, in idIn) (Events, string, error) {
	if err := containerID.check("id", in.ID); err != nil {
		return Events{}, "", err
	}
	events, err := c.TransportEvents(ctx, in.ID)
	if err != nil {
		return Events{}, "", failed(err, containerID.notFound())
	}
	out := Events{ContainerID: in.ID, TotalEvents: len(events), Timeline: []Event{}}
	for _, e := range events {
		out.Timeline = append(out.Timeline, eventView(e))
	}
	if len(out.Timeline) == 0 {
		return out, "No milestone of this container is known yet: the carrier has reported none. Check get_container for its status.", nil
	}
	return out, fmt.Sprintf("%d milestones, oldest first. The latest: %s.", len(out.Timeline), eventSentence(out.Timeline[len(out.Timeline)-1])), nil
}

// eventSentence says what happened where and when.
func eventSentence(e Event) string {
	s := strings.TrimPrefix(e.Event, "container.transport.")
	if e.Location.Name != nil {
		s += " at " + *e.Location.Name
	} else if e.Location.LOCODE != nil {
		s += " at " + *e.Location.LOCODE
	}
	if e.At != nil {
		s += fmt.Sprintf(" on %s (%s)", e.At.Local, e.At.TimeZone)
	}
	return s
}
