package sim

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/terminal"
)

// The simulated terminal operating systems. Every terminal of every port the lanes call at runs
// one, speaking the boxwatch terminal protocol (terminal.Container) at
// /terminals/{LOCODE}/{code}/v1/containers/{number}, {code} being the terminal's SMDG code, or
// FIRMS-{code} for a listed terminal without one. A port of the terminal list (data/terminals)
// runs its real terminals; any other port two simulated ones (SX codes, see simulatedTerminal).
//
// A terminal knows a box from its vessel's approach until its empty comes back: inbound, then in
// the yard (holds, fees, last free days, an appointment, a yard block), then gone out full, then
// returned empty. It finds the box's journey as the carrier does, by the line (scac) and the
// shipment's bill of lading or booking, or the container number alone when neither is given.
// About one box in ten is discharged at a sister terminal of the port of discharge: the terminal
// the carrier names then answers that the box is elsewhere, and names the terminal.

// A terminal's rules, as offsets from the discharge (LFDs are days at the terminal).
const (
	terminalFreeDays = 4     // the terminal's free days; some boxes get one more
	demurrageRate    = 150.0 // USD a day past the line's last free day
	dwellRate        = 100.0 // USD a day past the terminal's last free day
	examFee          = 350.0 // USD for a customs exam
	tmfFee           = 60.0  // USD, the Traffic Mitigation Fee of Los Angeles and Long Beach
	inboundWindow    = 5 * day
	movedShare       = 0.1 // of boxes discharged at a sister terminal
)

// terminalSpot is a terminal the simulator runs, with the port it is at.
type terminalSpot struct {
	boxwatch.Terminal
	place place
	// ramp is set for an inland rail terminal (see railterminal.go), where no vessel calls.
	ramp bool
}

// key is the terminal's name in its path: its SMDG code, or FIRMS- and its FIRMS code.
func (t terminalSpot) key() string {
	if t.SMDGCode != "" {
		return t.SMDGCode
	}
	return "FIRMS-" + t.FIRMSCode
}

// setTerminals gives every place of the world its terminals: the listed ones of its port, else
// two simulated ones.
func (w *world) setTerminals(listed []boxwatch.Terminal) {
	w.terminals = map[string][]terminalSpot{}
	for _, t := range listed {
		if p, ok := w.places[t.LOCODE]; ok {
			w.terminals[t.LOCODE] = append(w.terminals[t.LOCODE], terminalSpot{Terminal: t, place: p})
		}
	}
	w.setRampTerminals()
	for code, p := range w.places {
		if slices.ContainsFunc(w.terminals[code], func(t terminalSpot) bool { return t.SMDGCode != "" && !t.ramp }) {
			continue
		}
		for n := range simulatedTerminals {
			smdg, name := simulatedTerminal(p, n)
			w.terminals[code] = append(w.terminals[code], terminalSpot{boxwatch.Terminal{ID: boxwatch.TerminalID(code, smdg),
				LOCODE: code, SMDGCode: smdg, Name: name, Country: p.CountryCode}, p, false})
		}
	}
	for code := range w.terminals {
		slices.SortFunc(w.terminals[code], func(a, b terminalSpot) int { return cmp.Compare(a.key(), b.key()) })
	}
}

// berths are the terminals of a port vessels call at: those with an SMDG code, the code carriers report.
func (w *world) berths(locode string) []terminalSpot {
	var out []terminalSpot
	for _, t := range w.terminals[locode] {
		if t.SMDGCode != "" && !t.ramp {
			out = append(out, t)
		}
	}
	return out
}

// terminalAt finds a terminal the simulator runs by port and path key.
func (w *world) terminalAt(locode, key string) (terminalSpot, bool) {
	for _, t := range w.terminals[locode] {
		if t.key() == key {
			return t, true
		}
	}
	return terminalSpot{}, false
}

