package api

import (
	"net/http"

	"github.com/boxwatch/boxwatch"
)

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
	// Terminal, rail and inland attributes of the reference: null (or empty) while unknown.
	PickupAppointmentAt           *string         `json:"pickup_appointment_at" format:"date-time"`
	TerminalCheckedAt             *string         `json:"terminal_checked_at" format:"date-time"`
	PODFullOutChassisNumber       *string         `json:"pod_full_out_chassis_number"`
	LocationAtPODTerminal         *string         `json:"location_at_pod_terminal"`
	FinalDestinationFullOutAt     *string         `json:"final_destination_full_out_at" format:"date-time"`
	HoldsAtPODTerminal            []terminalHold  `json:"holds_at_pod_terminal"`
	FeesAtPODTerminal             []terminalFee   `json:"fees_at_pod_terminal"`
	FinalDestinationTimezone      *string         `json:"final_destination_timezone"`
	EmptyTerminatedTimezone       *string         `json:"empty_terminated_timezone"`
	PODRailCarrierSCAC            *string         `json:"pod_rail_carrier_scac"`
	IndRailCarrierSCAC            *string         `json:"ind_rail_carrier_scac"`
	PODLastTrackingRequestAt      *string         `json:"pod_last_tracking_request_at" format:"date-time"`
	ShipmentLastTrackingRequestAt *string         `json:"shipment_last_tracking_request_at" format:"date-time"`
	PODRailLoadedAt               *string         `json:"pod_rail_loaded_at" format:"date-time"`
	PODRailDepartedAt             *string         `json:"pod_rail_departed_at" format:"date-time"`
	IndETAAt                      *string         `json:"ind_eta_at" format:"date-time"`
	IndATAAt                      *string         `json:"ind_ata_at" format:"date-time"`
	IndRailUnloadedAt             *string         `json:"ind_rail_unloaded_at" format:"date-time"`
	IndFacilityLFDOn              *string         `json:"ind_facility_lfd_on" format:"date-time"`
	ImportDeadlines               importDeadlines `json:"import_deadlines"`
	CreatedAt                     string          `json:"created_at" format:"date-time"`
	UpdatedAt                     string          `json:"updated_at" format:"date-time"`
}

// terminalHold is a hold at the port of discharge's terminal (customs, freight, USDA, …).
type terminalHold struct {
	Name        string  `json:"name"`
	Status      string  `json:"status" enum:"pending,hold"`
	Description *string `json:"description"`
}

// terminalFee is a fee owed at the port of discharge's terminal, in local currency.
type terminalFee struct {
	Type         string  `json:"type" enum:"demurrage,exam,extended_dwell_time,other,total"`
	Amount       float64 `json:"amount"`
	CurrencyCode string  `json:"currency_code"`
}

// importDeadlines are the last free days by who reported them.
type importDeadlines struct {
	PickupLFDTerminal *string `json:"pickup_lfd_terminal" format:"date-time"`
	PickupLFDRail     *string `json:"pickup_lfd_rail" format:"date-time"`
	PickupLFDLine     *string `json:"pickup_lfd_line" format:"date-time"`
}

type containerRelationships struct {
	Shipment        toOne  `json:"shipment"`
	PickupFacility  toOne  `json:"pickup_facility"`
	PODTerminal     toOne  `json:"pod_terminal"`
	TransportEvents toMany `json:"transport_events"`
	RawEvents       toMany `json:"raw_events" doc:"Empty: the carrier's events are listed by GET /v2/containers/{id}/raw_events."`
}

// containerRelationshipNames are the container relationships the reference API defines, every
// one of which include accepts.
var containerRelationshipNames = []string{"shipment", "pickup_facility", "pod_terminal", "transport_events", "raw_events"}

type containerResource struct {
	ID            string                 `json:"id" format:"uuid"`
	Type          string                 `json:"type" enum:"container"`
	Attributes    containerAttributes    `json:"attributes"`
	Relationships containerRelationships `json:"relationships"`
	Links         resourceLinks          `json:"links"`
}

type containerDocument = document[containerResource]
type containerListDocument = document[[]containerResource]

