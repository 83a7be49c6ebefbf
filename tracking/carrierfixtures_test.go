package tracking

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/carrier/dcsa"
)

// fixtureDir holds carrier answers in the shapes real carriers send, written for these tests.
const fixtureDir = "../carrier/dcsa/testdata/fixtures"

// TestCarrierFixtures runs every fixture through the path a lookup takes: a carrier on loopback
// answering the DCSA client, then the route and containers the engine derives from the shipment.
func TestCarrierFixtures(t *testing.T) {
	const direct = "CNSHA:POL NLRTM:POD"
	directBox := "MSKU1234565: empty_out@CNSHA full_in@CNSHA vessel_loaded@CNSHA vessel_departed@CNSHA"
	bill := func(n string) boxwatch.CarrierReference {
		return boxwatch.CarrierReference{Type: boxwatch.RequestBillOfLading, Number: n, SCAC: "BXWT"}
	}
	booking := func(n string) boxwatch.CarrierReference {
		return boxwatch.CarrierReference{Type: boxwatch.RequestBookingNumber, Number: n, SCAC: "BXWT"}
	}
	cancelledBox := "MSKU1234565: empty_out@CNSHA"
	for _, tc := range []struct {
		name, file, version string
		ref                 boxwatch.CarrierReference
		route               string
		podETA              string // RFC 3339, empty when none
		containers          []string
		events              int
		unreadable          []string // a piece of each skipped record's reason
		booking             string
		cancelled           string // RFC 3339, empty while the booking stands
	}{
		{name: "MaerskWrapped", file: "maersk-wrapped.json", ref: bill("BL2401"), route: direct,
			podETA: "2025-04-03T10:00:00Z", containers: []string{directBox}, events: 8, booking: "BK2401"},
		{name: "GarbledRecordSkipped", file: "garbled-record.json", ref: bill("BL2401"), route: direct,
			podETA: "2025-04-03T10:00:00Z", containers: []string{directBox}, events: 8, booking: "BK2401",
			unreadable: []string{`eventType "GTOT"`}},
		{name: "DoubleCallAtShanghai", file: "double-call.json", ref: bill("BL2401"), route: direct,
			podETA:     "2025-04-03T10:00:00Z",
			containers: []string{"MSKU1234565: full_in@CNSHA vessel_loaded@CNSHA vessel_departed@CNSHA"}, events: 5, booking: "BK2401"},
		{name: "SequencePerVoyage", file: "sequence-per-voyage.json", ref: bill("BL2401"), route: "CNSHA:POL SGSIN:TS NLRTM:POD",
			podETA: "2025-04-05T04:00:00Z",
			containers: []string{"MSKU1234565: vessel_loaded@CNSHA vessel_departed@CNSHA transshipment_arrived@SGSIN " +
				"transshipment_discharged@SGSIN transshipment_loaded@SGSIN transshipment_departed@SGSIN"}, events: 7, booking: "BK2401"},
		{name: "OptionalMembersMissing", file: "optional-members-missing.json", ref: bill("BL2401"), route: direct,
			podETA:     "2025-04-03T10:00:00Z",
			containers: []string{"MSKU1234565: full_in@CNSHA vessel_loaded@CNSHA vessel_departed@CNSHA"}, events: 5, booking: "BK2401"},
		{name: "LooseDateTimes", file: "loose-date-times.json", ref: bill("BL2401"), route: direct,
			podETA:     "2025-04-03T10:00:00Z",
			containers: []string{"MSKU1234565: full_in@CNSHA vessel_loaded@CNSHA vessel_departed@CNSHA"}, events: 4, booking: "BK2401",
			unreadable: []string{`"03/04/2025 12:00" is not a date-time`}},
		{name: "SharedEventIDs", file: "shared-event-ids.json", ref: bill("BL2401"), route: direct,
			podETA:     "2025-04-03T10:00:00Z",
			containers: []string{"MSKU1234565: vessel_loaded@CNSHA vessel_departed@CNSHA"}, events: 4, booking: "BK2401"},
		{name: "EstimateMovesEarlier", file: "estimate-moves-earlier.json", ref: bill("BL2401"), route: direct,
			podETA: "2025-04-01T10:00:00Z",
			events: 3, booking: "BK2401"},
		{name: "CreatedInTheFuture", file: "created-in-the-future.json", ref: bill("BL2401"), route: direct,
			podETA: "2025-04-03T10:00:00Z",
			events: 3, booking: "BK2401"},
		{name: "ContainerCurrentCycle", file: "container-two-cycles.json",
			ref:   boxwatch.CarrierReference{Type: boxwatch.RequestContainer, Number: "MSKU1234565", SCAC: "BXWT"},
			route: direct, podETA: "2025-04-03T10:00:00Z", containers: []string{directBox}, events: 7, booking: "BK2401"},
		{name: "CarrierRoles", file: "carrier-roles.json", ref: bill("BL2401"), route: "CNSHA:POL NGLKK:TS NGAPP:POD",
			podETA: "2026-01-18T07:00:00Z",
			events: 5, booking: "BK2401"},
		{name: "TNT30Released", file: "tnt30-released.json", version: dcsa.Version30, ref: bill("BL2401"), route: direct,
			podETA: "2025-04-03T10:00:00Z", containers: []string{directBox}, events: 8, booking: "BK2401"},
		{name: "TNT30Beta", file: "tnt30-beta.json", version: dcsa.Version30, ref: bill("BL2401"), route: direct,
			podETA: "2025-04-03T10:00:00Z", containers: []string{directBox}, events: 8, booking: "BK2401"},
		{name: "BookingCancelled", file: "booking-cancelled.json", ref: booking("BK2401"), route: direct,
			podETA: "2025-04-03T10:00:00Z", containers: []string{cancelledBox}, events: 7, booking: "BK2401", cancelled: "2025-02-26T03:00:00Z"},
		{name: "BookingCancelledTNT30", file: "booking-cancelled-tnt30.json", version: dcsa.Version30, ref: booking("BK2401"), route: direct,
			podETA: "2025-04-03T10:00:00Z", containers: []string{cancelledBox}, events: 7, booking: "BK2401", cancelled: "2025-02-26T03:00:00Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := lookupFixture(t, tc.file, tc.version, tc.ref)
			route := deriveRoute(cs, nil)
			if got := describeRoute(route); got != tc.route {
				t.Errorf("route %q, want %q", got, tc.route)
			}
			if pod, ok := (&boxwatch.Shipment{Route: route}).POD(); ok && describeTime(pod.ETA) != tc.podETA {
				t.Errorf("POD ETA %s, want %s", describeTime(pod.ETA), tc.podETA)
			}
			var boxes []string
			for _, f := range deriveContainers(cs, route, nil) {
				boxes = append(boxes, describeFacts(f))
			}
			if !slices.Equal(boxes, tc.containers) {
				t.Errorf("containers:\n%s\nwant:\n%s", strings.Join(boxes, "\n"), strings.Join(tc.containers, "\n"))
			}
			if len(cs.Events) != tc.events {
				t.Errorf("%d events, want %d", len(cs.Events), tc.events)
			}
			if len(cs.Unreadable) != len(tc.unreadable) {
				t.Fatalf("unreadable %+v, want %d", cs.Unreadable, len(tc.unreadable))
			}
			for i, u := range cs.Unreadable {
				if !strings.Contains(u.Reason, tc.unreadable[i]) {
					t.Errorf("unreadable %d: %q, want it to say %q", i, u.Reason, tc.unreadable[i])
				}
			}
			if cs.Booking != tc.booking {
				t.Errorf("booking %q, want %q", cs.Booking, tc.booking)
			}
			if got := describeTime(cs.BookingCancelledAt); got != tc.cancelled {
				t.Errorf("booking cancelled at %s, want %s", got, tc.cancelled)
			}
		})
	}
}

