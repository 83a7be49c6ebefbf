package boxwatch_test

import (
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the same zone database on every machine

	"github.com/boxwatch/boxwatch"
)

func TestDefaultPorts(t *testing.T) {
	ports := boxwatch.DefaultPorts()
	if n := len(ports.All()); n != 1634 {
		t.Errorf("%d ports, want the 1,634 of sea-ports 0.0.9", n)
	}
	tests := []struct {
		locode, name, country, timeZone string
		lat, lon                        float64
	}{
		{"NLRTM", "Rotterdam", "Netherlands", "Europe/Amsterdam", 51.92, 4.5},
		{"SGSIN", "Singapore", "Singapore", "Asia/Singapore", 1.2800945, 103.8509491},
		{"USLGB", "Long Beach", "United States", "America/Los_Angeles", 33.77, -118.18},
	}
	for _, tt := range tests {
		t.Run(tt.locode, func(t *testing.T) {
			p, ok := ports.ByLOCODE(tt.locode)
			if !ok {
				t.Fatal("not found")
			}
			if p.Name != tt.name || p.Country != tt.country || p.CountryCode != tt.locode[:2] || p.TimeZone != tt.timeZone ||
				!p.HasCoordinates || p.Latitude != tt.lat || p.Longitude != tt.lon {
				t.Errorf("got %+v", p)
			}
			if p.ID != boxwatch.PortID(tt.locode) {
				t.Errorf("ID %s, want PortID(%s)", p.ID, tt.locode)
			}
			if byID, ok := ports.ByID(p.ID); !ok || byID != p {
				t.Error("ByID does not find it")
			}
			if lower, ok := ports.ByLOCODE(strings.ToLower(tt.locode)); !ok || lower != p {
				t.Error("ByLOCODE is case-sensitive")
			}
		})
	}
	t.Run("ErrNotFound", func(t *testing.T) {
		if _, ok := ports.ByLOCODE("XXXXX"); ok {
			t.Error("found XXXXX")
		}
		if _, ok := ports.ByID(boxwatch.PortID("XXXXX")); ok {
			t.Error("found the ID of XXXXX")
		}
	})
	t.Run("time zones load", func(t *testing.T) {
		bad := 0
		for _, p := range ports.All() {
			if _, err := time.LoadLocation(p.TimeZone); p.TimeZone != "" && err != nil {
				bad++
			}
		}
		if bad > 0 {
			t.Errorf("%d ports have a time zone that is not an IANA zone", bad)
		}
	})
	if boxwatch.DefaultPorts() != ports {
		t.Error("DefaultPorts parses the list again")
	}
}

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
