package boxwatch

import (
	"encoding/json"
	"fmt"
	"io"
)

// Lessor is a container leasing company. Its boxes travel with any shipping line, so its owner
// prefixes say nothing about the carrier of a container.
type Lessor struct {
	Name string `json:"name"`
	Note string `json:"note,omitempty"`
	// ContainerPrefixes are the ISO 6346 owner prefixes (owner code plus category letter)
	// registered to the company.
	ContainerPrefixes []string `json:"container_prefixes"`
}

// LoadLessors reads a lessor document: {"lessors": [...]}. It fails on a malformed document, a
// lessor without a name, a prefix that is not an owner prefix (three letters and U, J or Z) or a
// prefix listed twice.
func LoadLessors(r io.Reader) ([]Lessor, error) {
	var doc struct {
		Lessors []Lessor `json:"lessors"`
	}
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return nil, fmt.Errorf("lessor list: %w", err)
	}
	seen := map[string]bool{}
	for i, l := range doc.Lessors {
		if l.Name == "" {
			return nil, fmt.Errorf("lessor list: entry %d has no name", i)
		}
		for _, p := range l.ContainerPrefixes {
			if !IsOwnerPrefix(p) {
				return nil, fmt.Errorf("lessor list: %s: %q is not an owner prefix", l.Name, p)
			}
			if seen[p] {
				return nil, fmt.Errorf("lessor list: prefix %s is listed twice", p)
			}
			seen[p] = true
		}
	}
	return doc.Lessors, nil
}

// IsOwnerPrefix reports whether s is an ISO 6346 owner prefix: a three-letter owner code followed
// by the category letter U, J or Z.
func IsOwnerPrefix(s string) bool {
	if len(s) != 4 {
		return false
	}
	for i := 0; i < 3; i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return s[3] == 'U' || s[3] == 'J' || s[3] == 'Z'
}
