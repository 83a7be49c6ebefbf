package dcsa

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/boxwatch/boxwatch"
)

// FuzzParseEvents feeds parseEvents and the shipment mapping arbitrary responses: neither may
// panic, and every refusal must be an unrecognized_response.
func FuzzParseEvents(f *testing.F) {
	f.Add([]byte(`[]`))
	f.Add([]byte(`[{"eventID": "e", "eventType": "TRANSPORT", "eventClassifierCode": "ACT", "eventCreatedDateTime": "2021-01-09T14:12:56Z", "eventDateTime": "2021-01-09 14:12:56+01:00", "transportEventTypeCode": "ARRI", "transportCall": {"transportCallID": "c", "transportCallSequenceNumber": -1, "modeOfTransport": "VESSEL", "vessel": {"vesselIMONumber": "9321483"}}}]`))
	f.Add([]byte(`[{"eventID": "e", "eventType": "EQUIPMENT", "eventClassifierCode": "EST", "eventCreatedDateTime": "2021-01-09T14:12:56Z", "eventDateTime": "0001-01-01T00:00:00Z", "equipmentEventTypeCode": "GTOT", "equipmentReference": "MSKU1234565", "emptyIndicatorCode": "EMPTY", "seals": [{"sealNumber": ""}, {"sealNumber": "a"}, {"sealNumber": "a"}]}]`))
	f.Add([]byte(`[{"eventID": "e", "eventType": "SHIPMENT", "eventClassifierCode": "PLN", "eventCreatedDateTime": "9999-12-31T23:59:59.999999999+14:00", "eventDateTime": "2021-01-09T14:12:56-12:00", "shipmentEventTypeCode": "ISSU", "documentTypeCode": "TRD", "documentID": "x"}]`))
	f.Add([]byte(`  [ ] `))
	f.Add([]byte(`[[[[[[[[[[]]]]]]]]]]`))
	for _, pattern := range []string{"*.json", "malformed/*.json"} {
		files, _ := filepath.Glob(filepath.Join("testdata", pattern))
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	if data, problem := sharedSample(); problem == "" {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		events, err := parseEvents(data)
		if err != nil {
			var ce *boxwatch.CarrierError
			if !errors.As(err, &ce) || ce.Reason != boxwatch.ReasonUnrecognizedResponse || ce.Temporary {
				t.Fatalf("error %v (%T), want a permanent unrecognized_response", err, err)
			}
			return
		}
		for _, typ := range boxwatch.RequestTypes {
			s := shipment(boxwatch.CarrierReference{Type: typ, Number: "N"}, events)
			if len(s.Events) > len(events) {
				t.Fatalf("%d events from %d", len(s.Events), len(events))
			}
		}
	})
}
