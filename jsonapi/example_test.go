package jsonapi_test

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
)

func ExampleTrackingRequest() {
	at := time.Date(2026, 5, 1, 9, 30, 0, 0, time.UTC)
	tr := boxwatch.TrackingRequest{ID: "01936e3a-0000-7000-8000-000000000001", RequestType: boxwatch.RequestBillOfLading,
		RequestNumber: "MAEU123456789", SCAC: "MAEU", RefNumbers: []string{"PO-1"}, Status: boxwatch.StatusPending,
		CreatedAt: at, UpdatedAt: at}
	b, _ := json.MarshalIndent(jsonapi.TrackingRequestDocument{Data: jsonapi.TrackingRequest(tr)}, "", "  ")
	fmt.Println(string(b))
	// Output:
	// {
	//   "data": {
	//     "id": "01936e3a-0000-7000-8000-000000000001",
	//     "type": "tracking_request",
	//     "attributes": {
	//       "request_number": "MAEU123456789",
	//       "request_type": "bill_of_lading",
	//       "scac": "MAEU",
	//       "ref_numbers": [
	//         "PO-1"
	//       ],
	//       "shipment_tags": [],
	//       "tags": [],
	//       "status": "pending",
	//       "failed_reason": null,
	//       "is_retrying": false,
	//       "retry_count": null,
	//       "created_at": "2026-05-01T09:30:00Z",
	//       "updated_at": "2026-05-01T09:30:00Z"
	//     },
	//     "relationships": {
	//       "tracked_object": {
	//         "data": null
	//       },
	//       "customer": {
	//         "data": null
	//       }
	//     },
	//     "links": {
	//       "self": "/v2/tracking_requests/01936e3a-0000-7000-8000-000000000001"
	//     }
	//   }
	// }
}
