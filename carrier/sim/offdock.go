package sim

import (
	"fmt"
	"strings"
	"time"
)

// Off-dock yards: at busy US ports a terminal moves some import boxes, full, to a yard outside
// its gate, from which the consignee's trucker picks them up. The terminal reports the move
// (terminal.OffDock); the line still reports the pickup as its gate-out at the port.
const (
	offDockShare = 0.2 // of the boxes a US port's terminal discharges and that leave by road
	offDockAfter = 12 * hour
)

// offDock is when terminal t moves equipment i to its off-dock yard; ok is false for a box it
// keeps: one going on by rail, one never picked up, one whose pickup comes too soon after
// discharge for a move, and most others.
func (j *journey) offDock(t terminalSpot, i int, bt boxTimes) (at time.Duration, ok bool) {
	d := dice("off-dock/" + j.key)
	if !strings.HasPrefix(t.LOCODE, "US") || bt.byRail || !bt.hasOut || d.frac(fmt.Sprint("moved/", i)) >= offDockShare {
		return 0, false
	}
	at = bt.discharged + offDockAfter + d.between(fmt.Sprint("after/", i), 0, day)
	if at > bt.fullOut-6*hour {
		return 0, false
	}
	return at, true
}
