package client

import (
	"encoding/json"
	"testing"
)

// FuzzDecode feeds any answer to the document decoders: they return an error or values, never
// panic, whatever a server sends.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"data":{"id":"1","type":"tracking_request","attributes":{"status":"pending"},"relationships":{"tracked_object":{"data":{"id":"s","type":"shipment"}}}}}`,
		`{"data":[{"id":"s","type":"shipment","attributes":{},"relationships":{"containers":{"data":[{"id":"c","type":"container"}]}}}],"included":[{"id":"c","type":"container","attributes":{"number":"MSCU1234566"}}],"meta":{"total":1,"pagination":{"current":1,"last":1}}}`,
		`{"data":[{"id":"n","type":"webhook_notification","attributes":{},"relationships":{"webhook_notification_logs":{"data":[{"id":"l","type":"webhook_notification_log"}]}}}],"included":[{"id":"l","type":"webhook_notification_log","attributes":{"status_code":null}}]}`,
		`{"data":null}`, `{"data":{"relationships":{"tracked_object":{"data":[]}}}}`, `[]`, `null`, `{"data":[null]}`,
		`{"data":{"type":"tracking_request","attributes":{"created_at":"yesterday"}}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		d, err := decodeDocument("GET", "/x", raw)
		if err != nil {
			return
		}
		var tr TrackingRequest
		if r, err := decodeOne("GET", "/x", d, "tracking_request", &tr); err == nil {
			trackingRequestOf(r, &tr)
		}
		shipments, err := decodeList("GET", "/x", d, "shipment", shipmentOf(d))
		if err == nil {
			if _, err := json.Marshal(shipments); err != nil {
				t.Fatalf("decoded shipments do not encode: %v", err)
			}
		}
		decodeList("GET", "/x", d, "webhook_notification", notificationOf(d)) //nolint:errcheck // only panics matter
	})
}
