package sim_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/terminal"
)

// A box that goes on by rail is known at its inland ramp, by the code the line names the ramp by,
// from the train's departure until it leaves full: inbound, then in the ramp's yard and available
// with the ramp's last free day (extended by a day for some boxes), then departed. Its port's
// terminal never reports its gate-out.
func TestRampFollowsTheBox(t *testing.T) {
	n := newTestNetwork(t)
	ctx := context.Background()
	type box struct {
		number, container string
		ramp              boxwatch.TerminalRef
	}
	var boxes []box
	seen := map[string]bool{}
	for i := 0; len(boxes) < 12 && i < 200; i++ {
		number := fmt.Sprintf("MAEU%05d67750", 10000+i*7919%90000) // at sea on the last leg, then by rail
		evs := n.mustEvents(t, "MAEU", number)
		for _, e := range evs {
			tc := e.TransportCall
			if e.TransportEventTypeCode == "ARRI" && tc != nil && tc.ModeOfTransport == "RAIL" && tc.FacilityTypeCode == "RAMP" {
				if !strings.HasPrefix(tc.FacilityCode, "RR") || tc.FacilityCodeListProvider != "SMDG" {
					t.Fatalf("%s: the ramp's call names it %q (%s)", number, tc.FacilityCode, tc.FacilityCodeListProvider)
				}
				for _, q := range evs {
					if q.EquipmentReference != "" && !seen[q.EquipmentReference] {
						seen[q.EquipmentReference] = true
						boxes = append(boxes, box{number, q.EquipmentReference, boxwatch.TerminalRef{LOCODE: tc.UNLocationCode, SMDGCode: tc.FacilityCode}})
					}
				}
				break
			}
		}
	}
	if len(boxes) == 0 {
		t.Fatal("no journey went on by rail")
	}
	order := map[string]int{terminal.StatusInbound: 1, terminal.StatusInYard: 2, terminal.StatusDeparted: 3}
	last := make([]string, len(boxes))
	lfds := make([]map[time.Time]bool, len(boxes))
	for hour := 0; hour <= 60*24; hour += 6 {
		for i, b := range boxes {
			r, err := n.terminalClient(t, b.ramp).Check(ctx, boxwatch.TerminalQuery{Terminal: b.ramp, Container: b.container, SCAC: "MAEU", BillOfLading: b.number})
			var te *boxwatch.TerminalError
			if errors.As(err, &te) && te.Reason == boxwatch.TerminalNotFound {
				if last[i] != "" && last[i] != terminal.StatusDeparted {
					t.Fatalf("%s: the ramp forgot the box after %s", b.container, last[i])
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s at %s: %v", b.container, b.ramp, err)
			}
			status := terminal.StatusInbound
			switch {
			case !r.FullOutAt.IsZero():
				status = terminal.StatusDeparted
				if *r.Available {
					t.Fatalf("%s departed, available: %+v", b.container, r)
				}
			case !r.DischargedAt.IsZero():
				status = terminal.StatusInYard
				if r.TerminalLFD.IsZero() || !r.LineLFD.IsZero() || r.Available == nil || !*r.Available || r.Location == "" {
					t.Fatalf("%s in the ramp's yard: %+v", b.container, r)
				}
				if lfds[i] == nil {
					lfds[i] = map[time.Time]bool{}
				}
				lfds[i][r.TerminalLFD] = true
			}
			if order[status] < order[last[i]] {
				t.Fatalf("%s went from %s back to %s", b.container, last[i], status)
			}
			last[i] = status
		}
		n.clock.Advance(6 * time.Hour)
	}
	extended := 0
	for i, b := range boxes {
		if last[i] != terminal.StatusDeparted || len(lfds[i]) == 0 {
			t.Errorf("%s at %s: last %q, last free days %v", b.container, b.ramp, last[i], lfds[i])
		}
		if len(lfds[i]) > 1 {
			extended++
		}
	}
	t.Logf("%d boxes, %d with their ramp's last free day extended", len(boxes), extended)
}
