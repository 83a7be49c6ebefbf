package dcsa

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
)

func TestLookupSharedSample(t *testing.T) {
	c := newCarrier(t, mustSharedSample(t))
	s, err := mustNew(t, Config{BaseURL: c.base()}).Lookup(t.Context(), ref(boxwatch.RequestContainer, "APZU4812090"))
	if err != nil {
		t.Fatal(err)
	}
	if s.BillOfLading != "reserved-HHL123" || s.Booking != "ABC123123123" {
		t.Errorf("bill of lading %q, booking %q", s.BillOfLading, s.Booking)
	}
	wantCalls := []string{
		"123e4567-e89b-12d3-a456-426614174000 #2 FRPAR ADT POTE VESSEL 9321483/King of the Seas/DE/NCVV FE1 2103S/2103N A[- - 2021-01-09T14:12:56+01:00] D[- - -]",
	}
	if got := mapSlice(s.Calls, describeCall); !slices.Equal(got, wantCalls) {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantCalls, "\n"))
	}
	if len(s.Equipment) != 1 || s.Equipment[0].Reference != "APZU4812090" || s.Equipment[0].ISOCode != "22GP" || !slices.Equal(s.Equipment[0].Seals, []string{"string"}) {
		t.Errorf("equipment = %+v", s.Equipment)
	}
	if len(s.Events) != 7 {
		t.Fatalf("%d events, want the sample's 7", len(s.Events))
	}
	wantSorted(t, s.Events)
}

func TestLookupJourney(t *testing.T) {
	c := newCarrier(t, readTestdata(t, "journey.json"))
	s, err := mustNew(t, Config{BaseURL: c.base()}).Lookup(t.Context(), ref(boxwatch.RequestBookingNumber, "234567890"))
	if err != nil {
		t.Fatal(err)
	}
	if s.BillOfLading != "SHA1234567" || s.Booking != "234567890" {
		t.Errorf("bill of lading %q, booking %q", s.BillOfLading, s.Booking)
	}
	wantCalls := []string{
		"tc-01-cnsha-depot #1 CNSHA SHDEP DEPO TRUCK -  / A[- - -] D[- - -]",
		"tc-02-cnsha-yangshan #2 CNSHA YSP POTE VESSEL 9321483/EXAMPLE HARMONY/DK/OXEH2 AE1 512W/512W A[2025-03-10T06:00:00+08:00 - 2025-03-10T07:10:00+08:00] D[2025-03-10T18:00:00+08:00 2025-03-11T02:00:00+08:00 2025-03-11T03:30:00+08:00]",
		"tc-03-sgsin-arrival #3 SGSIN PPT POTE VESSEL 9321483/EXAMPLE HARMONY/DK/OXEH2 AE1 513W/512W A[2025-03-16T08:00:00+08:00 - 2025-03-16T10:00:00+08:00] D[- - -]",
		"tc-04-sgsin-departure #4 SGSIN PPT POTE VESSEL 9703772/EXAMPLE MERIDIAN/SG/9VEM7 AE7 208W/207W A[- - -] D[2025-03-18T20:00:00+08:00 - 2025-03-19T01:00:00+08:00]",
		// Three estimates of the arrival: the one created last wins, wherever it is listed.
		"tc-05-nlrtm-maasvlakte #5 NLRTM APMII POTE VESSEL 9703772/EXAMPLE MERIDIAN/SG/9VEM7 AE7 209E/208W A[2025-04-12T08:00:00+02:00 2025-04-13T06:00:00+02:00 2025-04-13T05:00:00+02:00] D[2025-04-14T06:00:00+02:00 - -]",
		"tc-06-nlrtm-depot #6 NLRTM RTDEP DEPO TRUCK -  / A[- - -] D[- - -]",
	}
	if got := mapSlice(s.Calls, describeCall); !slices.Equal(got, wantCalls) {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantCalls, "\n"))
	}
	wantEquipment := []string{"MSKU1234565 22G1 [SL111 SL333]", "MSKU7654328 45G1 [SL222]"}
	got := mapSlice(s.Equipment, func(e boxwatch.CarrierEquipment) string {
		return fmt.Sprintf("%s %s %v", e.Reference, e.ISOCode, e.Seals)
	})
	if !slices.Equal(got, wantEquipment) {
		t.Errorf("equipment = %q, want %q", got, wantEquipment)
	}

	if len(s.Events) != 29 {
		t.Fatalf("%d events, want 29 (30 in the file, one of them twice)", len(s.Events))
	}
	wantSorted(t, s.Events)
	byID := map[string]boxwatch.CarrierEvent{}
	for _, e := range s.Events {
		byID[e.ID] = e
	}
	if e := byID["00000000-0000-4000-8000-000000000999"]; e.Time.Format(time.RFC3339) != "2025-03-17T03:00:00+08:00" {
		t.Errorf("repeated event has time %s, want the correction created last", e.Time.Format(time.RFC3339))
	}
	first, last := s.Events[0], s.Events[len(s.Events)-1]
	if first.Type != boxwatch.EventShipment || first.Code != "RECE" || first.DocumentType != "BKG" || first.DocumentID != "234567890" {
		t.Errorf("first event = %+v, want the booking's RECE", first)
	}
	if last.Code != "GTIN" || last.LOCODE != "NLRTM" || last.Empty == nil || !*last.Empty || last.TransportCallID != "tc-06-nlrtm-depot" || last.EquipmentReference != "MSKU1234565" {
		t.Errorf("last event = %+v, want the empty return at the Rotterdam depot", last)
	}
	for _, e := range s.Events {
		if e.Type == boxwatch.EventEquipment && e.Code == "GTOT" && e.TransportCallID == "" && (e.LOCODE != "NLRTM" || e.Empty == nil || *e.Empty) {
			t.Errorf("full out without a transport call = %+v, want NLRTM from its event location, laden", e)
		}
		if e.Type == boxwatch.EventTransport && e.Classifier == boxwatch.ClassifierEstimated && e.Time.Format(time.RFC3339) == "2025-04-13T06:00:00+02:00" && (e.DelayReason != "PCO" || e.ChangeRemark != "Port congestion") {
			t.Errorf("estimate = %+v, want its delay reason and remark", e)
		}
	}
}

