package sim_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/carrier/dcsa"
)

// gateways are the North American ports with rail service inland; ramps the places it reaches.
var (
	gateways = []string{"USLAX", "USLGB", "USSEA", "USTIW", "CAVAN", "CAPRR", "USNYC", "USSAV", "USORF"}
	ramps    = []string{"USCHI", "USMEM", "USDAL", "USKCK", "USCMH", "USATL", "USDET", "CATOR", "CAMTR"}
)

// railMove is an ACT event of a journey's rail leg or of the port of discharge, as the test reads it.
type railMove struct {
	code, locode, mode, box string
	empty                   bool
	at                      time.Time
}

// TestInlandJourneys looks up many numbers marked to go inland (ending in 7750, the journey
// complete: 9 before the marker) on the lines that serve North America, and checks every one
// discharged at a gateway with rail service goes on by rail, as carriers report it in DCSA: each
// box loaded onto the train at the port (not gated out there), the train leaving and reaching an
// inland ramp, each box taken off the train, out of the ramp's gate full and back empty at a depot
// of the ramp's city, in that order; the same number gives the same journey. A number without the
// marker ends at the port.
func TestInlandJourneys(t *testing.T) {
	n := newTestNetwork(t)
	again := newTestNetwork(t)
	inland, byGateway := 0, map[string]int{}
	for _, scac := range []string{"MAEU", "MSCU", "ONEY", "COSU", "EGLV", "CMDU"} {
		for i := range 40 {
			number := fmt.Sprintf("%s%04d97750", scac[:2], i)
			events := n.mustEvents(t, scac, number)
			pod, rail := portOfDischarge(events), inlandLeg(events, "RAIL")
			if !slices.Contains(gateways, pod) {
				if len(rail) > 0 {
					t.Errorf("%s %s: discharged at %s, which has no rail service, yet goes by rail: %+v", scac, number, pod, rail)
				}
				continue
			}
			inland++
			byGateway[pod]++
			checkInland(t, scac+" "+number, pod, "RAIL", ramps, events)
			if b := again.mustEvents(t, scac, number); !reflect.DeepEqual(b, events) {
				t.Errorf("%s %s: another network answers another journey", scac, number)
			}
			plain := fmt.Sprintf("%s%04d99", scac[:2], i)
			if r := inlandLeg(n.mustEvents(t, scac, plain), "RAIL"); len(r) > 0 {
				t.Errorf("%s %s: a number without the marker goes by rail: %+v", scac, plain, r)
			}
		}
	}
	if inland < 20 || len(byGateway) < 4 {
		t.Fatalf("%d inland journeys through %d gateways (%v): too few to test", inland, len(byGateway), byGateway)
	}
}

// checkInland checks the inland leg by mode (RAIL or BARGE) of a journey discharged at pod: it
// reaches one of the places dests, and each box goes from the vessel onto the train or barge,
// off it inland, out of the gate there and back empty, in that order.
func checkInland(t *testing.T, name, pod, mode string, dests []string, events []dcsa.Event) {
	t.Helper()
	moves := inlandLeg(events, mode)
	var ramp string
	for _, m := range moves {
		if m.code == "ARRI" && m.mode == mode {
			ramp = m.locode
		}
	}
	if !slices.Contains(dests, ramp) {
		t.Fatalf("%s: the %s leg reaches %q, not an inland terminal: %+v", name, mode, ramp, moves)
	}
	find := func(code, locode, mode, box string, empty bool) time.Time {
		t.Helper()
		for _, m := range moves {
			if m.code == code && m.locode == locode && m.mode == mode && m.box == box && m.empty == empty {
				return m.at
			}
		}
		t.Fatalf("%s: no %s %s at %s for %q: %+v", name, mode, code, locode, box, moves)
		return time.Time{}
	}
	departed, arrived := find("DEPA", pod, mode, "", false), find("ARRI", ramp, mode, "", false)
	boxes := map[string]bool{}
	for _, e := range events {
		if e.EquipmentReference != "" {
			boxes[e.EquipmentReference] = true
		}
	}
	for box := range boxes {
		discharged := find("DISC", pod, "VESSEL", box, false)
		loaded := find("LOAD", pod, mode, box, false)
		unloaded := find("DISC", ramp, mode, box, false)
		out := find("GTOT", ramp, mode, box, false)
		back := find("GTIN", ramp, "TRUCK", box, true)
		order := []time.Time{discharged, loaded, departed, arrived, unloaded, out, back}
		if !slices.IsSortedFunc(order, func(a, b time.Time) int { return a.Compare(b) }) {
			t.Errorf("%s %s: out of order: discharged %v, on the train %v, train leaves %v, arrives %v, off the train %v, out %v, empty back %v",
				name, box, discharged, loaded, departed, arrived, unloaded, out, back)
		}
		for _, m := range moves {
			if m.code == "GTOT" && m.locode == pod && m.box == box {
				t.Errorf("%s %s: gated out at the port although it left by rail", name, box)
			}
		}
	}
}

