package dcsa

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
)

// readableEvent is a well-formed event the fuzz target puts beside arbitrary records.
const readableEvent = `{"eventID": "fuzz-anchor", "eventType": "EQUIPMENT", "eventClassifierCode": "ACT", "eventCreatedDateTime": "2021-01-09T14:12:56Z", "eventDateTime": "2021-01-09T14:12:56Z", "equipmentEventTypeCode": "GTOT", "equipmentReference": "MSKU1234565", "emptyIndicatorCode": "EMPTY"}`

// FuzzParsePage feeds parsePage and the shipment mapping arbitrary responses: neither may panic,
// every refusal of a page must be an unrecognized_response, and a record, however malformed,
// never costs its page the readable event beside it.
func FuzzParsePage(f *testing.F) {
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"events": []}`))
	f.Add([]byte(`[{"eventID": "e", "eventType": "TRANSPORT", "eventClassifierCode": "ACT", "eventCreatedDateTime": "2021-01-09T14:12:56Z", "eventDateTime": "2021-01-09 14:12:56+01:00", "transportEventTypeCode": "ARRI", "transportCall": {"transportCallID": "c", "transportCallSequenceNumber": -1, "modeOfTransport": "VESSEL", "vessel": {"vesselIMONumber": "9321483"}}}]`))
	f.Add([]byte(`[{"eventID": "e", "eventType": "SHIPMENT", "eventClassifierCode": "PLN", "eventCreatedDateTime": "9999-12-31T23:59:59.999999999+14:00", "eventDateTime": "2021-01-09T14:12-1200", "shipmentEventTypeCode": "ISSU", "documentTypeCode": "TRD", "documentID": "x"}]`))
	f.Add([]byte(`[{"metadata": {"eventID": "m", "retractedEventID": "e"}}]`))
	f.Add([]byte(`[[[[[[[[[[]]]]]]]]]]`))
	for _, pattern := range []string{"*.json", "fixtures/*.json", "malformed/*.json"} {
		files, _ := filepath.Glob(filepath.Join("testdata", pattern))
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	answered := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := parsePage(data, answered)
		if err != nil {
			var ce *boxwatch.CarrierError
			if !errors.As(err, &ce) || ce.Reason != boxwatch.ReasonUnrecognizedResponse || ce.Temporary {
				t.Fatalf("error %v (%T), want a permanent unrecognized_response", err, err)
			}
		} else {
			for _, typ := range boxwatch.RequestTypes {
				s := shipment(boxwatch.CarrierReference{Type: typ, Number: "N"}, p.events, p.retracted)
				if len(s.Events) > len(p.events) {
					t.Fatalf("%d events from %d", len(s.Events), len(p.events))
				}
			}
		}

		if !json.Valid(data) {
			return
		}
		beside, err := parsePage([]byte("["+readableEvent+",\n"+string(data)+"]"), answered)
		if err != nil {
			t.Fatalf("a page with a readable event failed: %v", err)
		}
		if !slices.ContainsFunc(beside.events, func(e event) bool { return e.EventID == "fuzz-anchor" }) {
			t.Fatalf("the readable event was lost beside %.200q", data)
		}
	})
}
