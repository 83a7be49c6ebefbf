package jsonapi

import "github.com/boxwatch/boxwatch"

// SearchAttributes is one match of GET /v2/search; members that do not apply to the entity are null.
type SearchAttributes struct {
	EntityType            string   `json:"entity_type" enum:"shipment,cargo,tracking_request"`
	Number                string   `json:"number" doc:"The bill of lading (or booking) number of a shipment, a container's number, a request's number."`
	ShipmentID            *string  `json:"shipment_id" format:"uuid"`
	SCAC                  *string  `json:"scac"`
	PortOfLadingName      *string  `json:"port_of_lading_name"`
	PortOfDischargeName   *string  `json:"port_of_discharge_name"`
	ContainersCount       *int     `json:"containers_count"`
	TrackingStopped       *bool    `json:"tracking_stopped"`
	TrackingStoppedReason *string  `json:"tracking_stopped_reason"`
	Status                *string  `json:"status"`
	FailedReason          *string  `json:"failed_reason"`
	RefNumbers            []string `json:"ref_numbers"`
	CreatedAt             string   `json:"created_at" format:"date-time"`
	UpdatedAt             string   `json:"updated_at" format:"date-time"`
}

// SearchResult is one match of a search.
type SearchResult struct {
	ID         string           `json:"id" format:"uuid"`
	Type       string           `json:"type" enum:"shipment,cargo,tracking_request"`
	Attributes SearchAttributes `json:"attributes"`
}

// SearchDocument answers a search: shipments, containers and tracking requests.
type SearchDocument struct {
	Data []SearchResult `json:"data"`
}

// ShipmentMatch renders a shipment found by a search; containers is how many it has.
func (rd Renderer) ShipmentMatch(s boxwatch.Shipment, containers int) SearchResult {
	stopped := !s.StoppedAt.IsZero()
	a := SearchAttributes{EntityType: "shipment", Number: firstOf(s.BillOfLading, s.Booking), SCAC: optString(s.SCAC),
		ContainersCount: &containers, TrackingStopped: &stopped, TrackingStoppedReason: optString(s.StoppedReason),
		RefNumbers: nonNil(s.RefNumbers), CreatedAt: timestamp(s.CreatedAt), UpdatedAt: timestamp(s.UpdatedAt)}
	if pol, ok := s.POL(); ok {
		a.PortOfLadingName = rd.portName(pol.LOCODE)
	}
	if pod, ok := s.POD(); ok && len(s.Route) > 1 {
		a.PortOfDischargeName = rd.portName(pod.LOCODE)
	}
	return SearchResult{ID: s.ID, Type: "shipment", Attributes: a}
}

// ContainerMatch renders a container of shipment s found by a search.
func ContainerMatch(c boxwatch.Container, s boxwatch.Shipment) SearchResult {
	return SearchResult{ID: c.ID, Type: "cargo", Attributes: SearchAttributes{EntityType: "cargo", Number: c.Number,
		ShipmentID: optString(c.ShipmentID), SCAC: optString(s.SCAC), RefNumbers: nonNil(s.RefNumbers),
		CreatedAt: timestamp(c.CreatedAt), UpdatedAt: timestamp(c.UpdatedAt)}}
}

// RequestMatch renders a tracking request found by a search.
func RequestMatch(tr boxwatch.TrackingRequest) SearchResult {
	status := string(tr.Status)
	return SearchResult{ID: tr.ID, Type: "tracking_request", Attributes: SearchAttributes{EntityType: "tracking_request",
		Number: tr.RequestNumber, ShipmentID: optString(tr.ShipmentID), SCAC: optString(tr.SCAC), Status: &status,
		FailedReason: optString(tr.FailedReason), RefNumbers: nonNil(tr.RefNumbers),
		CreatedAt: timestamp(tr.CreatedAt), UpdatedAt: timestamp(tr.UpdatedAt)}}
}
