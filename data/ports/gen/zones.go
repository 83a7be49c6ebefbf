package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/boxwatch/boxwatch/geo"
)

// The source's time zones are right for most ports and wrong for about 150: zones of another
// country (Manaus in Europe/Stockholm, Boma in Africa/Bamako), a blanket zone for a whole country
// (every Argentine port in America/Cordoba) or deprecated names (Asia/Calcutta, Asia/Saigon). The
// generator judges each against the IANA time zone database's zone.tab, which lists the zones of
// each country with the place each is named after, and its links, which name the zone a
// deprecated name now stands for (Debian's tzdata package: scripts/ports.sh passes its files).

// zoneOverrides are ports whose source zone belongs to their country but to another part of it,
// as their coordinates show.
var zoneOverrides = map[string]string{
	"USOAK": "America/Los_Angeles", // Oakland, California; the source says America/Chicago
}

// zoneTable is what the generator knows of the time zones: each country's zones with the point
// each is named after, and the deprecated names with the zone each links to.
type zoneTable struct {
	byCountry map[string][]zonePlace
	links     map[string]string
}

type zonePlace struct {
	name     string
	lat, lon float64
}

// readZoneTab reads zone.tab: country code, coordinates (±DDMM±DDDMM or ±DDMMSS±DDDMMSS) and zone
// name, tab-separated, # for comments.
func readZoneTab(r io.Reader, t *zoneTable) error {
	t.byCountry = map[string][]zonePlace{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 3 {
			return fmt.Errorf("zone.tab line %d: %d fields", n, len(f))
		}
		lat, lon, err := isoCoordinates(f[1])
		if err != nil {
			return fmt.Errorf("zone.tab line %d: %w", n, err)
		}
		t.byCountry[f[0]] = append(t.byCountry[f[0]], zonePlace{name: f[2], lat: lat, lon: lon})
	}
	return sc.Err()
}

// readLinks reads the link lines ("L TARGET NAME") of tzdata.zi.
func readLinks(r io.Reader, t *zoneTable) error {
	t.links = map[string]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == "L" {
			t.links[f[2]] = f[1]
		}
	}
	return sc.Err()
}

// isoCoordinates reads zone.tab's ISO 6709 coordinates: ±DDMM±DDDMM or ±DDMMSS±DDDMMSS.
func isoCoordinates(s string) (lat, lon float64, err error) {
	i := strings.IndexAny(s[1:], "+-") + 1
	if i == 0 {
		return 0, 0, fmt.Errorf("coordinates %q", s)
	}
	if lat, err = isoDegrees(s[:i], 2); err == nil {
		lon, err = isoDegrees(s[i:], 3)
	}
	return lat, lon, err
}

func isoDegrees(s string, degreeDigits int) (float64, error) {
	digits := s[1:]
	if len(digits) != degreeDigits+2 && len(digits) != degreeDigits+4 {
		return 0, fmt.Errorf("coordinate %q", s)
	}
	v := 0.0
	for i, scale := 0, 1.0; i < len(digits); scale *= 60 {
		w := degreeDigits
		if i > 0 {
			w = 2
		}
		n, err := strconv.Atoi(digits[i : i+w])
		if err != nil {
			return 0, fmt.Errorf("coordinate %q", s)
		}
		v += float64(n) / scale
		i += w
	}
	if s[0] == '-' {
		v = -v
	}
	return v, nil
}

// zoneFor is the time zone of a port of country at (lat, lon), given the source's zone:
//   - an override, when the port has one;
//   - the source's zone, when it is one of the country's (or the country is not in zone.tab);
//   - the zone a deprecated name links to, when that is the country's only zone;
//   - otherwise the country's zone named after the place nearest the port, when the port has
//     coordinates (a country with several zones, whose source zone is foreign or a blanket one);
//   - otherwise "", unknown.
func (t zoneTable) zoneFor(locode, country, source string, lat, lon *float64) string {
	if z, ok := zoneOverrides[locode]; ok {
		return z
	}
	places := t.byCountry[country]
	if len(places) == 0 {
		return source
	}
	for _, p := range places {
		if p.name == source {
			return source
		}
	}
	if len(places) == 1 {
		return places[0].name
	}
	if lat == nil || lon == nil {
		if target := t.links[source]; target != "" {
			for _, p := range places {
				if p.name == target {
					return target
				}
			}
		}
		return ""
	}
	best, bestKM := "", math.Inf(1)
	for _, p := range places {
		if d := geo.DistanceKM(geo.Point{Lat: *lat, Lon: *lon}, geo.Point{Lat: p.lat, Lon: p.lon}); d < bestKM {
			best, bestKM = p.name, d
		}
	}
	return best
}
