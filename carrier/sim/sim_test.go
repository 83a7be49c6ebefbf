package sim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/carrier/dcsa"
	"github.com/boxwatch/boxwatch/carrier/sim"
	"github.com/boxwatch/boxwatch/data"
)

func TestSameNumberSameAnswer(t *testing.T) {
	t.Run("OK twice", func(t *testing.T) {
		n := newTestNetwork(t)
		path := eventsPath("MSCU", "carrierBookingReference", "MEDUXY483917")
		first, second := n.get(t, path), n.get(t, path)
		if first.status != http.StatusOK || !bytes.Equal(first.body, second.body) {
			t.Fatalf("two lookups differ:\n%s\n%s", first.body, second.body)
		}
	})
	t.Run("OK across two networks sharing a state", func(t *testing.T) {
		state := sim.NewMemoryState()
		shared := func(o *sim.Options) { o.State = state }
		a, b := newTestNetwork(t, shared), newTestNetwork(t, shared)
		path := eventsPath("HLCU", "transportDocumentReference", "HLCUHAM250312345")
		first := a.get(t, path)
		b.clock.Advance(time.Hour) // the second replica looks later: the journey keeps its anchor
		a.clock.Advance(time.Hour)
		if x, y := a.get(t, path), b.get(t, path); !bytes.Equal(x.body, y.body) || x.status != http.StatusOK {
			t.Fatalf("the replicas answer differently:\n%s\n%s", x.body, y.body)
		}
		if len(first.events(t)) == 0 {
			t.Fatal("no events")
		}
	})
	t.Run("OK whatever the reference parameter", func(t *testing.T) {
		n := newTestNetwork(t)
		bill := n.get(t, eventsPath("ONEY", "transportDocumentReference", "ONEYTYOF12345600"))
		booking := n.get(t, eventsPath("ONEY", "carrierBookingReference", "ONEYTYOF12345600"))
		if !bytes.Equal(bill.body, booking.body) {
			t.Fatal("a bill and a booking of the same number differ")
		}
	})
	t.Run("OK with alternative SCAC", func(t *testing.T) {
		n := newTestNetwork(t)
		if !bytes.Equal(n.get(t, eventsPath("MEDU", "carrierBookingReference", "123457")).body,
			n.get(t, eventsPath("MSCU", "carrierBookingReference", "123457")).body) {
			t.Fatal("MEDU and MSCU answer differently for the same number")
		}
	})
}

func TestDocumentedNumbers(t *testing.T) {
	tests := []struct {
		name, scac, param, number string
		wantEvents                bool
	}{
		{"TEST-TR-SUCCEEDED has a journey", "TEST", "transportDocumentReference", "TEST-TR-SUCCEEDED", true},
		{"TEST-TR-FAILED is unknown", "TEST", "transportDocumentReference", "TEST-TR-FAILED", false},
		{"TEST-TR-FAILED is a journey for other lines", "MAEU", "transportDocumentReference", "TEST-TR-FAILED", true},
		{"bill ending in 0000 is unknown", "MAEU", "transportDocumentReference", "254310000", false},
		{"booking ending in 0000 is unknown", "CMDU", "carrierBookingReference", "CMDUSHZ0000", false},
		{"container ending in 0000 is unknown", "MSCU", "equipmentReference", "MSCU6210000", false},
		{"equipment reference that is no container number is unknown", "MSCU", "equipmentReference", "MSCU1234567", false},
		{"bill ending in 1000 has a journey", "MAEU", "transportDocumentReference", "254311000", true},
	}
	n := newTestNetwork(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := n.get(t, eventsPath(tt.scac, tt.param, tt.number))
			if got := len(a.events(t)) > 0; got != tt.wantEvents {
				t.Errorf("events: %v, want %v: %s", got, tt.wantEvents, a.body)
			}
			if tt.wantEvents && a.header.Get(dcsa.HeaderCurrentPage) == "" {
				t.Error("no Current-Page header")
			}
			if !tt.wantEvents && string(a.body) != "[]" {
				t.Errorf("body %s, want []", a.body)
			}
		})
	}
}

