package api

import (
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/journey"
)

type shipmentAttributes struct {
	BillOfLadingNumber          *string  `json:"bill_of_lading_number"`
	NormalizedNumber            *string  `json:"normalized_number"`
	BookingNumber               *string  `json:"booking_number"`
	RefNumbers                  []string `json:"ref_numbers"`
	Tags                        []string `json:"tags"`
	ShippingLineSCAC            string   `json:"shipping_line_scac"`
	ShippingLineName            string   `json:"shipping_line_name"`
	ShippingLineShortName       string   `json:"shipping_line_short_name"`
	PortOfLadingLOCODE          *string  `json:"port_of_lading_locode"`
	PortOfLadingName            *string  `json:"port_of_lading_name"`
	PortOfDischargeLOCODE       *string  `json:"port_of_discharge_locode"`
	PortOfDischargeName         *string  `json:"port_of_discharge_name"`
	DestinationLOCODE           *string  `json:"destination_locode"`
	DestinationName             *string  `json:"destination_name"`
	PODVesselName               *string  `json:"pod_vessel_name"`
	PODVesselIMO                *string  `json:"pod_vessel_imo"`
	PODVoyageNumber             *string  `json:"pod_voyage_number"`
	POLETDAt                    *string  `json:"pol_etd_at" format:"date-time"`
	POLATDAt                    *string  `json:"pol_atd_at" format:"date-time"`
	PODETAAt                    *string  `json:"pod_eta_at" format:"date-time"`
	PODOriginalETAAt            *string  `json:"pod_original_eta_at" format:"date-time"`
	PODATAAt                    *string  `json:"pod_ata_at" format:"date-time"`
	DestinationETAAt            *string  `json:"destination_eta_at" format:"date-time"`
	DestinationATAAt            *string  `json:"destination_ata_at" format:"date-time"`
	POLTimezone                 *string  `json:"pol_timezone"`
	PODTimezone                 *string  `json:"pod_timezone"`
	DestinationTimezone         *string  `json:"destination_timezone"`
	LineTrackingLastAttemptedAt *string  `json:"line_tracking_last_attempted_at" format:"date-time"`
	LineTrackingLastSucceededAt *string  `json:"line_tracking_last_succeeded_at" format:"date-time"`
	LineTrackingStoppedAt       *string  `json:"line_tracking_stopped_at" format:"date-time"`
	LineTrackingStoppedReason   *string  `json:"line_tracking_stopped_reason" enum:"all_containers_terminated,past_arrival_window,cancelled_by_user"`
	CustomerName                *string  `json:"customer_name" doc:"The company name of the party the tracking request named as customer; null when none."`
	POLOriginalETDAt            *string  `json:"pol_original_etd_at" format:"date-time"`
	DestinationOriginalETAAt    *string  `json:"destination_original_eta_at" format:"date-time"`
	CreatedAt                   string   `json:"created_at" format:"date-time"`
	UpdatedAt                   string   `json:"updated_at" format:"date-time"`

	// PODPredictedArrivalAt is boxwatch's predicted arrival at the port of discharge while the
	// vessel sails the last leg (see the map's current_vessel); only GET /v2/shipments/{id}
	// gives it, to accounts with the map feature.
	PODPredictedArrivalAt *string `json:"pod_predicted_arrival_at,omitempty" format:"date-time"`
}

type shipmentRelationships struct {
	PortOfLading              toOne  `json:"port_of_lading"`
	PortOfDischarge           toOne  `json:"port_of_discharge"`
	Destination               toOne  `json:"destination" doc:"Null: boxwatch tracks the ocean journey, not inland destinations."`
	PODTerminal               toOne  `json:"pod_terminal" doc:"The terminal the carrier names at the port of discharge; null when it names none."`
	DestinationTerminal       toOne  `json:"destination_terminal" doc:"Null: boxwatch tracks the ocean journey, not inland destinations."`
	LineTrackingStoppedByUser toOne  `json:"line_tracking_stopped_by_user" doc:"Null: API keys belong to accounts, not users."`
	Containers                toMany `json:"containers"`
}

