package api

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch"
)

// optTime renders a time as ISO 8601 UTC, or null when unknown.
func optTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(boxwatch.TimeFormat)
	return &s
}

// optString renders "" as null.
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func ref(id, typ string) toOne {
	if id == "" {
		return toOne{}
	}
	return toOne{Data: &resourceIdentifier{ID: id, Type: typ}}
}

type toMany struct {
	Data []resourceIdentifier `json:"data"`
}

// places renders what a route knows of ports: names, time zones.
type places struct{ ports boxwatch.PortLookup }

func (p places) port(locode string) (boxwatch.Port, bool) {
	if locode == "" || p.ports == nil {
		return boxwatch.Port{}, false
	}
	return p.ports.ByLOCODE(locode)
}

func (p places) name(locode string) *string {
	if pt, ok := p.port(locode); ok {
		return &pt.Name
	}
	return nil
}

func (p places) tz(locode string) *string {
	if pt, ok := p.port(locode); ok && pt.TimeZone != "" {
		return &pt.TimeZone
	}
	return nil
}

func (p places) id(locode string) string {
	if locode == "" {
		return ""
	}
	return boxwatch.PortID(locode)
}

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
	CreatedAt                   string   `json:"created_at" format:"date-time"`
	UpdatedAt                   string   `json:"updated_at" format:"date-time"`
}

type shipmentRelationships struct {
	PortOfLading    toOne  `json:"port_of_lading"`
	PortOfDischarge toOne  `json:"port_of_discharge"`
	Destination     toOne  `json:"destination"`
	Containers      toMany `json:"containers"`
}

type shipmentResource struct {
	ID            string                `json:"id" format:"uuid"`
	Type          string                `json:"type" enum:"shipment"`
	Attributes    shipmentAttributes    `json:"attributes"`
	Relationships shipmentRelationships `json:"relationships"`
	Links         resourceLinks         `json:"links"`
}

type shipmentDocument = document[shipmentResource]
type shipmentListDocument = document[[]shipmentResource]

func (p places) shipmentOut(s boxwatch.Shipment, carriers *boxwatch.Carriers, containers []boxwatch.Container) shipmentResource {
	a := shipmentAttributes{
		BillOfLadingNumber: optString(s.BillOfLading), NormalizedNumber: optString(s.NormalizedNumber),
		BookingNumber: optString(s.Booking), RefNumbers: nonNil(s.RefNumbers), Tags: nonNil(s.Tags),
		ShippingLineSCAC:            s.SCAC,
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
		a.POLETDAt, a.POLATDAt = optTime(pol.ETD), optTime(pol.ATD)
		rel.PortOfLading = ref(p.id(pol.LOCODE), "port")
	}
	if pod, ok := s.POD(); ok && len(s.Route) > 1 {
		a.PortOfDischargeLOCODE, a.PortOfDischargeName, a.PODTimezone = &pod.LOCODE, p.name(pod.LOCODE), p.tz(pod.LOCODE)
		a.PODETAAt, a.PODATAAt, a.PODOriginalETAAt = optTime(pod.ETA), optTime(pod.ATA), optTime(pod.OriginalETA)
		a.PODVesselIMO, a.PODVoyageNumber = optString(pod.InboundVesselIMO), optString(pod.InboundVoyage)
		a.PODVesselName = p.vesselName(s, pod.InboundVesselIMO)
		rel.PortOfDischarge = ref(p.id(pod.LOCODE), "port")
	}
	for _, c := range containers {
		rel.Containers.Data = append(rel.Containers.Data, resourceIdentifier{ID: c.ID, Type: "container"})
	}
	return shipmentResource{ID: s.ID, Type: "shipment", Attributes: a, Relationships: rel, Links: resourceLinks{Self: "/v2/shipments/" + s.ID}}
}

// vesselName finds a vessel's name in the carrier's own answer.
func (places) vesselName(s boxwatch.Shipment, imo string) *string {
	for _, c := range s.Snapshot.Calls {
		if c.Vessel != nil && c.Vessel.IMO == imo && c.Vessel.Name != "" {
			name := c.Vessel.Name
			return &name
		}
	}
	return nil
}

type portAttributes struct {
	Name        string   `json:"name"`
	Code        string   `json:"code" doc:"UN/LOCODE"`
	StateAbbr   *string  `json:"state_abbr"`
	City        *string  `json:"city"`
	CountryCode string   `json:"country_code"`
	TimeZone    *string  `json:"time_zone"`
	Latitude    *float64 `json:"latitude"`
	Longitude   *float64 `json:"longitude"`
}

