package store

import (
	"slices"
	"testing"
)

// Every list length binds a padded list of the placeholders' count, made of the same values.
func TestPadMatchesIn(t *testing.T) {
	lengths := map[int]bool{}
	for n := 1; n <= 1000; n++ {
		args := make([]any, n)
		for i := range args {
			args[i] = i
		}
		padded := pad(args)
		placeholders := len(in(n)) - len("IN ()") - (listLength(n)-1)*len(", ")
		if len(padded) != listLength(n) || placeholders != listLength(n) || listLength(n) < n || listLength(n) >= 2*n && n > 1 {
			t.Fatalf("n=%d: %d values for %d placeholders (list length %d)", n, len(padded), placeholders, listLength(n))
		}
		for _, v := range padded {
			if !slices.Contains(args, v) {
				t.Fatalf("n=%d: padding added %v, not one of the values", n, v)
			}
		}
		lengths[listLength(n)] = true
	}
	if len(lengths) > 11 {
		t.Errorf("lists of 1 to 1000 values take %d lengths, want 11 (powers of two)", len(lengths))
	}
}
