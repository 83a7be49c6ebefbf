package client

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// Request types.
const (
	BillOfLading  = "bill_of_lading"
	BookingNumber = "booking_number"
	ContainerType = "container"
)

// Tracking request statuses.
const (
	StatusPending          = "pending"
	StatusAwaitingManifest = "awaiting_manifest"
	StatusCreated          = "created"
	StatusFailed           = "failed"
	StatusTrackingStopped  = "tracking_stopped"
)

// TrackingRequest is a number submitted for tracking with a shipping line.
type TrackingRequest struct {
	ID            string   `json:"id"`
	RequestType   string   `json:"request_type"`
	RequestNumber string   `json:"request_number"`
	SCAC          string   `json:"scac"`
	RefNumbers    []string `json:"ref_numbers"`
	ShipmentTags  []string `json:"shipment_tags"`
	Status        string   `json:"status"`
	// FailedReason says why the request failed or is failing ("not_found", "retries_exhausted"…).
	FailedReason *string   `json:"failed_reason"`
	IsRetrying   bool      `json:"is_retrying"`
	RetryCount   *int      `json:"retry_count"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
	// ShipmentID is the shipment the request became, once the lookup succeeded.
	ShipmentID string `json:"shipment_id,omitempty"`
}

// Settled reports whether the request's lookup is over: it became a shipment, failed or stopped.
// A pending request, or one awaiting its manifest, is still being looked up.
func (tr TrackingRequest) Settled() bool {
	return tr.Status == StatusCreated || tr.Status == StatusFailed || tr.Status == StatusTrackingStopped
}

func trackingRequestOf(r resource, tr *TrackingRequest) {
	tr.ID, tr.ShipmentID = r.ID, r.one("tracked_object")
}

// NewTrackingRequest is what CreateTrackingRequest sends.
type NewTrackingRequest struct {
	// RequestType is BillOfLading, BookingNumber or ContainerType.
	RequestType   string `json:"request_type"`
	RequestNumber string `json:"request_number"`
	// SCAC is the shipping line's SCAC or one of its alternative SCACs.
	SCAC string `json:"scac,omitempty"`
	// AutoDetect, with no SCAC, leaves the shipping line to the service, which picks it from the
	// number as InferNumber does (auto_detect_vocc_scac).
	AutoDetect   bool     `json:"auto_detect_vocc_scac,omitempty"`
	RefNumbers   []string `json:"ref_numbers,omitempty"`
	ShipmentTags []string `json:"shipment_tags,omitempty"`
}

// CreateTrackingRequest submits a number for tracking. The request comes back pending; follow it
// with TrackingRequest. A live request for the same number and SCAC is a 422 with code
// "duplicate".
func (c *Client) CreateTrackingRequest(ctx context.Context, n NewTrackingRequest) (TrackingRequest, error) {
	body := map[string]any{"data": map[string]any{"type": "tracking_request", "attributes": n}}
	const path = "/v2/tracking_requests"
	d, err := c.send(ctx, http.MethodPost, path, nil, body)
	if err != nil {
		return TrackingRequest{}, err
	}
	return oneTrackingRequest(http.MethodPost, path, d)
}

func oneTrackingRequest(method, path string, d document) (TrackingRequest, error) {
	var tr TrackingRequest
	r, err := decodeOne(method, path, d, "tracking_request", &tr)
	trackingRequestOf(r, &tr)
	return tr, err
}

// TrackingRequest returns one of the account's tracking requests.
func (c *Client) TrackingRequest(ctx context.Context, id string) (TrackingRequest, error) {
	path := "/v2/tracking_requests/" + escape(id)
	d, err := c.get(ctx, path, nil)
	if err != nil {
		return TrackingRequest{}, err
	}
	return oneTrackingRequest(http.MethodGet, path, d)
}

// TrackingRequestQuery filters TrackingRequests; empty members filter nothing.
type TrackingRequestQuery struct {
	Status, SCAC, RequestNumber string
	// Q matches part of the number or of a reference number.
	Q string
	// Filters are further query parameters, sent as given, such as
	// "filter[created_at][start]": "2025-01-01T00:00:00Z". The service refuses (400) a parameter
	// it does not know, naming it.
	Filters map[string]string
	Page
}

// TrackingRequests returns a page of the account's tracking requests, newest first.
func (c *Client) TrackingRequests(ctx context.Context, q TrackingRequestQuery) (List[TrackingRequest], error) {
	v := url.Values{}
	for name, val := range q.Filters {
		v.Set(name, val)
	}
	for name, val := range map[string]string{"filter[status]": q.Status, "filter[scac]": q.SCAC,
		"filter[request_number]": q.RequestNumber, "q": q.Q} {
		if val != "" {
			v.Set(name, val)
		}
	}
	const path = "/v2/tracking_requests"
	d, err := c.get(ctx, path, q.values(v))
	if err != nil {
		return List[TrackingRequest]{}, err
	}
	items, err := decodeList(http.MethodGet, path, d, "tracking_request", trackingRequestOf)
	return listOf(d, items), err
}

// LiveTrackingRequest returns the account's request for number that is still live (pending,
// awaiting its manifest or created): the one that makes a new request for the same number a
// duplicate. With scac empty, any line's. None is an *Error with status 404.
func (c *Client) LiveTrackingRequest(ctx context.Context, number, scac string) (TrackingRequest, error) {
	list, err := c.TrackingRequests(ctx, TrackingRequestQuery{RequestNumber: number, SCAC: scac, Page: Page{Size: 100}})
	if err != nil {
		return TrackingRequest{}, err
	}
	for _, tr := range list.Items {
		if tr.Status == StatusPending || tr.Status == StatusCreated || tr.Status == StatusAwaitingManifest {
			return tr, nil
		}
	}
	return TrackingRequest{}, &Error{Method: http.MethodGet, Path: "/v2/tracking_requests", StatusCode: http.StatusNotFound,
		Errors: []ErrorObject{{Status: "404", Title: "Not Found", Code: "not_found", Detail: "No live tracking request of this account is for " + number + "."}}}
}

// Inference decisions.
const (
	AutoSelect        = "auto_select"
	NeedsConfirmation = "needs_confirmation"
	NoPrediction      = "no_prediction"
)

// Inference is what infer_number tells about a bare number.
type Inference struct {
	// NumberType is "container", "bill_of_lading" or "booking" (also the guess for a number in
	// no known format).
	NumberType string `json:"number_type"`
	Validation struct {
		IsValid          *bool  `json:"is_valid"`
		Type             string `json:"type"`
		CheckDigitPassed *bool  `json:"check_digit_passed"`
		ParsedNumber     string `json:"parsed_number"`
		Reason           string `json:"reason"`
	} `json:"validation"`
	ShippingLine struct {
		// Decision is AutoSelect, NeedsConfirmation or NoPrediction.
		Decision   string      `json:"decision"`
		Selected   *Candidate  `json:"selected"`
		Candidates []Candidate `json:"candidates"`
	} `json:"shipping_line"`
}

// RequestType is the tracking request type of the number's type ("booking" is a
// BookingNumber request), or "" when the service could not tell.
func (in Inference) RequestType() string {
	switch in.NumberType {
	case BillOfLading, ContainerType:
		return in.NumberType
	case "booking":
		return BookingNumber
	}
	return ""
}

// Candidate is a shipping line that may have issued a number, with the probability that it did.
type Candidate struct {
	SCAC       string  `json:"scac"`
	Name       string  `json:"name"`
	Confidence float64 `json:"confidence"`
}

// InferNumber guesses a number's type and shipping line. Spaces, dashes, dots and slashes in
// the number are ignored; more than 40 characters is a 422.
func (c *Client) InferNumber(ctx context.Context, number string) (Inference, error) {
	const path = "/v2/tracking_requests/infer_number"
	d, err := c.send(ctx, http.MethodPost, path, nil, map[string]string{"number": number})
	if err != nil {
		return Inference{}, err
	}
	var in Inference
	_, err = decodeOne(http.MethodPost, path, d, "infer_number_results", &in)
	return in, err
}
