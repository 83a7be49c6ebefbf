package sim

import (
	"fmt"
	"time"

	"github.com/boxwatch/boxwatch/carrier/dcsa"
)

// What the terminal at the port of discharge says of a container, from its discharge until its
// pickup: a customs hold released within a day or so, the last free day four days after
// discharge (some terminals grant one more day), demurrage for every day the box stays past it,
// and a yard block. The carrier passes it on with the discharge record, as of the moment asked.
const (
	freeDays      = 4
	demurrageRate = 150.0 // USD a day past the last free day
)

// terminalTimeline is the terminal's view of one container, as offsets of the journey.
type terminalTimeline struct {
	discharged, released, extended, pickedUp time.Duration
	lfd, extendedLFD                         time.Duration
	block                                    string
}

// terminalTimeline lays out what the terminal reports of equipment i, discharged at disc and
// picked up at out.
func (j *journey) terminalTimeline(i int, disc, out time.Duration) terminalTimeline {
	d := dice("terminal/" + j.key)
	e := func(label string) string { return fmt.Sprint(label, "/", i) }
	tl := terminalTimeline{discharged: disc, pickedUp: out,
		released: disc + d.between(e("customs"), 6*hour, 30*hour),
		block:    fmt.Sprintf("Yard block %c%d (simulated)", 'A'+rune(d.intn(e("block"), 8)), 1+d.intn(e("row"), 20))}
	tl.lfd = (disc + freeDays*day).Truncate(day)
	tl.extendedLFD = tl.lfd
	if d.frac(e("extension")) < 0.3 {
		tl.extended, tl.extendedLFD = disc+20*hour, tl.lfd+day
	}
	return tl
}

// at is the terminal's report as of offset now (clamped to the pickup, after which the terminal
// says no more); start turns offsets into times.
func (tl terminalTimeline) at(now time.Duration, start time.Time) *dcsa.TerminalStatus {
	now = min(now, tl.pickedUp)
	abs := func(off time.Duration) string { return start.Add(off).UTC().Truncate(time.Minute).Format(time.RFC3339) }
	checked := tl.discharged
	s := &dcsa.TerminalStatus{YardLocation: tl.block}
	lfd := tl.lfd
	if tl.extended > 0 && now >= tl.extended {
		lfd, checked = tl.extendedLFD, max(checked, tl.extended)
	}
	s.LastFreeDate = abs(lfd)
	available := now >= tl.released && now < tl.pickedUp
	if now < tl.released {
		s.Holds = []dcsa.TerminalHold{{HoldType: "customs", Status: "hold", Description: "Awaiting customs clearance (simulated)"}}
	} else {
		checked = max(checked, tl.released)
	}
	if now >= tl.pickedUp {
		checked, s.YardLocation = tl.pickedUp, ""
	}
	s.AvailableForPickup = &available
	if past := now - lfd; past > 0 {
		days := int((past + day - 1) / day)
		s.Fees = []dcsa.TerminalCharge{{ChargeType: "demurrage", Amount: demurrageRate * float64(days), CurrencyCode: "USD"}}
		checked = max(checked, lfd+time.Duration(days-1)*day)
	}
	s.CheckedDateTime = abs(checked)
	return s
}

// dischargeStatus is the terminal report to attach to the actual discharge of move m at the port
// of discharge, or nil for any other move.
func (j *journey) dischargeStatus(m move, now time.Duration, start time.Time) *dcsa.CarrierSpecificData {
	if m.family != "EQUIPMENT" || m.code != "DISC" || m.call != j.podCall() {
		return nil
	}
	out := time.Duration(1 << 62)
	for _, o := range j.moves {
		if o.family == "EQUIPMENT" && o.code == "GTOT" && o.call == m.call && o.equipment == m.equipment {
			out = o.actual
		}
	}
	return &dcsa.CarrierSpecificData{TerminalStatus: j.terminalTimeline(m.equipment, m.actual, out).at(now, start)}
}

// podCall is the index of the vessel's call at the port of discharge: the last terminal call.
func (j *journey) podCall() int {
	for i := len(j.calls) - 1; i >= 0; i-- {
		if j.calls[i].facility == "POTE" {
			return i
		}
	}
	return -1
}