// Terminals returns every terminal the simulator runs, by port and code.
func (n *Network) Terminals() []boxwatch.Terminal {
	var out []boxwatch.Terminal
	for _, list := range n.world.terminals {
		for _, t := range list {
			out = append(out, t.Terminal)
		}
	}
	slices.SortFunc(out, func(a, b boxwatch.Terminal) int {
		return cmp.Or(cmp.Compare(a.LOCODE, b.LOCODE), cmp.Compare(a.SMDGCode, b.SMDGCode), cmp.Compare(a.FIRMSCode, b.FIRMSCode))
	})
	return out
}

// TerminalBaseURL returns the protocol's base URL of a terminal the simulator runs, once Start
// was called: GET base + "/v1/containers/{number}" asks it. ok is false for another terminal or
// before Start.
func (n *Network) TerminalBaseURL(t boxwatch.TerminalRef) (string, bool) {
	n.mu.Lock()
	root := n.root
	n.mu.Unlock()
	for _, spot := range n.world.terminals[t.LOCODE] {
		if root != "" && (t.SMDGCode != "" && spot.SMDGCode == t.SMDGCode || t.SMDGCode == "" && t.FIRMSCode != "" && spot.FIRMSCode == t.FIRMSCode) {
			return root + "/terminals/" + t.LOCODE + "/" + spot.key(), true
		}
	}
	return "", false
}

// boxTerminal is the terminal equipment i is discharged at: the vessel's terminal, or for about
// one box in ten a sister terminal of the port.
func (j *journey) boxTerminal(w *world, i int) terminalSpot {
	c := j.calls[j.pod()]
	spots := w.terminals[c.place.LOCODE]
	berth, _ := w.terminalAt(c.place.LOCODE, c.terminal)
	d := dice("terminal/" + j.key)
	if len(spots) < 2 || d.frac(fmt.Sprint("moved/", i)) >= movedShare {
		return berth
	}
	others := slices.DeleteFunc(slices.Clone(spots), func(t terminalSpot) bool { return t.key() == berth.key() })
	return others[d.intn(fmt.Sprint("moved-to/", i), len(others))]
}

// boxTimes are the moves of equipment i at the port of discharge, as offsets; ok false for a
// move that never happens.
type boxTimes struct {
	arrival, discharged, fullOut, emptyIn time.Duration
	hasOut, hasEmpty                      bool
	// railOut is when the box left the terminal on the on-dock train of an inland journey
	// (byRail): no gate-out there, and its empty returns far inland, not to this terminal.
	railOut time.Duration
	byRail  bool
}

func (j *journey) boxTimes(i int) boxTimes {
	pod := j.pod()
	railPOD := -1
	if j.inland > 0 {
		railPOD = len(j.calls) - j.inland - j.doors // the on-dock rail call at the port
	}
	bt := boxTimes{arrival: j.find("TRANSPORT", "ARRI", pod, -1).actual, discharged: j.find("EQUIPMENT", "DISC", pod, i).actual}
	for _, m := range j.moves {
		if m.family != "EQUIPMENT" || m.equipment != i {
			continue
		}
		switch {
		case m.code == "GTOT" && m.call == pod:
			bt.fullOut, bt.hasOut = m.actual, true
		case m.code == "LOAD" && m.call == railPOD:
			bt.railOut, bt.byRail = m.actual, true
		case m.code == "GTIN" && m.empty && m.call > pod && j.inland == 0:
			bt.emptyIn, bt.hasEmpty = m.actual, true
		}
	}
	return bt
}