type portResource struct {
	ID         string         `json:"id" format:"uuid"`
	Type       string         `json:"type" enum:"port"`
	Attributes portAttributes `json:"attributes"`
	Links      resourceLinks  `json:"links"`
}

type portDocument = document[portResource]

func portOut(pt boxwatch.Port) portResource {
	a := portAttributes{Name: pt.Name, Code: pt.LOCODE, StateAbbr: optString(pt.StateAbbr), City: optString(pt.City),
		CountryCode: pt.CountryCode, TimeZone: optString(pt.TimeZone)}
	if pt.HasCoordinates {
		lat, lon := pt.Latitude, pt.Longitude
		a.Latitude, a.Longitude = &lat, &lon
	}
	return portResource{ID: pt.ID, Type: "port", Attributes: a, Links: resourceLinks{Self: "/v2/ports/" + pt.ID}}
}

type containerAttributes struct {
	Number             string   `json:"number"`
	SealNumber         *string  `json:"seal_number"`
	RefNumbers         []string `json:"ref_numbers"`
	EquipmentType      *string  `json:"equipment_type" enum:"dry,reefer,open top,flat rack,bulk,tank"`
	EquipmentLength    *int     `json:"equipment_length"`
	EquipmentHeight    *string  `json:"equipment_height" enum:"standard,high_cube"`
	WeightInLbs        *float64 `json:"weight_in_lbs"`
	CurrentStatus      string   `json:"current_status" enum:"new,on_ship,available,picked_up,empty_returned"`
	AvailabilityKnown  bool     `json:"availability_known"`
	AvailableForPickup *bool    `json:"available_for_pickup"`
	PickupLFD          *string  `json:"pickup_lfd" format:"date-time"`
	EmptyOutAt         *string  `json:"empty_out_at" format:"date-time"`
	POLFullInAt        *string  `json:"pol_full_in_at" format:"date-time"`
	POLVesselLoadedAt  *string  `json:"pol_vessel_loaded_at" format:"date-time"`
	POLVesselDeparted  *string  `json:"pol_vessel_departed_at" format:"date-time"`
	PODArrivedAt       *string  `json:"pod_arrived_at" format:"date-time"`
	PODDischargedAt    *string  `json:"pod_discharged_at" format:"date-time"`
	PODFullOutAt       *string  `json:"pod_full_out_at" format:"date-time"`
	EmptyTerminatedAt  *string  `json:"empty_terminated_at" format:"date-time"`
	PODTimezone        *string  `json:"pod_timezone"`
	CreatedAt          string   `json:"created_at" format:"date-time"`
	UpdatedAt          string   `json:"updated_at" format:"date-time"`
}

type containerRelationships struct {
	Shipment        toOne  `json:"shipment"`
	TransportEvents toMany `json:"transport_events"`
}

type containerResource struct {
	ID            string                 `json:"id" format:"uuid"`
	Type          string                 `json:"type" enum:"container"`
	Attributes    containerAttributes    `json:"attributes"`
	Relationships containerRelationships `json:"relationships"`
	Links         resourceLinks          `json:"links"`
}

type containerDocument = document[containerResource]
type containerListDocument = document[[]containerResource]

func (p places) containerOut(c boxwatch.Container, podLOCODE string, events []boxwatch.TransportEvent) containerResource {
	a := containerAttributes{
		Number: c.Number, SealNumber: optString(c.SealNumber), RefNumbers: []string{},
		EquipmentType: optString(c.EquipmentType), EquipmentHeight: optString(c.EquipmentHeight),
		CurrentStatus: c.CurrentStatus, AvailabilityKnown: c.AvailableForPickup != nil, AvailableForPickup: c.AvailableForPickup,
		EmptyOutAt: optTime(c.EmptyOutAt), POLFullInAt: optTime(c.FullInAt), POLVesselLoadedAt: optTime(c.LoadedAt),
		POLVesselDeparted: optTime(c.DepartedAt), PODArrivedAt: optTime(c.PODArrivedAt), PODDischargedAt: optTime(c.PODDischargedAt),
		PODFullOutAt: optTime(c.PODFullOutAt), EmptyTerminatedAt: optTime(c.EmptyTerminatedAt), PODTimezone: p.tz(podLOCODE),
		CreatedAt: c.CreatedAt.UTC().Format(boxwatch.TimeFormat), UpdatedAt: c.UpdatedAt.UTC().Format(boxwatch.TimeFormat),
	}
	if c.EquipmentLength > 0 {
		n := c.EquipmentLength
		a.EquipmentLength = &n
	}
	rel := containerRelationships{Shipment: ref(c.ShipmentID, "shipment"), TransportEvents: toMany{Data: []resourceIdentifier{}}}
	for _, e := range events {
		rel.TransportEvents.Data = append(rel.TransportEvents.Data, resourceIdentifier{ID: e.ID, Type: "transport_event"})
	}
	return containerResource{ID: c.ID, Type: "container", Attributes: a, Relationships: rel, Links: resourceLinks{Self: "/v2/containers/" + c.ID}}
}