func TestLookupAsksByRequestType(t *testing.T) {
	for _, tc := range []struct {
		typ   boxwatch.RequestType
		param string
	}{
		{boxwatch.RequestBillOfLading, "transportDocumentReference"},
		{boxwatch.RequestBookingNumber, "carrierBookingReference"},
		{boxwatch.RequestContainer, "equipmentReference"},
	} {
		t.Run(string(tc.typ), func(t *testing.T) {
			c := newCarrier(t, readTestdata(t, "journey.json"))
			s, err := mustNew(t, Config{BaseURL: c.base(), PageSize: 40}).Lookup(t.Context(), ref(tc.typ, "ABC 123/4"))
			if err != nil {
				t.Fatal(err)
			}
			req := c.seen()[0]
			q := req.URL.Query()
			if len(q) != 2 || q.Get(tc.param) != "ABC 123/4" || q.Get("limit") != "40" {
				t.Errorf("query = %v, want only %s and limit", q, tc.param)
			}
			if req.Header.Get("API-Version") != "2" || req.Header.Get("Accept") != "application/json" {
				t.Errorf("headers = %v, want API-Version 2 and JSON", req.Header)
			}
			switch tc.typ {
			case boxwatch.RequestBillOfLading:
				if s.BillOfLading != "ABC 123/4" || s.Booking != "234567890" {
					t.Errorf("bill of lading %q, booking %q: want the query's bill and the events' booking", s.BillOfLading, s.Booking)
				}
			case boxwatch.RequestContainer:
				if !slices.ContainsFunc(s.Equipment, func(e boxwatch.CarrierEquipment) bool { return e.Reference == "ABC 123/4" }) {
					t.Errorf("equipment = %+v, want the container looked up", s.Equipment)
				}
			}
		})
	}
}

func TestLookupFollowsPages(t *testing.T) {
	journey := readTestdata(t, "journey.json")
	c := newCarrier(t, journey)
	want, err := mustNew(t, Config{BaseURL: c.base()}).Lookup(t.Context(), ref(boxwatch.RequestBillOfLading, "SHA1234567"))
	if err != nil {
		t.Fatal(err)
	}
	for name, nextPage := range map[string]func(*httptest.Server, int) string{
		"Cursor":       nil,
		"RelativeLink": func(_ *httptest.Server, i int) string { return fmt.Sprintf("%s/v2/events?cursor=page%d", basePath, i) },
		"AbsoluteLink": func(s *httptest.Server, i int) string {
			return fmt.Sprintf("%s%s/v2/events?cursor=page%d", s.URL, basePath, i)
		},
	} {
		t.Run(name, func(t *testing.T) {
			c := (&carrier{pages: splitPages(t, journey, 4), nextPage: nextPage}).start(t)
			got, err := mustNew(t, Config{BaseURL: c.base()}).Lookup(t.Context(), ref(boxwatch.RequestBillOfLading, "SHA1234567"))
			if err != nil {
				t.Fatal(err)
			}
			if len(c.seen()) != 4 {
				t.Errorf("%d requests, want 4 pages", len(c.seen()))
			}
			if nextPage == nil {
				if q := c.seen()[3].URL.Query(); q.Get("transportDocumentReference") != "SHA1234567" || q.Get("cursor") != "page3" {
					t.Errorf("last page asked with %v, want the cursor and the original filter", q)
				}
			}
			if !slices.Equal(mapSlice(got.Calls, describeCall), mapSlice(want.Calls, describeCall)) || len(got.Events) != len(want.Events) {
				t.Errorf("paged lookup differs from the single page: %d calls, %d events", len(got.Calls), len(got.Events))
			}
		})
	}
}