// terminalReport is what the terminal t says of equipment i at offset now, with start the
// journey's start; ok is false while the terminal does not know the box yet.
func (j *journey) terminalReport(w *world, t terminalSpot, i int, now time.Duration, start time.Time) (terminal.Container, bool) {
	q := j.equipment[i]
	bt := j.boxTimes(i)
	if now < bt.arrival-inboundWindow {
		return terminal.Container{}, false
	}
	abs := func(off time.Duration) time.Time { return start.Add(off).Truncate(time.Minute) }
	stamp := func(off time.Duration) string { return abs(off).UTC().Format(time.RFC3339) }
	local := func(off time.Duration) string { return start.Add(off).In(t.place.loc).Format(time.DateOnly) }
	d := dice("terminal/" + j.key)
	e := func(label string) string { return fmt.Sprint(label, "/", i) }
	c := terminal.Container{Number: q.ref, TimeZone: t.place.loc.String(), CheckedAt: stamp(now),
		Terminal: &terminal.Facility{LOCODE: t.LOCODE, SMDGCode: t.SMDGCode, FIRMSCode: t.FIRMSCode, Name: t.Name}}
	if c.TimeZone == "Local" {
		c.TimeZone = "UTC"
	}
	no, yes := false, true

	// Holds: customs until released (longer, with an exam fee, for one box in eight); a freight
	// hold until the line is paid for a box in four; USDA for reefers and a box in twenty; the
	// Traffic Mitigation Fee at Los Angeles and Long Beach until paid; another hold rarely.
	disc := bt.discharged
	// The holds are the box's own: they are cleared from its discharge or, for a number first
	// looked up discharged (stage 8) later than the stage's ideal moment after discharge (a
	// loop's vessels call once a headway), from that moment, so its first lookup sees the
	// terminal as the stage says.
	cleared := disc
	if j.firstSeenDischarged() {
		cleared = max(disc, j.lookup-margin-12*hour)
	}
	exam := d.frac(e("exam")) < 0.125
	customs := cleared + d.between(e("customs"), 6*hour, 30*hour)
	if exam {
		customs += d.between(e("exam-days"), day, 3*day)
	}
	type hold struct {
		typ, desc     string
		on            bool
		until, listed time.Duration
	}
	holds := []hold{
		{"customs", "Awaiting customs release (simulated)", true, customs, bt.arrival - 2*day},
		{"freight", "Freight not yet paid to the line (simulated)", d.frac(e("freight")) < 0.25, cleared + d.between(e("freight-paid"), 2*hour, 2*day), bt.arrival - day},
		{"usda", "USDA inspection (simulated)", strings.Contains(q.isoCode, "R") || d.frac(e("usda")) < 0.05, cleared + d.between(e("usda-done"), 12*hour, 40*hour), disc},
		{"tmf", "Traffic Mitigation Fee unpaid (simulated)", t.LOCODE == "USLAX" || t.LOCODE == "USLGB", cleared + d.between(e("tmf-paid"), hour, 20*hour), disc},
		{"other", "Terminal hold (simulated)", d.frac(e("other")) < 0.04, cleared + d.between(e("other-done"), 2*hour, day), disc},
	}
	released := disc
	for _, h := range holds {
		if !h.on || now < h.listed {
			continue
		}
		switch {
		case bt.hasOut:
			// The box leaves as the carrier says it does: every hold is lifted before.
			h.until = max(min(h.until, bt.fullOut-3*hour), disc+hour)
		case bt.byRail:
			h.until = max(min(h.until, bt.railOut-3*hour), disc+hour)
		}
		released = max(released, h.until)
		status := terminal.HoldHold
		switch {
		case now >= h.until:
			status = terminal.HoldReleased
		case now < disc:
			status = terminal.HoldPending
		}
		c.Holds = append(c.Holds, terminal.Hold{Type: h.typ, Status: status, Description: h.desc})
	}
	if now >= bt.arrival {
		// The vessel's arrival is its berthing: the simulated vessels wait at the anchorage
		// before it (see passage).
		c.VesselBerthedAt = stamp(bt.arrival)
	}
	if now < disc {
		c.Status, c.AvailableForPickup = terminal.StatusInbound, &no
		return c, true
	}

	// Last free days: the terminal's after four days (one more for three boxes in ten, granted
	// the day after discharge), the line's after its own free time, from six to eight days.
	// A last free day is a date at the terminal, counted from the day of discharge there; its
	// offset is the start of that day.
	dayAfter := func(off time.Duration, days int) time.Duration {
		y, m, dd := abs(off).In(t.place.loc).Date()
		return time.Date(y, m, dd+days, 0, 0, 0, 0, t.place.loc).Sub(start)
	}
	free := terminalFreeDays
	if d.frac(e("extension")) < 0.3 && now >= disc+20*hour {
		free++
	}
	lfd, lineLFD := dayAfter(disc, free), dayAfter(disc, 6+d.intn("line-free-days", 3))
	c.LastFreeDay = &terminal.LastFreeDays{Terminal: local(lfd), Line: local(lineLFD)}
	c.DischargedAt = stamp(disc)

	out := time.Duration(math.MaxInt64)
	switch {
	case bt.hasOut:
		out = bt.fullOut
	case bt.byRail:
		out = bt.railOut
	}
	// The appointment is booked once the box is released, for its pickup; one in five is first
	// booked for a day later and moved half a day before the pickup.
	if bt.hasOut && now >= released {
		at := (bt.fullOut - d.between(e("appointment"), 0, 2*hour)).Truncate(30 * time.Minute)
		if d.frac(e("rebooked")) < 0.2 && now < bt.fullOut-12*hour {
			at += day
		}
		c.Appointment = &terminal.Appointment{At: stamp(at)}
	}
	until := min(now, out)
	var total float64
	fee := func(typ string, amount float64) {
		if amount > 0 {
			c.Fees = append(c.Fees, terminal.Fee{Type: typ, Amount: amount, Currency: "USD"})
			total += amount
		}
	}
	daysPast := func(day0 time.Duration) float64 {
		if until <= day0 {
			return 0
		}
		return float64((until - day0 + day - 1) / day)
	}
	// Charged for every day begun after the last free day ends.
	fee("demurrage", demurrageRate*daysPast(lineLFD+day))
	fee("extended_dwell_time", dwellRate*daysPast(lfd+day))
	if exam && now >= customs-day {
		fee("exam", examFee)
	}
	if (t.LOCODE == "USLAX" || t.LOCODE == "USLGB") && now < cleared+20*hour {
		fee("other", tmfFee)
	}
	if total > 0 && len(c.Fees) > 1 {
		c.Fees = append(c.Fees, terminal.Fee{Type: "total", Amount: total, Currency: "USD"})
	}

	offDock, moved := j.offDock(t, i, bt)
	if moved && now >= offDock {
		c.OffDock = &terminal.OffDock{Name: t.place.Name + " off-dock yard (simulated)", MovedAt: stamp(offDock)}
	}
	switch {
	case bt.hasEmpty && now >= bt.emptyIn:
		c.Status, c.AvailableForPickup = terminal.StatusEmptyReturned, &no
		c.FullOutAt, c.EmptyInAt = stamp(bt.fullOut), stamp(bt.emptyIn)
	case now >= out && bt.byRail:
		c.Status, c.AvailableForPickup = terminal.StatusDeparted, &no // on the train: no gate-out
	case now >= out:
		c.Status, c.AvailableForPickup, c.FullOutAt = terminal.StatusDeparted, &no, stamp(bt.fullOut)
	case c.OffDock != nil:
		// At the off-dock yard, picked up from there.
		c.Status, c.AvailableForPickup = terminal.StatusDeparted, &no
		if now >= released {
			c.AvailableForPickup = &yes
		}
	default:
		c.Status = terminal.StatusInYard
		c.YardLocation = fmt.Sprintf("%c%02d-%02d-%d (simulated)", 'A'+rune(d.intn(e("block"), 8)), 1+d.intn(e("row"), 40),
			1+d.intn(e("bay"), 30), 1+d.intn(e("tier"), 5))
		if now >= released {
			c.AvailableForPickup = &yes
		} else {
			c.AvailableForPickup = &no
		}
	}
	return c, true
}

