package boxwatch

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
)

// Waterway is a river or canal route that barges take inland from a sea port: its ports by
// UN/LOCODE, in order from the sea port upstream.
type Waterway struct {
	Name  string
	Ports []string
}

// Waterways is a read-only set of waterways, safe for concurrent use.
type Waterways struct {
	all []Waterway
}

// LoadWaterways parses a waterway list (data/waterways/waterways.json's shape). It rejects an
// unknown field, a waterway without a name or with fewer than two ports, a port that is not a
// UN/LOCODE, and a port listed twice on one waterway.
func LoadWaterways(r io.Reader) (*Waterways, error) {
	var doc struct {
		Waterways []struct {
			Name  string   `json:"name"`
			Ports []string `json:"ports"`
		} `json:"waterways"`
	}
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("waterways: %w", err)
	}
	out := &Waterways{}
	for i, d := range doc.Waterways {
		switch {
		case d.Name == "":
			return nil, fmt.Errorf("waterways: #%d: no name", i)
		case len(d.Ports) < 2:
			return nil, fmt.Errorf("waterways: %s: %d ports, want at least 2", d.Name, len(d.Ports))
		}
		for k, p := range d.Ports {
			if !IsLOCODE(p) {
				return nil, fmt.Errorf("waterways: %s: port %q is not a UN/LOCODE", d.Name, p)
			}
			if slices.Contains(d.Ports[:k], p) {
				return nil, fmt.Errorf("waterways: %s: port %s is listed twice", d.Name, p)
			}
		}
		out.all = append(out.all, Waterway{Name: d.Name, Ports: slices.Clone(d.Ports)})
	}
	return out, nil
}

// All returns every waterway; the caller owns the slice, not the waterways' Ports.
func (ws *Waterways) All() []Waterway { return slices.Clone(ws.all) }

// Between returns the ports a barge passes from one port to another, both included, in the
// order it passes them, along the first waterway that has both (upstream or down); ok is false
// for a nil set or when no waterway has both.
func (ws *Waterways) Between(from, to string) (ports []string, ok bool) {
	if ws == nil || from == to {
		return nil, false
	}
	for _, w := range ws.all {
		i, k := slices.Index(w.Ports, from), slices.Index(w.Ports, to)
		if i < 0 || k < 0 {
			continue
		}
		if i < k {
			return slices.Clone(w.Ports[i : k+1]), true
		}
		out := slices.Clone(w.Ports[k : i+1])
		slices.Reverse(out)
		return out, true
	}
	return nil, false
}
