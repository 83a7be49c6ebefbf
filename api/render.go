package api

import (
	"time"

	"github.com/boxwatch/boxwatch"
)

// optTime renders a time as ISO 8601 UTC, or null when unknown.
func optTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(boxwatch.TimeFormat)
	return &s
}

// optString renders "" as null.
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// portRenderer finds ports for the port endpoints, by id or UN/LOCODE.
type portRenderer struct{ ports boxwatch.PortLookup }

// lookup finds a port by its id or UN/LOCODE.
func (p portRenderer) lookup(id string) (boxwatch.Port, bool) {
	if p.ports == nil {
		return boxwatch.Port{}, false
	}
	if pt, ok := p.ports.ByID(id); ok {
		return pt, true
	}
	return p.ports.ByLOCODE(id)
}
