package sim

import (
	"fmt"
	"slices"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/terminal"
)

// Inland rail terminals. Every ramp of ipiRamps runs a terminal system of its own behind the same
// protocol as the port terminals, under a simulated code (rampCode) that the lines name in the
// train's call at the ramp. A ramp knows a box from the train's departure from the port until the
// box leaves full: inbound, then in its yard, available, with the ramp's last free day (pickup
// rail LFD) two days after the day it came off the train (three for a box in four, granted the
// next day), then departed.
const (
	rampFreeDays       = 2
	rampExtensionShare = 0.25
)

// rampCodes are the simulated codes of the ramps, by UN/LOCODE and name: RR, the place's three
// letters and the ramp's rank by name there, shaped as SMDG's codes.
var rampCodes = func() map[[2]string]string {
	names := map[string][]string{}
	for _, ramps := range ipiRamps {
		for _, r := range ramps {
			if !slices.Contains(names[r.locode], r.name) {
				names[r.locode] = append(names[r.locode], r.name)
			}
		}
	}
	codes := map[[2]string]string{}
	for locode, list := range names {
		slices.Sort(list)
		for k, name := range list {
			codes[[2]string{locode, name}] = fmt.Sprintf("RR%s%d", locode[2:], k+1)
		}
	}
	return codes
}()

// rampCode is the simulated code of ramp r.
func rampCode(r ramp) string { return rampCodes[[2]string{r.locode, r.name}] }

// setRampTerminals adds every ramp to the world's terminals.
func (w *world) setRampTerminals() {
	seen := map[string]bool{}
	for _, ramps := range ipiRamps {
		for _, r := range ramps {
			code := rampCode(r)
			p, ok := w.places[r.locode]
			if !ok || seen[r.locode+"/"+code] {
				continue
			}
			seen[r.locode+"/"+code] = true
			w.terminals[r.locode] = append(w.terminals[r.locode], terminalSpot{Terminal: boxwatch.Terminal{ID: boxwatch.TerminalID(r.locode, code),
				LOCODE: r.locode, SMDGCode: code, Name: r.name + " (simulated)", Country: p.CountryCode}, place: p, ramp: true})
		}
	}
}

// rampReport is what ramp t says of equipment i at offset now, with start the journey's start;
// ok is false for a box that does not come to the ramp, or not yet.
func (j *journey) rampReport(t terminalSpot, i int, now time.Duration, start time.Time) (terminal.Container, bool) {
	if j.inland == 0 {
		return terminal.Container{}, false
	}
	railPOD, railDest := len(j.calls)-j.inland-j.doors, len(j.calls)-1-j.doors
	if j.calls[railDest].terminal != t.key() {
		return terminal.Container{}, false
	}
	departed := j.find("TRANSPORT", "DEPA", railPOD, -1)
	unload, out := j.find("EQUIPMENT", "DISC", railDest, i), j.find("EQUIPMENT", "GTOT", railDest, i)
	if departed.family == "" || unload.family == "" || now < departed.actual {
		return terminal.Container{}, false
	}
	abs := func(off time.Duration) time.Time { return start.Add(off).Truncate(time.Minute) }
	stamp := func(off time.Duration) string { return abs(off).UTC().Format(time.RFC3339) }
	q := j.equipment[i]
	no, yes := false, true
	c := terminal.Container{Number: q.ref, TimeZone: t.place.loc.String(), CheckedAt: stamp(now), AvailableForPickup: &no,
		Terminal: &terminal.Facility{LOCODE: t.LOCODE, SMDGCode: t.SMDGCode, Name: t.Name}}
	if c.TimeZone == "Local" {
		c.TimeZone = "UTC"
	}
	if now < unload.actual {
		c.Status = terminal.StatusInbound
		return c, true
	}
	d := dice("ramp/" + j.key)
	free := rampFreeDays
	if d.frac(fmt.Sprint("extension/", i)) < rampExtensionShare && now >= unload.actual+day {
		free++
	}
	y, m, dd := abs(unload.actual).In(t.place.loc).Date()
	c.LastFreeDay = &terminal.LastFreeDays{Terminal: time.Date(y, m, dd+free, 0, 0, 0, 0, t.place.loc).Format(time.DateOnly)}
	c.DischargedAt = stamp(unload.actual)
	switch {
	case out.family != "" && now >= out.actual:
		c.Status, c.FullOutAt = terminal.StatusDeparted, stamp(out.actual)
	default:
		c.Status, c.AvailableForPickup = terminal.StatusInYard, &yes
		c.YardLocation = fmt.Sprintf("Track %d, spot %d (simulated)", 1+d.intn(fmt.Sprint("track/", i), 12), 1+d.intn(fmt.Sprint("spot/", i), 60))
	}
	return c, true
}
