package boxwatch_test

import (
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch"
)

func TestDefaultFleet(t *testing.T) {
	fleet := boxwatch.DefaultFleet()
	if len(fleet) < 25 {
		t.Fatalf("%d vessels, want at least 25", len(fleet))
	}
	seen := map[string]bool{}
	for _, v := range fleet {
		if !boxwatch.ValidIMO(v.IMO) || seen[v.IMO] {
			t.Errorf("IMO %q is invalid or listed twice", v.IMO)
		}
		seen[v.IMO] = true
		if v.ID != boxwatch.VesselID(v.IMO) || v.Name == "" || len(v.MMSI) != 9 || v.Position != nil {
			t.Errorf("vessel %+v", v)
		}
	}
	if v := find(fleet, "9214903"); v.Name != "CAROLINE MAERSK" || v.MMSI != "219902000" || v.CallSign != "OZWA2" || v.Flag != "DK" {
		t.Errorf("IMO 9214903 is %+v", v)
	}
	fleet[0].Name = "CHANGED"
	if boxwatch.DefaultFleet()[0].Name == "CHANGED" {
		t.Error("DefaultFleet shares its slice with callers")
	}
}

func find(fleet []boxwatch.Vessel, imo string) boxwatch.Vessel {
	for _, v := range fleet {
		if v.IMO == imo {
			return v
		}
	}
	return boxwatch.Vessel{}
}

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