func TestUnreachableNumberSucceedsOnThirdAttempt(t *testing.T) {
	n := newTestNetwork(t, func(o *sim.Options) { o.RetryAfter = 90 * time.Second })
	path := eventsPath("EGLV", "transportDocumentReference", "003512349999")
	for attempt := 1; attempt <= 2; attempt++ {
		a := n.get(t, path)
		if a.status != http.StatusServiceUnavailable {
			t.Fatalf("attempt %d: status %d, want 503", attempt, a.status)
		}
		if got := a.header.Get("Retry-After"); got != "90" {
			t.Errorf("attempt %d: Retry-After %q, want 90", attempt, got)
		}
		mustErrorBody(t, a, http.StatusServiceUnavailable)
		n.clock.Advance(10 * time.Minute)
	}
	v := newView(t, n.get(t, path).events(t))
	if v.actual("GTIN", v.last) {
		t.Error("third attempt: the journey should stand at the stage of the digit before 9999 (4: at sea), not returned")
	}
	if a := n.get(t, path); a.status != http.StatusOK {
		t.Errorf("fourth attempt: status %d, want 200", a.status)
	}
}

func TestSpeedRunsSimulatedTimeFaster(t *testing.T) {
	tests := []struct {
		name     string
		speed    float64
		wait     time.Duration
		returned bool
	}{
		{"real time: still at sea after a day", 1, 24 * time.Hour, false},
		{"1000 times faster: journey over after a day", 1000, 24 * time.Hour, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := newTestNetwork(t, func(o *sim.Options) { o.Speed = tt.speed })
			number := "TP20260304"
			before := newView(t, n.mustEvents(t, "COSU", number)) // anchors the journey at stage 4
			if !before.none("ARRI", before.pod()) {
				t.Fatal("the vessel arrived before the clock moved")
			}
			n.clock.Advance(tt.wait)
			after := newView(t, n.mustEvents(t, "COSU", number))
			if got := after.actual("GTIN", after.last); got != tt.returned {
				t.Errorf("empty returned: %v, want %v", got, tt.returned)
			}
		})
	}
}

// TestEstimatesMoveUntilTheArrival follows a journey from booking to delivery and checks that
// the estimated arrival at the port of discharge is revised, that the plan never changes, and
// that answers only change when the world moves.
func TestEstimatesMoveUntilTheArrival(t *testing.T) {
	n := newTestNetwork(t, func(o *sim.Options) { o.Speed = 100 })
	const scac, number = "ZIMU", "ZIMUSNH1234560"
	var etas []string
	plans := map[string]bool{}
	var last []byte
	for range 200 {
		a := n.get(t, eventsPath(scac, "transportDocumentReference", number))
		if again := n.get(t, eventsPath(scac, "transportDocumentReference", number)); !bytes.Equal(a.body, again.body) {
			t.Fatal("two lookups at the same moment differ")
		}
		last = a.body
		v := newView(t, a.events(t))
		for _, e := range v.events {
			if e.TransportEventTypeCode == "ARRI" && *e.TransportCall.TransportCallSequenceNumber == v.pod() {
				switch e.EventClassifierCode {
				case boxwatch.ClassifierEstimated:
					if len(etas) == 0 || etas[len(etas)-1] != e.EventDateTime {
						etas = append(etas, e.EventDateTime)
					}
				case boxwatch.ClassifierPlanned:
					plans[e.EventID] = true
				}
			}
		}
		n.clock.Advance(30 * time.Minute) // 50 hours of simulated time
	}
	if len(etas) < 3 {
		t.Errorf("the estimated arrival changed %d times, want several: %v", len(etas)-1, etas)
	}
	if len(plans) != 1 {
		t.Errorf("the planned arrival has %d versions, want 1", len(plans))
	}
	v := newView(t, mustDecode(t, last))
	if !v.actual("GTIN", v.last) {
		t.Error("the journey did not end")
	}
	for _, e := range v.events {
		if e.EventClassifierCode == boxwatch.ClassifierEstimated {
			t.Errorf("an estimate remains after the journey: %+v", e)
		}
	}
}

