package boxwatch

import (
	"encoding/json"
	"fmt"
	"io"
)

// LoadFleet reads a vessel list in the format of data/vessels/vessels.json: a JSON array of
// objects with imo, mmsi, name, call_sign and flag. It fails on a malformed document, an IMO
// number with a wrong check digit, an IMO number listed twice, an MMSI that is not nine digits,
// or a vessel without a name.
func LoadFleet(r io.Reader) ([]Vessel, error) {
	var doc []struct {
		IMO      string `json:"imo"`
		MMSI     string `json:"mmsi"`
		Name     string `json:"name"`
		CallSign string `json:"call_sign"`
		Flag     string `json:"flag"`
	}
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return nil, fmt.Errorf("vessel list: %w", err)
	}
	fleet := make([]Vessel, 0, len(doc))
	seen := make(map[string]bool, len(doc))
	for i, d := range doc {
		if !ValidIMO(d.IMO) {
			return nil, fmt.Errorf("vessel list: entry %d: %q is not a valid IMO number", i, d.IMO)
		}
		if seen[d.IMO] {
			return nil, fmt.Errorf("vessel list: IMO %s is listed twice", d.IMO)
		}
		seen[d.IMO] = true
		if d.MMSI != "" && (len(d.MMSI) != 9 || !IsDigits(d.MMSI)) {
			return nil, fmt.Errorf("vessel list: IMO %s: MMSI %q is not nine digits", d.IMO, d.MMSI)
		}
		if d.Name == "" {
			return nil, fmt.Errorf("vessel list: IMO %s has no name", d.IMO)
		}
		fleet = append(fleet, Vessel{
			ID:       VesselID(d.IMO),
			IMO:      d.IMO,
			MMSI:     d.MMSI,
			Name:     d.Name,
			CallSign: d.CallSign,
			Flag:     d.Flag,
		})
	}
	return fleet, nil
}

// IsDigits reports whether s is one or more ASCII digits.
func IsDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