// shipmentRelationshipNames are the shipment relationships the reference API defines, every one
// of which include accepts; those boxwatch holds no resource for include nothing.
var shipmentRelationshipNames = []string{"containers", "port_of_lading", "port_of_discharge", "destination",
	"pod_terminal", "destination_terminal", "line_tracking_stopped_by_user"}

type shipmentResource struct {
	ID            string                `json:"id" format:"uuid"`
	Type          string                `json:"type" enum:"shipment"`
	Attributes    shipmentAttributes    `json:"attributes"`
	Relationships shipmentRelationships `json:"relationships"`
	Links         resourceLinks         `json:"links"`
}

type shipmentDocument = document[shipmentResource]
type shipmentListDocument = document[[]shipmentResource]

func (p portRenderer) shipmentOut(s boxwatch.Shipment, carriers *boxwatch.Carriers, containers []boxwatch.Container) shipmentResource {
	a := shipmentAttributes{
		BillOfLadingNumber: optString(s.BillOfLading), NormalizedNumber: optString(s.NormalizedNumber),
		BookingNumber: optString(s.Booking), RefNumbers: nonNil(s.RefNumbers), Tags: nonNil(s.Tags),
		ShippingLineSCAC: s.SCAC, CustomerName: optString(s.CustomerName),
		LineTrackingLastAttemptedAt: optTime(s.LastAttemptedAt), LineTrackingLastSucceededAt: optTime(s.LastSucceededAt),
		LineTrackingStoppedAt: optTime(s.StoppedAt), LineTrackingStoppedReason: optString(s.StoppedReason),
		CreatedAt: s.CreatedAt.UTC().Format(boxwatch.TimeFormat), UpdatedAt: s.UpdatedAt.UTC().Format(boxwatch.TimeFormat),
	}
	if line, ok := carriers.BySCAC(s.SCAC); ok {
		a.ShippingLineName, a.ShippingLineShortName = line.Name, line.ShortName
	}
	rel := shipmentRelationships{Containers: toMany{Data: []resourceIdentifier{}}}
	if pol, ok := s.POL(); ok {
		a.PortOfLadingLOCODE, a.PortOfLadingName, a.POLTimezone = &pol.LOCODE, p.name(pol.LOCODE), p.tz(pol.LOCODE)
		a.POLETDAt, a.POLATDAt, a.POLOriginalETDAt = optTime(pol.ETD), optTime(pol.ATD), optTime(pol.OriginalETD)
		rel.PortOfLading = linkTo(p.id(pol.LOCODE), "port")
	}
	if pod, ok := s.POD(); ok && len(s.Route) > 1 {
		a.PortOfDischargeLOCODE, a.PortOfDischargeName, a.PODTimezone = &pod.LOCODE, p.name(pod.LOCODE), p.tz(pod.LOCODE)
		a.PODETAAt, a.PODATAAt, a.PODOriginalETAAt = optTime(pod.ETA), optTime(pod.ATA), optTime(pod.OriginalETA)
		a.PODVesselIMO, a.PODVoyageNumber = optString(pod.InboundVesselIMO), optString(pod.InboundVoyage)
		a.PODVesselName = p.vesselName(s, pod.InboundVesselIMO)
		rel.PortOfDischarge = linkTo(p.id(pod.LOCODE), "port")
		rel.PODTerminal = linkTo(pod.TerminalID(), "terminal")
	}
	for _, c := range containers {
		rel.Containers.Data = append(rel.Containers.Data, resourceIdentifier{ID: c.ID, Type: "container"})
	}
	return shipmentResource{ID: s.ID, Type: "shipment", Attributes: a, Relationships: rel, Links: resourceLinks{Self: "/v2/shipments/" + s.ID}}
}

// vesselName finds a vessel's name in the carrier's own answer.
func (portRenderer) vesselName(s boxwatch.Shipment, imo string) *string {
	for _, c := range s.Snapshot.Calls {
		if c.Vessel != nil && c.Vessel.IMO == imo && c.Vessel.Name != "" {
			name := c.Vessel.Name
			return &name
		}
	}
	return nil
}