func TestPagination(t *testing.T) {
	n := newTestNetwork(t)
	path := eventsPath("MAEU", "carrierBookingReference", "224466889")
	all := n.get(t, path).events(t)
	if len(all) < 12 {
		t.Fatalf("only %d events: pick a number with more", len(all))
	}
	var paged []dcsa.Event
	a := n.get(t, path+"&limit=5")
	pages := 1
	for {
		evs := a.events(t)
		if len(evs) > 5 {
			t.Fatalf("page of %d events with limit 5", len(evs))
		}
		paged = append(paged, evs...)
		if cur := a.header.Get(dcsa.HeaderCurrentPage); cur == "" || !bytes.Equal(getURL(t, cur).body, a.body) {
			t.Fatal("Current-Page does not lead to this page")
		}
		n.clock.Advance(6 * time.Hour) // the world moves; the pages keep showing the first page's moment
		next := a.header.Get(dcsa.HeaderNextPage)
		if next == "" {
			break
		}
		if u, err := url.Parse(next); err != nil || !u.IsAbs() || u.Query().Get(dcsa.ParamCursor) == "" {
			t.Fatalf("Next-Page %q is not an absolute link with a cursor", next)
		}
		a = getURL(t, next)
		pages++
	}
	if want := (len(all) + 4) / 5; pages != want {
		t.Errorf("%d pages, want %d", pages, want)
	}
	gotJSON, _ := json.Marshal(paged)
	wantJSON, _ := json.Marshal(all)
	if !bytes.Equal(gotJSON, wantJSON) {
		t.Error("the pages together differ from the whole list")
	}
}

func TestFilters(t *testing.T) {
	n := newTestNetwork(t)
	const base = "/MAEU/v2/events?transportDocumentReference=556677881"
	all := n.get(t, base).events(t)
	v := newView(t, all)
	container := ""
	for c := range v.containers {
		container = c
	}
	created := mustTime(t, all[len(all)/2].EventCreatedDateTime)
	tests := []struct {
		name  string
		query string
		keep  func(e dcsa.Event) bool
	}{
		{"eventType", "&eventType=TRANSPORT,SHIPMENT", func(e dcsa.Event) bool { return e.EventType != "EQUIPMENT" }},
		{"equipmentEventTypeCode", "&equipmentEventTypeCode=LOAD", func(e dcsa.Event) bool { return e.EquipmentEventTypeCode == "LOAD" }},
		{"transportEventTypeCode", "&transportEventTypeCode=DEPA", func(e dcsa.Event) bool { return e.TransportEventTypeCode == "DEPA" }},
		{"shipmentEventTypeCode", "&shipmentEventTypeCode=CONF", func(e dcsa.Event) bool { return e.ShipmentEventTypeCode == "CONF" }},
		{"contradictory codes", "&shipmentEventTypeCode=CONF&equipmentEventTypeCode=LOAD", func(dcsa.Event) bool { return false }},
		{"equipmentReference", "&equipmentReference=" + container, func(e dcsa.Event) bool {
			return e.EventType != "EQUIPMENT" || e.EquipmentReference == container
		}},
		{"equipmentReference of another shipment", "&equipmentReference=MSKU1234565", func(dcsa.Event) bool { return false }},
		{"carrierBookingReference that differs", "&carrierBookingReference=1", func(dcsa.Event) bool { return false }},
		{"UNLocationCode", "&UNLocationCode=" + v.calls[v.pol()].UNLocationCode, func(e dcsa.Event) bool {
			return e.TransportCall != nil && e.TransportCall.UNLocationCode == v.calls[v.pol()].UNLocationCode
		}},
		{"vesselIMONumber", "&vesselIMONumber=" + v.calls[v.pol()].Vessel.VesselIMONumber, func(e dcsa.Event) bool {
			return e.TransportCall != nil && e.TransportCall.Vessel != nil && e.TransportCall.Vessel.VesselIMONumber == v.calls[v.pol()].Vessel.VesselIMONumber
		}},
		{"eventCreatedDateTime:gte (DCSA form)", "&eventCreatedDateTime:gte=" + url.QueryEscape(created.Format(time.RFC3339)), func(e dcsa.Event) bool {
			return !mustTime(t, e.EventCreatedDateTime).Before(created)
		}},
		{"eventCreatedDateTime=lt: (Maersk form) with an unencoded plus", "&eventCreatedDateTime=lt:" + created.In(time.FixedZone("", 3600)).Format(time.RFC3339), func(e dcsa.Event) bool {
			return mustTime(t, e.EventCreatedDateTime).Before(created)
		}},
		{"eventCreatedDateTime without operator is equality", "&eventCreatedDateTime=" + url.QueryEscape(created.Format(time.RFC3339)), func(e dcsa.Event) bool {
			return mustTime(t, e.EventCreatedDateTime).Equal(created)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := n.get(t, base+tt.query).events(t)
			var want []dcsa.Event
			for _, e := range all {
				if tt.keep(e) {
					want = append(want, e)
				}
			}
			if len(got) != len(want) {
				t.Fatalf("%d events, want %d", len(got), len(want))
			}
			for i := range got {
				if got[i].EventID != want[i].EventID {
					t.Fatalf("event %d is %s, want %s", i, got[i].EventID, want[i].EventID)
				}
			}
		})
	}
	t.Run("sort by eventCreatedDateTime descending", func(t *testing.T) {
		got := n.get(t, base+"&sort=eventCreatedDateTime:DESC").events(t)
		if !slices.IsSortedFunc(got, func(a, b dcsa.Event) int {
			return mustTime(t, b.EventCreatedDateTime).Compare(mustTime(t, a.EventCreatedDateTime))
		}) || len(got) != len(all) {
			t.Error("not sorted by creation, newest first")
		}
	})
}

