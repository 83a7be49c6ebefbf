package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Shipment is a bill of lading or booking followed with its carrier.
type Shipment struct {
	ID                    string     `json:"id"`
	BillOfLadingNumber    *string    `json:"bill_of_lading_number"`
	NormalizedNumber      *string    `json:"normalized_number"`
	BookingNumber         *string    `json:"booking_number"`
	RefNumbers            []string   `json:"ref_numbers"`
	Tags                  []string   `json:"tags"`
	ShippingLineSCAC      string     `json:"shipping_line_scac"`
	ShippingLineName      string     `json:"shipping_line_name"`
	PortOfLadingLOCODE    *string    `json:"port_of_lading_locode"`
	PortOfLadingName      *string    `json:"port_of_lading_name"`
	PortOfDischargeLOCODE *string    `json:"port_of_discharge_locode"`
	PortOfDischargeName   *string    `json:"port_of_discharge_name"`
	DestinationLOCODE     *string    `json:"destination_locode"`
	DestinationName       *string    `json:"destination_name"`
	PODVesselName         *string    `json:"pod_vessel_name"`
	PODVesselIMO          *string    `json:"pod_vessel_imo"`
	PODVoyageNumber       *string    `json:"pod_voyage_number"`
	POLETDAt              *time.Time `json:"pol_etd_at"`
	POLATDAt              *time.Time `json:"pol_atd_at"`
	PODETAAt              *time.Time `json:"pod_eta_at"`
	PODOriginalETAAt      *time.Time `json:"pod_original_eta_at"`
	PODATAAt              *time.Time `json:"pod_ata_at"`
	// LineTrackingLastSucceededAt is when the carrier last answered a lookup.
	LineTrackingLastSucceededAt *time.Time `json:"line_tracking_last_succeeded_at"`
	// LineTrackingStoppedAt is set once the shipment is no longer refreshed, with the reason.
	LineTrackingStoppedAt     *time.Time `json:"line_tracking_stopped_at"`
	LineTrackingStoppedReason *string    `json:"line_tracking_stopped_reason"`
	CreatedAt                 time.Time  `json:"created_at"`
	UpdatedAt                 time.Time  `json:"updated_at"`
	// Time zones of the port of lading and of discharge (IANA names), which their times are local to.
	POLTimezone *string `json:"pol_timezone"`
	PODTimezone *string `json:"pod_timezone"`
	// PODPredictedArrivalAt is the service's own prediction of the arrival at the port of
	// discharge while the vessel sails the last leg; Shipment gives it to accounts with the map
	// feature.
	PODPredictedArrivalAt *time.Time `json:"pod_predicted_arrival_at,omitempty"`
	CustomerName          *string    `json:"customer_name"`
	// PODTerminalID is the terminal at the port of discharge, "" when the carrier names none.
	PODTerminalID string `json:"pod_terminal_id,omitempty"`
	// ContainerIDs are the shipment's containers; Containers holds them in full, as the API
	// includes them with every shipment this client fetches.
	ContainerIDs []string    `json:"container_ids"`
	Containers   []Container `json:"containers"`
}

// Number is the bill of lading, else the booking number.
func (s Shipment) Number() string {
	for _, n := range []*string{s.BillOfLadingNumber, s.BookingNumber, s.NormalizedNumber} {
		if n != nil && *n != "" {
			return *n
		}
	}
	return ""
}

// Container is a box of a shipment, with its status and milestone times.
type Container struct {
	ID                 string     `json:"id"`
	Number             string     `json:"number"`
	SealNumber         *string    `json:"seal_number"`
	RefNumbers         []string   `json:"ref_numbers"`
	EquipmentType      *string    `json:"equipment_type"`
	EquipmentLength    *int       `json:"equipment_length"`
	EquipmentHeight    *string    `json:"equipment_height"`
	CurrentStatus      string     `json:"current_status"`
	AvailabilityKnown  bool       `json:"availability_known"`
	AvailableForPickup *bool      `json:"available_for_pickup"`
	PickupLFD          *time.Time `json:"pickup_lfd"`
	EmptyOutAt         *time.Time `json:"empty_out_at"`
	POLFullInAt        *time.Time `json:"pol_full_in_at"`
	POLVesselLoadedAt  *time.Time `json:"pol_vessel_loaded_at"`
	POLVesselDeparted  *time.Time `json:"pol_vessel_departed_at"`
	PODArrivedAt       *time.Time `json:"pod_arrived_at"`
	PODDischargedAt    *time.Time `json:"pod_discharged_at"`
	PODFullOutAt       *time.Time `json:"pod_full_out_at"`
	EmptyTerminatedAt  *time.Time `json:"empty_terminated_at"`
	PODTimezone        *string    `json:"pod_timezone"`
	// Terminal data at the port of discharge, when the service has it (Terminal49's members).
	PickupAppointmentAt   *time.Time     `json:"pickup_appointment_at,omitempty"`
	TerminalCheckedAt     *time.Time     `json:"terminal_checked_at,omitempty"`
	LocationAtPODTerminal *string        `json:"location_at_pod_terminal,omitempty"`
	HoldsAtPODTerminal    []TerminalHold `json:"holds_at_pod_terminal,omitempty"`
	FeesAtPODTerminal     []TerminalFee  `json:"fees_at_pod_terminal,omitempty"`
	CreatedAt             time.Time      `json:"created_at"`
	UpdatedAt             time.Time      `json:"updated_at"`
	ShipmentID            string         `json:"shipment_id"`
	// PODTerminalID is the terminal at the port of discharge, "" when the carrier names none.
	PODTerminalID string `json:"pod_terminal_id,omitempty"`
	// Shipment, PODTerminal and TransportEvents are filled when the call asked the service to
	// include them (Container and Containers take the names of what to include).
	Shipment        *Shipment        `json:"shipment,omitempty"`
	PODTerminal     *Terminal        `json:"pod_terminal,omitempty"`
	TransportEvents []TransportEvent `json:"transport_events,omitempty"`
}

