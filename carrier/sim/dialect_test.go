package sim_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/carrier/dcsa"
	"github.com/boxwatch/boxwatch/carrier/sim"
)

// dialectNetwork is a test network answering in d.
func dialectNetwork(t *testing.T, d sim.Dialect) *testNetwork {
	t.Helper()
	return newTestNetwork(t, func(o *sim.Options) { o.Dialect = d })
}

// records returns the records of an answer, wrapped or not, as raw objects.
func records(t *testing.T, a answer, wrapped bool) []map[string]json.RawMessage {
	t.Helper()
	if a.status != http.StatusOK {
		t.Fatalf("status %d: %s", a.status, a.body)
	}
	body := a.body
	if wrapped {
		var w map[string]json.RawMessage
		if err := json.Unmarshal(body, &w); err != nil || w["events"] == nil {
			t.Fatalf("not {\"events\": [...]}: %v: %.200s", err, body)
		}
		body = w["events"]
	}
	var out []map[string]json.RawMessage
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("not a list of objects: %v: %.200s", err, body)
	}
	return out
}

const dialectNumber = "224466885" // at the transshipment port: every family of event is there

func TestDialectWrapped(t *testing.T) {
	n := dialectNetwork(t, sim.Dialect{Wrapped: true})
	if got := records(t, n.get(t, eventsPath("MAEU", "carrierBookingReference", dialectNumber)), true); len(got) == 0 {
		t.Fatal("no events")
	}
}

func TestDialectOmitOptional(t *testing.T) {
	n := dialectNetwork(t, sim.Dialect{OmitOptional: true})
	evs := n.get(t, eventsPath("MAEU", "carrierBookingReference", dialectNumber)).events(t)
	if len(evs) == 0 {
		t.Fatal("no events")
	}
	for _, e := range evs {
		if e.EventID != "" || e.EventTypeCode == "" || e.TransportEventTypeCode != "" || e.EquipmentEventTypeCode != "" || e.ShipmentEventTypeCode != "" {
			t.Fatalf("event %+v has an id or its type-specific code", e)
		}
		if tc := e.TransportCall; tc != nil && (tc.TransportCallID != "" || tc.ExportVoyageNumber != "" || tc.ImportVoyageNumber != "") {
			t.Fatalf("call %+v has an id or export/import voyage numbers", tc)
		}
	}
}

func TestDialectSequencePerVoyage(t *testing.T) {
	n := dialectNetwork(t, sim.Dialect{SequencePerVoyage: true})
	evs := n.get(t, eventsPath("MAEU", "carrierBookingReference", dialectNumber)).events(t)
	byVoyage := map[string]map[int]string{} // voyage → sequence number → call id
	for _, e := range evs {
		tc := e.TransportCall
		if tc == nil || tc.TransportCallSequenceNumber == nil {
			continue
		}
		v := tc.ImportVoyageNumber + "/" + tc.ExportVoyageNumber
		if byVoyage[v] == nil {
			byVoyage[v] = map[int]string{}
		}
		if id, ok := byVoyage[v][*tc.TransportCallSequenceNumber]; ok && id != tc.TransportCallID {
			t.Fatalf("two calls of voyage %s numbered %d", v, *tc.TransportCallSequenceNumber)
		}
		byVoyage[v][*tc.TransportCallSequenceNumber] = tc.TransportCallID
	}
	for v, calls := range byVoyage {
		if calls[1] == "" {
			t.Errorf("voyage %s has no call numbered 1: %v", v, calls)
		}
	}
	if len(byVoyage) < 2 {
		t.Errorf("only %d voyages: pick a number with more", len(byVoyage))
	}
}

func TestDialectSharedEventIDs(t *testing.T) {
	n := dialectNetwork(t, sim.Dialect{SharedEventIDs: true})
	evs := n.get(t, eventsPath("MAEU", "carrierBookingReference", dialectNumber)).events(t)
	families := map[string]map[string]bool{} // eventID → families
	for _, e := range evs {
		if families[e.EventID] == nil {
			families[e.EventID] = map[string]bool{}
		}
		if families[e.EventID][e.EventType] {
			t.Fatalf("eventID %s twice in family %s", e.EventID, e.EventType)
		}
		families[e.EventID][e.EventType] = true
	}
	shared := 0
	for _, f := range families {
		if len(f) > 1 {
			shared++
		}
	}
	if shared == 0 {
		t.Error("no eventID is shared between families")
	}
}

func TestDialectGarbledRecordOnFirstPageOnly(t *testing.T) {
	n := dialectNetwork(t, sim.Dialect{GarbledRecord: true})
	first := n.get(t, eventsPath("MAEU", "carrierBookingReference", dialectNumber)+"&limit=3")
	recs := records(t, first, false)
	if len(recs) != 4 || !strings.Contains(string(recs[0]["eventType"]), "GTOT") {
		t.Fatalf("first page %.300s, want the garbled record and 3 events", first.body)
	}
	second := getURL(t, first.header.Get(dcsa.HeaderNextPage))
	for _, r := range records(t, second, false) {
		if strings.Contains(string(r["eventType"]), "GTOT") {
			t.Fatal("the garbled record is on the second page too")
		}
	}
}