func TestBadRequests(t *testing.T) {
	n := newTestNetwork(t)
	const ok = "transportDocumentReference=123456781"
	tests := []struct {
		name, method, path string
		header             http.Header
		status             int
	}{
		{"ErrNoReference", "GET", "/MAEU/v2/events", nil, 400},
		{"ErrOnlyFilters", "GET", "/MAEU/v2/events?eventType=TRANSPORT", nil, 400},
		{"ErrBillTooLong", "GET", "/MAEU/v2/events?transportDocumentReference=" + strings.Repeat("1", 21), nil, 400},
		{"ErrBookingTooLong", "GET", "/MAEU/v2/events?carrierBookingReference=" + strings.Repeat("1", 36), nil, 400},
		{"ErrEquipmentTooLong", "GET", "/MAEU/v2/events?equipmentReference=" + strings.Repeat("A", 16), nil, 400},
		{"ErrReferenceCharacters", "GET", "/MAEU/v2/events?transportDocumentReference=AB%20C%22", nil, 400},
		{"ErrLimitZero", "GET", "/MAEU/v2/events?limit=0&" + ok, nil, 400},
		{"ErrLimitNotANumber", "GET", "/MAEU/v2/events?limit=ten&" + ok, nil, 400},
		{"ErrLimitTooLarge", "GET", "/MAEU/v2/events?limit=99999999999&" + ok, nil, 400},
		{"ErrEventType", "GET", "/MAEU/v2/events?eventType=TRANSPORT,CARGO&" + ok, nil, 400},
		{"ErrEquipmentCode", "GET", "/MAEU/v2/events?equipmentEventTypeCode=LOAD,FLY&" + ok, nil, 400},
		{"ErrCreatedOperator", "GET", "/MAEU/v2/events?eventCreatedDateTime:after=2026-01-01T00:00:00Z&" + ok, nil, 400},
		{"ErrCreatedTime", "GET", "/MAEU/v2/events?eventCreatedDateTime:gte=yesterday&" + ok, nil, 400},
		{"ErrCreatedTimeMaersk", "GET", "/MAEU/v2/events?eventCreatedDateTime=gte:2026-13-01T00:00:00Z&" + ok, nil, 400},
		{"ErrSortField", "GET", "/MAEU/v2/events?sort=vesselName&" + ok, nil, 400},
		{"ErrSortDirection", "GET", "/MAEU/v2/events?sort=eventDateTime:UP&" + ok, nil, 400},
		{"ErrLOCODE", "GET", "/MAEU/v2/events?UNLocationCode=Rotterdam&" + ok, nil, 400},
		{"ErrIMO", "GET", "/MAEU/v2/events?vesselIMONumber=93&" + ok, nil, 400},
		{"ErrServiceCode", "GET", "/MAEU/v2/events?carrierServiceCode=TOOLONG&" + ok, nil, 400},
		{"ErrCursorGarbage", "GET", "/MAEU/v2/events?cursor=%%%", nil, 400},
		{"ErrCursorNotOurs", "GET", "/MAEU/v2/events?cursor=fE9mZnNldHw9MTAmbGltaXQ9MTA", nil, 400},
		{"ErrCursorTooLong", "GET", "/MAEU/v2/events?cursor=" + strings.Repeat("e", 5000), nil, 400},
		{"ErrAPIVersion", "GET", "/MAEU/v2/events?" + ok, http.Header{"Api-Version": {"3"}}, 400},
		{"ErrUnknownSCAC", "GET", "/XXXX/v2/events?" + ok, nil, 404},
		{"ErrUnknownPath", "GET", "/MAEU/v2/shipments", nil, 404},
		{"ErrMethod", "POST", "/MAEU/v2/events?" + ok, nil, 405},
		{"OK API-Version 2", "GET", "/MAEU/v2/events?" + ok, http.Header{"Api-Version": {"2"}}, 200},
		{"OK unknown parameter ignored", "GET", "/MAEU/v2/events?colour=blue&" + ok, nil, 200},
		{"OK deprecated bookingReference", "GET", "/MAEU/v2/events?bookingReference=123456781", nil, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, n.url+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.header {
				req.Header[k] = v
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body bytes.Buffer
			body.ReadFrom(resp.Body)
			a := answer{resp.StatusCode, resp.Header, body.Bytes()}
			if a.status != tt.status {
				t.Fatalf("status %d, want %d: %s", a.status, tt.status, a.body)
			}
			if tt.status != 200 {
				mustErrorBody(t, a, tt.status)
			}
			if a.header.Get(dcsa.HeaderAPIVersion) != sim.APIVersion {
				t.Errorf("API-Version %q, want %q", a.header.Get(dcsa.HeaderAPIVersion), sim.APIVersion)
			}
		})
	}
}