func TestLookupBoundsPages(t *testing.T) {
	page := []byte(`[]`)
	for name, tc := range map[string]struct {
		pages    int
		nextPage func(*httptest.Server, int) string
	}{
		"ErrMorePagesThanMaxPages": {pages: 10},
		"ErrPageRepeated":          {pages: 3, nextPage: func(*httptest.Server, int) string { return "page1" }},
		"ErrNextPageOnAnotherHost": {pages: 2, nextPage: func(*httptest.Server, int) string { return "http://198.51.100.7/v2/events?cursor=page1" }},
		"ErrNextPageUnparseable":   {pages: 2, nextPage: func(*httptest.Server, int) string { return "http://[::1/?x" }},
	} {
		t.Run(name, func(t *testing.T) {
			c := (&carrier{pages: slices.Repeat([][]byte{page}, tc.pages), nextPage: tc.nextPage}).start(t)
			_, err := mustNew(t, Config{BaseURL: c.base(), MaxPages: 5}).Lookup(t.Context(), ref(boxwatch.RequestContainer, "MSKU1234565"))
			wantCarrierError(t, err, boxwatch.ReasonUnrecognizedResponse, false)
			if n := len(c.seen()); n > 5 {
				t.Errorf("%d requests, want at most MaxPages", n)
			}
		})
	}
}

func TestLookupMapsStatuses(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name       string
		status     int
		header     map[string]string
		body       string
		reason     string
		temporary  bool
		retryAfter time.Duration
	}{
		{name: "NotFoundOnEmptyArray", status: 200, body: "[ ]\n", reason: boxwatch.ReasonNotFound},
		{name: "NotFoundOnNoContent", status: 204, reason: boxwatch.ReasonNotFound},
		{name: "NotFoundOn404", status: 404, body: `{"statusCode": 404}`, reason: boxwatch.ReasonNotFound},
		{name: "DataUnavailableOn410", status: 410, body: `{"statusCode": 410}`, reason: boxwatch.ReasonDataUnavailable},
		{name: "ConfigurationErrorOn400", status: 400, body: `{"errors": [{"message": "API-Version"}]}`, reason: boxwatch.ReasonUnreachable},
		{name: "InvalidNumberOn422", status: 422, body: `{"errors": [{"message": "pattern"}]}`, reason: boxwatch.ReasonInvalidNumber},
		{name: "UnreachableOn401WithoutOAuth2", status: 401, reason: boxwatch.ReasonUnreachable},
		{name: "UnreachableOn403", status: 403, reason: boxwatch.ReasonUnreachable},
		{name: "TemporaryOn429WithSeconds", status: 429, header: map[string]string{"Retry-After": "120"}, reason: boxwatch.ReasonUnreachable, temporary: true, retryAfter: 2 * time.Minute},
		{name: "TemporaryOn503WithDate", status: 503, header: map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, reason: boxwatch.ReasonUnreachable, temporary: true, retryAfter: 90 * time.Second},
		{name: "TemporaryOn429WithUnreadableRetryAfter", status: 429, header: map[string]string{"Retry-After": "soon"}, reason: boxwatch.ReasonUnreachable, temporary: true},
		{name: "TemporaryOn500", status: 500, body: "oops", reason: boxwatch.ReasonUnreachable, temporary: true},
		{name: "TemporaryOn502", status: 502, reason: boxwatch.ReasonUnreachable, temporary: true},
		{name: "UnrecognizedOn405", status: 405, reason: boxwatch.ReasonUnrecognizedResponse},
		{name: "UnrecognizedOn302ToAnotherHost", status: 302, header: map[string]string{"Location": "http://198.51.100.7/v2/events"}, reason: boxwatch.ReasonUnrecognizedResponse},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := (&carrier{respond: func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tc.status)
				fmt.Fprint(w, tc.body)
			}}).start(t)
			client := mustNew(t, Config{BaseURL: c.base(), Now: func() time.Time { return now }})
			_, err := client.Lookup(t.Context(), ref(boxwatch.RequestContainer, "MSKU1234565"))
			ce := wantCarrierError(t, err, tc.reason, tc.temporary)
			if ce.RetryAfter != tc.retryAfter {
				t.Errorf("RetryAfter = %v, want %v", ce.RetryAfter, tc.retryAfter)
			}
			if errors.Is(err, ErrConfiguration) != (tc.status == http.StatusBadRequest) {
				t.Errorf("errors.Is(%v, ErrConfiguration) = %v on %d", err, errors.Is(err, ErrConfiguration), tc.status)
			}
		})
	}
}