var shipmentListParams = []param{
	paramPageNumber, paramPageSize, paramInclude(shipmentRelationshipNames...),
	{name: "filter[tracking_stopped]", typ: "string", enum: []string{"true", "false"}, doc: "Only shipments whose tracking has (true) or has not (false) stopped."},
	{name: "number", typ: "string", doc: "Only the shipment with this bill of lading, booking or request number."},
	{name: "q", typ: "string", doc: "Only shipments where this text is part of the bill of lading, booking, normalized or request number, " +
		"of a reference number, or of one of the shipment's container numbers (spaces and dashes in a container number are ignored). At most 100 characters."},
}

// shipmentIncludes gathers the resources include asks for, each once.
func (p portRenderer) shipmentIncludes(inc map[string]bool, s boxwatch.Shipment, containers []boxwatch.Container, events map[string][]boxwatch.TransportEvent, seen map[string]bool, out []any) []any {
	add := func(key string, v any) {
		if !seen[key] {
			seen[key] = true
			out = append(out, v)
		}
	}
	pod, _ := s.POD()
	if inc["containers"] {
		for _, c := range containers {
			add("container:"+c.ID, p.containerOut(c, pod, events[c.ID]))
		}
	}
	if t, ok := stopTerminal(pod); ok && inc["pod_terminal"] && len(s.Route) > 1 {
		add("terminal:"+t.ID, p.terminalOut(t))
	}
	for name, stop := range map[string]func() (boxwatch.RouteStop, bool){"port_of_lading": s.POL, "port_of_discharge": s.POD} {
		if st, ok := stop(); ok && inc[name] {
			if pt, ok := p.port(st.LOCODE); ok {
				add("port:"+pt.ID, portOut(pt))
			}
		}
	}
	return out
}

func handleShipmentList(st boxwatch.Store, carriers *boxwatch.Carriers, p portRenderer, pageLinks pageLinker) handlerFunc {
	return handleList(pageLinks, func(r *http.Request, page boxwatch.Page) (listPage[shipmentResource], error) {
		var lp listPage[shipmentResource]
		q := r.URL.Query()
		inc, err := includes(q, shipmentRelationshipNames...)
		if err != nil {
			return lp, err
		}
		var f boxwatch.ShipmentFilter
		if v := q.Get("filter[tracking_stopped]"); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return lp, boxwatch.BadParameter("filter[tracking_stopped]", "filter[tracking_stopped] must be true or false.")
			}
			f.TrackingStopped = &b
		}
		f.Number = boxwatch.UpperASCII(strings.TrimSpace(q.Get("number")))
		if f.Query = strings.TrimSpace(q.Get("q")); len(f.Query) > 100 {
			return lp, boxwatch.BadParameter("q", "q is at most 100 characters.")
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
		lp.data, lp.included, lp.total = make([]shipmentResource, len(list)), []any{}, total
		seen := map[string]bool{}
		for i, s := range list {
			lp.data[i] = p.shipmentOut(s, carriers, containers[s.ID])
			lp.included = p.shipmentIncludes(inc, s, containers[s.ID], events, seen, lp.included)
		}
		lp.included, err = withTerminals(r.Context(), st, lp.included)
		return lp, err
	})
}

// writeShipment answers one shipment with what include asks for.
func writeShipment(w http.ResponseWriter, r *http.Request, st boxwatch.Store, carriers *boxwatch.Carriers, p portRenderer, base func(*http.Request) string, s boxwatch.Shipment, inc map[string]bool, predicted *string) error {
	containers, err := st.ShipmentContainers(r.Context(), s.AccountID, s.ID)
	if err != nil {
		return err
	}
	events, err := containerEvents(r, st, inc, containers)
	if err != nil {
		return err
	}
	res := p.shipmentOut(s, carriers, containers)
	res.Attributes.PODPredictedArrivalAt = predicted
	included, err := withTerminals(r.Context(), st, p.shipmentIncludes(inc, s, containers, events, map[string]bool{}, []any{}))
	if err != nil {
		return err
	}
	writeResource(w, http.StatusOK, base(r)+res.Links.Self, res, included)
	return nil
}