type transportEventAttributes struct {
	Event          string  `json:"event"`
	Timestamp      *string `json:"timestamp" format:"date-time"`
	Timezone       *string `json:"timezone"`
	LocationLOCODE *string `json:"location_locode"`
	VoyageNumber   *string `json:"voyage_number"`
	DataSource     string  `json:"data_source" enum:"shipping_line,terminal,ais"`
	CreatedAt      string  `json:"created_at" format:"date-time"`
}

type transportEventRelationships struct {
	Shipment  toOne `json:"shipment"`
	Container toOne `json:"container"`
	Vessel    toOne `json:"vessel"`
	Location  toOne `json:"location"`
}

type transportEventResource struct {
	ID            string                      `json:"id" format:"uuid"`
	Type          string                      `json:"type" enum:"transport_event"`
	Attributes    transportEventAttributes    `json:"attributes"`
	Relationships transportEventRelationships `json:"relationships"`
}

type transportEventListDocument = document[[]transportEventResource]

func (p places) transportEventOut(e boxwatch.TransportEvent) transportEventResource {
	res := transportEventResource{ID: e.ID, Type: "transport_event", Attributes: transportEventAttributes{
		Event: e.Event, Timestamp: optTime(e.Timestamp), Timezone: p.tz(e.LOCODE), LocationLOCODE: optString(e.LOCODE),
		VoyageNumber: optString(e.VoyageNumber), DataSource: e.DataSource, CreatedAt: e.CreatedAt.UTC().Format(boxwatch.TimeFormat),
	}, Relationships: transportEventRelationships{
		Shipment: ref(e.ShipmentID, "shipment"), Container: ref(e.ContainerID, "container"), Location: ref(p.id(e.LOCODE), "port"),
	}}
	if e.VesselIMO != "" {
		res.Relationships.Vessel = ref(boxwatch.VesselID(e.VesselIMO), "vessel")
	}
	return res
}

type vesselAttributes struct {
	Name                       string   `json:"name"`
	IMO                        string   `json:"imo"`
	MMSI                       *string  `json:"mmsi"`
	Latitude                   *float64 `json:"latitude"`
	Longitude                  *float64 `json:"longitude"`
	NauticalSpeedKnots         *float64 `json:"nautical_speed_knots"`
	NavigationalHeadingDegrees *float64 `json:"navigational_heading_degrees"`
	PositionTimestamp          *string  `json:"position_timestamp" format:"date-time"`
}

type vesselResource struct {
	ID         string           `json:"id" format:"uuid"`
	Type       string           `json:"type" enum:"vessel"`
	Attributes vesselAttributes `json:"attributes"`
	Links      resourceLinks    `json:"links"`
}

type vesselDocument = document[vesselResource]

func vesselOut(v boxwatch.Vessel) vesselResource {
	a := vesselAttributes{Name: v.Name, IMO: v.IMO, MMSI: optString(v.MMSI)}
	if p := v.Position; p != nil {
		lat, lon := p.Latitude, p.Longitude
		a.Latitude, a.Longitude, a.NauticalSpeedKnots, a.NavigationalHeadingDegrees = &lat, &lon, p.SpeedKnots, p.HeadingDegrees
		a.PositionTimestamp = optTime(p.Timestamp)
	}
	return vesselResource{ID: v.ID, Type: "vessel", Attributes: a, Links: resourceLinks{Self: "/v2/vessels/" + v.ID}}
}

// Handlers.

