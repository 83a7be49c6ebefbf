package jsonapi

import "github.com/boxwatch/boxwatch"

// ShippingLineAttributes is the wire form of a shipping line.
type ShippingLineAttributes struct {
	SCAC                           string   `json:"scac"`
	Name                           string   `json:"name"`
	ShortName                      string   `json:"short_name"`
	AlternativeSCACs               []string `json:"alternative_scacs" doc:"Other SCACs accepted in tracking requests for this line."`
	BillOfLadingTrackingSupport    bool     `json:"bill_of_lading_tracking_support"`
	BookingNumberTrackingSupport   bool     `json:"booking_number_tracking_support"`
	ContainerNumberTrackingSupport bool     `json:"container_number_tracking_support"`
	TrackingURL                    *string  `json:"tracking_url" doc:"Null: the carriers file holds no tracking page addresses."`
	ContactURL                     *string  `json:"contact_url" doc:"Null: the carriers file holds no contact addresses."`
}

// ShippingLineResource is a shipping line as a JSON:API resource.
type ShippingLineResource struct {
	ID         string                 `json:"id" format:"uuid"`
	Type       string                 `json:"type" enum:"shipping_line"`
	Attributes ShippingLineAttributes `json:"attributes"`
	Links      ResourceLinks          `json:"links"`
}

// ShippingLineDocument and ShippingLineListDocument answer one line and the list of them.
type ShippingLineDocument = Document[ShippingLineResource]
type ShippingLineListDocument = Document[[]ShippingLineResource]

// ShippingLine renders a shipping line.
func ShippingLine(l boxwatch.ShippingLine) ShippingLineResource {
	return ShippingLineResource{
		ID:   l.ID,
		Type: "shipping_line",
		Attributes: ShippingLineAttributes{
			SCAC: l.SCAC, Name: l.Name, ShortName: l.ShortName, AlternativeSCACs: nonNil(l.AlternativeSCACs),
			BillOfLadingTrackingSupport:    l.Support.BillOfLading,
			BookingNumberTrackingSupport:   l.Support.BookingNumber,
			ContainerNumberTrackingSupport: l.Support.Container,
		},
		Links: ResourceLinks{Self: "/v2/shipping_lines/" + l.ID},
	}
}
