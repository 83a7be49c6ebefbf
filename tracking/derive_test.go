package tracking

import (
	"slices"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
)

var t0 = time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)

func hours(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

// journey is a Shanghai → Singapore (transshipment) → Rotterdam shipment of one container, seen
// when the second vessel has left Singapore.
func journey() boxwatch.CarrierShipment {
	v1 := &boxwatch.VesselRef{IMO: "9811000", Name: "FIRST"}
	v2 := &boxwatch.VesselRef{IMO: "9839430", Name: "SECOND"}
	return boxwatch.CarrierShipment{
		BillOfLading: "MAEU123456789",
		Calls: []boxwatch.TransportCall{
			{ID: "c0", Sequence: 0, LOCODE: "CNSHA", Mode: "TRUCK"},
			{ID: "c1", Sequence: 1, LOCODE: "CNSHA", Mode: "VESSEL", Vessel: v1, ExportVoyage: "101W",
				Departure: boxwatch.CallTimes{Planned: hours(20), Actual: hours(22)}},
			{ID: "c2", Sequence: 2, LOCODE: "SGSIN", Mode: "VESSEL", Vessel: v1, ImportVoyage: "101W",
				Arrival: boxwatch.CallTimes{Planned: hours(130), Estimated: hours(132), Actual: hours(133)}},
			{ID: "c3", Sequence: 3, LOCODE: "SGSIN", Mode: "VESSEL", Vessel: v2, ExportVoyage: "202W",
				Departure: boxwatch.CallTimes{Planned: hours(160), Actual: hours(161)}},
			{ID: "c4", Sequence: 4, LOCODE: "NLRTM", Mode: "VESSEL", Vessel: v2, ImportVoyage: "202W",
				Arrival: boxwatch.CallTimes{Planned: hours(500), Estimated: hours(510)}},
		},
		Equipment: []boxwatch.CarrierEquipment{{Reference: "MSKU1234565", ISOCode: "45G1", Seals: []string{"S1"}}},
		Events: []boxwatch.CarrierEvent{
			{ID: "e1", Type: "EQUIPMENT", Classifier: "ACT", Code: "GTOT", Time: hours(0), LOCODE: "CNSHA", EquipmentReference: "MSKU1234565", Empty: yes()},
			{ID: "e2", Type: "EQUIPMENT", Classifier: "ACT", Code: "GTIN", Time: hours(5), LOCODE: "CNSHA", EquipmentReference: "MSKU1234565", Empty: no()},
			{ID: "e3", Type: "EQUIPMENT", Classifier: "ACT", Code: "LOAD", Time: hours(18), LOCODE: "CNSHA", EquipmentReference: "MSKU1234565", Empty: no(), TransportCallID: "c1"},
			{ID: "e4", Type: "TRANSPORT", Classifier: "ACT", Code: "DEPA", Time: hours(22), LOCODE: "CNSHA", TransportCallID: "c1"},
			{ID: "e5", Type: "TRANSPORT", Classifier: "ACT", Code: "ARRI", Time: hours(133), LOCODE: "SGSIN", TransportCallID: "c2"},
			{ID: "e6", Type: "EQUIPMENT", Classifier: "ACT", Code: "DISC", Time: hours(140), LOCODE: "SGSIN", EquipmentReference: "MSKU1234565", Empty: no(), TransportCallID: "c2"},
			{ID: "e7", Type: "EQUIPMENT", Classifier: "ACT", Code: "LOAD", Time: hours(158), LOCODE: "SGSIN", EquipmentReference: "MSKU1234565", Empty: no(), TransportCallID: "c3"},
			{ID: "e8", Type: "TRANSPORT", Classifier: "ACT", Code: "DEPA", Time: hours(161), LOCODE: "SGSIN", TransportCallID: "c3"},
			{ID: "e9", Type: "TRANSPORT", Classifier: "EST", Code: "ARRI", Time: hours(510), LOCODE: "NLRTM", TransportCallID: "c4"},
		},
	}
}

func TestDeriveRoute(t *testing.T) {
	t.Parallel()
	route := deriveRoute(journey(), nil)
	if len(route) != 3 {
		t.Fatalf("route has %d stops, want POL, TS, POD: %+v", len(route), route)
	}
	pol, ts, pod := route[0], route[1], route[2]
	if pol.Role != "POL" || pol.LOCODE != "CNSHA" || !pol.ATD.Equal(hours(22)) || !pol.ETA.IsZero() || pol.OutboundVoyage != "101W" {
		t.Errorf("POL = %+v", pol)
	}
	// The transshipment merges two calls: the first vessel arrives, the second leaves.
	if ts.Role != "TS" || !ts.ATA.Equal(hours(133)) || !ts.ATD.Equal(hours(161)) || ts.InboundVesselIMO != "9811000" || ts.OutboundVesselIMO != "9839430" {
		t.Errorf("TS = %+v", ts)
	}
	if pod.Role != "POD" || !pod.ETA.Equal(hours(510)) || !pod.OriginalETA.Equal(hours(500)) || !pod.ATA.IsZero() || pod.InboundVoyage != "202W" || pod.Sequence != 3 {
		t.Errorf("POD = %+v", pod)
	}
	// The original ETA survives later estimates.
	later := journey()
	later.Calls[4].Arrival = boxwatch.CallTimes{Estimated: hours(520)}
	again := deriveRoute(later, route)
	if !again[2].OriginalETA.Equal(hours(500)) || !again[2].ETA.Equal(hours(520)) {
		t.Errorf("after a new estimate POD = %+v", again[2])
	}
}

func TestDeriveContainers(t *testing.T) {
	t.Parallel()
	cs := journey()
	facts := deriveContainers(cs, deriveRoute(cs, nil), nil)
	if len(facts) != 1 {
		t.Fatalf("%d containers", len(facts))
	}
	var got []string
	for _, m := range facts[0].milestones {
		got = append(got, m.event+"@"+m.locode)
	}
	// The first leg, 111 hours at sea on the first vessel against the second's 349, is a feeder
	// leg: its vessel events come with the feeder's.
	want := []string{
		EmptyOut + "@CNSHA", FullIn + "@CNSHA", VesselLoaded + "@CNSHA", FeederLoaded + "@CNSHA", VesselDeparted + "@CNSHA", FeederDeparted + "@CNSHA",
		TransshipmentArrived + "@SGSIN", FeederArrived + "@SGSIN", TransshipmentDisch + "@SGSIN", FeederDischarged + "@SGSIN",
		TransshipmentLoaded + "@SGSIN", TransshipmentDeparted + "@SGSIN",
	}
	if len(got) != len(want) {
		t.Fatalf("milestones %v\nwant %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("milestones %v\nwant %v", got, want)
		}
	}
	if v := facts[0].milestones[3]; v.voyage != "101W" || v.vessel != "9811000" {
		t.Errorf("departure voyage/vessel = %q/%q", v.voyage, v.vessel)
	}

	var c boxwatch.Container
	applyFacts(&c, facts[0], "", nil)
	if c.CurrentStatus != boxwatch.ContainerOnShip || c.EquipmentLength != 40 || c.EquipmentHeight != "high_cube" || c.EquipmentType != "dry" || c.SealNumber != "S1" || c.AvailableForPickup != nil {
		t.Fatalf("container = %+v", c)
	}
}

func TestContainerStatusThroughTheJourney(t *testing.T) {
	t.Parallel()
	cs := journey()
	add := func(code string, h int, locode string, empty *bool) {
		cs.Events = append(cs.Events, boxwatch.CarrierEvent{ID: code + locode, Type: "EQUIPMENT", Classifier: "ACT", Code: code,
			Time: hours(h), LOCODE: locode, EquipmentReference: "MSKU1234565", Empty: empty})
	}
	status := func() boxwatch.Container {
		var c boxwatch.Container
		applyFacts(&c, deriveContainers(cs, deriveRoute(cs, nil), nil)[0], "", nil)
		return c
	}
	cs.Calls[4].Arrival.Actual = hours(505)
	cs.Events = append(cs.Events, boxwatch.CarrierEvent{ID: "arr", Type: "TRANSPORT", Classifier: "ACT", Code: "ARRI", Time: hours(505), LOCODE: "NLRTM", TransportCallID: "c4"})
	add("DISC", 510, "NLRTM", no())
	// Discharged, and no terminal said whether it can be picked up: grounded, availability unknown.
	if c := status(); c.CurrentStatus != boxwatch.ContainerGrounded || c.AvailableForPickup != nil || !c.PODArrivedAt.Equal(hours(505)) {
		t.Fatalf("after discharge: %+v", c)
	}
	add("GTOT", 530, "NLRTM", no())
	if c := status(); c.CurrentStatus != boxwatch.ContainerPickedUp || *c.AvailableForPickup {
		t.Fatalf("after full out: %+v", c)
	}
	add("GTIN", 560, "NLRTM", yes())
	if c := status(); c.CurrentStatus != boxwatch.ContainerEmptyReturned || !c.EmptyTerminatedAt.Equal(hours(560)) {
		t.Fatalf("after empty return: %+v", c)
	}
}

// TestDeriveRouteTakesTheLatestAnswersEstimate: a refresh whose answer moves the arrival earlier
// sets the ETA, however the carrier dated its records; the first estimate stays the original.
func TestDeriveRouteTakesTheLatestAnswersEstimate(t *testing.T) {
	first := journey()
	route := deriveRoute(first, nil)
	second := journey()
	second.Calls[4].Arrival.Estimated = hours(490)
	route = deriveRoute(second, route)
	pod := route[len(route)-1]
	if !pod.ETA.Equal(hours(490)) || !pod.OriginalETA.Equal(hours(500)) {
		t.Errorf("ETA %v, original %v; want %v and %v", pod.ETA, pod.OriginalETA, hours(490), hours(500))
	}
}

// TestDestinationIgnoresEmptyReturn: an empty returned to a depot at another place than the port
// of discharge, on a truck call, is no inland leg; a laden truck arrival there is.
func TestDestinationIgnoresEmptyReturn(t *testing.T) {
	t.Parallel()
	cs := journey()
	route := deriveRoute(cs, nil)
	pod := route[len(route)-1].LOCODE
	empty := true
	cs.Calls = append(cs.Calls, boxwatch.TransportCall{ID: "depot", LOCODE: "NLMOE", Mode: "TRUCK", FacilityType: "DEPO",
		Arrival: boxwatch.CallTimes{Actual: hours(900)}})
	cs.Events = append(cs.Events, boxwatch.CarrierEvent{ID: "gtin", Type: "EQUIPMENT", Classifier: "ACT", Code: "GTIN", Time: hours(900),
		LOCODE: "NLMOE", TransportCallID: "depot", EquipmentReference: "MSKU1234565", Empty: &empty})
	if d := deriveDestination(cs, route, nil); d != nil {
		t.Fatalf("an empty's return past %s made a destination: %+v", pod, d)
	}
	cs.Events = append(cs.Events, boxwatch.CarrierEvent{ID: "arri", Type: "TRANSPORT", Classifier: "ACT", Code: "ARRI", Time: hours(890),
		LOCODE: "NLMOE", TransportCallID: "depot"})
	if d := deriveDestination(cs, route, nil); d == nil || d.LOCODE != "NLMOE" || d.Mode != "TRUCK" || !d.ATA.Equal(hours(900)) {
		t.Fatalf("a laden arrival by truck: destination %+v", d)
	}
}

// TestFeederLegs: the rule of docs/api.md, case by case: a short first or last leg on another
// vessel than the longest leg's is a feeder leg; the same vessel, a leg more than half as long,
// a middle leg, a direct route or a leg of unknown length is not.
func TestFeederLegs(t *testing.T) {
	t.Parallel()
	// stop returns a route stop arriving at arr and leaving at dep (hours; -1 for none) with the
	// vessel in and out.
	stop := func(arr, dep int, in, out string) boxwatch.RouteStop {
		s := boxwatch.RouteStop{InboundVesselIMO: in, OutboundVesselIMO: out}
		if arr >= 0 {
			s.ETA = hours(arr)
		}
		if dep >= 0 {
			s.ETD = hours(dep)
		}
		return s
	}
	for _, tc := range []struct {
		name  string
		route []boxwatch.RouteStop
		want  []int
	}{
		{"FirstLeg", []boxwatch.RouteStop{stop(-1, 0, "", "A"), stop(40, 60, "A", "B"), stop(400, -1, "B", "")}, []int{0}},
		{"LastLeg", []boxwatch.RouteStop{stop(-1, 0, "", "A"), stop(400, 430, "A", "B"), stop(480, -1, "B", "")}, []int{1}},
		{"ExactlyHalf", []boxwatch.RouteStop{stop(-1, 0, "", "A"), stop(100, 100, "A", "B"), stop(300, -1, "B", "")}, []int{0}},
		{"MoreThanHalf", []boxwatch.RouteStop{stop(-1, 0, "", "A"), stop(101, 101, "A", "B"), stop(301, -1, "B", "")}, nil},
		{"SameVessel", []boxwatch.RouteStop{stop(-1, 0, "", "A"), stop(40, 60, "A", "A"), stop(400, -1, "A", "")}, nil},
		{"VesselUnknown", []boxwatch.RouteStop{stop(-1, 0, "", ""), stop(40, 60, "", "B"), stop(400, -1, "B", "")}, nil},
		{"Direct", []boxwatch.RouteStop{stop(-1, 0, "", "A"), stop(40, -1, "A", "")}, nil},
		{"UnknownLength", []boxwatch.RouteStop{stop(-1, -1, "", "A"), stop(40, 60, "A", "B"), stop(400, -1, "B", "")}, nil},
		{"BothEnds", []boxwatch.RouteStop{stop(-1, 0, "", "A"), stop(30, 40, "A", "B"), stop(400, 410, "B", "C"),
			stop(440, -1, "C", "")}, []int{0, 2}},
		// The schedule decides, though the estimates have the first leg as long as the second.
		{"ByTheSchedule", []boxwatch.RouteStop{
			{ETD: hours(0), OriginalETD: hours(0), OutboundVesselIMO: "A"},
			{ETA: hours(200), OriginalETA: hours(40), ETD: hours(210), OriginalETD: hours(60), InboundVesselIMO: "A", OutboundVesselIMO: "B"},
			{ETA: hours(400), OriginalETA: hours(400), InboundVesselIMO: "B"}}, []int{0}},
		// A stale estimate (arrival before departure) gives way to the schedule.
		{"StaleEstimate", []boxwatch.RouteStop{
			{ETD: hours(30), OriginalETD: hours(0), OutboundVesselIMO: "A"},
			{ETA: hours(20), OriginalETA: hours(40), ETD: hours(60), OriginalETD: hours(60), InboundVesselIMO: "A", OutboundVesselIMO: "B"},
			{ETA: hours(400), OriginalETA: hours(400), InboundVesselIMO: "B"}}, []int{0}},
		{"MiddleLegNever", []boxwatch.RouteStop{stop(-1, 0, "", "A"), stop(300, 310, "A", "B"), stop(330, 340, "B", "C"),
			stop(640, -1, "C", "")}, nil},
	} {
		got := feederLegs(tc.route)
		var legs []int
		for i := range len(tc.route) {
			if got[i] {
				legs = append(legs, i)
			}
		}
		if !slices.Equal(legs, tc.want) {
			t.Errorf("%s: feeder legs %v, want %v", tc.name, legs, tc.want)
		}
	}
}