// Terminal is a container terminal at a port, as carriers name it.
type Terminal struct {
	ID       string  `json:"id"`
	Name     string  `json:"name"`
	SMDGCode *string `json:"smdg_code"`
	City     *string `json:"city"`
	Country  *string `json:"country"`
}

// TerminalHold is a hold on a container at its terminal ("customs", status "hold" or "pending").
type TerminalHold struct {
	Name        string  `json:"name"`
	Status      string  `json:"status"`
	Description *string `json:"description"`
}

// TerminalFee is a fee due at the terminal, in its currency.
type TerminalFee struct {
	Type         string  `json:"type"`
	Amount       float64 `json:"amount"`
	CurrencyCode string  `json:"currency_code"`
}

// HasTerminalData reports whether the service knows anything of the box at its terminal.
func (c Container) HasTerminalData() bool {
	return c.AvailabilityKnown || c.PickupLFD != nil || c.PickupAppointmentAt != nil || c.TerminalCheckedAt != nil ||
		c.LocationAtPODTerminal != nil || len(c.HoldsAtPODTerminal) > 0 || len(c.FeesAtPODTerminal) > 0
}

func containerOf(r resource, c *Container) {
	c.ID, c.ShipmentID, c.PODTerminalID = r.ID, r.one("shipment"), r.one("pod_terminal")
}

// containerWith fills a container's id and relationships, and what the document includes of
// them: its shipment, its terminal and its transport events.
func containerWith(d document) func(resource, *Container) {
	return func(r resource, c *Container) {
		containerOf(r, c)
		if sr, ok := d.included("shipment", c.ShipmentID); ok {
			var s Shipment
			if json.Unmarshal(sr.Attributes, &s) == nil {
				s.ID, s.ContainerIDs, s.Containers = sr.ID, sr.many("containers"), []Container{}
				s.PODTerminalID = sr.one("pod_terminal")
				c.Shipment = &s
			}
		}
		if tr, ok := d.included("terminal", c.PODTerminalID); ok {
			var t Terminal
			if json.Unmarshal(tr.Attributes, &t) == nil {
				t.ID = tr.ID
				c.PODTerminal = &t
			}
		}
		for _, id := range r.many("transport_events") {
			if er, ok := d.included("transport_event", id); ok {
				var e TransportEvent
				if json.Unmarshal(er.Attributes, &e) == nil {
					e.ID = er.ID
					c.TransportEvents = append(c.TransportEvents, e)
				}
			}
		}
	}
}

// includeQuery asks the service to include the named relationships; none asks for nothing.
func includeQuery(q url.Values, include []string) url.Values {
	if len(include) > 0 {
		if q == nil {
			q = url.Values{}
		}
		q.Set("include", strings.Join(include, ","))
	}
	return q
}

// shipmentOf fills a shipment's id and containers from its resource and the document's included.
func shipmentOf(d document) func(resource, *Shipment) {
	return func(r resource, s *Shipment) {
		s.ID, s.ContainerIDs, s.Containers = r.ID, r.many("containers"), []Container{}
		s.PODTerminalID = r.one("pod_terminal")
		for _, id := range s.ContainerIDs {
			if cr, ok := d.included("container", id); ok {
				var c Container
				if json.Unmarshal(cr.Attributes, &c) == nil {
					containerOf(cr, &c)
					s.Containers = append(s.Containers, c)
				}
			}
		}
	}
}