var shipmentListParams = []param{
	paramPageNumber, paramPageSize, paramInclude("containers", "port_of_lading", "port_of_discharge"),
	{name: "filter[tracking_stopped]", typ: "string", enum: []string{"true", "false"}, doc: "Only shipments whose tracking has (true) or has not (false) stopped."},
	{name: "number", typ: "string", doc: "Only the shipment with this bill of lading, booking or request number."},
}

// shipmentIncludes gathers the resources include asks for, each once.
func (p places) shipmentIncludes(inc map[string]bool, s boxwatch.Shipment, containers []boxwatch.Container, seen map[string]bool, out []any) []any {
	add := func(key string, v any) {
		if !seen[key] {
			seen[key] = true
			out = append(out, v)
		}
	}
	pod, _ := s.POD()
	if inc["containers"] {
		for _, c := range containers {
			add("container:"+c.ID, p.containerOut(c, pod.LOCODE, nil))
		}
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

func handleShipmentList(st boxwatch.Store, carriers *boxwatch.Carriers, p places, pageLinks func(*http.Request, boxwatch.Page, int) (*links, *meta)) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		page, err := pageParams(q)
		if err != nil {
			return err
		}
		inc, err := includes(q, "containers", "port_of_lading", "port_of_discharge")
		if err != nil {
			return err
		}
		var f boxwatch.ShipmentFilter
		if v := q.Get("filter[tracking_stopped]"); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return boxwatch.BadParameter("filter[tracking_stopped]", "filter[tracking_stopped] must be true or false.")
			}
			f.TrackingStopped = &b
		}
		f.Number = strings.ToUpper(strings.TrimSpace(q.Get("number")))
		acct := account(r).ID
		list, total, err := st.Shipments(r.Context(), acct, f, page)
		if err != nil {
			return err
		}
		data := make([]shipmentResource, len(list))
		included, seen := []any{}, map[string]bool{}
		for i, s := range list {
			containers, err := st.ShipmentContainers(r.Context(), acct, s.ID)
			if err != nil {
				return err
			}
			data[i] = p.shipmentOut(s, carriers, containers)
			included = p.shipmentIncludes(inc, s, containers, seen, included)
		}
		l, m := pageLinks(r, page, total)
		m.Size = len(data)
		writeJSON(w, http.StatusOK, shipmentListDocument{Data: data, Included: included, Links: l, Meta: m})
		return nil
	}
}

// writeShipment answers one shipment with what include asks for.
func writeShipment(w http.ResponseWriter, r *http.Request, st boxwatch.Store, carriers *boxwatch.Carriers, p places, base func(*http.Request) string, s boxwatch.Shipment, inc map[string]bool) error {
	containers, err := st.ShipmentContainers(r.Context(), s.AccountID, s.ID)
	if err != nil {
		return err
	}
	res := p.shipmentOut(s, carriers, containers)
	writeJSON(w, http.StatusOK, shipmentDocument{Data: res, Included: p.shipmentIncludes(inc, s, containers, map[string]bool{}, []any{}),
		Links: &links{Self: base(r) + res.Links.Self}})
	return nil
}

func handleShipmentGet(st boxwatch.Store, carriers *boxwatch.Carriers, p places, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		inc, err := includes(r.URL.Query(), "containers", "port_of_lading", "port_of_discharge")
		if err != nil {
			return err
		}
		s, err := st.Shipment(r.Context(), account(r).ID, r.PathValue("id"))
		if err != nil {
			return err
		}
		return writeShipment(w, r, st, carriers, p, base, s, inc)
	}
}

// handleShipmentTracking stops or resumes tracking; the body, if any, is ignored as the
// reference API does.
func handleShipmentTracking(tracker boxwatch.Tracker, st boxwatch.Store, carriers *boxwatch.Carriers, p places, base func(*http.Request) string, resume bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		change := tracker.StopTracking
		if resume {
			change = tracker.ResumeTracking
		}
		s, err := change(r.Context(), account(r).ID, r.PathValue("id"))
		if err != nil {
			return err
		}
		return writeShipment(w, r, st, carriers, p, base, s, nil)
	}
}

