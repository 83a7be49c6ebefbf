package ingest

import (
	"testing"
	"time"
)

// A payload is a duplicate within a window of its first hearing, whether that fell in the
// current generation or the one before, and not after; the window runs from the first hearing.
func TestDedupeWindow(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	var d dedupe
	for _, step := range []struct {
		name string
		h    uint64
		at   time.Duration
		want bool
	}{
		{"first hearing", 1, 0, false},
		{"a copy a second later", 1, time.Second, true},
		{"another payload starts no window", 2, 50 * time.Second, false},
		{"a copy in the next generation", 2, 70 * time.Second, true},
		{"the window runs from the first hearing", 1, 61 * time.Second, false},
		{"heard again, a new window", 1, 62 * time.Second, true},
		{"two generations later it is forgotten", 2, 190 * time.Second, false},
	} {
		if got := d.heard(step.h, t0.Add(step.at)); got != step.want {
			t.Errorf("%s: heard = %v, want %v", step.name, got, step.want)
		}
	}
}

// A flood of distinct payloads never holds more than two generations of dedupeCap.
func TestDedupeBounded(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	var d dedupe
	for i := range uint64(3*dedupeCap + 7) {
		d.heard(i, t0.Add(time.Duration(i)*time.Microsecond))
		if n := len(d.cur) + len(d.prev); n > 2*dedupeCap {
			t.Fatalf("after %d payloads the memory holds %d, want at most %d", i+1, n, 2*dedupeCap)
		}
	}
	if !d.heard(3*dedupeCap+6, t0.Add(time.Second)) {
		t.Error("the newest payload was forgotten")
	}
}