// ShipmentQuery filters Shipments; empty members filter nothing.
type ShipmentQuery struct {
	// Q keeps shipments whose bill of lading, booking, request number, a reference number or a
	// container number contains it, ignoring case.
	Q string
	// Number keeps the shipment with exactly this bill of lading, booking or request number.
	Number string
	// TrackingStopped keeps shipments whose tracking has (true) or has not (false) stopped.
	TrackingStopped *bool
	Page
}

// Shipments returns a page of the account's shipments with their containers, newest first.
func (c *Client) Shipments(ctx context.Context, q ShipmentQuery) (List[Shipment], error) {
	v := url.Values{"include": {"containers"}}
	if q.Q != "" {
		v.Set("q", q.Q)
	}
	if q.Number != "" {
		v.Set("number", q.Number)
	}
	if q.TrackingStopped != nil {
		v.Set("filter[tracking_stopped]", strconv.FormatBool(*q.TrackingStopped))
	}
	const path = "/v2/shipments"
	d, err := c.get(ctx, path, q.values(v))
	if err != nil {
		return List[Shipment]{}, err
	}
	items, err := decodeList(http.MethodGet, path, d, "shipment", shipmentOf(d))
	return listOf(d, items), err
}

// Shipment returns one of the account's shipments with its containers.
func (c *Client) Shipment(ctx context.Context, id string) (Shipment, error) {
	path := "/v2/shipments/" + escape(id)
	d, err := c.get(ctx, path, url.Values{"include": {"containers"}})
	if err != nil {
		return Shipment{}, err
	}
	var s Shipment
	r, err := decodeOne(http.MethodGet, path, d, "shipment", &s)
	shipmentOf(d)(r, &s)
	return s, err
}

// Container returns one of the account's containers, with the relationships named in include
// ("shipment", "pod_terminal", "transport_events") filled in; the service refuses other names.
func (c *Client) Container(ctx context.Context, id string, include ...string) (Container, error) {
	path := "/v2/containers/" + escape(id)
	d, err := c.get(ctx, path, includeQuery(nil, include))
	if err != nil {
		return Container{}, err
	}
	var ct Container
	r, err := decodeOne(http.MethodGet, path, d, "container", &ct)
	containerWith(d)(r, &ct)
	return ct, err
}

// Containers returns a page of the account's containers, newest first, with the relationships
// named in include filled in, as Container does.
func (c *Client) Containers(ctx context.Context, p Page, include ...string) (List[Container], error) {
	const path = "/v2/containers"
	d, err := c.get(ctx, path, p.values(includeQuery(nil, include)))
	if err != nil {
		return List[Container]{}, err
	}
	items, err := decodeList(http.MethodGet, path, d, "container", containerWith(d))
	return listOf(d, items), err
}

// ContainerByNumber finds the account's container with this number (any case, separators
// ignored), in the newest shipment that holds it. None is an *Error with status 404.
func (c *Client) ContainerByNumber(ctx context.Context, number string) (Container, error) {
	want := strings.ToUpper(strings.NewReplacer(" ", "", "-", "", ".", "", "/", "").Replace(number))
	if want == "" {
		return Container{}, fmt.Errorf("client: empty container number")
	}
	list, err := c.Shipments(ctx, ShipmentQuery{Q: want, Page: Page{Size: 100}})
	if err != nil {
		return Container{}, err
	}
	for _, s := range list.Items {
		for _, ct := range s.Containers {
			if ct.Number == want {
				return ct, nil
			}
		}
	}
	return Container{}, &Error{Method: http.MethodGet, Path: "/v2/shipments", StatusCode: http.StatusNotFound,
		Errors: []ErrorObject{{Status: "404", Title: "Not Found", Code: "not_found", Detail: "No shipment of this account holds container " + want + "."}}}
}

// TransportEvent is a milestone of a container (container.transport.*).
type TransportEvent struct {
	ID             string     `json:"id"`
	Event          string     `json:"event"`
	Timestamp      *time.Time `json:"timestamp"`
	Timezone       *string    `json:"timezone"`
	LocationLOCODE *string    `json:"location_locode"`
	VoyageNumber   *string    `json:"voyage_number"`
	DataSource     string     `json:"data_source"`
	CreatedAt      time.Time  `json:"created_at"`
	// LocationName and VesselName come from the included port and vessel, when there are.
	LocationName string `json:"location_name,omitempty"`
	VesselName   string `json:"vessel_name,omitempty"`
	VesselIMO    string `json:"vessel_imo,omitempty"`
}