func handleContainerList(st boxwatch.Store, carriers *boxwatch.Carriers, p places, pageLinks func(*http.Request, boxwatch.Page, int) (*links, *meta)) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		page, err := pageParams(q)
		if err != nil {
			return err
		}
		inc, err := includes(q, "shipment")
		if err != nil {
			return err
		}
		acct := account(r).ID
		list, total, err := st.Containers(r.Context(), acct, page)
		if err != nil {
			return err
		}
		data := make([]containerResource, len(list))
		included, seen := []any{}, map[string]bool{}
		shipments := map[string]boxwatch.Shipment{}
		for i, c := range list {
			s, ok := shipments[c.ShipmentID]
			if !ok {
				if s, err = st.Shipment(r.Context(), acct, c.ShipmentID); err != nil {
					return err
				}
				shipments[c.ShipmentID] = s
			}
			pod, _ := s.POD()
			data[i] = p.containerOut(c, pod.LOCODE, nil)
			if inc["shipment"] && !seen[s.ID] {
				seen[s.ID] = true
				included = append(included, p.shipmentOut(s, carriers, nil))
			}
		}
		l, m := pageLinks(r, page, total)
		m.Size = len(data)
		writeJSON(w, http.StatusOK, containerListDocument{Data: data, Included: included, Links: l, Meta: m})
		return nil
	}
}

func handleContainerGet(st boxwatch.Store, carriers *boxwatch.Carriers, p places, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		inc, err := includes(r.URL.Query(), "shipment", "transport_events")
		if err != nil {
			return err
		}
		acct := account(r).ID
		c, err := st.Container(r.Context(), acct, r.PathValue("id"))
		if err != nil {
			return err
		}
		s, err := st.Shipment(r.Context(), acct, c.ShipmentID)
		if err != nil {
			return err
		}
		events, _, err := st.TransportEvents(r.Context(), acct, c.ID, boxwatch.Page{Number: 1, Size: 1000})
		if err != nil {
			return err
		}
		pod, _ := s.POD()
		res := p.containerOut(c, pod.LOCODE, events)
		included := []any{}
		if inc["shipment"] {
			included = append(included, p.shipmentOut(s, carriers, nil))
		}
		if inc["transport_events"] {
			for _, e := range events {
				included = append(included, p.transportEventOut(e))
			}
		}
		writeJSON(w, http.StatusOK, containerDocument{Data: res, Included: included, Links: &links{Self: base(r) + res.Links.Self}})
		return nil
	}
}

func handleTransportEvents(st boxwatch.Store, p places, pageLinks func(*http.Request, boxwatch.Page, int) (*links, *meta)) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		page, err := pageParams(q)
		if err != nil {
			return err
		}
		inc, err := includes(q, "location", "vessel")
		if err != nil {
			return err
		}
		list, total, err := st.TransportEvents(r.Context(), account(r).ID, r.PathValue("id"), page)
		if err != nil {
			return err
		}
		data := make([]transportEventResource, len(list))
		included, seen := []any{}, map[string]bool{}
		for i, e := range list {
			data[i] = p.transportEventOut(e)
			if pt, ok := p.port(e.LOCODE); ok && inc["location"] && !seen[pt.ID] {
				seen[pt.ID] = true
				included = append(included, portOut(pt))
			}
			if inc["vessel"] && e.VesselIMO != "" && !seen[e.VesselIMO] {
				seen[e.VesselIMO] = true
				if v, err := st.Vessel(r.Context(), e.VesselIMO); err == nil {
					included = append(included, vesselOut(v))
				}
			}
		}
		l, m := pageLinks(r, page, total)
		m.Size = len(data)
		writeJSON(w, http.StatusOK, transportEventListDocument{Data: data, Included: included, Links: l, Meta: m})
		return nil
	}
}

func handlePortGet(p places, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id := r.PathValue("id")
		pt, ok := boxwatch.Port{}, false
		if p.ports != nil {
			if pt, ok = p.ports.ByID(strings.ToLower(id)); !ok {
				pt, ok = p.ports.ByLOCODE(strings.ToUpper(id))
			}
		}
		if !ok {
			return boxwatch.ErrNotFound
		}
		res := portOut(pt)
		writeJSON(w, http.StatusOK, portDocument{Data: res, Links: &links{Self: base(r) + res.Links.Self}})
		return nil
	}
}

func handleVesselGet(st boxwatch.Store, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		v, err := st.Vessel(r.Context(), r.PathValue("id"))
		if err != nil {
			return err
		}
		res := vesselOut(v)
		writeJSON(w, http.StatusOK, vesselDocument{Data: res, Links: &links{Self: base(r) + res.Links.Self}})
		return nil
	}
}
