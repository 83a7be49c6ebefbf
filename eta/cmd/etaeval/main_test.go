package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// On the simulator's voyages the prediction from the track beats the carrier's ETA a week and
// three days out, and every voyage at sea gets one.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"-voyages", "80"}, &out); err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, line := range strings.Split(out.String(), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 9 {
			continue
		}
		days, err := strconv.Atoi(strings.TrimSpace(cells[1]))
		if err != nil {
			continue
		}
		rows++
		n, _ := strconv.Atoi(strings.TrimSpace(cells[2]))
		ours, _ := strconv.ParseFloat(strings.TrimSpace(cells[3]), 64)
		theirs, _ := strconv.ParseFloat(strings.TrimSpace(cells[4]), 64)
		if n < 20 {
			t.Errorf("%d days out: only %d voyages", days, n)
		}
		if days > 1 && ours >= theirs {
			t.Errorf("%d days out: boxwatch MAE %.2f h, carrier %.2f h", days, ours, theirs)
		}
		if none := strings.TrimSpace(cells[7]); none != "0" {
			t.Errorf("%d days out: %s voyages without a prediction", days, none)
		}
	}
	if rows != 3 {
		t.Errorf("%d rows:\n%s", rows, out.String())
	}
	if err := run([]string{"-voyages", "x"}, &out); err == nil {
		t.Errorf("a bad flag is no error")
	}
}
