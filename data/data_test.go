package data_test

import (
	"slices"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the same zone database on every machine

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/data"
)

func TestCarriers(t *testing.T) {
	carriers := data.Carriers()
	if n := len(carriers.All()); n < 30 {
		t.Errorf("%d shipping lines, want at least the top 30", n)
	}
	tests := []struct {
		scac, primary, name string
		testLine            bool
	}{
		{"MAEU", "MAEU", "Maersk", false},
		{"MEDU", "MSCU", "Mediterranean Shipping Company", false},
		{"TEST", "TEST", "Test Shipping Line", true},
	}
	for _, tt := range tests {
		t.Run(tt.scac, func(t *testing.T) {
			l, ok := carriers.BySCAC(tt.scac)
			if !ok || l.SCAC != tt.primary || l.Name != tt.name || l.ID != boxwatch.ShippingLineID(tt.primary) || l.TestLine != tt.testLine {
				t.Errorf("got %+v, %v", l, ok)
			}
		})
	}
	t.Run("one test line", func(t *testing.T) {
		var test []string
		for _, l := range carriers.All() {
			if l.TestLine {
				test = append(test, l.SCAC)
			}
		}
		if len(test) != 1 || test[0] != "TEST" {
			t.Errorf("test lines %v, want only TEST (the README documents its numbers)", test)
		}
	})
	if data.Carriers() != carriers {
		t.Error("Carriers parses the registry again")
	}
}

func TestLessors(t *testing.T) {
	lessors := data.Lessors()
	if n := len(lessors); n < 10 {
		t.Errorf("%d lessors, want the major ones", n)
	}
	lessors[0].Name = "CHANGED"
	lessors[0].ContainerPrefixes[0] = "CHGU"
	if again := data.Lessors(); again[0].Name == "CHANGED" || again[0].ContainerPrefixes[0] == "CHGU" {
		t.Error("Lessors shares what it returns with callers")
	}
}

func TestPorts(t *testing.T) {
	ports := data.Ports()
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
	if !slices.IsSortedFunc(ports.All(), func(a, b boxwatch.Port) int { return strings.Compare(a.LOCODE, b.LOCODE) }) {
		t.Error("ports are not in LOCODE order")
	}
	if data.Ports() != ports {
		t.Error("Ports parses the list again")
	}
}

func TestFleet(t *testing.T) {
	fleet := data.Fleet()
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
	if !slices.IsSortedFunc(fleet, func(a, b boxwatch.Vessel) int { return strings.Compare(a.IMO, b.IMO) }) {
		t.Error("vessels are not in IMO order")
	}
	i := slices.IndexFunc(fleet, func(v boxwatch.Vessel) bool { return v.IMO == "9214903" })
	if i < 0 {
		t.Fatal("IMO 9214903 is missing")
	}
	if v := fleet[i]; v.Name != "CAROLINE MAERSK" || v.MMSI != "219902000" || v.CallSign != "OZWA2" || v.Flag != "DK" {
		t.Errorf("IMO 9214903 is %+v", v)
	}
	fleet[0].Name = "CHANGED"
	if data.Fleet()[0].Name == "CHANGED" {
		t.Error("Fleet shares its slice with callers")
	}
}
