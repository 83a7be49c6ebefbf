// Command gen writes data/ports/ports.json from an unpacked copy of the npm package sea-ports
// (scripts/ports.sh fetches it). The output is deterministic: ports sorted by UN/LOCODE, one per
// line, fields in a fixed order. Time zones that are not IANA zone names are dropped, and those
// of another country or a deprecated name are corrected (zones.go).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	_ "time/tzdata" // judge time zones by Go's own database, whatever the machine has

	"github.com/boxwatch/boxwatch"
)

// sourcePort is an entry of the package's lib/ports.json, keyed there by UN/LOCODE.
type sourcePort struct {
	Name        string    `json:"name"`
	City        string    `json:"city"`
	Province    string    `json:"province"`
	Country     string    `json:"country"`
	TimeZone    string    `json:"timezone"`
	Coordinates []float64 `json:"coordinates"` // [lon, lat]
}

// port is one line of ports.json; the root package's loader reads the same names.
type port struct {
	LOCODE      string   `json:"locode"`
	Name        string   `json:"name"`
	City        string   `json:"city,omitempty"`
	State       string   `json:"state,omitempty"`
	Country     string   `json:"country"`
	CountryCode string   `json:"country_code"`
	TimeZone    string   `json:"time_zone,omitempty"`
	Lat         *float64 `json:"lat,omitempty"`
	Lon         *float64 `json:"lon,omitempty"`
}

func main() {
	pkg := flag.String("package", "", "directory of the unpacked sea-ports package")
	out := flag.String("out", "data/ports", "directory to write ports.json and LICENSE.sea-ports to")
	tzdir := flag.String("tzdata", "/usr/share/zoneinfo", "directory of the IANA time zone database's zone.tab and tzdata.zi (Debian's tzdata)")
	flag.Parse()
	if err := run(*pkg, *out, *tzdir); err != nil {
		fmt.Fprintln(os.Stderr, "ports:", err)
		os.Exit(1)
	}
}

func run(pkg, out, tzdir string) error {
	if pkg == "" {
		return errors.New("-package is required")
	}
	var zones zoneTable
	for name, read := range map[string]func(io.Reader, *zoneTable) error{"zone.tab": readZoneTab, "tzdata.zi": readLinks} {
		f, err := os.Open(filepath.Join(tzdir, name))
		if err != nil {
			return err
		}
		err = read(f, &zones)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	raw, err := os.ReadFile(filepath.Join(pkg, "lib", "ports.json"))
	if err != nil {
		return err
	}
	var src map[string]sourcePort
	if err := json.Unmarshal(raw, &src); err != nil {
		return fmt.Errorf("lib/ports.json: %w", err)
	}
	ports, err := convert(src, zones)
	if err != nil {
		return err
	}
	published := make([]port, len(ports))
	copy(published, ports)
	before, after, err := placeOnWater(ports)
	if err != nil {
		return err
	}
	fmt.Printf("ports more than 5 km from water (Natural Earth 1:50m): %d before, %d after\n", before, after)
	doc, err := encode(ports)
	if err != nil {
		return err
	}
	license, err := os.ReadFile(filepath.Join(pkg, "LICENSE"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "ports.json"), doc, 0o644); err != nil {
		return err
	}
	// The source's own coordinates of every port the generator moved, so that the router's tests
	// can take them as published (the source's coordinates are what a user may type in).
	var moved []port
	for i, p := range ports {
		if o := published[i]; o.Lat != nil && (*o.Lat != *p.Lat || *o.Lon != *p.Lon) {
			moved = append(moved, port{LOCODE: o.LOCODE, Name: o.Name, Country: o.Country, CountryCode: o.CountryCode, Lat: o.Lat, Lon: o.Lon})
		}
	}
	if doc, err = encode(moved); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "published.json"), doc, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "LICENSE.sea-ports"), license, 0o644)
}

func convert(src map[string]sourcePort, zones zoneTable) ([]port, error) {
	ports := make([]port, 0, len(src))
	for code, s := range src {
		if !boxwatch.IsLOCODE(code) {
			return nil, fmt.Errorf("%q is not a UN/LOCODE", code)
		}
		p := port{
			LOCODE:      code,
			Name:        strings.TrimSpace(s.Name),
			City:        strings.TrimSpace(s.City),
			State:       strings.TrimSpace(s.Province),
			Country:     strings.TrimSpace(s.Country),
			CountryCode: code[:2],
			TimeZone:    s.TimeZone,
		}
		if _, err := time.LoadLocation(s.TimeZone); err != nil {
			p.TimeZone = "" // not an IANA zone ("America/Argentina" is a region, not a zone)
		}
		if p.Name == "" {
			return nil, fmt.Errorf("%s has no name", code)
		}
		switch len(s.Coordinates) {
		case 0:
		case 2:
			lon, lat := s.Coordinates[0], s.Coordinates[1]
			if lat < -90 || lat > 90 || lon < -180 || lon > 180 {
				return nil, fmt.Errorf("%s: coordinates %v out of range", code, s.Coordinates)
			}
			p.Lat, p.Lon = &lat, &lon
		default:
			return nil, fmt.Errorf("%s: coordinates %v are not [lon, lat]", code, s.Coordinates)
		}
		if p.TimeZone != "" {
			p.TimeZone = zones.zoneFor(code, p.CountryCode, p.TimeZone, p.Lat, p.Lon)
		}
		ports = append(ports, p)
	}
	slices.SortFunc(ports, func(a, b port) int { return strings.Compare(a.LOCODE, b.LOCODE) })
	return ports, nil
}

// encode writes a JSON array with one port per line, so that diffs show changed ports.
func encode(ports []port) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("[\n")
	for i, p := range ports {
		var line bytes.Buffer
		enc := json.NewEncoder(&line)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(p); err != nil {
			return nil, err
		}
		b.Write(bytes.TrimSuffix(line.Bytes(), []byte("\n")))
		if i < len(ports)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]\n")
	return b.Bytes(), nil
}
