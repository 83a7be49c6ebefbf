package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A few lines of zone.tab and tzdata.zi, as the IANA database writes them.
const (
	testZoneTab = `# comment
AR	-3436-05827	America/Argentina/Buenos_Aires	Buenos Aires (BA, CF)
AR	-3124-06411	America/Argentina/Cordoba	most areas: CB, SF, ER, CN, SE, CH, MN, LP, TU
AR	-5448-06818	America/Argentina/Ushuaia	Tierra del Fuego (TF)
BR	-0308-06001	America/Manaus	Amazonas (east)
BR	-2332-04637	America/Sao_Paulo	Brazil (southeast: GO, DF, MG, ES, RJ, SP, PR, SC, RS)
IN	+2232+08822	Asia/Kolkata
SG	+0117+10351	Asia/Singapore
US	+404251-0740023	America/New_York	Eastern (most areas)
US	+415100-0873900	America/Chicago	Central (most areas)
US	+340308-1181434	America/Los_Angeles	Pacific
`
	testLinks = `# version 2025b
Z Asia/Kolkata 5:53:28 - LMT 1854 Jun 28
L Asia/Kolkata Asia/Calcutta
L America/Argentina/Cordoba America/Cordoba
`
)

func testZones(t *testing.T) zoneTable {
	t.Helper()
	var z zoneTable
	if err := readZoneTab(strings.NewReader(testZoneTab), &z); err != nil {
		t.Fatal(err)
	}
	if err := readLinks(strings.NewReader(testLinks), &z); err != nil {
		t.Fatal(err)
	}
	return z
}

func TestZoneFor(t *testing.T) {
	z := testZones(t)
	at := func(lat, lon float64) (*float64, *float64) { return &lat, &lon }
	for _, c := range []struct {
		locode, country, source string
		lat, lon                float64
		noCoordinates           bool
		want                    string
	}{
		{"SGSIN", "SG", "Asia/Singapore", 1.28, 103.85, false, "Asia/Singapore"},                    // the country's own
		{"USHOU", "US", "America/Chicago", 29.7, -95.3, false, "America/Chicago"},                   // kept, though Chicago is far
		{"USOAK", "US", "America/Chicago", 37.8, -122.3, false, "America/Los_Angeles"},              // overridden
		{"BRMAO", "BR", "Europe/Stockholm", -3.1, -60.0, false, "America/Manaus"},                   // another country's: the nearest
		{"ARBUE", "AR", "America/Cordoba", -34.58, -58.37, false, "America/Argentina/Buenos_Aires"}, // a blanket one
		{"ARUSH", "AR", "America/Cordoba", -54.8, -68.3, false, "America/Argentina/Ushuaia"},
		{"ARXXX", "AR", "America/Cordoba", 0, 0, true, "America/Argentina/Cordoba"}, // no coordinates: the link
		{"BRXXX", "BR", "Europe/Stockholm", 0, 0, true, ""},                         // no way to tell
		{"INBOM", "IN", "Asia/Calcutta", 18.9, 72.8, false, "Asia/Kolkata"},         // deprecated, one zone
		{"ANCUR", "AN", "America/Curacao", 12.1, -68.9, false, "America/Curacao"},   // a country zone.tab no longer lists
	} {
		lat, lon := at(c.lat, c.lon)
		if c.noCoordinates {
			lat, lon = nil, nil
		}
		if got := z.zoneFor(c.locode, c.country, c.source, lat, lon); got != c.want {
			t.Errorf("%s (%s): %q, want %q", c.locode, c.source, got, c.want)
		}
	}
}

func TestReadZoneTabRejects(t *testing.T) {
	for _, bad := range []string{"AR\t-3436\tAmerica/X\n", "AR\t-3436-0582x\tAmerica/X\n", "AR\t-34-058\tAmerica/X\n", "AR only\n"} {
		var z zoneTable
		if err := readZoneTab(strings.NewReader(bad), &z); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	lat, lon, err := isoCoordinates("+404251-0740023")
	if err != nil || lat < 40.71 || lat > 40.72 || lon > -74.00 || lon < -74.01 {
		t.Errorf("New York at %v, %v (%v)", lat, lon, err)
	}
}

// TestShippedZones checks the committed ports.json against this machine's time zone database:
// every zone is one Go knows, and one of its country's, wherever zone.tab lists the country.
func TestShippedZones(t *testing.T) {
	var z zoneTable
	f, err := os.Open("/usr/share/zoneinfo/zone.tab")
	if err != nil {
		t.Fatalf("the IANA time zone database (Debian's tzdata package) is needed: %v", err)
	}
	defer f.Close()
	if err := readZoneTab(f, &z); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join("..", "ports.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ports []port
	if err := json.Unmarshal(raw, &ports); err != nil {
		t.Fatal(err)
	}
	for _, p := range ports {
		if p.TimeZone == "" {
			continue
		}
		if _, err := time.LoadLocation(p.TimeZone); err != nil {
			t.Errorf("%s: %v", p.LOCODE, err)
		}
		places := z.byCountry[p.CountryCode]
		ok := len(places) == 0
		for _, pl := range places {
			ok = ok || pl.name == p.TimeZone
		}
		if !ok {
			t.Errorf("%s (%s): %s is not a zone of %s", p.LOCODE, p.Name, p.TimeZone, p.CountryCode)
		}
	}
}