// TransportEvents returns every milestone of a container, oldest first.
func (c *Client) TransportEvents(ctx context.Context, containerID string) ([]TransportEvent, error) {
	path := "/v2/containers/" + escape(containerID) + "/transport_events"
	return all(ctx, func(ctx context.Context, p Page) (List[TransportEvent], error) {
		d, err := c.get(ctx, path, p.values(url.Values{"include": {"location,vessel"}}))
		if err != nil {
			return List[TransportEvent]{}, err
		}
		items, err := decodeList(http.MethodGet, path, d, "transport_event", func(r resource, e *TransportEvent) {
			e.ID = r.ID
			if pr, ok := d.included("port", r.one("location")); ok {
				var port struct{ Name string }
				if json.Unmarshal(pr.Attributes, &port) == nil {
					e.LocationName = port.Name
				}
			}
			if vr, ok := d.included("vessel", r.one("vessel")); ok {
				var v struct{ Name, IMO string }
				if json.Unmarshal(vr.Attributes, &v) == nil {
					e.VesselName, e.VesselIMO = v.Name, v.IMO
				}
			}
		})
		return listOf(d, items), err
	})
}

// ContainerMap returns the container's map as the GeoJSON FeatureCollection the API sends
// (ports, the vessel, its past positions and the estimated legs), unchanged. An account without
// the map feature gets a 403.
func (c *Client) ContainerMap(ctx context.Context, containerID string) (json.RawMessage, error) {
	path := "/v2/containers/" + escape(containerID) + "/map_geojson"
	raw, err := c.do(ctx, http.MethodGet, path, nil, nil)
	if err != nil {
		return nil, err
	}
	var fc struct {
		Type     string            `json:"type"`
		Features []json.RawMessage `json:"features"`
	}
	if err := json.Unmarshal(raw, &fc); err != nil || fc.Type != "FeatureCollection" || fc.Features == nil {
		return nil, fmt.Errorf("GET %s: the answer is not a GeoJSON FeatureCollection", path)
	}
	return raw, nil
}

// ShippingLine is a carrier of the registry and the number types it can be tracked by.
type ShippingLine struct {
	ID                             string   `json:"id"`
	SCAC                           string   `json:"scac"`
	Name                           string   `json:"name"`
	ShortName                      string   `json:"short_name"`
	AlternativeSCACs               []string `json:"alternative_scacs"`
	BillOfLadingTrackingSupport    bool     `json:"bill_of_lading_tracking_support"`
	BookingNumberTrackingSupport   bool     `json:"booking_number_tracking_support"`
	ContainerNumberTrackingSupport bool     `json:"container_number_tracking_support"`
}

func shippingLineOf(r resource, l *ShippingLine) { l.ID = r.ID }

// ShippingLines returns every shipping line the service knows.
func (c *Client) ShippingLines(ctx context.Context) ([]ShippingLine, error) {
	return c.FindShippingLines(ctx, "")
}

// FindShippingLines returns the shipping lines whose name contains search or one of whose SCACs
// is search, ignoring case, as the service matches them; an empty search returns every line.
func (c *Client) FindShippingLines(ctx context.Context, search string) ([]ShippingLine, error) {
	const path = "/v2/shipping_lines"
	var q url.Values
	if search != "" {
		q = url.Values{"search": {search}}
	}
	d, err := c.get(ctx, path, q)
	if err != nil {
		return nil, err
	}
	return decodeList(http.MethodGet, path, d, "shipping_line", shippingLineOf)
}

// ShippingLine returns a line by id or by any of its SCACs.
func (c *Client) ShippingLine(ctx context.Context, idOrSCAC string) (ShippingLine, error) {
	path := "/v2/shipping_lines/" + escape(idOrSCAC)
	d, err := c.get(ctx, path, nil)
	if err != nil {
		return ShippingLine{}, err
	}
	var l ShippingLine
	r, err := decodeOne(http.MethodGet, path, d, "shipping_line", &l)
	shippingLineOf(r, &l)
	return l, err
}

// Vessel is a ship, with its last known position when the service has one.
type Vessel struct {
	ID                         string     `json:"id"`
	Name                       string     `json:"name"`
	IMO                        string     `json:"imo"`
	MMSI                       *string    `json:"mmsi"`
	Latitude                   *float64   `json:"latitude"`
	Longitude                  *float64   `json:"longitude"`
	NauticalSpeedKnots         *float64   `json:"nautical_speed_knots"`
	NavigationalHeadingDegrees *float64   `json:"navigational_heading_degrees"`
	PositionTimestamp          *time.Time `json:"position_timestamp"`
}

// Vessel returns a vessel by id or IMO number.
func (c *Client) Vessel(ctx context.Context, idOrIMO string) (Vessel, error) {
	path := "/v2/vessels/" + escape(idOrIMO)
	d, err := c.get(ctx, path, nil)
	if err != nil {
		return Vessel{}, err
	}
	var v Vessel
	r, err := decodeOne(http.MethodGet, path, d, "vessel", &v)
	v.ID = r.ID
	return v, err
}