func TestLookupFollowsRedirectOnSameHost(t *testing.T) {
	c := &carrier{pages: [][]byte{readTestdata(t, "journey.json")}}
	c.respond = func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old/v2/events" {
			http.Redirect(w, r, basePath+"/v2/events?"+r.URL.RawQuery, http.StatusMovedPermanently)
			return
		}
		c.servePages(w, r)
	}
	c.start(t)
	if _, err := mustNew(t, Config{BaseURL: c.srv.URL + "/old"}).Lookup(t.Context(), ref(boxwatch.RequestContainer, "MSKU1234565")); err != nil {
		t.Fatal(err)
	}
}

func TestLookupRejectsMalformedResponses(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "malformed", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no malformed fixtures: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			body, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			c := newCarrier(t, body)
			_, err = mustNew(t, Config{BaseURL: c.base()}).Lookup(t.Context(), ref(boxwatch.RequestContainer, "MSKU1234565"))
			wantCarrierError(t, err, boxwatch.ReasonUnrecognizedResponse, false)
			t.Log(err)
		})
	}
}

func TestLookupAcceptsWhatTheSpecAllows(t *testing.T) {
	for _, tc := range []struct {
		name, body string
	}{
		{"SpaceBetweenDateAndTime", `[{"eventID": "e1", "eventType": "SHIPMENT", "eventClassifierCode": "ACT", "eventCreatedDateTime": "2021-01-09 14:12:56+01:00", "eventDateTime": "2021-01-09 14:12:56.123+01:00", "shipmentEventTypeCode": "DRFT", "documentTypeCode": "SHI", "documentID": "x"}]`},
		{"UnknownMembersAndCodes", `[{"eventID": "e1", "eventType": "EQUIPMENT", "eventClassifierCode": "ACT", "eventCreatedDateTime": "2021-01-09T14:12:56Z", "eventDateTime": "2021-01-09T14:12:56Z", "equipmentEventTypeCode": "AVPU", "equipmentReference": "MSKU1234565", "newMember": {"a": [1, 2]}}]`},
		{"NoEmptyIndicator", `[{"eventID": "e1", "eventType": "EQUIPMENT", "eventClassifierCode": "PLN", "eventCreatedDateTime": "2021-01-09T14:12:56Z", "eventDateTime": "2021-01-09T14:12:56Z", "equipmentEventTypeCode": "GTOT", "equipmentReference": "MSKU1234565"}]`},
		{"TransportCallWithoutSequence", `[{"eventID": "e1", "eventType": "TRANSPORT", "eventClassifierCode": "EST", "eventCreatedDateTime": "2021-01-09T14:12:56Z", "eventDateTime": "2021-01-09T14:12:56Z", "transportEventTypeCode": "ARRI", "transportCall": {"transportCallID": "c", "modeOfTransport": "VESSEL", "location": {"UNLocationCode": "NLRTM"}}}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCarrier(t, []byte(tc.body))
			s, err := mustNew(t, Config{BaseURL: c.base()}).Lookup(t.Context(), ref(boxwatch.RequestContainer, "MSKU1234565"))
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Events) != 1 {
				t.Fatalf("%d events, want 1", len(s.Events))
			}
			if s.Events[0].Empty != nil {
				t.Errorf("Empty = %v, want unknown", *s.Events[0].Empty)
			}
			if len(s.Calls) == 1 && s.Calls[0].LOCODE != "NLRTM" {
				t.Errorf("call LOCODE = %q, want the one of its location", s.Calls[0].LOCODE)
			}
		})
	}
}

func TestLookupBoundsResponseBytes(t *testing.T) {
	written := make(chan int64, 1)
	c := (&carrier{respond: func(w http.ResponseWriter, r *http.Request) {
		var n int64
		defer func() { written <- n }()
		chunk := []byte("[" + strings.Repeat(" ", 32<<10))
		for n < 256<<20 {
			m, err := w.Write(chunk)
			n += int64(m)
			if err != nil {
				return
			}
			chunk[0] = ' '
		}
	}}).start(t)
	_, err := mustNew(t, Config{BaseURL: c.base(), MaxResponseBytes: 1 << 20}).Lookup(t.Context(), ref(boxwatch.RequestContainer, "MSKU1234565"))
	wantCarrierError(t, err, boxwatch.ReasonUnrecognizedResponse, false)
	if n := <-written; n >= 256<<20 {
		t.Errorf("the carrier wrote all %d bytes: the client kept reading", n)
	}
}

func TestLookupNetworkFailures(t *testing.T) {
	t.Run("TemporaryOnTimeout", func(t *testing.T) {
		c := (&carrier{respond: func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}}).start(t)
		start := time.Now()
		_, err := mustNew(t, Config{BaseURL: c.base(), Timeout: 100 * time.Millisecond}).Lookup(t.Context(), ref(boxwatch.RequestContainer, "MSKU1234565"))
		wantCarrierError(t, err, boxwatch.ReasonUnreachable, true)
		if elapsed := time.Since(start); elapsed > 5*time.Second {
			t.Errorf("lookup took %v despite a 100 ms timeout", elapsed)
		}
	})
	t.Run("TemporaryOnConnectionRefused", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		_, err = mustNew(t, Config{BaseURL: "http://" + addr}).Lookup(t.Context(), ref(boxwatch.RequestContainer, "MSKU1234565"))
		wantCarrierError(t, err, boxwatch.ReasonUnreachable, true)
	})
	t.Run("TemporaryOnBodyCutShort", func(t *testing.T) {
		c := (&carrier{respond: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "10000")
			w.Write([]byte(`[{"eventID": "e1"`))
		}}).start(t)
		_, err := mustNew(t, Config{BaseURL: c.base()}).Lookup(t.Context(), ref(boxwatch.RequestContainer, "MSKU1234565"))
		wantCarrierError(t, err, boxwatch.ReasonUnreachable, true)
	})
	t.Run("CallerCancellationIsNotTheCarriers", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		c := (&carrier{respond: func(w http.ResponseWriter, r *http.Request) {
			cancel()
			<-r.Context().Done()
		}}).start(t)
		_, err := mustNew(t, Config{BaseURL: c.base()}).Lookup(ctx, ref(boxwatch.RequestContainer, "MSKU1234565"))
		var ce *boxwatch.CarrierError
		if !errors.Is(err, context.Canceled) || errors.As(err, &ce) {
			t.Errorf("error = %v, want the caller's cancellation", err)
		}
	})
}

func TestLookupRefusesWhatItCannotAsk(t *testing.T) {
	c := newCarrier(t, readTestdata(t, "journey.json"))
	client := mustNew(t, Config{BaseURL: c.base()})
	for name, r := range map[string]boxwatch.CarrierReference{
		"ErrUnknownRequestType": {Type: "vessel", Number: "9321483"},
		"ErrEmptyNumber":        {Type: boxwatch.RequestContainer},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := client.Lookup(t.Context(), r)
			var ce *boxwatch.CarrierError
			if err == nil || errors.As(err, &ce) {
				t.Errorf("error = %v, want boxwatch's own", err)
			}
		})
	}
	if n := len(c.seen()); n != 0 {
		t.Errorf("%d requests sent for references that cannot be asked", n)
	}
}

func TestLookupSince(t *testing.T) {
	since := time.Date(2021, 4, 1, 14, 12, 56, 0, time.FixedZone("", 3600))
	for _, tc := range []struct {
		name   string
		quirk  bool
		param  string
		value  string
		rawKey string
	}{
		{name: "OperatorInNameAsTheSpecSays", param: "eventCreatedDateTime:gte", value: "2021-04-01T13:12:56Z", rawKey: "eventCreatedDateTime:gte="},
		{name: "OperatorInValueForMaersk", quirk: true, param: "eventCreatedDateTime", value: "gte:2021-04-01T13:12:56Z", rawKey: "eventCreatedDateTime=gte%3A"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCarrier(t, []byte("[]"))
			client := mustNew(t, Config{BaseURL: c.base(), DateOperatorInValue: tc.quirk})
			s, err := client.LookupSince(t.Context(), ref(boxwatch.RequestBillOfLading, "SHA1234567"), since)
			if err != nil {
				t.Fatalf("no new events: %v, want an empty shipment", err)
			}
			if len(s.Events) != 0 || s.BillOfLading != "SHA1234567" {
				t.Errorf("shipment = %+v, want no events", s)
			}
			req := c.seen()[0]
			q := req.URL.Query()
			if q.Get(tc.param) != tc.value || q.Get("transportDocumentReference") != "SHA1234567" || len(q) != 3 {
				t.Errorf("query = %v, want %s=%s with the reference and limit", q, tc.param, tc.value)
			}
			if !strings.Contains(req.URL.RawQuery, tc.rawKey) {
				t.Errorf("raw query %q lacks %q", req.URL.RawQuery, tc.rawKey)
			}
		})
	}
	t.Run("ZeroSinceIsLookup", func(t *testing.T) {
		c := newCarrier(t, []byte("[]"))
		_, err := mustNew(t, Config{BaseURL: c.base()}).LookupSince(t.Context(), ref(boxwatch.RequestContainer, "MSKU1234565"), time.Time{})
		wantCarrierError(t, err, boxwatch.ReasonNotFound, false)
		if q := c.seen()[0].URL.Query(); len(q) != 2 {
			t.Errorf("query = %v, want no date filter", q)
		}
	})
}

// TestLookupSinceV3FiltersTheAnswer: Track & Trace 3.0 has no creation filter, so the whole
// answer is asked for and the events updated before since are dropped here.
func TestLookupSinceV3FiltersTheAnswer(t *testing.T) {
	body := `{"events": [
		{"eventID": "old", "eventDateTime": "2025-03-01T10:00:00Z", "eventUpdatedDateTime": "2025-03-01T10:00:00Z",
		 "eventClassification": {"eventTypeCode": "EQUIPMENT", "eventClassifierCode": "ACT", "equipmentEventTypeCode": "GTOT"},
		 "equipmentDetails": {"equipmentReference": "MSKU1234565", "emptyIndicatorCode": "EMPTY"}},
		{"eventID": "new", "eventDateTime": "2025-03-04T10:00:00Z", "eventUpdatedDateTime": "2025-03-04T10:00:00Z",
		 "eventClassification": {"eventTypeCode": "EQUIPMENT", "eventClassifierCode": "ACT", "equipmentEventTypeCode": "GTIN"},
		 "equipmentDetails": {"equipmentReference": "MSKU1234565", "emptyIndicatorCode": "LADEN"}}]}`
	var asked *http.Request
	c := (&carrier{respond: func(w http.ResponseWriter, r *http.Request) {
		asked = r
		if r.URL.Path != basePath+"/v3/events" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, body)
	}}).start(t)
	client := mustNew(t, Config{BaseURL: c.base(), Version: Version30})
	s, err := client.LookupSince(t.Context(), ref(boxwatch.RequestContainer, "MSKU1234565"), time.Date(2025, 3, 2, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Events) != 1 || s.Events[0].ID != "new" {
		t.Errorf("events %+v, want only the one updated since", s.Events)
	}
	if q := asked.URL.Query(); len(q) != 2 || asked.Header.Get(HeaderAPIVersion) != DefaultAPIVersionV3 {
		t.Errorf("query %v, API-Version %q: want no date filter and %s", q, asked.Header.Get(HeaderAPIVersion), DefaultAPIVersionV3)
	}
}

// TestLookupListsUnreadableRecordsByPage: a record that cannot be read is named by its page and
// place, with the carrier's own text, and costs no other event.
func TestLookupListsUnreadableRecordsByPage(t *testing.T) {
	good := func(id string) string {
		return `{"eventID": "` + id + `", "eventType": "EQUIPMENT", "eventClassifierCode": "ACT", "eventDateTime": "2025-03-04T10:00:00Z", "equipmentEventTypeCode": "GTIN", "equipmentReference": "MSKU1234565"}`
	}
	bad := `{"eventID": "bad", "eventType": "EQUIPMENT", "eventClassifierCode": "ACT", "eventDateTime": "04.03.2025 10:00", "equipmentEventTypeCode": "GTIN"}`
	c := newCarrier(t, []byte("["+good("a")+"]"), []byte("["+good("b")+","+bad+"]"))
	s, err := mustNew(t, Config{BaseURL: c.base()}).Lookup(t.Context(), ref(boxwatch.RequestContainer, "MSKU1234565"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Events) != 2 {
		t.Errorf("%d events, want the 2 readable ones", len(s.Events))
	}
	want := []boxwatch.UnreadableEvent{{Page: 2, Index: 1, ID: "bad", Reason: `eventDateTime: "04.03.2025 10:00" is not a date-time with an offset`}}
	if !slices.Equal(s.Unreadable, want) {
		t.Errorf("unreadable %+v, want %+v", s.Unreadable, want)
	}
}

// TestLookupWithoutOptionalMembers reads a carrier that leaves out what the spec requires but
// boxwatch can do without, and writes deprecated members and codes in mixed case.
func TestLookupWithoutOptionalMembers(t *testing.T) {
	c := newCarrier(t, readTestdata(t, "fixtures/optional-members-missing.json"))
	s, err := mustNew(t, Config{BaseURL: c.base()}).Lookup(t.Context(), ref(boxwatch.RequestBillOfLading, "BL2401"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Calls) != 2 {
		t.Fatalf("calls %+v, want Shanghai and Rotterdam", s.Calls)
	}
	sha, rtm := s.Calls[0], s.Calls[1]
	if sha.LOCODE != "CNSHA" || sha.FacilityCode != "CNSHAYSGT" || sha.FacilityCodeList != "SMDG" || sha.ExportVoyage != "401W" || sha.ImportVoyage != "401W" || sha.ID == "" {
		t.Errorf("Shanghai %+v", sha)
	}
	if rtm.LOCODE != "NLRTM" || rtm.Arrival.Estimated.IsZero() || rtm.ID == "" || rtm.ID == sha.ID {
		t.Errorf("Rotterdam %+v", rtm)
	}
	codes := mapSlice(s.Events, func(e boxwatch.CarrierEvent) string { return e.Type + "/" + e.Classifier + "/" + e.Code })
	want := []string{"EQUIPMENT/ACT/STUF", "EQUIPMENT/ACT/GTIN", "EQUIPMENT/ACT/LOAD", "TRANSPORT/ACT/DEPA", "TRANSPORT/EST/ARRI"}
	if !slices.Equal(codes, want) {
		t.Errorf("events %v, want %v", codes, want)
	}
	for _, e := range s.Events {
		if !strings.HasPrefix(e.ID, "content:") && e.ID != "q-unnamed" {
			t.Errorf("event id %q, want one named by its content", e.ID)
		}
	}
	if gtin := s.Events[1]; gtin.Empty == nil || *gtin.Empty {
		t.Errorf("GTIN Empty = %v, want LADEN read from \"Laden\"", gtin.Empty)
	}
	if len(s.Equipment) != 1 || s.Equipment[0].Reference != "MSKU1234565" {
		t.Errorf("equipment %+v, want only the container named", s.Equipment)
	}
}

func TestLookupSendsAPIKeyHeaders(t *testing.T) {
	c := newCarrier(t, readTestdata(t, "journey.json"))
	headers := map[string]string{"X-IBM-Client-Id": "id-1", "X-IBM-Client-Secret": "secret-1"}
	if _, err := mustNew(t, Config{BaseURL: c.base(), Headers: headers}).Lookup(t.Context(), ref(boxwatch.RequestContainer, "MSKU1234565")); err != nil {
		t.Fatal(err)
	}
	req := c.seen()[0]
	for name, value := range headers {
		if got := req.Header.Get(name); got != value {
			t.Errorf("%s = %q, want %q", name, got, value)
		}
	}
}

func TestNew(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{name: "OK", cfg: Config{BaseURL: "http://127.0.0.1:8123/MAEU"}, ok: true},
		{name: "OKWithEverything", cfg: Config{BaseURL: "https://api.example.com/tnt", EventsPath: "/events", APIVersion: "2", Headers: map[string]string{"Consumer-Key": "k"}, OAuth2: &OAuth2{TokenURL: "https://id.example.com/token", ClientID: "a", ClientSecret: "b"}}, ok: true},
		{name: "ErrNoBaseURL"},
		{name: "ErrRelativeBaseURL", cfg: Config{BaseURL: "/MAEU"}},
		{name: "ErrBaseURLNotHTTP", cfg: Config{BaseURL: "ftp://example.com"}},
		{name: "ErrBaseURLWithQuery", cfg: Config{BaseURL: "http://example.com/?a=b"}},
		{name: "ErrEventsPathRelative", cfg: Config{BaseURL: "http://example.com", EventsPath: "events"}},
		{name: "OKFullAPIVersion", cfg: Config{BaseURL: "http://example.com", APIVersion: "2.2.0"}, ok: true},
		{name: "OKVersion30", cfg: Config{BaseURL: "http://example.com", Version: Version30}, ok: true},
		{name: "ErrUnknownVersion", cfg: Config{BaseURL: "http://example.com", Version: "2.1"}},
		{name: "ErrAPIVersionNotAToken", cfg: Config{BaseURL: "http://example.com", APIVersion: "2 2"}},
		{name: "ErrHeaderName", cfg: Config{BaseURL: "http://example.com", Headers: map[string]string{"Consumer Key": "k"}}},
		{name: "ErrHeaderValue", cfg: Config{BaseURL: "http://example.com", Headers: map[string]string{"Consumer-Key": "k\r\nX: y"}}},
		{name: "ErrNegativeBound", cfg: Config{BaseURL: "http://example.com", MaxPages: -1}},
		{name: "ErrOAuth2WithoutSecret", cfg: Config{BaseURL: "http://example.com", OAuth2: &OAuth2{TokenURL: "https://id.example.com/token", ClientID: "a"}}},
		{name: "ErrOAuth2TokenURL", cfg: Config{BaseURL: "http://example.com", OAuth2: &OAuth2{TokenURL: "token", ClientID: "a", ClientSecret: "b"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg)
			if (err == nil) != tc.ok {
				t.Errorf("New = %v, want ok %v", err, tc.ok)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, header string
		want         time.Duration
	}{
		{"Seconds", "30", 30 * time.Second},
		{"Date", now.Add(time.Hour).Format(http.TimeFormat), time.Hour},
		{"ZeroWhenAbsent", "", 0},
		{"ZeroWhenDatePassed", now.Add(-time.Hour).Format(http.TimeFormat), 0},
		{"ZeroWhenNegative", "-5", 0},
		{"ZeroWhenUnreadable", "in a while", 0},
		{"CappedWhenHuge", "99999999999999999999", maxRetryAfter},
		{"CappedWhenFar", "9223372036854775807", maxRetryAfter},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := retryAfter(tc.header, now); got != tc.want {
				t.Errorf("retryAfter(%q) = %v, want %v", tc.header, got, tc.want)
			}
		})
	}
}

// wantSorted fails unless events are oldest eventDateTime first.
func wantSorted(t *testing.T, events []boxwatch.CarrierEvent) {
	t.Helper()
	for i := 1; i < len(events); i++ {
		if events[i].Time.Before(events[i-1].Time) {
			t.Errorf("event %d (%s) is older than event %d (%s)", i, events[i].Time, i-1, events[i-1].Time)
		}
	}
}

func mapSlice[T, U any](s []T, f func(T) U) []U {
	out := make([]U, len(s))
	for i, v := range s {
		out[i] = f(v)
	}
	return out
}

// TestLookupBookingCancelled: a cancelled booking is a shipment event (CANC on the booking), in
// Track & Trace 2.2 as DCSA's reference implementation writes it and in 3.0; a later word on the
// booking reinstates it.
func TestLookupBookingCancelled(t *testing.T) {
	cancelled := time.Date(2025, 2, 26, 3, 0, 0, 0, time.UTC)
	// reinstate appends a confirmation made after the cancellation to a 2.2 answer.
	reinstate := func(t *testing.T, body []byte) []byte {
		var records []json.RawMessage
		if err := json.Unmarshal(body, &records); err != nil {
			t.Fatal(err)
		}
		records = append(records, json.RawMessage(`{"eventID": "s-4", "eventType": "SHIPMENT", "eventClassifierCode": "ACT",
			"eventCreatedDateTime": "2025-02-28T09:00:00Z", "eventDateTime": "2025-02-28T09:00:00Z",
			"shipmentEventTypeCode": "CONF", "documentTypeCode": "BKG", "documentID": "BK2401"}`))
		out, err := json.Marshal(records)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, tc := range []struct {
		name, file, version string
		edit                func(*testing.T, []byte) []byte
		want                time.Time
	}{
		{name: "Version22", file: "fixtures/booking-cancelled.json", want: cancelled},
		{name: "Version30", file: "fixtures/booking-cancelled-tnt30.json", version: Version30, want: cancelled},
		{name: "ReinstatedVersion22", file: "fixtures/booking-cancelled.json", edit: reinstate},
		{name: "NeverCancelled", file: "journey.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := readTestdata(t, tc.file)
			if tc.edit != nil {
				body = tc.edit(t, body)
			}
			path := basePath + "/v2/events"
			if tc.version == Version30 {
				path = basePath + "/v3/events"
			}
			c := (&carrier{respond: func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != path {
					http.NotFound(w, r)
					return
				}
				w.Write(body)
			}}).start(t)
			client := mustNew(t, Config{BaseURL: c.base(), Version: tc.version})
			s, err := client.Lookup(t.Context(), ref(boxwatch.RequestBookingNumber, "BK2401"))
			if err != nil {
				t.Fatal(err)
			}
			if !s.BookingCancelledAt.Equal(tc.want) {
				t.Errorf("booking cancelled at %v, want %v", s.BookingCancelledAt, tc.want)
			}
		})
	}
}
