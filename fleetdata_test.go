package boxwatch_test

import (
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch"
)

func TestLoadFleet(t *testing.T) {
	tests := []struct {
		name, doc string
		ok        bool
	}{
		{"OK", `[{"imo":"9214903","mmsi":"219902000","name":"CAROLINE MAERSK","call_sign":"OZWA2","flag":"DK"}]`, true},
		{"OK without MMSI", `[{"imo":"9214903","name":"CAROLINE MAERSK"}]`, true},
		{"ErrMalformed", `{"vessels":[]}`, false},
		{"ErrCheckDigit", `[{"imo":"9214904","name":"CAROLINE MAERSK"}]`, false},
		{"ErrDuplicate", `[{"imo":"9214903","name":"A"},{"imo":"9214903","name":"B"}]`, false},
		{"ErrMMSI", `[{"imo":"9214903","mmsi":"2199","name":"CAROLINE MAERSK"}]`, false},
		{"ErrNoName", `[{"imo":"9214903"}]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := boxwatch.LoadFleet(strings.NewReader(tt.doc))
			if (err == nil) != tt.ok {
				t.Errorf("err = %v, want ok %v", err, tt.ok)
			}
		})
	}
}