// TestCarrierFixturesAreAllTested fails when a fixture is added without a case above.
func TestCarrierFixturesAreAllTested(t *testing.T) {
	src, err := os.ReadFile("carrierfixtures_test.go")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(fixtureDir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures in %s: %v", fixtureDir, err)
	}
	for _, f := range files {
		if !strings.Contains(string(src), `"`+filepath.Base(f)+`"`) {
			t.Errorf("fixture %s has no case", filepath.Base(f))
		}
	}
}

// lookupFixture serves a fixture as a carrier speaking version would, on loopback, and looks
// ref up in it with the DCSA client.
func lookupFixture(t *testing.T, file, version string, ref boxwatch.CarrierReference) boxwatch.CarrierShipment {
	t.Helper()
	body, err := os.ReadFile(filepath.Join(fixtureDir, file))
	if err != nil {
		t.Fatal(err)
	}
	path := "/BXWT/v2/events"
	if version == dcsa.Version30 {
		path = "/BXWT/v3/events"
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body) //nolint:errcheck // the test fails on what the client reads
	}))
	t.Cleanup(srv.Close)
	client, err := dcsa.New(dcsa.Config{BaseURL: srv.URL + "/BXWT", Version: version})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.Lookup(t.Context(), ref)
	if err != nil {
		t.Fatalf("Lookup: %v", err)
	}
	return cs
}

func describeRoute(route []boxwatch.RouteStop) string {
	var parts []string
	for _, s := range route {
		parts = append(parts, s.LOCODE+":"+s.Role)
	}
	return strings.Join(parts, " ")
}

func describeFacts(f containerFacts) string {
	parts := []string{f.number + ":"}
	for _, m := range f.milestones {
		parts = append(parts, strings.TrimPrefix(m.event, "container.transport.")+"@"+m.locode)
	}
	return strings.Join(parts, " ")
}

func describeTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