func (p portRenderer) containerOut(c boxwatch.Container, pod boxwatch.RouteStop, events []boxwatch.TransportEvent) containerResource {
	podLOCODE := pod.LOCODE
	a := containerAttributes{
		Number: c.Number, SealNumber: optString(c.SealNumber), RefNumbers: nonNil(c.RefNumbers),
		EquipmentType: optString(c.EquipmentType), EquipmentHeight: optString(c.EquipmentHeight),
		HoldsAtPODTerminal: []terminalHold{}, FeesAtPODTerminal: []terminalFee{}, PickupLFD: optTime(c.PickupLFD),
		LocationAtPODTerminal: optString(c.LocationAtTerminal), TerminalCheckedAt: optTime(c.TerminalCheckedAt),
		ImportDeadlines: importDeadlines{PickupLFDTerminal: optTime(c.PickupLFD)},
		CurrentStatus:   c.CurrentStatus, AvailabilityKnown: c.AvailableForPickup != nil, AvailableForPickup: c.AvailableForPickup,
		EmptyOutAt: optTime(c.EmptyOutAt), POLFullInAt: optTime(c.FullInAt), POLVesselLoadedAt: optTime(c.LoadedAt),
		POLVesselDeparted: optTime(c.DepartedAt), PODArrivedAt: optTime(c.PODArrivedAt), PODDischargedAt: optTime(c.PODDischargedAt),
		PODFullOutAt: optTime(c.PODFullOutAt), EmptyTerminatedAt: optTime(c.EmptyTerminatedAt), PODTimezone: p.tz(podLOCODE),
		ShipmentLastTrackingRequestAt: optTime(c.ShipmentLastTrackingRequestAt), PODLastTrackingRequestAt: optTime(c.PODLastTrackingRequestAt),
		CreatedAt: c.CreatedAt.UTC().Format(boxwatch.TimeFormat), UpdatedAt: c.UpdatedAt.UTC().Format(boxwatch.TimeFormat),
	}
	for _, h := range c.Holds {
		a.HoldsAtPODTerminal = append(a.HoldsAtPODTerminal, terminalHold{Name: h.Name, Status: h.Status, Description: optString(h.Description)})
	}
	for _, f := range c.Fees {
		a.FeesAtPODTerminal = append(a.FeesAtPODTerminal, terminalFee{Type: f.Type, Amount: f.Amount, CurrencyCode: f.Currency})
	}
	if c.EquipmentLength > 0 {
		n := c.EquipmentLength
		a.EquipmentLength = &n
	}
	// Without rail or inland data, a container is picked up where the vessel left it.
	terminal := linkTo(pod.TerminalID(), "terminal")
	rel := containerRelationships{Shipment: linkTo(c.ShipmentID, "shipment"), PODTerminal: terminal, PickupFacility: terminal,
		TransportEvents: toMany{Data: []resourceIdentifier{}}, RawEvents: toMany{Data: []resourceIdentifier{}}}
	for _, e := range events {
		rel.TransportEvents.Data = append(rel.TransportEvents.Data, resourceIdentifier{ID: e.ID, Type: "transport_event"})
	}
	return containerResource{ID: c.ID, Type: "container", Attributes: a, Relationships: rel, Links: resourceLinks{Self: "/v2/containers/" + c.ID}}
}

var containerListParams = []param{
	paramPageNumber, paramPageSize, paramInclude(containerRelationshipNames...),
	{name: "filter[number]", typ: "string", doc: "Only the container with this number; spaces and dashes are ignored (MSCU 123456-6)."},
}

func handleContainerList(st boxwatch.Store, carriers *boxwatch.Carriers, p portRenderer, pageLinks pageLinker) handlerFunc {
	return handleList(pageLinks, func(r *http.Request, page boxwatch.Page) (listPage[containerResource], error) {
		var lp listPage[containerResource]
		q := r.URL.Query()
		inc, err := includes(q, containerRelationshipNames...)
		if err != nil {
			return lp, err
		}
		f := boxwatch.ContainerFilter{Number: q.Get("filter[number]")}
		if len(f.Number) > 100 {
			return lp, boxwatch.BadParameter("filter[number]", "filter[number] is at most 100 characters.")
		}
		acct := account(r).ID
		list, total, err := st.Containers(r.Context(), acct, f, page)
		if err != nil {
			return lp, err
		}
		shipments, err := st.ShipmentsByID(r.Context(), acct, idsOf(list, func(c boxwatch.Container) string { return c.ShipmentID }))
		if err != nil {
			return lp, err
		}
		events, err := st.TransportEventsOfContainers(r.Context(), acct, idsOf(list, func(c boxwatch.Container) string { return c.ID }))
		if err != nil {
			return lp, err
		}
		siblings := map[string][]boxwatch.Container{}
		if inc["shipment"] {
			if siblings, err = st.ContainersOfShipments(r.Context(), acct, idsOf(list, func(c boxwatch.Container) string { return c.ShipmentID })); err != nil {
				return lp, err
			}
		}
		lp.data, lp.included, lp.total = make([]containerResource, len(list)), []any{}, total
		seen := map[string]bool{}
		for i, c := range list {
			s, found := shipments[c.ShipmentID]
			pod, _ := s.POD()
			lp.data[i] = p.containerOut(c, pod, events[c.ID])
			if inc["shipment"] && found && !seen[s.ID] {
				seen[s.ID] = true
				lp.included = append(lp.included, p.shipmentOut(s, carriers, siblings[s.ID]))
			}
			if t, ok := stopTerminal(pod); ok && (inc["pod_terminal"] || inc["pickup_facility"]) && !seen[t.ID] {
				seen[t.ID] = true
				lp.included = append(lp.included, p.terminalOut(t))
			}
			if inc["transport_events"] {
				for _, e := range events[c.ID] {
					lp.included = append(lp.included, p.transportEventOut(e, s.Route))
				}
			}
		}
		return lp, nil
	})
}

