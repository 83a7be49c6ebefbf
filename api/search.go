package api

import (
	"net/http"
	"strings"

	"github.com/boxwatch/boxwatch"
)

// searchAttributes is one match of GET /v2/search; members that do not apply to the entity are null.
type searchAttributes struct {
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

type searchResult struct {
	ID         string           `json:"id" format:"uuid"`
	Type       string           `json:"type" enum:"shipment,cargo,tracking_request"`
	Attributes searchAttributes `json:"attributes"`
}

type searchDocument struct {
	Data []searchResult `json:"data"`
}

// searchLimit is how many matches of each kind one search returns, newest first.
const searchLimit = 25

func handleSearch(st boxwatch.Store, p portRenderer) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		query := strings.TrimSpace(r.URL.Query().Get("query"))
		switch {
		case query == "":
			return boxwatch.BadParameter("query", "query is required: a bill of lading, booking, container or reference number, or part of one.")
		case len(query) > 100:
			return boxwatch.BadParameter("query", "query is at most 100 characters.")
		}
		acct, page := account(r).ID, boxwatch.Page{Number: 1, Size: searchLimit}
		shipments, _, err := st.Shipments(r.Context(), acct, boxwatch.ShipmentFilter{Query: query}, page)
		if err != nil {
			return err
		}
		containers, err := st.ContainersOfShipments(r.Context(), acct, idsOf(shipments, func(s boxwatch.Shipment) string { return s.ID }))
		if err != nil {
			return err
		}
		requests, _, err := st.TrackingRequests(r.Context(), acct, boxwatch.TrackingRequestFilter{Query: query}, page)
		if err != nil {
			return err
		}
		doc := searchDocument{Data: []searchResult{}}
		boxQuery := boxwatch.NormalizeContainerNumber(query)
		var cargo []searchResult
		for _, s := range shipments {
			doc.Data = append(doc.Data, p.shipmentMatch(s, len(containers[s.ID])))
			for _, c := range containers[s.ID] {
				if strings.Contains(c.Number, boxQuery) && len(cargo) < searchLimit {
					cargo = append(cargo, containerMatch(c, s))
				}
			}
		}
		doc.Data = append(doc.Data, cargo...)
		for _, tr := range requests {
			doc.Data = append(doc.Data, requestMatch(tr))
		}
		writeJSON(w, http.StatusOK, doc)
		return nil
	}
}

func (p portRenderer) shipmentMatch(s boxwatch.Shipment, containers int) searchResult {
	stopped := !s.StoppedAt.IsZero()
	a := searchAttributes{EntityType: "shipment", Number: firstOf(s.BillOfLading, s.Booking), SCAC: optString(s.SCAC),
		ContainersCount: &containers, TrackingStopped: &stopped, TrackingStoppedReason: optString(s.StoppedReason),
		RefNumbers: nonNil(s.RefNumbers), CreatedAt: s.CreatedAt.UTC().Format(boxwatch.TimeFormat), UpdatedAt: s.UpdatedAt.UTC().Format(boxwatch.TimeFormat)}
	if pol, ok := s.POL(); ok {
		a.PortOfLadingName = p.name(pol.LOCODE)
	}
	if pod, ok := s.POD(); ok && len(s.Route) > 1 {
		a.PortOfDischargeName = p.name(pod.LOCODE)
	}
	return searchResult{ID: s.ID, Type: "shipment", Attributes: a}
}

func containerMatch(c boxwatch.Container, s boxwatch.Shipment) searchResult {
	return searchResult{ID: c.ID, Type: "cargo", Attributes: searchAttributes{EntityType: "cargo", Number: c.Number,
		ShipmentID: optString(c.ShipmentID), SCAC: optString(s.SCAC), RefNumbers: nonNil(s.RefNumbers),
		CreatedAt: c.CreatedAt.UTC().Format(boxwatch.TimeFormat), UpdatedAt: c.UpdatedAt.UTC().Format(boxwatch.TimeFormat)}}
}

func requestMatch(tr boxwatch.TrackingRequest) searchResult {
	status := string(tr.Status)
	return searchResult{ID: tr.ID, Type: "tracking_request", Attributes: searchAttributes{EntityType: "tracking_request",
		Number: tr.RequestNumber, ShipmentID: optString(tr.ShipmentID), SCAC: optString(tr.SCAC), Status: &status,
		FailedReason: optString(tr.FailedReason), RefNumbers: nonNil(tr.RefNumbers),
		CreatedAt: tr.CreatedAt.UTC().Format(boxwatch.TimeFormat), UpdatedAt: tr.UpdatedAt.UTC().Format(boxwatch.TimeFormat)}}
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
