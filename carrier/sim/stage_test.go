package sim_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/carrier/sim"
)

// stageLines are the lines the stage tests look numbers up with: global lines (every lane),
// regional ones, the test line, and lines whose containers borrow a prefix.
var stageLines = []string{"MAEU", "MSCU", "CMDU", "HLCU", "ONEY", "EGLV", "COSU", "SITC", "ACLU", "SUDU", "SAFM", "TEST"}

// TestFirstLookupStage checks, for each last digit, where the journey stands at the number's
// first lookup, over many numbers, lines and lanes, by bill of lading and by container.
func TestFirstLookupStage(t *testing.T) {
	tests := []struct {
		digit int
		name  string
		check func(t *testing.T, v view, now time.Time)
	}{
		{0, "booked, empty not yet picked up", func(t *testing.T, v view, now time.Time) {
			if v.booking() && (!v.shipment("RECE") || !v.shipment("CONF")) {
				t.Error("the booking is not received and confirmed")
			}
			if v.none("GTOT", 1) != true || v.none("ARRI", v.pol()) != true {
				t.Error("the empty is already picked up or the vessel arrived")
			}
		}},
		{1, "full at the port of lading, awaiting the next sailing", func(t *testing.T, v view, now time.Time) {
			if !v.actual("GTOT", 1) || !v.actual("GTIN", v.pol()) {
				t.Error("the box is not gated in full at the port of lading")
			}
			if !v.none("DEPA", v.pol()) {
				t.Error("the vessel already left")
			}
			// The next sailing of the loop: within a headway (a week at most) and the delays of a
			// late vessel.
			if etd := v.estimate(t, "DEPA", v.pol()); !etd.After(now) || etd.Sub(now) > nextSailing {
				t.Errorf("estimated departure %s is not after %s within %s", etd, now, nextSailing)
			}
		}},
		{2, "at sea on the first leg", atSeaFirstLeg},
		{3, "at sea on the first leg", atSeaFirstLeg},
		{4, "at sea on the first leg", atSeaFirstLeg},
		{5, "at the transshipment port, or at sea on a direct lane", func(t *testing.T, v view, now time.Time) {
			if !v.hub() {
				atSeaFirstLeg(t, v, now)
				return
			}
			if !v.actual("ARRI", 3) || !v.actual("DISC", 3) {
				t.Error("the box is not discharged at the hub")
			}
			if !v.none("LOAD", 4) || !v.none("DEPA", 4) {
				t.Error("the box already left the hub")
			}
		}},
		{6, "at sea on the last leg", func(t *testing.T, v view, now time.Time) {
			leaves := v.pol()
			if v.hub() {
				leaves = 4
			}
			if !v.actual("DEPA", leaves) || !v.actual("LOAD", leaves) {
				t.Error("the last leg has not begun")
			}
			if !v.none("ARRI", v.pod()) {
				t.Error("the vessel already arrived")
			}
		}},
		{7, "the vessel arrives next at the port of discharge", func(t *testing.T, v view, now time.Time) {
			leaves := v.pol()
			if v.hub() {
				leaves = 4
			}
			if !v.actual("DEPA", leaves) || !v.none("ARRI", v.pod()) {
				t.Error("the vessel is not at sea on the last leg")
			}
			// The carrier's ETA may lag the truth by a few hours; it is not a week out.
			if eta := v.estimate(t, "ARRI", v.pod()); eta.Before(now.Add(-day)) || eta.Sub(now) > nextSailing {
				t.Errorf("estimated arrival %s is not within %s of %s", eta, nextSailing, now)
			}
		}},
		{8, "discharged and available for pickup", func(t *testing.T, v view, now time.Time) {
			if !v.actual("ARRI", v.pod()) || !v.actual("DISC", v.pod()) {
				t.Error("the box is not discharged at the port of discharge")
			}
			if !v.none("GTOT", v.pod()) {
				t.Error("the box was already picked up")
			}
		}},
		{9, "delivered and the empty returned", func(t *testing.T, v view, now time.Time) {
			if !v.actual("GTOT", v.pod()) || !v.actual("GTIN", v.last) {
				t.Error("the box is not delivered and returned empty")
			}
			if v.booking() && !v.shipment("ISSU") {
				t.Error("the bill of lading was never issued")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d %s", tt.digit, tt.name), func(t *testing.T) {
			n := newTestNetwork(t)
			hubs, direct := 0, 0
			for i, scac := range stageLines {
				for k := range 4 {
					number := numberWithDigit(i*4+k, tt.digit)
					if k == 3 {
						number = containerWithDigit(t, "MSKU", 100000+i*1000, tt.digit)
					}
					v := newView(t, n.mustEvents(t, scac, number))
					if v.hub() {
						hubs++
					} else {
						direct++
					}
					t.Run(scac+" "+number, func(t *testing.T) { tt.check(t, v, n.clock.Now()) })
				}
			}
			if hubs == 0 || direct == 0 {
				t.Errorf("%d journeys through a hub and %d direct: the numbers should cover both", hubs, direct)
			}
		})
	}
}

// nextSailing bounds the wait for the next departure or arrival of a loop: its headway (a week
// at most) and the delays of a late vessel.
const (
	day         = 24 * time.Hour
	nextSailing = 14 * day
)

func atSeaFirstLeg(t *testing.T, v view, now time.Time) {
	if !v.actual("LOAD", v.pol()) || !v.actual("DEPA", v.pol()) {
		t.Error("the box has not left the port of lading")
	}
	if !v.none("ARRI", 3) {
		t.Error("the vessel already arrived at its next call")
	}
}

// TestLetterEndingUsesLastDigit checks the documented rule for numbers ending in a letter.
func TestLetterEndingUsesLastDigit(t *testing.T) {
	n := newTestNetwork(t)
	tests := []struct {
		name, number string
		check        func(t *testing.T, v view, now time.Time)
	}{
		{"last digit 9 in the middle: returned", "AB9XYZ", func(t *testing.T, v view, now time.Time) {
			if !v.actual("GTIN", v.last) {
				t.Error("the empty is not returned")
			}
		}},
		{"no digit at all: at sea", "ABCDEFG", atSeaFirstLeg},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, newView(t, n.mustEvents(t, "HLCU", tt.number)), n.clock.Now())
		})
	}
}

// booking reports whether the journey has a booking (it was not looked up by container).
func (v view) booking() bool { return v.shipment("RECE") }

var _ = sim.New
