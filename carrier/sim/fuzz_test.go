package sim_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/boxwatch/boxwatch/carrier/dcsa"
	"github.com/boxwatch/boxwatch/carrier/sim"
)

// FuzzEventsQuery sends arbitrary query strings to GET /{SCAC}/v2/events: the network must answer
// every one with events (200), a DCSA error (400) or the unreachable carrier's 503, never panic,
// and every Next-Page link it gives must work.
func FuzzEventsQuery(f *testing.F) {
	c := &clock{now: start}
	n, err := sim.New(sim.Options{Clock: c.Now})
	if err != nil {
		f.Fatal(err)
	}
	serve := func(rawQuery string) *httptest.ResponseRecorder {
		req := &http.Request{Method: http.MethodGet, URL: &url.URL{Path: "/MAEU/v2/events", RawQuery: rawQuery},
			Header: http.Header{}, Host: "sim.test"}
		rec := httptest.NewRecorder()
		n.ServeHTTP(rec, req)
		return rec
	}
	seeds := []string{
		"transportDocumentReference=123456785",
		"carrierBookingReference=224466889&limit=3",
		"equipmentReference=MSKU1234565&eventType=EQUIPMENT",
		"transportDocumentReference=TEST-TR-SUCCEEDED&eventCreatedDateTime:gte=2026-01-01T00:00:00%2B01:00",
		"transportDocumentReference=55&eventCreatedDateTime=lt:2026-03-01T00:00:00Z&sort=eventDateTime:DESC",
		"transportDocumentReference=12349999",
		"transportDocumentReference=12340000",
		"carrierBookingReference=1&transportDocumentReference=2",
		"transportDocumentReference=9&UNLocationCode=NLRTM&vesselIMONumber=9214898&equipmentEventTypeCode=LOAD,DISC",
		"limit=-1", "cursor=", "cursor=e30", "eventCreatedDateTime:=x", "transportDocumentReference=%ZZ",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	// Real cursors, so that the fuzzer mutates those too.
	rec := serve("carrierBookingReference=224466889&limit=2")
	if next, err := url.Parse(rec.Header().Get(dcsa.HeaderNextPage)); err == nil {
		f.Add(next.RawQuery)
	}
	f.Fuzz(func(t *testing.T, rawQuery string) {
		rec := serve(rawQuery)
		body := rec.Body.Bytes()
		switch rec.Code {
		case http.StatusOK:
			var evs []dcsa.Event
			if err := json.Unmarshal(body, &evs); err != nil || evs == nil {
				t.Fatalf("200 without an event list: %v: %s", err, body)
			}
			if next := rec.Header().Get(dcsa.HeaderNextPage); next != "" {
				u, err := url.Parse(next)
				if err != nil {
					t.Fatalf("Next-Page %q: %v", next, err)
				}
				if got := serve(u.RawQuery); got.Code != http.StatusOK {
					t.Fatalf("Next-Page answers %d: %s", got.Code, got.Body)
				}
			}
		case http.StatusBadRequest, http.StatusServiceUnavailable:
			var e struct {
				StatusCode int `json:"statusCode"`
			}
			if err := json.Unmarshal(body, &e); err != nil || e.StatusCode != rec.Code {
				t.Fatalf("%d without a DCSA error body: %s", rec.Code, body)
			}
		default:
			t.Fatalf("status %d for %q: %s", rec.Code, rawQuery, body)
		}
	})
}
