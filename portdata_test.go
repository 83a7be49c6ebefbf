package boxwatch_test

import (
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch"
)

func TestLoadPorts(t *testing.T) {
	tests := []struct {
		name, doc string
		ok        bool
	}{
		{"OK", `[{"locode":"NLRTM","name":"Rotterdam","country":"Netherlands","country_code":"NL","lat":51.9,"lon":4.5}]`, true},
		{"OK without coordinates", `[{"locode":"CNFOC","name":"Fuzhou"}]`, true},
		{"ErrMalformed", `{"ports":[]}`, false},
		{"ErrLOCODE", `[{"locode":"NL-RTM","name":"Rotterdam"}]`, false},
		{"ErrLOCODEDigitOne", `[{"locode":"NLRT1","name":"Rotterdam"}]`, false},
		{"ErrDuplicate", `[{"locode":"NLRTM","name":"Rotterdam"},{"locode":"NLRTM","name":"Rotterdam"}]`, false},
		{"ErrNoName", `[{"locode":"NLRTM"}]`, false},
		{"ErrHalfCoordinates", `[{"locode":"NLRTM","name":"Rotterdam","lat":51.9}]`, false},
		{"ErrCoordinatesOutOfRange", `[{"locode":"NLRTM","name":"Rotterdam","lat":91,"lon":4.5}]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := boxwatch.LoadPorts(strings.NewReader(tt.doc))
			if (err == nil) != tt.ok {
				t.Errorf("err = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

// A port is found by its UN/LOCODE in any ASCII letter case, never by a look-alike that
// strings.ToUpper would turn into it (the long ſ into S).
func TestPortByLOCODELookAlike(t *testing.T) {
	ports, err := boxwatch.LoadPorts(strings.NewReader(`[{"locode":"SGSIN","name":"Singapore"}]`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		locode string
		found  bool
	}{{"SGSIN", true}, {"sgsin", true}, {"\u017fg\u017fin", false}, {"SG\u017fIN", false}} {
		if _, ok := ports.ByLOCODE(c.locode); ok != c.found {
			t.Errorf("ByLOCODE(%q) found %v, want %v", c.locode, ok, c.found)
		}
	}
}
