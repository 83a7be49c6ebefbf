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
			pod, rail := portOfDischarge(events), railLeg(events)
			if !slices.Contains(gateways, pod) {
				if len(rail) > 0 {
					t.Errorf("%s %s: discharged at %s, which has no rail service, yet goes by rail: %+v", scac, number, pod, rail)
				}
				continue
			}
			inland++
			byGateway[pod]++
			checkInland(t, scac+" "+number, pod, events)
			if b := again.mustEvents(t, scac, number); !reflect.DeepEqual(b, events) {
				t.Errorf("%s %s: another network answers another journey", scac, number)
			}
			plain := fmt.Sprintf("%s%04d99", scac[:2], i)
			if r := railLeg(n.mustEvents(t, scac, plain)); len(r) > 0 {
				t.Errorf("%s %s: a number without the marker goes by rail: %+v", scac, plain, r)
			}
		}
	}
	if inland < 20 || len(byGateway) < 4 {
		t.Fatalf("%d inland journeys through %d gateways (%v): too few to test", inland, len(byGateway), byGateway)
	}
}

func checkInland(t *testing.T, name, pod string, events []dcsa.Event) {
	t.Helper()
	moves := railLeg(events)
	var ramp string
	for _, m := range moves {
		if m.code == "ARRI" && m.mode == "RAIL" {
			ramp = m.locode
		}
	}
	if !slices.Contains(ramps, ramp) {
		t.Fatalf("%s: the train reaches %q, not an inland ramp: %+v", name, ramp, moves)
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
	departed, arrived := find("DEPA", pod, "RAIL", "", false), find("ARRI", ramp, "RAIL", "", false)
	boxes := map[string]bool{}
	for _, e := range events {
		if e.EquipmentReference != "" {
			boxes[e.EquipmentReference] = true
		}
	}
	for box := range boxes {
		discharged := find("DISC", pod, "VESSEL", box, false)
		loaded := find("LOAD", pod, "RAIL", box, false)
		unloaded := find("DISC", ramp, "RAIL", box, false)
		out := find("GTOT", ramp, "RAIL", box, false)
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

// railLeg lists the actual events of a journey on rail calls, and every actual equipment event
// (to place the rail leg among them); nil when no call is by rail.
func railLeg(events []dcsa.Event) []railMove {
	var out []railMove
	rail := false
	for _, e := range events {
		if e.EventClassifierCode != "ACT" || e.TransportCall == nil {
			continue
		}
		mode := e.TransportCall.ModeOfTransport
		rail = rail || mode == "RAIL"
		if e.EventType == "TRANSPORT" && mode != "RAIL" {
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