// mustErrorBody checks a DCSA error body.
func mustErrorBody(t testing.TB, a answer, status int) {
	t.Helper()
	var e struct {
		HTTPMethod     string `json:"httpMethod"`
		RequestURI     string `json:"requestUri"`
		StatusCode     int    `json:"statusCode"`
		StatusCodeText string `json:"statusCodeText"`
		ErrorDateTime  string `json:"errorDateTime"`
		Errors         []struct {
			Reason  string `json:"reason"`
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(a.body, &e); err != nil {
		t.Fatalf("error body is not JSON: %v: %s", err, a.body)
	}
	if e.StatusCode != status || e.StatusCodeText != http.StatusText(status) || e.HTTPMethod == "" || e.RequestURI == "" ||
		len(e.Errors) != 1 || e.Errors[0].Reason == "" || e.Errors[0].Message == "" {
		t.Errorf("incomplete DCSA error body: %s", a.body)
	}
	mustTime(t, e.ErrorDateTime)
}

func mustDecode(t testing.TB, body []byte) []dcsa.Event {
	t.Helper()
	var evs []dcsa.Event
	if err := json.Unmarshal(body, &evs); err != nil {
		t.Fatal(err)
	}
	return evs
}

// TestRouteSanity checks journeys of every simulated line: the route's calls, ports and vessels
// exist, the equipment is the line's, and time runs forward along the route.
func TestRouteSanity(t *testing.T) {
	n := newTestNetwork(t)
	carriers := data.Carriers()
	ports := data.Ports()
	fleet := map[string]boxwatch.Vessel{}
	for _, v := range data.Fleet() {
		fleet[v.IMO] = v
	}
	lanes := map[string]bool{}
	for _, line := range carriers.All() {
		for i := range 12 {
			number := numberWithDigit(i, 9) // the whole journey is visible
			t.Run(line.SCAC+" "+number, func(t *testing.T) {
				evs := n.mustEvents(t, line.SCAC, number)
				v := newView(t, evs)
				checkCalls(t, v, ports, fleet)
				checkEquipment(t, v, line, carriers)
				checkTimesRunForward(t, v)
				lanes[v.calls[v.pol()].CarrierServiceCode[:2]] = true
			})
		}
	}
	if len(lanes) < 12 {
		t.Errorf("only %d lanes seen across all lines", len(lanes))
	}
}

func checkCalls(t *testing.T, v view, ports *boxwatch.Ports, fleet map[string]boxwatch.Vessel) {
	t.Helper()
	for seq := 1; seq <= v.last; seq++ {
		c, ok := v.calls[seq]
		if !ok {
			t.Fatalf("no call %d", seq)
		}
		if _, ok := ports.ByLOCODE(c.UNLocationCode); !ok {
			t.Errorf("call %d: %s is not a known port", seq, c.UNLocationCode)
		}
		depot := seq == 1 || seq == v.last
		if depot != (c.FacilityTypeCode == "DEPO" && c.ModeOfTransport == "TRUCK" && c.Vessel == nil) {
			t.Errorf("call %d: %s by %s is misplaced", seq, c.FacilityTypeCode, c.ModeOfTransport)
		}
		if depot {
			continue
		}
		if c.FacilityTypeCode != "POTE" || c.ModeOfTransport != "VESSEL" || c.Vessel == nil {
			t.Fatalf("call %d: want a vessel at a port terminal, got %+v", seq, c)
		}
		vessel, ok := fleet[c.Vessel.VesselIMONumber]
		simulated := strings.HasPrefix(c.Vessel.VesselIMONumber, "30") && boxwatch.ValidIMO(c.Vessel.VesselIMONumber) &&
			c.Vessel.VesselName == "SIM VESSEL "+c.Vessel.VesselIMONumber[2:6]
		if !simulated && (!ok || vessel.Name != c.Vessel.VesselName || vessel.CallSign != c.Vessel.VesselCallSignNumber || vessel.Flag != c.Vessel.VesselFlag) {
			t.Errorf("call %d: vessel %+v is neither in the fleet as such nor simulated", seq, c.Vessel)
		}
		if len(c.CarrierServiceCode) == 0 || len(c.CarrierServiceCode) > 5 {
			t.Errorf("call %d: service code %q", seq, c.CarrierServiceCode)
		}
		voyage := c.ExportVoyageNumber
		if len(voyage) != 4 || !strings.Contains("NESW", voyage[3:]) || strings.Trim(voyage[:3], "0123456789") != "" {
			t.Errorf("call %d: voyage number %q", seq, voyage)
		}
	}
	if v.calls[1].UNLocationCode != v.calls[v.pol()].UNLocationCode || v.calls[v.last].UNLocationCode != v.calls[v.pod()].UNLocationCode {
		t.Error("the depots are not at the ports of lading and discharge")
	}
	if v.calls[v.pol()].UNLocationCode == v.calls[v.pod()].UNLocationCode {
		t.Error("the ports of lading and discharge are the same")
	}
	if v.hub() && (v.calls[3].UNLocationCode != v.calls[4].UNLocationCode || v.calls[3].Vessel.VesselIMONumber == v.calls[4].Vessel.VesselIMONumber) {
		t.Error("the hub calls are not one port with two vessels")
	}
}

func checkEquipment(t *testing.T, v view, line boxwatch.ShippingLine, carriers *boxwatch.Carriers) {
	t.Helper()
	prefixes := line.ContainerPrefixes
	if parent, ok := carriers.BySCAC(strings.Trim(string(line.Extra["parent_scac"]), `"`)); ok && len(prefixes) == 0 {
		prefixes = parent.ContainerPrefixes
	}
	if len(prefixes) == 0 {
		prefixes = []string{line.SCAC[:3] + "U"}
	}
	if len(v.containers) < 1 || len(v.containers) > 4 {
		t.Errorf("%d containers", len(v.containers))
	}
	for c := range v.containers {
		if p := boxwatch.ContainerNumberProblem(c); p != "" {
			t.Errorf("container %s %s", c, p)
		}
		if !slices.Contains(prefixes, c[:4]) {
			t.Errorf("container %s is not on one of %s's prefixes %v", c, line.SCAC, prefixes)
		}
	}
	for _, e := range v.events {
		if e.EventType != "EQUIPMENT" {
			continue
		}
		if !slices.Contains([]string{"22G1", "42G1", "45G1", "45R1"}, e.ISOEquipmentCode) {
			t.Errorf("ISO code %q", e.ISOEquipmentCode)
		}
		laden := e.EmptyIndicatorCode == "LADEN"
		if laden != (len(e.Seals) == 1) || (!laden && e.EmptyIndicatorCode != "EMPTY") {
			t.Errorf("%s %s: %s with %d seals", e.EquipmentEventTypeCode, e.EquipmentReference, e.EmptyIndicatorCode, len(e.Seals))
		}
	}
}

// checkTimesRunForward checks that the plan and the actual moves of the vessels, and the moves of
// each container, follow the route.
func checkTimesRunForward(t *testing.T, v view) {
	t.Helper()
	for _, classifier := range []string{boxwatch.ClassifierPlanned, boxwatch.ClassifierActual} {
		var times []time.Time
		for _, e := range v.events {
			if e.EventType == "TRANSPORT" && e.EventClassifierCode == classifier {
				times = append(times, mustTime(t, e.EventDateTime))
			}
		}
		if n := len(times); n != 3 && n != 5 {
			t.Fatalf("%d %s transport events, want 3 or 5", n, classifier)
		}
		if !slices.IsSortedFunc(times, time.Time.Compare) {
			t.Errorf("%s transport times do not run forward: %v", classifier, times)
		}
	}
	journey := []string{"GTOT/1", "GTIN/2", "LOAD/2", "DISC/3", "LOAD/4", "DISC/5", "GTOT/5", "GTIN/6"}
	if !v.hub() {
		journey = []string{"GTOT/1", "GTIN/2", "LOAD/2", "DISC/3", "GTOT/3", "GTIN/4"}
	}
	for c := range v.containers {
		var steps, door []string
		var last time.Time
		for _, e := range v.events {
			if e.EquipmentReference != c {
				continue
			}
			seq := *e.TransportCall.TransportCallSequenceNumber
			if seq > v.last {
				// At the consignee's door, between the pickup and the empty's return.
				door = append(door, e.EquipmentEventTypeCode)
				if e.TransportCall.FacilityTypeCode != "CLOC" || len(steps) != len(journey)-1 {
					t.Errorf("%s: %s at call %d (%s) after %v", c, e.EquipmentEventTypeCode, seq, e.TransportCall.FacilityTypeCode, steps)
				}
			} else {
				steps = append(steps, e.EquipmentEventTypeCode+"/"+strconv.Itoa(seq))
			}
			at := mustTime(t, e.EventDateTime)
			if at.Before(last) {
				t.Errorf("%s: %s before the move before it", c, steps[len(steps)-1])
			}
			last = at
			if created := mustTime(t, e.EventCreatedDateTime); created.Before(at) {
				t.Errorf("%s: %s recorded before it happened", c, steps[len(steps)-1])
			}
		}
		if !slices.Equal(steps, journey) {
			t.Errorf("%s moves %v, want %v", c, steps, journey)
		}
		if len(door) > 0 && !slices.Equal(door, []string{"GTIN"}) && !slices.Equal(door, []string{"DROP", "PICK"}) {
			t.Errorf("%s at the door: %v, want none, a gate-in or a drop and a pick", c, door)
		}
	}
}

func TestServeOnLoopback(t *testing.T) {
	n, err := sim.New(sim.Options{SCACs: []string{"MAEU", "TEST"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := n.BaseURL("MAEU"); ok {
		t.Error("a base URL before Start")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(ln); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	if err := n.Start(ln); err == nil {
		t.Error("a second Start succeeded")
	}
	if got := n.SCACs(); !slices.Equal(got, []string{"MAEU", "TEST"}) {
		t.Errorf("SCACs %v", got)
	}
	if _, ok := n.BaseURL("MSCU"); ok {
		t.Error("a base URL for a line not simulated")
	}
	base, ok := n.BaseURL("TEST")
	if !ok || !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("base URL %q", base)
	}
	if evs := getURL(t, base+"/v2/events?transportDocumentReference=TEST-TR-SUCCEEDED").events(t); len(evs) == 0 {
		t.Error("no events over loopback")
	}
}

func TestLatency(t *testing.T) {
	n := newTestNetwork(t, func(o *sim.Options) { o.Latency = 100 * time.Millisecond })
	began := time.Now()
	n.mustEvents(t, "MAEU", "123")
	if took := time.Since(began); took < 100*time.Millisecond {
		t.Errorf("answered in %s, want at least 100ms", took)
	}
}

type failingState struct{}

func (failingState) FirstSeen(context.Context, string, time.Time) (time.Time, error) {
	return time.Time{}, errors.New("database down")
}
func (failingState) Increment(context.Context, string) (int, error) {
	return 0, errors.New("database down")
}

func TestStateFailureIsServerError(t *testing.T) {
	n := newTestNetwork(t, func(o *sim.Options) { o.State = failingState{} })
	for _, number := range []string{"1234", "12349999"} {
		a := n.get(t, eventsPath("MAEU", "transportDocumentReference", number))
		if a.status != http.StatusInternalServerError || strings.Contains(string(a.body), "database down") {
			t.Errorf("%s: status %d, body %s: want 500 without the cause", number, a.status, a.body)
		}
		mustErrorBody(t, a, http.StatusInternalServerError)
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	tinyPorts, err := boxwatch.LoadPorts(strings.NewReader(`[{"locode":"NLRTM","name":"Rotterdam","country":"Netherlands","lat":51.9,"lon":4.5}]`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		o    sim.Options
	}{
		{"ErrNegativeSpeed", sim.Options{Speed: -1}},
		{"ErrNegativeLatency", sim.Options{Latency: -time.Second}},
		{"ErrUnknownSCAC", sim.Options{SCACs: []string{"ZZZZ"}}},
		{"ErrLanePortMissing", sim.Options{Ports: tinyPorts}},
		{"ErrFleetTooSmall", sim.Options{Fleet: data.Fleet()[:1]}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := sim.New(tt.o); err == nil {
				t.Error("New succeeded")
			}
		})
	}
}

func TestMemoryState(t *testing.T) {
	var s sim.MemoryState
	ctx := context.Background()
	first, _ := s.FirstSeen(ctx, "MAEU/1", start)
	again, _ := s.FirstSeen(ctx, "MAEU/1", start.Add(time.Hour))
	if !first.Equal(start) || !again.Equal(start) {
		t.Errorf("first seen %s then %s, want %s both times", first, again, start)
	}
	for want := 1; want <= 3; want++ {
		if got, _ := s.Increment(ctx, "MAEU/1"); got != want {
			t.Errorf("attempt %d, want %d", got, want)
		}
	}
	if got, _ := s.Increment(ctx, "MAEU/2"); got != 1 {
		t.Errorf("another key's first attempt is %d", got)
	}
}

func BenchmarkLookup(b *testing.B) {
	n := newTestNetwork(b)
	for i := 0; b.Loop(); i++ {
		a := n.get(b, eventsPath("MAEU", "transportDocumentReference", numberWithDigit(i%1000, i%10)))
		if a.status != http.StatusOK {
			b.Fatal(a.status)
		}
	}
}