// TestDialectGarbledRecordNotForUnknownNumbers: a number the carrier does not know stays an empty
// answer, so that the client still reports it not found.
func TestDialectGarbledRecordNotForUnknownNumbers(t *testing.T) {
	n := dialectNetwork(t, sim.Dialect{GarbledRecord: true})
	if evs := n.get(t, eventsPath("MAEU", "carrierBookingReference", "224460000")).events(t); len(evs) != 0 {
		t.Fatalf("unknown number answered %d records", len(evs))
	}
}

func TestDialectVersion30(t *testing.T) {
	n := dialectNetwork(t, sim.Dialect{Version: dcsa.Version30})
	if n.Version() != dcsa.Version30 {
		t.Fatalf("Version() = %s", n.Version())
	}
	if a := n.get(t, eventsPath("MAEU", "carrierBookingReference", dialectNumber)); a.status != http.StatusNotFound {
		t.Errorf("GET /v2/events: %d, want 404", a.status)
	}
	path := strings.Replace(eventsPath("MAEU", "carrierBookingReference", dialectNumber), "/v2/", "/v3/", 1)
	a := n.get(t, path+"&limit=4")
	if a.header.Get(dcsa.HeaderAPIVersion) != sim.APIVersionV3 || a.header.Get(dcsa.HeaderNextPageCursor) == "" {
		t.Fatalf("headers %v", a.header)
	}
	for _, r := range records(t, a, true) {
		if r["eventClassification"] == nil || r["eventType"] != nil {
			t.Fatalf("record %v is not in the 3.0 layout", r)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, n.url+path, nil)
	req.Header.Set(dcsa.HeaderAPIVersion, "2")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("API-Version 2 to a 3.0 network: %d, want 400", resp.StatusCode)
	}
}

// TestDialectsYieldTheSameShipment looks one number up through the DCSA client in every dialect:
// the calls, containers and events it reads are those of the plain 2.2 answer.
func TestDialectsYieldTheSameShipment(t *testing.T) {
	state, c := sim.NewMemoryState(), &clock{now: start}
	lookup := func(t *testing.T, d sim.Dialect) boxwatch.CarrierShipment {
		t.Helper()
		n, err := sim.New(sim.Options{Clock: c.Now, State: state, SCACs: []string{"MAEU"}, Dialect: d})
		if err != nil {
			t.Fatal(err)
		}
		srv := newServer(t, n)
		client, err := dcsa.New(dcsa.Config{BaseURL: srv + "/MAEU", Version: n.Version(), PageSize: 7})
		if err != nil {
			t.Fatal(err)
		}
		s, err := client.Lookup(t.Context(), boxwatch.CarrierReference{Type: boxwatch.RequestBookingNumber, Number: dialectNumber, SCAC: "MAEU"})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	want := summarize(lookup(t, sim.Dialect{}))
	for name, d := range map[string]sim.Dialect{
		"Wrapped":           {Wrapped: true},
		"OmitOptional":      {OmitOptional: true},
		"SequencePerVoyage": {SequencePerVoyage: true},
		"SharedEventIDs":    {SharedEventIDs: true},
		"GarbledRecord":     {GarbledRecord: true},
		"Version30":         {Version: dcsa.Version30},
		"Everything":        {Wrapped: true, OmitOptional: true, SequencePerVoyage: true, SharedEventIDs: true, GarbledRecord: true},
	} {
		t.Run(name, func(t *testing.T) {
			s := lookup(t, d)
			if got := summarize(s); got != want {
				t.Errorf("shipment\n%s\nwant\n%s", got, want)
			}
			if d.GarbledRecord != (len(s.Unreadable) == 1) {
				t.Errorf("unreadable %+v", s.Unreadable)
			}
		})
	}
}

// summarize writes what a shipment says, leaving out the ids and sequence numbers a dialect
// changes.
func summarize(s boxwatch.CarrierShipment) string {
	var b strings.Builder
	b.WriteString(s.BillOfLading + " " + s.Booking + "\n")
	for _, c := range s.Calls {
		imo := ""
		if c.Vessel != nil {
			imo = c.Vessel.IMO
		}
		b.WriteString(strings.Join([]string{"call", c.LOCODE, c.Mode, imo, c.ExportVoyage, c.ImportVoyage,
			c.Arrival.Planned.UTC().String(), c.Arrival.Estimated.UTC().String(), c.Arrival.Actual.UTC().String(),
			c.Departure.Planned.UTC().String(), c.Departure.Estimated.UTC().String(), c.Departure.Actual.UTC().String()}, " ") + "\n")
	}
	for _, e := range s.Equipment {
		b.WriteString("box " + e.Reference + " " + e.ISOCode + " " + strings.Join(e.Seals, ",") + "\n")
	}
	// Events at the same time and creation time are ordered by their ids, which dialects change:
	// their lines are compared as a set.
	var events []string
	for _, e := range s.Events {
		events = append(events, strings.Join([]string{"event", e.Type, e.Classifier, e.Code, e.Time.UTC().Format(time.RFC3339), e.LOCODE, e.EquipmentReference}, " ")+"\n")
	}
	slices.Sort(events)
	b.WriteString(strings.Join(events, ""))
	return b.String()
}

// newServer serves n on loopback until the test ends and returns its root URL.
func newServer(t *testing.T, n *sim.Network) string {
	t.Helper()
	srv := httptest.NewServer(n)
	t.Cleanup(srv.Close)
	return srv.URL
}
