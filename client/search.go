package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"time"
)

// Kinds of search matches.
const (
	MatchShipment        = "shipment"
	MatchContainer       = "cargo"
	MatchTrackingRequest = "tracking_request"
)

// Match is one record a search found: a shipment, a container (Type MatchContainer, the
// reference's "cargo") or a tracking request. Members that do not apply to its kind are nil.
type Match struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	// Number is a shipment's bill of lading (or booking), a container's number or a request's number.
	Number                string    `json:"number"`
	ShipmentID            *string   `json:"shipment_id"`
	SCAC                  *string   `json:"scac"`
	PortOfLadingName      *string   `json:"port_of_lading_name"`
	PortOfDischargeName   *string   `json:"port_of_discharge_name"`
	ContainersCount       *int      `json:"containers_count"`
	TrackingStopped       *bool     `json:"tracking_stopped"`
	TrackingStoppedReason *string   `json:"tracking_stopped_reason"`
	Status                *string   `json:"status"`
	FailedReason          *string   `json:"failed_reason"`
	RefNumbers            []string  `json:"ref_numbers"`
	CreatedAt             time.Time `json:"created_at"`
	UpdatedAt             time.Time `json:"updated_at"`
}

// Search finds the account's shipments, containers and tracking requests whose bill of lading,
// booking, container, request or reference number contains query, at most 25 of each kind,
// newest first: shipments, then containers, then tracking requests.
func (c *Client) Search(ctx context.Context, query string) ([]Match, error) {
	const path = "/v2/search"
	d, err := c.get(ctx, path, url.Values{"query": {query}})
	if err != nil {
		return nil, err
	}
	var rs []resource
	if err := json.Unmarshal(d.Data, &rs); err != nil {
		return nil, fmt.Errorf("GET %s: data is not a list of matches: %w", path, err)
	}
	out := make([]Match, len(rs))
	for i, r := range rs {
		if err := json.Unmarshal(r.Attributes, &out[i]); err != nil {
			return nil, fmt.Errorf("GET %s: %s %s: %w", path, r.Type, r.ID, err)
		}
		out[i].ID, out[i].Type = r.ID, r.Type
	}
	return out, nil
}