// serveTerminal answers GET /terminals/{locode}/{terminal}/v1/containers/{number}.
func (n *Network) serveTerminal(w http.ResponseWriter, r *http.Request) {
	fail := func(status int, code, message string) {
		body, _ := json.Marshal(map[string]any{"error": map[string]string{"code": code, "message": message}})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(body) //nolint:errcheck // the client went away
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		fail(http.StatusMethodNotAllowed, "method_not_allowed", "only GET is supported")
		return
	}
	t, ok := n.world.terminalAt(strings.ToUpper(r.PathValue("locode")), r.PathValue("terminal"))
	if !ok {
		fail(http.StatusNotFound, "no_terminal", "no such terminal is simulated here")
		return
	}
	if !n.wait(r.Context()) {
		return
	}
	number := strings.ToUpper(r.PathValue("number"))
	query := r.URL.Query()
	c, err := n.terminalContainer(r, t, number, query.Get("scac"), cmp.Or(query.Get("bill_of_lading"), query.Get("booking")))
	switch {
	case errors.Is(err, errNotAtTerminal):
		fail(http.StatusNotFound, "not_found", fmt.Sprintf("%s is not known at %s", number, t.Name))
		return
	case err != nil:
		n.log.Error("sim: terminal state", "terminal", t.key(), "err", err)
		fail(http.StatusInternalServerError, "internal_error", "the terminal's system is unavailable")
		return
	}
	body, err := json.Marshal(c)
	if err != nil {
		fail(http.StatusInternalServerError, "internal_error", "cannot encode the container")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(body) //nolint:errcheck // the client went away
}

// errNotAtTerminal is the answer about a box the terminal does not know.
var errNotAtTerminal = errors.New("not at the terminal")

// terminalContainer is terminal t's record of container number on the journey of scac's
// shipment reference (or of the container alone), as of now.
func (n *Network) terminalContainer(r *http.Request, t terminalSpot, number, scac, reference string) (terminal.Container, error) {
	line, ok := n.lines[strings.ToUpper(scac)]
	if !ok || boxwatch.ContainerNumberProblem(number) != "" {
		return terminal.Container{}, errNotAtTerminal
	}
	journeyNumber := cmp.Or(strings.ToUpper(reference), number)
	if unknown(line, journeyNumber) || strings.HasSuffix(journeyNumber, goneMarker) {
		return terminal.Container{}, errNotAtTerminal
	}
	now := n.clock()
	anchor, err := n.state.FirstSeen(r.Context(), line.SCAC+"/"+journeyNumber, now) // the journey's key, as the carrier's lookups keep it
	if err != nil {
		return terminal.Container{}, err
	}
	j := n.world.newJourney(line, journeyNumber, anchor)
	i := slices.IndexFunc(j.equipment, func(e equipment) bool { return e.ref == number })
	if i < 0 {
		return terminal.Container{}, errNotAtTerminal
	}
	start := anchor.Add(-j.lookup)
	offset := n.simTime(anchor, now).Sub(start)
	if t.ramp {
		c, known := j.rampReport(t, i, offset, start)
		if !known {
			return terminal.Container{}, errNotAtTerminal
		}
		return c, nil
	}
	at := j.boxTerminal(n.world, i)
	if at.key() != t.key() {
		if berth := j.calls[j.pod()].terminal; berth != t.key() {
			return terminal.Container{}, errNotAtTerminal
		}
		if c, known := j.terminalReport(n.world, at, i, offset, start); known {
			return terminal.Container{Number: number, Status: terminal.StatusElsewhere, CheckedAt: c.CheckedAt,
				Terminal: &terminal.Facility{LOCODE: at.LOCODE, SMDGCode: at.SMDGCode, FIRMSCode: at.FIRMSCode, Name: at.Name}}, nil
		}
		return terminal.Container{}, errNotAtTerminal
	}
	c, known := j.terminalReport(n.world, t, i, offset, start)
	if !known {
		return terminal.Container{}, errNotAtTerminal
	}
	return c, nil
}
