package boxwatch

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Railway is a rail carrier that moves containers inland, known by its SCAC (for a North
// American railroad, its AAR reporting mark, which serves as its Standard Carrier Alpha Code).
type Railway struct {
	SCAC string
	Name string
	// ShortNames are the names the trade and carriers use for it in rail terminals' names
	// ("BNSF Logistics Park Chicago", "CSX Bedford Park"), its SCAC among them.
	ShortNames []string
	// Country is the ISO 3166-1 alpha-2 code of its home country.
	Country string
}

// Railways is a read-only set of railways, safe for concurrent use.
type Railways struct {
	all []Railway
}

// LoadRailways parses a railway list (data/railways/railways.json's shape). It rejects an
// unknown field, a SCAC that is not two to four capital letters, a railway without a name, and
// a SCAC or short name listed twice.
func LoadRailways(r io.Reader) (*Railways, error) {
	var doc struct {
		Railways []struct {
			SCAC       string   `json:"scac"`
			Name       string   `json:"name"`
			ShortNames []string `json:"short_names"`
			Country    string   `json:"country"`
		} `json:"railways"`
	}
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("railways: %w", err)
	}
	out := &Railways{}
	seen := map[string]string{}
	for i, d := range doc.Railways {
		switch {
		case !railSCAC(d.SCAC):
			return nil, fmt.Errorf("railways: #%d: SCAC %q is not two to four capital letters", i, d.SCAC)
		case d.Name == "":
			return nil, fmt.Errorf("railways: #%d (%s): no name", i, d.SCAC)
		case len(d.Country) != 2 || strings.ToUpper(d.Country) != d.Country:
			return nil, fmt.Errorf("railways: #%d (%s): country %q is not an ISO 3166-1 alpha-2 code", i, d.SCAC, d.Country)
		}
		names := slices.Compact(slices.Sorted(slices.Values(append([]string{d.SCAC}, d.ShortNames...))))
		for _, n := range names {
			if n == "" || strings.ContainsAny(n, " \t") {
				return nil, fmt.Errorf("railways: %s: short name %q is empty or more than one word", d.SCAC, n)
			}
			if other, dup := seen[n]; dup {
				return nil, fmt.Errorf("railways: %q names both %s and %s", n, other, d.SCAC)
			}
			seen[n] = d.SCAC
		}
		out.all = append(out.all, Railway{SCAC: d.SCAC, Name: d.Name, ShortNames: names, Country: d.Country})
	}
	return out, nil
}

// railSCAC reports whether s is two to four capital letters, as a railway's SCAC is.
func railSCAC(s string) bool {
	if len(s) < 2 || len(s) > 4 {
		return false
	}
	for _, c := range s {
		if c < 'A' || c > 'Z' {
			return false
		}
	}
	return true
}

// All returns every railway; the caller owns the slice, not the railways' ShortNames.
func (rs *Railways) All() []Railway { return slices.Clone(rs.all) }

// BySCAC returns the railway of a SCAC.
func (rs *Railways) BySCAC(scac string) (Railway, bool) {
	for _, r := range rs.all {
		if r.SCAC == scac {
			return r, true
		}
	}
	return Railway{}, false
}

// Named returns the railway a facility's name names, as carriers name rail terminals after the
// railway that serves them ("UP Global IV Intermodal Terminal", "… on-dock rail (BNSF)"): the
// first word of the name that is a railway's short name, matched whole and in capitals. ok is
// false for a nil set or a name that names none.
func (rs *Railways) Named(facility string) (Railway, bool) {
	if rs == nil {
		return Railway{}, false
	}
	words := strings.FieldsFunc(facility, func(c rune) bool {
		return !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9')
	})
	for _, w := range words {
		for _, r := range rs.all {
			if slices.Contains(r.ShortNames, w) {
				return r, true
			}
		}
	}
	return Railway{}, false
}