// portOfDischarge is the place of the last vessel arrival the journey reports.
func portOfDischarge(events []dcsa.Event) string {
	var pod string
	var at time.Time
	for _, e := range events {
		if e.TransportEventTypeCode == "ARRI" && e.TransportCall != nil && e.TransportCall.ModeOfTransport == "VESSEL" {
			if ts, err := time.Parse(time.RFC3339, e.EventDateTime); err == nil && ts.After(at) {
				pod, at = e.TransportCall.UNLocationCode, ts
			}
		}
	}
	return pod
}

// inlandLeg lists the actual events of a journey on calls by mode (RAIL or BARGE), and every
// actual equipment event (to place the leg among them); nil when no call is by that mode.
func inlandLeg(events []dcsa.Event, by string) []railMove {
	var out []railMove
	rail := false
	for _, e := range events {
		if e.EventClassifierCode != "ACT" || e.TransportCall == nil {
			continue
		}
		mode := e.TransportCall.ModeOfTransport
		rail = rail || mode == by
		if e.EventType == "TRANSPORT" && mode != by {
			continue
		}
		at, _ := time.Parse(time.RFC3339, e.EventDateTime)
		out = append(out, railMove{code: e.TransportEventTypeCode + e.EquipmentEventTypeCode, locode: e.TransportCall.UNLocationCode,
			mode: mode, box: e.EquipmentReference, empty: e.EmptyIndicatorCode == "EMPTY", at: at})
	}
	if !rail {
		return nil
	}
	return out
}

// euGateways are the North European ports with barge or rail service inland, by mode the places
// they reach (data/waterways' ports up the Rhine by barge; by rail, Central Europe).
var (
	euGateways = []string{"NLRTM", "BEANR", "DEHAM", "DEBRV"}
	euInland   = map[string][]string{"BARGE": {"DEDUS", "DECGN", "DEMHG"}, "RAIL": {"DEMHG", "DEDUS", "HUBUD", "SKBTS"}}
)

// TestEuropeanInlandJourneys looks up numbers ending in 7790 (9 before the marker: the journey
// complete) on lines that serve North Europe, and checks every one discharged at a North European
// gateway goes on by barge or rail, as carriers report it in DCSA: the barge or train leaving the
// port and reaching an inland terminal, each box onto it, off it, out of the terminal full and
// back empty, in that order; a journey discharged elsewhere ends at the port.
func TestEuropeanInlandJourneys(t *testing.T) {
	n := newTestNetwork(t)
	byMode := map[string]int{}
	for _, scac := range []string{"MAEU", "MSCU", "HLCU", "CMDU", "COSU", "ONEY"} {
		for i := range 40 {
			number := fmt.Sprintf("%s%04d97790", scac[:2], i)
			events := n.mustEvents(t, scac, number)
			pod := portOfDischarge(events)
			barge, rail := inlandLeg(events, "BARGE"), inlandLeg(events, "RAIL")
			if !slices.Contains(euGateways, pod) {
				if len(barge)+len(rail) > 0 {
					t.Errorf("%s %s: discharged at %s, which has no inland service, yet goes on inland", scac, number, pod)
				}
				continue
			}
			switch {
			case len(barge) > 0 && len(rail) > 0:
				t.Errorf("%s %s: goes on both by barge and by rail", scac, number)
			case len(barge) > 0:
				byMode["BARGE"]++
				checkInland(t, scac+" "+number, pod, "BARGE", euInland["BARGE"], events)
			case len(rail) > 0:
				byMode["RAIL"]++
				checkInland(t, scac+" "+number, pod, "RAIL", euInland["RAIL"], events)
			default:
				t.Errorf("%s %s: discharged at %s, yet ends at the port", scac, number, pod)
			}
		}
	}
	if byMode["BARGE"] < 5 || byMode["RAIL"] < 5 {
		t.Fatalf("%v inland journeys by mode: too few to test", byMode)
	}
}
