package jsonapi

import "github.com/boxwatch/boxwatch"

// TrackingRequestAttributes is the wire form of a tracking request.
type TrackingRequestAttributes struct {
	RequestNumber string   `json:"request_number"`
	RequestType   string   `json:"request_type" enum:"bill_of_lading,booking_number,container"`
	SCAC          *string  `json:"scac" doc:"Null while the line of a request sent with auto_detect_vocc_scac is being detected."`
	RefNumbers    []string `json:"ref_numbers"`
	ShipmentTags  []string `json:"shipment_tags"`
	Tags          []string `json:"tags" doc:"The same list as shipment_tags, under the reference's name."`
	Status        string   `json:"status" enum:"pending,awaiting_manifest,created,failed,tracking_stopped"`
	FailedReason  *string  `json:"failed_reason" doc:"Why the request failed or is failing; null otherwise."`
	IsRetrying    bool     `json:"is_retrying"`
	RetryCount    *int     `json:"retry_count" doc:"Lookup retries so far; null before the first retry."`
	CreatedAt     string   `json:"created_at" format:"date-time"`
	UpdatedAt     string   `json:"updated_at" format:"date-time"`
}

// TrackingRequestRelationships link a tracking request to its shipment and customer.
type TrackingRequestRelationships struct {
	TrackedObject ToOne `json:"tracked_object" doc:"The shipment, once the lookup succeeded."`
	Customer      ToOne `json:"customer" doc:"The party the shipment is for (set on create); null when none."`
}

// TrackingRequestRelationshipNames are the tracking request relationships the reference API
// defines, every one of which include accepts. tracked_object is included whether named or not.
var TrackingRequestRelationshipNames = []string{"tracked_object", "customer"}

// TrackingRequestResource is a tracking request as a JSON:API resource.
type TrackingRequestResource struct {
	ID            string                       `json:"id" format:"uuid"`
	Type          string                       `json:"type" enum:"tracking_request"`
	Attributes    TrackingRequestAttributes    `json:"attributes"`
	Relationships TrackingRequestRelationships `json:"relationships"`
	Links         ResourceLinks                `json:"links"`
}

// TrackingRequestDocument and TrackingRequestListDocument answer one request and a page of them.
type TrackingRequestDocument = Document[TrackingRequestResource]
type TrackingRequestListDocument = Document[[]TrackingRequestResource]

// TrackingRequest renders a tracking request.
func TrackingRequest(tr boxwatch.TrackingRequest) TrackingRequestResource {
	res := TrackingRequestResource{
		ID:   tr.ID,
		Type: "tracking_request",
		Attributes: TrackingRequestAttributes{
			RequestNumber: tr.RequestNumber,
			RequestType:   string(tr.RequestType),
			SCAC:          optString(tr.SCAC),
			RefNumbers:    nonNil(tr.RefNumbers),
			ShipmentTags:  nonNil(tr.ShipmentTags),
			Tags:          nonNil(tr.ShipmentTags),
			Status:        string(tr.Status),
			IsRetrying:    tr.IsRetrying,
			RetryCount:    tr.RetryCount,
			CreatedAt:     timestamp(tr.CreatedAt),
			UpdatedAt:     timestamp(tr.UpdatedAt),
		},
		Links: ResourceLinks{Self: "/v2/tracking_requests/" + tr.ID},
	}
	if tr.FailedReason != "" {
		reason := tr.FailedReason
		res.Attributes.FailedReason = &reason
	}
	res.Relationships.Customer = linkTo(tr.CustomerID, "party")
	if tr.ShipmentID != "" {
		res.Relationships.TrackedObject.Data = &ResourceIdentifier{ID: tr.ShipmentID, Type: "shipment"}
	}
	return res
}
