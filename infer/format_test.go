package infer

import (
	"math"
	"testing"
)

func TestFormatMatch(t *testing.T) {
	tests := []struct {
		spec, number string
		match        bool
	}{
		{"D9", "123456789", true},
		{"D9", "12345678", false},
		{"D9", "12345678A", false},
		{"L3 D7", "ABC1234567", true},
		{"L3 D7", "AB11234567", false},
		{"X12", "A1B2C3D4E5F6", true},
		{"L3 D4-7", "ABC1234", true},
		{"L3 D4-7", "ABC1234567", true},
		{"L3 D4-7", "ABC123", false},
		{"L3 D4-7", "ABC12345678", false},
		{"'SA' D8", "SA12345678", true},
		{"'SA' D8", "SB12345678", false},
		{"[EBTW] D9", "T123456789", true},
		{"[EBTW] D9", "A123456789", false},
		{"[AB]2 D1", "BA1", true},
		{"X6 D6", "HAMA71223610", true},
		{"X2-4 D2", "AB1234", true}, // X takes 2, 3 or 4: a split must be found
		{"L4 D1 L1 D6", "ABCD1A123456", true},
	}
	for _, tt := range tests {
		t.Run(tt.spec+"/"+tt.number, func(t *testing.T) {
			f, err := parseFormat(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.match(tt.number); got != tt.match {
				t.Errorf("match = %v, want %v", got, tt.match)
			}
		})
	}
}

func TestFormatRejects(t *testing.T) {
	for _, spec := range []string{"", "Q3", "D", "D0", "D5-3", "D41", "D1-41", "Dx", "'ab'", "'", "'SA", "[", "[ab]", "[AB", "[AB]0", "D30 D11"} {
		if _, err := parseFormat(spec); err == nil {
			t.Errorf("parseFormat(%q) accepted", spec)
		}
	}
}

func TestFormatDensity(t *testing.T) {
	tests := []struct {
		spec string
		n    int
		want float64
	}{
		{"D9", 9, 1e-9},
		{"D9", 8, 0},
		{"'SA' D8", 10, 1e-8},
		{"L3 D4-7", 10, 1 / (4 * math.Pow(26, 3) * 1e7)}, // each of four lengths is equally likely
		{"[EBTW] D9", 10, 1 / (4 * 1e9)},
	}
	for _, tt := range tests {
		f, err := parseFormat(tt.spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.density[tt.n]; math.Abs(got-tt.want) > 1e-12*tt.want {
			t.Errorf("%s: density[%d] = %g, want %g", tt.spec, tt.n, got, tt.want)
		}
	}
}
