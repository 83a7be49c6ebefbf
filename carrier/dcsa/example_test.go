package dcsa_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/carrier/dcsa"
)

func ExampleClient_Lookup() {
	// A carrier on loopback with one event for the bill of lading.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println(r.URL.Path, r.URL.RawQuery, "API-Version", r.Header.Get("API-Version"))
		fmt.Fprint(w, `[{"eventID": "e1", "eventType": "TRANSPORT", "eventClassifierCode": "EST",
			"eventCreatedDateTime": "2025-03-20T12:00:00Z", "eventDateTime": "2025-04-13T06:00:00+02:00",
			"transportEventTypeCode": "ARRI",
			"transportCall": {"transportCallID": "c5", "transportCallSequenceNumber": 5, "UNLocationCode": "NLRTM",
				"modeOfTransport": "VESSEL", "vessel": {"vesselIMONumber": "9703772", "vesselName": "EXAMPLE MERIDIAN"}}}]`)
	}))
	defer srv.Close()

	client, err := dcsa.New(dcsa.Config{BaseURL: srv.URL + "/MAEU", Headers: map[string]string{"Consumer-Key": "key"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := client.Lookup(context.Background(), boxwatch.CarrierReference{Type: boxwatch.RequestBillOfLading, Number: "SHA1234567", SCAC: "MAEU"})
	if err != nil {
		fmt.Println(err)
		return
	}
	call := s.Calls[0]
	fmt.Println(s.BillOfLading, call.LOCODE, call.Vessel.Name, "ETA", call.Arrival.Estimated.Format(time.RFC3339))
	// Output:
	// /MAEU/v2/events limit=100&transportDocumentReference=SHA1234567 API-Version 2
	// SHA1234567 NLRTM EXAMPLE MERIDIAN ETA 2025-04-13T06:00:00+02:00
}
