package boxwatch

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// RequestType is the kind of number a tracking request carries.
type RequestType string

const (
	RequestBillOfLading  RequestType = "bill_of_lading"
	RequestBookingNumber RequestType = "booking_number"
	RequestContainer     RequestType = "container"
)

// RequestTypes lists every request type, in the order the API documents them.
var RequestTypes = []RequestType{RequestBillOfLading, RequestBookingNumber, RequestContainer}

// TrackingSupport says which number types a shipping line can be tracked by.
type TrackingSupport struct {
	BillOfLading  bool `json:"bill_of_lading"`
	BookingNumber bool `json:"booking_number"`
	Container     bool `json:"container"`
}

// Supports reports whether numbers of type t can be tracked.
func (s TrackingSupport) Supports(t RequestType) bool {
	switch t {
	case RequestBillOfLading:
		return s.BillOfLading
	case RequestBookingNumber:
		return s.BookingNumber
	case RequestContainer:
		return s.Container
	}
	return false
}

// ShippingLine is an ocean carrier as the registry describes it.
type ShippingLine struct {
	// ID is a UUID derived from the SCAC, so it is the same on every installation.
	ID               string   `json:"-"`
	SCAC             string   `json:"scac"`
	Name             string   `json:"name"`
	ShortName        string   `json:"short_name"`
	AlternativeSCACs []string `json:"alternative_scacs"`
	// SMDGCode is the carrier's code in the SMDG list, used by DCSA messages; empty when unknown.
	SMDGCode string          `json:"smdg_code"`
	Support  TrackingSupport `json:"tracking_support"`
	// ContainerPrefixes are the ISO 6346 owner prefixes (owner code plus category) of the line's
	// own equipment, including those of lines it absorbed.
	ContainerPrefixes []string `json:"container_prefixes"`
	// BillOfLadingPrefixes are the prefixes the line puts in front of its bill-of-lading numbers;
	// they are not always its SCAC (MSC bills start with MEDU).
	BillOfLadingPrefixes []string `json:"bill_of_lading_prefixes"`
	// TestLine marks a line for integration tests (boxwatch's TEST): its numbers need not be real
	// ISO 6346 container numbers or bill formats, and its unknown numbers fail at once, with no
	// manifest to wait for.
	TestLine bool `json:"test_line"`
	// Extra holds registry fields this package does not interpret (number formats and the like),
	// keyed by field name, for the packages that do.
	Extra map[string]json.RawMessage `json:"-"`
}

// Carriers is the registry of shipping lines. It is read-only after loading and safe for
// concurrent use.
type Carriers struct {
	lines  []ShippingLine
	bySCAC map[string]int // primary and alternative SCACs
	byID   map[string]int
}

// LoadCarriers reads a registry document: {"shipping_lines": [...]}. It fails on a malformed
// document, a SCAC that is not four upper-case letters, or a SCAC listed twice.
func LoadCarriers(r io.Reader) (*Carriers, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Lines []json.RawMessage `json:"shipping_lines"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("carrier registry: %w", err)
	}
	c := &Carriers{bySCAC: map[string]int{}, byID: map[string]int{}}
	for i, msg := range doc.Lines {
		var l ShippingLine
		if err := json.Unmarshal(msg, &l); err != nil {
			return nil, fmt.Errorf("carrier registry: entry %d: %w", i, err)
		}
		if err := json.Unmarshal(msg, &l.Extra); err != nil {
			return nil, fmt.Errorf("carrier registry: entry %d: %w", i, err)
		}
		for _, k := range []string{"scac", "name", "short_name", "alternative_scacs", "smdg_code", "tracking_support", "container_prefixes", "bill_of_lading_prefixes", "test_line"} {
			delete(l.Extra, k)
		}
		if l.Name == "" {
			return nil, fmt.Errorf("carrier registry: entry %d (%s) has no name", i, l.SCAC)
		}
		if l.AlternativeSCACs == nil {
			l.AlternativeSCACs = []string{}
		}
		l.ID = ShippingLineID(l.SCAC)
		idx := len(c.lines)
		for _, s := range append([]string{l.SCAC}, l.AlternativeSCACs...) {
			if !IsSCAC(s) {
				return nil, fmt.Errorf("carrier registry: %q is not a SCAC (four upper-case letters)", s)
			}
			if _, dup := c.bySCAC[s]; dup {
				return nil, fmt.Errorf("carrier registry: SCAC %s is listed twice", s)
			}
			c.bySCAC[s] = idx
		}
		c.byID[l.ID] = idx
		c.lines = append(c.lines, l)
	}
	return c, nil
}

// ShippingLineID derives the stable UUID of the line with scac.
func ShippingLineID(scac string) string { return NameUUID("boxwatch/shipping_line/" + scac) }

// IsSCAC reports whether s has the shape of a Standard Carrier Alpha Code: four upper-case
// letters. Whether a line uses it is the registry's to say (Carriers.BySCAC).
func IsSCAC(s string) bool {
	if len(s) != 4 {
		return false
	}
	for i := 0; i < 4; i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// All returns every shipping line in registry order. The slice must not be modified.
func (c *Carriers) All() []ShippingLine { return c.lines }

// BySCAC finds a line by its SCAC or one of its alternative SCACs.
func (c *Carriers) BySCAC(scac string) (ShippingLine, bool) {
	i, ok := c.bySCAC[scac]
	if !ok {
		return ShippingLine{}, false
	}
	return c.lines[i], true
}

// ByID finds a line by its UUID.
func (c *Carriers) ByID(id string) (ShippingLine, bool) {
	i, ok := c.byID[id]
	if !ok {
		return ShippingLine{}, false
	}
	return c.lines[i], true
}

// Matches reports whether a search text names the line: a case-insensitive part of its name or
// short name, or one of its SCACs in full.
func (l ShippingLine) Matches(search string) bool {
	search = strings.TrimSpace(search)
	if search == "" {
		return false
	}
	if EqualFoldASCII(l.SCAC, search) || slices.ContainsFunc(l.AlternativeSCACs, func(s string) bool { return EqualFoldASCII(s, search) }) {
		return true
	}
	lower := strings.ToLower(search)
	return strings.Contains(strings.ToLower(l.Name), lower) || strings.Contains(strings.ToLower(l.ShortName), lower)
}
