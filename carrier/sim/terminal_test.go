package sim_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/carrier/sim"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/terminal"
)

// The simulator runs every listed terminal of the ports it calls at, and two simulated ones at
// every other port; a started network gives each its protocol base URL.
func TestTerminalsOfThePorts(t *testing.T) {
	n, err := sim.New(sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]bool{}
	byPort := map[string]int{}
	for _, term := range n.Terminals() {
		ran[term.ID] = true
		byPort[term.LOCODE]++
		if _, ok := n.TerminalBaseURL(term.Ref()); ok {
			t.Fatalf("%s has a base URL before Start", term.Ref())
		}
		// A port's simulated terminal (SX), or an inland rail terminal (RR).
		if !term.Listed && (!strings.HasPrefix(term.SMDGCode, "SX") && !strings.HasPrefix(term.SMDGCode, "RR") || !strings.HasSuffix(term.Name, "(simulated)")) {
			t.Errorf("unlisted terminal %+v is not marked simulated", term)
		}
	}
	for _, port := range []string{"USLAX", "USLGB", "USSEA", "USTIW", "USNYC", "USSAV", "USCHS", "USORF", "USBAL", "USMIA", "USPEF", "USJAX", "USHOU"} {
		listed := 0
		for _, term := range data.Terminals() {
			if term.LOCODE == port {
				listed++
				if !ran[term.ID] {
					t.Errorf("listed terminal %s is not run", term.Ref())
				}
			}
		}
		if byPort[port] != listed {
			t.Errorf("%s runs %d terminals, want its %d listed ones", port, byPort[port], listed)
		}
	}
	if byPort["NLRTM"] != 2 || byPort["CNSHA"] != 2 {
		t.Errorf("unlisted ports run %d and %d terminals, want 2 each", byPort["NLRTM"], byPort["CNSHA"])
	}
}

// boxAtTerminal is a box of a journey with the terminal its carrier names at the port of discharge.
type boxAtTerminal struct {
	scac, number, container string
	berth                   boxwatch.TerminalRef
}

// usBoxes looks numbers up with the carriers until it has want boxes discharged at US ports.
func usBoxes(t *testing.T, n *testNetwork, scac, suffix string, want int) []boxAtTerminal {
	t.Helper()
	var out []boxAtTerminal
	for i := 0; len(out) < want && i < 400; i++ {
		number := fmt.Sprintf("%s%06d%s", scac, 100000+i*7919, suffix)
		v := newView(t, n.mustEvents(t, scac, number))
		pod := v.calls[v.pod()]
		if pod == nil || !strings.HasPrefix(pod.UNLocationCode, "US") {
			continue
		}
		for c := range v.containers {
			out = append(out, boxAtTerminal{scac, number, c, boxwatch.TerminalRef{LOCODE: pod.UNLocationCode, SMDGCode: pod.FacilityCode}})
		}
	}
	if len(out) < want {
		t.Fatalf("%d boxes discharged at US ports, want %d", len(out), want)
	}
	return out
}