// containerEvents reads the milestones of containers a shipment includes, so that an included
// container lists its transport_events as GET /v2/containers/{id} does.
func containerEvents(r *http.Request, st boxwatch.Store, inc map[string]bool, containers []boxwatch.Container) (map[string][]boxwatch.TransportEvent, error) {
	if !inc["containers"] || len(containers) == 0 {
		return nil, nil
	}
	return st.TransportEventsOfContainers(r.Context(), account(r).ID, idsOf(containers, func(c boxwatch.Container) string { return c.ID }))
}

func handleShipmentGet(st boxwatch.Store, carriers *boxwatch.Carriers, p portRenderer, journeys *journey.Engine, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		inc, err := includes(r.URL.Query(), shipmentRelationshipNames...)
		if err != nil {
			return err
		}
		s, err := st.Shipment(r.Context(), account(r).ID, r.PathValue("id"))
		if err != nil {
			return err
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
		return writeShipment(w, r, st, carriers, p, base, s, inc, predicted)
	}
}

// handleShipmentTracking stops or resumes tracking; the body, if any, is ignored as the
// reference API does.
func handleShipmentTracking(tracker boxwatch.Tracker, st boxwatch.Store, carriers *boxwatch.Carriers, p portRenderer, base func(*http.Request) string, resume bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		change := tracker.StopTracking
		if resume {
			change = tracker.ResumeTracking
		}
		s, err := change(r.Context(), account(r).ID, r.PathValue("id"))
		if err != nil {
			return err
		}
		return writeShipment(w, r, st, carriers, p, base, s, nil, nil)
	}
}

// shipmentUpdateBody documents the update body.
type shipmentUpdateBody struct {
	Data struct {
		Type       string `json:"type" enum:"shipment"`
		ID         string `json:"id,omitempty" format:"uuid"`
		Attributes struct {
			RefNumbers []string `json:"ref_numbers,omitempty" doc:"Replaces the reference numbers."`
			Tags       []string `json:"tags,omitempty" doc:"Replaces the tags."`
		} `json:"attributes"`
	} `json:"data"`
}

// decodeShipmentUpdate reads the lists a shipment update replaces; a list left out is nil.
func decodeShipmentUpdate(body []byte, id string) (refs, tags []string, err error) {
	doc, err := parseJSON(body)
	if err != nil {
		return nil, nil, err
	}
	attrs, err := resourceObject(doc, "shipment", id)
	if err != nil {
		return nil, nil, err
	}
	if err := attrs.only("ref_numbers", "tags"); err != nil {
		return nil, nil, err
	}
	refs, hasRefs, err := attrs.strings("ref_numbers")
	if err != nil {
		return nil, nil, err
	}
	tags, hasTags, err := attrs.strings("tags")
	if err != nil {
		return nil, nil, err
	}
	if !hasRefs && !hasTags {
		return nil, nil, boxwatch.Invalid(attrs.pointer, boxwatch.CodeBlank, "Send ref_numbers or tags (a list, possibly empty) to replace them.")
	}
	if hasRefs {
		refs = nonNil(refs)
		if err := boxwatch.ValidateRefNumbers(refs); err != nil {
			return nil, nil, err
		}
	}
	if hasTags {
		tags = nonNil(tags)
		if err := boxwatch.ValidateShipmentTags(tags); err != nil {
			return nil, nil, err
		}
	}
	return refs, tags, nil
}

func handleShipmentUpdate(st boxwatch.Store, carriers *boxwatch.Carriers, p portRenderer, now boxwatch.Clock, base func(*http.Request) string) handlerFunc {
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
		return writeShipment(w, r, st, carriers, p, base, s, nil, nil)
	}
}
