package api

import (
	"net/http"
	"strings"

	"github.com/boxwatch/boxwatch"
)

type shippingLineAttributes struct {
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

type shippingLineResource struct {
	ID         string                 `json:"id" format:"uuid"`
	Type       string                 `json:"type" enum:"shipping_line"`
	Attributes shippingLineAttributes `json:"attributes"`
	Links      resourceLinks          `json:"links"`
}

type shippingLineDocument = document[shippingLineResource]
type shippingLineListDocument = document[[]shippingLineResource]

func shippingLineOut(l boxwatch.ShippingLine) shippingLineResource {
	return shippingLineResource{
		ID:   l.ID,
		Type: "shipping_line",
		Attributes: shippingLineAttributes{
			SCAC: l.SCAC, Name: l.Name, ShortName: l.ShortName, AlternativeSCACs: nonNil(l.AlternativeSCACs),
			BillOfLadingTrackingSupport:    l.Support.BillOfLading,
			BookingNumberTrackingSupport:   l.Support.BookingNumber,
			ContainerNumberTrackingSupport: l.Support.Container,
		},
		Links: resourceLinks{Self: "/v2/shipping_lines/" + l.ID},
	}
}

func handleShippingLineList(carriers *boxwatch.Carriers, base func(*http.Request) string) handlerFunc {
	all := carriers.All()
	return func(w http.ResponseWriter, r *http.Request) error {
		search := strings.TrimSpace(r.URL.Query().Get("search"))
		if len(search) > 100 {
			return boxwatch.BadParameter("search", "search is at most 100 characters.")
		}
		data := []shippingLineResource{}
		for _, l := range all {
			if search == "" || l.Matches(search) {
				data = append(data, shippingLineOut(l))
			}
		}
		writeJSON(w, http.StatusOK, shippingLineListDocument{Data: data, Links: &links{Self: base(r) + r.URL.RequestURI()}})
		return nil
	}
}

func handleShippingLineGet(carriers *boxwatch.Carriers, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id := r.PathValue("id")
		line, ok := carriers.ByID(boxwatch.LowerASCII(id))
		if !ok {
			line, ok = carriers.BySCAC(boxwatch.UpperASCII(id))
		}
		if !ok {
			return boxwatch.ErrNotFound
		}
		res := shippingLineOut(line)
		writeResource(w, http.StatusOK, base(r)+res.Links.Self, res, nil)
		return nil
	}
}
