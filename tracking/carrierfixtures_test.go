package tracking

import (
	"fmt"
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
	"github.com/boxwatch/boxwatch/data"
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
		// destination describes the inland destination (describeDestination), empty when none;
		// inland each container's status and inland leg once the facts are applied.
		destination string
		inland      []string
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
			// Shanghai to Singapore is a feeder leg (docs/api.md): another vessel than the mother
			// vessel's, less than half as long at sea.
			containers: []string{"MSKU1234565: vessel_loaded@CNSHA feeder_loaded@CNSHA vessel_departed@CNSHA feeder_departed@CNSHA " +
				"transshipment_arrived@SGSIN feeder_arrived@SGSIN transshipment_discharged@SGSIN feeder_discharged@SGSIN " +
				"transshipment_loaded@SGSIN transshipment_departed@SGSIN"}, events: 7, booking: "BK2401"},
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
		{name: "InlandRail", file: "inland-rail.json", ref: bill("BL2402"), route: "CNSHA:POL USLAX:POD",
			podETA: "2025-03-20T13:00:00Z", containers: []string{inlandRailBox}, events: 18, booking: "BK2402",
			destination: inlandRailDestination, inland: []string{inlandRailLeg}},
		{name: "InlandRailTNT30", file: "inland-rail-tnt30.json", version: dcsa.Version30, ref: bill("BL2402"), route: "CNSHA:POL USLAX:POD",
			podETA: "2025-03-20T13:00:00Z", containers: []string{inlandRailBox}, events: 18, booking: "BK2402",
			destination: inlandRailDestination, inland: []string{inlandRailLeg}},
		{name: "InlandBarge", file: "inland-barge.json", ref: bill("BL2403"), route: direct,
			podETA: "2025-04-02T04:00:00Z", containers: []string{inlandBargeBox}, events: 14, booking: "BK2403",
			destination: inlandBargeDestination, inland: []string{inlandBargeLeg}},
		{name: "InlandBargeTNT30", file: "inland-barge-tnt30.json", version: dcsa.Version30, ref: bill("BL2403"), route: direct,
			podETA: "2025-04-02T04:00:00Z", containers: []string{inlandBargeBox}, events: 14, booking: "BK2403",
			destination: inlandBargeDestination, inland: []string{inlandBargeLeg}},
		{name: "InlandTruck", file: "inland-truck.json", ref: bill("BL2404"), route: direct,
			podETA: "2025-04-02T04:00:00Z", containers: []string{inlandTruckBox}, events: 12, booking: "BK2404",
			destination: inlandTruckDestination, inland: []string{inlandTruckLeg}},
		{name: "InlandTruckTNT30", file: "inland-truck-tnt30.json", version: dcsa.Version30, ref: bill("BL2404"), route: direct,
			podETA: "2025-04-02T04:00:00Z", containers: []string{inlandTruckBox}, events: 12, booking: "BK2404",
			destination: inlandTruckDestination, inland: []string{inlandTruckLeg}},
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
			dest := deriveDestination(cs, route, nil)
			if got := describeDestination(dest); got != tc.destination {
				t.Errorf("destination %q,\nwant        %q", got, tc.destination)
			}
			var boxes, inland []string
			pod, _ := (&boxwatch.Shipment{Route: route}).POD()
			for _, f := range deriveContainers(cs, route, dest) {
				boxes = append(boxes, describeFacts(f))
				if dest != nil {
					var c boxwatch.Container
					applyFacts(&c, f, pod.LOCODE, dest)
					c.Inland.PODRailCarrierSCAC, c.Inland.IndRailCarrierSCAC = railCarriers(cs, pod.LOCODE, dest, data.Railways())
					inland = append(inland, describeInland(c))
				}
			}
			if !slices.Equal(boxes, tc.containers) {
				t.Errorf("containers:\n%s\nwant:\n%s", strings.Join(boxes, "\n"), strings.Join(tc.containers, "\n"))
			}
			if !slices.Equal(inland, tc.inland) {
				t.Errorf("inland legs:\n%s\nwant:\n%s", strings.Join(inland, "\n"), strings.Join(tc.inland, "\n"))
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

// What the inland fixtures say: the same journey in Track & Trace 2.2 and 3.0 each.
const (
	inlandRailBox = "MSKU1234565: empty_out@CNSHA full_in@CNSHA vessel_loaded@CNSHA vessel_departed@CNSHA vessel_arrived@USLAX " +
		"vessel_discharged@USLAX rail_loaded@USLAX rail_departed@USLAX rail_arrived@USCHI arrived_at_inland_destination@USCHI " +
		"rail_unloaded@USCHI empty_in@USCHI"
	inlandRailDestination = "USCHI RAIL RAMP \"BNSF Logistics Park Chicago\" eta=2025-03-29T07:00:00Z original=2025-03-28T11:00:00Z ata=2025-03-29T09:30:00Z"
	inlandRailLeg         = "empty_returned to=USCHI pod_rail_loaded=2025-03-24T21:00:00Z pod_rail_departed=2025-03-25T05:00:00Z " +
		"ind_eta=2025-03-29T07:00:00Z ind_ata=2025-03-29T09:30:00Z ind_rail_unloaded=2025-03-29T16:00:00Z final_full_out=2025-03-31T14:15:00Z " +
		// The train's call at the port names no railway; the ramp's name names BNSF's.
		"ind_rail_scac=BNSF"

	inlandBargeBox = "MSKU1234565: empty_out@CNSHA full_in@CNSHA vessel_loaded@CNSHA vessel_departed@CNSHA vessel_arrived@NLRTM " +
		"vessel_discharged@NLRTM arrived_at_inland_destination@DEDUI"
	inlandBargeDestination = "DEDUI BARGE INTE \"DeCeTe Duisburg\" eta=2025-04-07T04:00:00Z original=2025-04-07T04:00:00Z ata=2025-04-07T08:00:00Z"
	inlandBargeLeg         = "grounded to=DEDUI ind_eta=2025-04-07T04:00:00Z ind_ata=2025-04-07T08:00:00Z"

	inlandTruckBox = "MSKU1234565: empty_out@CNSHA full_in@CNSHA vessel_loaded@CNSHA vessel_departed@CNSHA vessel_arrived@NLRTM " +
		"vessel_discharged@NLRTM full_out@NLRTM arrived_at_inland_destination@CZPRG"
	inlandTruckDestination = "CZPRG TRUCK INTE \"Prague Uhrineves\" eta=2025-04-05T14:00:00Z original=2025-04-05T14:00:00Z ata=2025-04-05T16:30:00Z"
	inlandTruckLeg         = "picked_up to=CZPRG ind_eta=2025-04-05T14:00:00Z ind_ata=2025-04-05T16:30:00Z"
)

func describeDestination(d *boxwatch.Destination) string {
	if d == nil {
		return ""
	}
	return fmt.Sprintf("%s %s %s %q eta=%s original=%s ata=%s", d.LOCODE, d.Mode, d.FacilityType, d.Name, describeTime(d.ETA),
		describeTime(d.OriginalETA), describeTime(d.ATA))
}

func describeInland(c boxwatch.Container) string {
	in := c.Inland
	parts := []string{c.CurrentStatus, "to=" + in.DestinationLOCODE}
	for _, f := range []struct {
		name string
		at   time.Time
	}{
		{"pod_rail_loaded", in.PODRailLoadedAt}, {"pod_rail_departed", in.PODRailDepartedAt}, {"ind_eta", in.IndETAAt},
		{"ind_ata", in.IndATAAt}, {"ind_rail_unloaded", in.IndRailUnloadedAt}, {"final_full_out", in.FinalDestinationFullOutAt},
	} {
		if !f.at.IsZero() {
			parts = append(parts, f.name+"="+describeTime(f.at))
		}
	}
	for _, scac := range []struct{ name, v string }{{"pod_rail_scac", in.PODRailCarrierSCAC}, {"ind_rail_scac", in.IndRailCarrierSCAC}} {
		if scac.v != "" {
			parts = append(parts, scac.name+"="+scac.v)
		}
	}
	return strings.Join(parts, " ")
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
