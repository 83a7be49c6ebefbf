package boxwatch

import (
	"encoding/json"
	"fmt"
	"io"
)

// Ports is a port reference list keyed by UN/LOCODE. It is read-only after loading and safe for
// concurrent use.
type Ports struct {
	list     []Port
	byLOCODE map[string]int
	byID     map[string]int
}

// LoadPorts reads a port list in the format of data/ports/ports.json: a JSON array of objects with
// locode, name, city, state, country, country_code, time_zone, lat and lon. It fails on a
// malformed document, a LOCODE that is not two letters and three letters or digits 2–9, a
// LOCODE listed twice, a port without a name, or coordinates out of range.
func LoadPorts(r io.Reader) (*Ports, error) {
	var doc []struct {
		LOCODE      string   `json:"locode"`
		Name        string   `json:"name"`
		City        string   `json:"city"`
		State       string   `json:"state"`
		Country     string   `json:"country"`
		CountryCode string   `json:"country_code"`
		TimeZone    string   `json:"time_zone"`
		Lat         *float64 `json:"lat"`
		Lon         *float64 `json:"lon"`
	}
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return nil, fmt.Errorf("port list: %w", err)
	}
	p := &Ports{list: make([]Port, 0, len(doc)), byLOCODE: make(map[string]int, len(doc)), byID: make(map[string]int, len(doc))}
	for i, d := range doc {
		if !IsLOCODE(d.LOCODE) {
			return nil, fmt.Errorf("port list: entry %d: %q is not a UN/LOCODE", i, d.LOCODE)
		}
		if _, dup := p.byLOCODE[d.LOCODE]; dup {
			return nil, fmt.Errorf("port list: %s is listed twice", d.LOCODE)
		}
		if d.Name == "" {
			return nil, fmt.Errorf("port list: %s has no name", d.LOCODE)
		}
		port := Port{
			ID:          PortID(d.LOCODE),
			LOCODE:      d.LOCODE,
			Name:        d.Name,
			City:        d.City,
			State:       d.State,
			Country:     d.Country,
			CountryCode: d.LOCODE[:2],
			TimeZone:    d.TimeZone,
		}
		if (d.Lat == nil) != (d.Lon == nil) {
			return nil, fmt.Errorf("port list: %s has only one of lat and lon", d.LOCODE)
		}
		if d.Lat != nil {
			if *d.Lat < -90 || *d.Lat > 90 || *d.Lon < -180 || *d.Lon > 180 {
				return nil, fmt.Errorf("port list: %s has coordinates out of range", d.LOCODE)
			}
			port.Latitude, port.Longitude, port.HasCoordinates = *d.Lat, *d.Lon, true
		}
		p.byLOCODE[port.LOCODE] = len(p.list)
		p.byID[port.ID] = len(p.list)
		p.list = append(p.list, port)
	}
	return p, nil
}

// IsLOCODE reports whether s has the shape of a UN/LOCODE: a two-letter country code and three
// upper-case letters or digits 2–9. Whether the place exists is the port list's to say.
func IsLOCODE(s string) bool {
	if len(s) != 5 {
		return false
	}
	for i := 0; i < 5; i++ {
		c := s[i]
		letter := c >= 'A' && c <= 'Z'
		if !letter && (i < 2 || c < '2' || c > '9') {
			return false
		}
	}
	return true
}

// All returns every port in list order (LOCODE order for the shipped list). The slice must not
// be modified.
func (p *Ports) All() []Port { return p.list }

// ByLOCODE finds a port by its UN/LOCODE, in any letter case.
func (p *Ports) ByLOCODE(locode string) (Port, bool) {
	i, ok := p.byLOCODE[UpperASCII(locode)]
	if !ok {
		return Port{}, false
	}
	return p.list[i], true
}

// ByID finds a port by its UUID (see PortID).
func (p *Ports) ByID(id string) (Port, bool) {
	i, ok := p.byID[LowerASCII(id)]
	if !ok {
		return Port{}, false
	}
	return p.list[i], true
}