// client is a protocol client of a terminal of the test network, over HTTP on loopback.
func (n *testNetwork) terminalClient(t *testing.T, ref boxwatch.TerminalRef) *terminal.Client {
	t.Helper()
	key := ref.SMDGCode
	if key == "" {
		key = "FIRMS-" + ref.FIRMSCode
	}
	c, err := terminal.New(terminal.Config{BaseURL: n.url + "/terminals/" + ref.LOCODE + "/" + key, Rate: 1e6, Burst: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A box's terminal follows it from its vessel's approach until its empty returns: inbound, in
// the yard (holds released before it leaves, the terminal's and the line's last free days, an
// appointment for its pickup, a yard location), gone out full, returned empty; or, for about one
// box in ten, the carrier's terminal says it is at a sister terminal, which reports it. Across
// the boxes every hold type of the reference appears.
func TestTerminalFollowsTheBox(t *testing.T) {
	n := newTestNetwork(t)
	// Numbers ending in 6: at sea on the last leg at the first lookup.
	boxes := usBoxes(t, n, "ONEY", "6", 100)
	ctx := context.Background()
	holdTypes, moved := map[string]bool{}, 0
	const offDock = "off_dock" // departed to the off-dock yard, not yet picked up
	order := map[string]int{terminal.StatusInbound: 1, terminal.StatusInYard: 2, offDock: 3, terminal.StatusDeparted: 4, terminal.StatusEmptyReturned: 5}
	offDocked := map[int]bool{}
	type step struct {
		status string
		r      boxwatch.TerminalReport
	}
	seen := make([][]step, len(boxes))
	for hour := 0; hour <= 40*24; hour += 6 {
		for i, b := range boxes {
			q := boxwatch.TerminalQuery{Terminal: b.berth, Container: b.container, SCAC: b.scac, BillOfLading: b.number}
			r, err := n.terminalClient(t, b.berth).Check(ctx, q)
			var te *boxwatch.TerminalError
			if errors.As(err, &te) && te.Reason == boxwatch.TerminalNotFound {
				continue // not announced yet
			}
			if err != nil {
				t.Fatalf("%s at %s: %v", b.container, b.berth, err)
			}
			if !r.At.IsZero() {
				if r.At.LOCODE != b.berth.LOCODE || r.At == b.berth {
					t.Fatalf("%s is elsewhere at %+v, not another terminal of %s", b.container, r.At, b.berth.LOCODE)
				}
				if len(seen[i]) == 0 {
					moved++
				}
				b.berth, boxes[i].berth = r.At, r.At
				if r, err = n.terminalClient(t, r.At).Check(ctx, q); err != nil {
					t.Fatalf("%s at its sister terminal %+v: %v", b.container, b.berth, err)
				}
			}
			status := terminal.StatusInYard
			switch {
			case !r.EmptyInAt.IsZero():
				status = terminal.StatusEmptyReturned
			case !r.FullOutAt.IsZero():
				status = terminal.StatusDeparted
			case !r.OffDockAt.IsZero():
				status = offDock
				offDocked[i] = true
				if !r.OffDockAt.After(r.DischargedAt) || r.Location != "" || r.Available == nil || !strings.HasSuffix(r.OffDockName, "(simulated)") {
					t.Fatalf("%s off dock: %+v", b.container, r)
				}
			case r.DischargedAt.IsZero():
				status = terminal.StatusInbound
			}
			// The vessel berths before the box comes off it.
			if !r.DischargedAt.IsZero() && (r.VesselBerthedAt.IsZero() || !r.VesselBerthedAt.Before(r.DischargedAt)) {
				t.Fatalf("%s: berthed %v, discharged %v", b.container, r.VesselBerthedAt, r.DischargedAt)
			}
			if k := len(seen[i]); k > 0 && order[status] < order[seen[i][k-1].status] {
				t.Fatalf("%s went from %s back to %s", b.container, seen[i][k-1].status, status)
			}
			seen[i] = append(seen[i], step{status, r})
			for _, h := range r.Holds {
				holdTypes[h.Name] = true
			}
		}
		n.clock.Advance(6 * time.Hour)
	}
	for i, b := range boxes {
		steps := seen[i]
		if len(steps) == 0 || steps[len(steps)-1].status != terminal.StatusEmptyReturned {
			t.Fatalf("%s (%s): the terminal never saw its empty return: %d reports", b.container, b.number, len(steps))
		}
		var sawYard bool
		for _, s := range steps {
			r := s.r
			switch s.status {
			case terminal.StatusInYard:
				sawYard = true
				if r.TerminalLFD.IsZero() || r.LineLFD.IsZero() || r.Location == "" || r.Available == nil {
					t.Fatalf("%s in the yard: %+v", b.container, r)
				}
				if !r.TerminalLFD.Before(r.LineLFD) {
					t.Fatalf("%s: the terminal's last free day %v is not before the line's %v", b.container, r.TerminalLFD, r.LineLFD)
				}
				// Three whole days at the terminal at least, one of which may be 23 hours long when
				// its clocks go forward.
				if r.TerminalLFD.Before(r.DischargedAt.Add(3*24*time.Hour-time.Hour)) || r.LineLFD.Before(r.DischargedAt) {
					t.Fatalf("%s: last free days %v and %v before the discharge %v", b.container, r.TerminalLFD, r.LineLFD, r.DischargedAt)
				}
				if *r.Available != (len(r.Holds) == 0) {
					t.Fatalf("%s: available %v with holds %+v", b.container, *r.Available, r.Holds)
				}
			case terminal.StatusDeparted, terminal.StatusEmptyReturned:
				if len(r.Holds) != 0 || r.Location != "" || *r.Available || r.AppointmentAt.IsZero() || r.AppointmentAt.After(r.FullOutAt) {
					t.Fatalf("%s gone: %+v", b.container, r)
				}
			}
		}
		if !sawYard {
			t.Errorf("%s was never reported in the yard", b.container)
		}
	}
	for _, typ := range boxwatch.HoldTypes {
		if !holdTypes[typ] {
			t.Errorf("no box was held for %s (saw %v)", typ, holdTypes)
		}
	}
	if len(offDocked) == 0 {
		t.Error("no box was moved to an off-dock yard")
	}
	if moved == 0 || moved > len(boxes)/4 {
		t.Errorf("%d of %d boxes at a sister terminal, want about one in ten", moved, len(boxes))
	}
}

// A box left at the terminal (a number ending in 7740) runs up every kind of fee: demurrage past
// the line's last free day, extended dwell past the terminal's, an exam for some, the Traffic
// Mitigation Fee at Los Angeles and Long Beach, and their total.
func TestTerminalFees(t *testing.T) {
	n := newTestNetwork(t)
	boxes := usBoxes(t, n, "ONEY", "7740", 40)
	feeTypes := map[string]bool{}
	for _, b := range boxes {
		r, err := n.terminalClient(t, b.berth).Check(context.Background(),
			boxwatch.TerminalQuery{Terminal: b.berth, Container: b.container, SCAC: b.scac, BillOfLading: b.number})
		var te *boxwatch.TerminalError
		if errors.As(err, &te) && te.Reason == boxwatch.TerminalNotFound {
			continue // at a sister terminal: TestTerminalFollowsTheBox follows those
		}
		if err != nil || !r.At.IsZero() {
			continue
		}
		var total, sum float64
		for _, f := range r.Fees {
			feeTypes[f.Type] = true
			if f.Currency != "USD" || f.Amount <= 0 {
				t.Errorf("%s: fee %+v", b.container, f)
			}
			if f.Type == "total" {
				total = f.Amount
			} else {
				sum += f.Amount
			}
		}
		if total != sum {
			t.Errorf("%s: total %v, fees add up to %v", b.container, total, sum)
		}
		// Two months on, the box is far past both last free days.
		if !slices.ContainsFunc(r.Fees, func(f boxwatch.TerminalFee) bool { return f.Type == "demurrage" && f.Amount >= 50*150 }) {
			t.Errorf("%s: fees %+v, want two months of demurrage", b.container, r.Fees)
		}
	}
	for _, typ := range []string{"demurrage", "extended_dwell_time", "exam", "total"} {
		if !feeTypes[typ] {
			t.Errorf("no box owes %s (saw %v)", typ, feeTypes)
		}
	}
}

// The terminals answer only for boxes they know: another line's, an unknown number, a terminal
// not run, a method other than GET.
func TestTerminalRefuses(t *testing.T) {
	n := newTestNetwork(t)
	b := usBoxes(t, n, "ONEY", "6", 1)[0]
	path := func(term, container, scac string) string {
		return fmt.Sprintf("/terminals/%s/%s/v1/containers/%s?scac=%s&bill_of_lading=%s", b.berth.LOCODE, term, container, scac, b.number)
	}
	for name, p := range map[string]string{
		"UnknownTerminal": path("NOPE", b.container, b.scac),
		"OtherLine":       path(b.berth.SMDGCode, b.container, "MAEU"),
		"UnknownBox":      path(b.berth.SMDGCode, "MSKU1234565", b.scac),
		"NotABox":         path(b.berth.SMDGCode, "NOTABOX", b.scac),
	} {
		if a := n.get(t, p); a.status != 404 || !strings.Contains(string(a.body), `"error"`) {
			t.Errorf("%s: %d %s", name, a.status, a.body)
		}
	}
}
