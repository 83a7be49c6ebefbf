package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// On voyages of numbers the predictor was never tuned on, in a world that runs late, boxwatch's
// prediction a week and three days out errs by at most 0.7 times the carrier's ETA over all
// lanes, and beats both the great circle and the speed of the last hours alone; a day out, when
// the carrier's ETA is the terminal's plan, it errs little more than the carrier; nearly every
// voyage at sea gets one.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"-voyages", "300", "-seed", "TEST"}, &out); err != nil {
		t.Fatal(err)
	}
	rows, lanes := 0, map[string]bool{}
	for _, line := range strings.Split(out.String(), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 13 {
			continue
		}
		days, err := strconv.Atoi(strings.TrimSpace(cells[2]))
		if err != nil {
			continue
		}
		lane := strings.TrimSpace(cells[1])
		lanes[lane] = true
		if lane != "all lanes" {
			continue
		}
		rows++
		n, _ := strconv.Atoi(strings.TrimSpace(cells[3]))
		cell := func(i int) float64 {
			v, err := strconv.ParseFloat(strings.TrimSpace(cells[i]), 64)
			if err != nil {
				t.Fatalf("%d days out: cell %d %q", days, i, cells[i])
			}
			return v
		}
		ours, carrier, greatCircle, trackSpeed := cell(4), cell(5), cell(6), cell(7)
		if n < 100 {
			t.Errorf("%d days out: only %d voyages", days, n)
		}
		if days > 1 && ours > 0.7*carrier {
			t.Errorf("%d days out: boxwatch MAE %.1f h, carrier %.1f h: more than 0.7 times", days, ours, carrier)
		}
		if days == 1 && ours > 1.2*carrier {
			t.Errorf("a day out: boxwatch MAE %.1f h, carrier %.1f h: more than 1.2 times", ours, carrier)
		}
		if days > 1 && (ours >= greatCircle || ours >= trackSpeed) {
			t.Errorf("%d days out: boxwatch MAE %.1f h, great circle %.1f h, track speed alone %.1f h", days, ours, greatCircle, trackSpeed)
		}
		if none := int(cell(11)); none*50 > n {
			t.Errorf("%d days out: %d voyages of %d without a prediction", days, none, n)
		}
	}
	if rows != 3 || len(lanes) < 12 {
		t.Errorf("%d rows for all lanes, %d lanes:\n%s", rows, len(lanes), out.String())
	}
	for _, args := range [][]string{{"-voyages", "x"}, {"-voyages", "0"}, {"-seed", ""}} {
		if err := run(args, &out); err == nil {
			t.Errorf("%v is no error", args)
		}
	}
}
