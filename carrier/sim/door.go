package sim

import (
	"fmt"
	"time"

	"github.com/boxwatch/boxwatch"
)

// The consignee's door. After its pickup a box goes by truck to the consignee, in the city where
// it left the port (or its inland ramp) full. Lines hear of it only when they haul the box there
// themselves (carrier haulage); they report it as DCSA equipment events at a call of facility
// type CLOC. The journey's dice choose, per shipment, one of three ends:
//   - doorLiveShare of the shipments are carrier haulage with a live unload: a laden gate-in at
//     the door (GTIN), a few hours after the pickup;
//   - doorDropShare are carrier haulage with a drop: the box is left at the door on its chassis
//     (DROP, laden), then hooked again (PICK, empty) after the unload, for the empty's return;
//   - the rest are merchant haulage: the consignee's own trucker, of whom the line hears nothing.
const (
	doorLiveShare = 0.35
	doorDropShare = 0.35
)

// scheduleDoor adds the consignee's door and its moves to the journey, for every box that leaves
// full (the moves depart left), before its empty comes back.
func (j *journey) scheduleDoor() {
	d := dice("door/" + j.key)
	haulage := d.frac("haulage")
	if haulage >= doorLiveShare+doorDropShare {
		return
	}
	drop := haulage >= doorLiveShare
	pod := j.pod()
	from := pod // where the box leaves full: the port, or the inland ramp
	if j.inland > 0 {
		from = len(j.calls) - 1
	}
	place := j.calls[from].place
	door := call{seq: len(j.calls) + 1, place: place, facility: "CLOC", mode: "TRUCK", name: place.Name + " consignee (simulated)"}
	door.id = boxwatch.NameUUID(fmt.Sprintf("boxwatch/sim/call/%s/%d", j.key, door.seq))
	var moves []move
	for i := range j.equipment {
		out, ok := j.fullOut(i, from)
		if !ok {
			continue
		}
		e := func(label string) string { return fmt.Sprint(label, "/", i) }
		at := out + d.between(e("drive"), time.Hour, 6*hour)
		if !drop {
			moves = append(moves, j.doorMove(d, "GTIN", i, false, at))
			continue
		}
		moves = append(moves, j.doorMove(d, "DROP", i, false, at))
		// Hooked again once unloaded, before the empty goes back (two days after the pickup at
		// the earliest).
		moves = append(moves, j.doorMove(d, "PICK", i, true, at+d.between(e("unload"), 6*hour, 30*hour)))
	}
	if len(moves) == 0 {
		return
	}
	j.calls = append(j.calls, door)
	j.doors = 1
	for k := range moves {
		moves[k].call = len(j.calls) - 1
	}
	j.moves = append(j.moves, moves...)
}

// doorMove is equipment i's move code at the door at offset at (its call set by the caller).
func (j *journey) doorMove(d dice, code string, i int, empty bool, at time.Duration) move {
	return move{family: "EQUIPMENT", code: code, equipment: i, empty: empty, actual: at,
		lag: d.between(fmt.Sprint("lag/", code, "/", i), 2*time.Minute, 25*time.Minute)}
}

// fullOut is when equipment i left call c full, ok false when it never does.
func (j *journey) fullOut(i, c int) (time.Duration, bool) {
	for _, m := range j.moves {
		if m.family == "EQUIPMENT" && m.code == "GTOT" && !m.empty && m.call == c && m.equipment == i {
			return m.actual, true
		}
	}
	return 0, false
}