func handleContainerGet(st boxwatch.Store, carriers *boxwatch.Carriers, p portRenderer, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		inc, err := includes(r.URL.Query(), containerRelationshipNames...)
		if err != nil {
			return err
		}
		c, err := st.Container(r.Context(), account(r).ID, r.PathValue("id"))
		if err != nil {
			return err
		}
		return writeContainer(w, r, st, carriers, p, base, c, inc)
	}
}

// writeContainer answers 200 with the container document, inc naming the relationships to include.
func writeContainer(w http.ResponseWriter, r *http.Request, st boxwatch.Store, carriers *boxwatch.Carriers, p portRenderer, base func(*http.Request) string, c boxwatch.Container, inc map[string]bool) error {
	acct := account(r).ID
	s, err := st.Shipment(r.Context(), acct, c.ShipmentID)
	if err != nil {
		return err
	}
	byContainer, err := st.TransportEventsOfContainers(r.Context(), acct, []string{c.ID})
	if err != nil {
		return err
	}
	events := byContainer[c.ID]
	pod, _ := s.POD()
	res := p.containerOut(c, pod, events)
	included := []any{}
	if inc["shipment"] {
		siblings, err := st.ShipmentContainers(r.Context(), acct, s.ID)
		if err != nil {
			return err
		}
		included = append(included, p.shipmentOut(s, carriers, siblings))
	}
	if t, ok := stopTerminal(pod); ok && (inc["pod_terminal"] || inc["pickup_facility"]) {
		included = append(included, p.terminalOut(t))
	}
	if inc["transport_events"] {
		for _, e := range events {
			included = append(included, p.transportEventOut(e, s.Route))
		}
	}
	writeResource(w, http.StatusOK, base(r)+res.Links.Self, res, included)
	return nil
}

// containerUpdateBody documents the update body.
type containerUpdateBody struct {
	Data struct {
		Type       string `json:"type" enum:"container"`
		ID         string `json:"id,omitempty" format:"uuid" doc:"The container's id: required by PATCH /v2/containers, optional with the id in the path."`
		Attributes struct {
			RefNumbers []string `json:"ref_numbers" doc:"Replaces the reference numbers."`
		} `json:"attributes"`
	} `json:"data"`
}

// containerBodyID returns the data.id of an update sent to PATCH /v2/containers, which names the
// container in the body rather than in the path.
func containerBodyID(doc any) (string, error) {
	top, _ := doc.(map[string]any)
	data, _ := top["data"].(map[string]any)
	if data == nil {
		// Not a document with a resource object: resourceObject says what is wrong with it.
		_, err := resourceObject(doc, "container", "-")
		return "", err
	}
	switch id, ok := data["id"].(string); {
	case data["id"] == nil:
		return "", boxwatch.Invalid("/data/id", boxwatch.CodeBlank, "data.id can't be blank: it names the container to edit.")
	case !ok || !boxwatch.IsUUID(id):
		return "", boxwatch.Invalid("/data/id", boxwatch.CodeInvalid, "data.id must be a container's id.")
	default:
		return id, nil
	}
}

// decodeContainerUpdate reads the reference numbers a container update replaces.
func decodeContainerUpdate(doc any, id string) ([]string, error) {
	attrs, err := resourceObject(doc, "container", id)
	if err != nil {
		return nil, err
	}
	if err := attrs.only("ref_numbers"); err != nil {
		return nil, err
	}
	refs, ok, err := attrs.strings("ref_numbers")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, boxwatch.Invalid(attrs.pointer+"/ref_numbers", boxwatch.CodeBlank, "Send ref_numbers (a list, possibly empty) to replace the reference numbers.")
	}
	refs = nonNil(refs)
	if err := boxwatch.ValidateRefNumbers(refs); err != nil {
		return nil, err
	}
	return refs, nil
}

// handleContainerUpdate replaces a container's reference numbers, the container named by the path
// or, with idInBody, by data.id.
func handleContainerUpdate(st boxwatch.Store, carriers *boxwatch.Carriers, p portRenderer, now boxwatch.Clock, base func(*http.Request) string, idInBody bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, acct := r.PathValue("id"), account(r).ID
		if !idInBody {
			// An id the caller cannot see is a 404 whatever the body holds.
			if _, err := st.Container(r.Context(), acct, id); err != nil {
				return err
			}
		}
		body, err := readBody(w, r)
		if err != nil {
			return err
		}
		doc, err := parseJSON(body)
		if err != nil {
			return err
		}
		if idInBody {
			if id, err = containerBodyID(doc); err != nil {
				return err
			}
		}
		refs, err := decodeContainerUpdate(doc, id)
		if err != nil {
			return err
		}
		c, err := st.SetContainerRefNumbers(r.Context(), acct, id, refs, now())
		if err != nil {
			return err
		}
		return writeContainer(w, r, st, carriers, p, base, c, nil)
	}
}
