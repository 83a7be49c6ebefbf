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

func linkTo(id, typ string) toOne {
	if id == "" {
		return toOne{}
	}
	return toOne{Data: &resourceIdentifier{ID: id, Type: typ}}
}

type toMany struct {
	Data []resourceIdentifier `json:"data"`
}

// portRenderer renders what a route knows of ports: names, time zones.
type portRenderer struct{ ports boxwatch.PortLookup }

func (p portRenderer) port(locode string) (boxwatch.Port, bool) {
	if locode == "" || p.ports == nil {
		return boxwatch.Port{}, false
	}
	return p.ports.ByLOCODE(locode)
}

func (p portRenderer) name(locode string) *string {
	if pt, ok := p.port(locode); ok {
		return &pt.Name
	}
	return nil
}

func (p portRenderer) tz(locode string) *string {
	if pt, ok := p.port(locode); ok && pt.TimeZone != "" {
		return &pt.TimeZone
	}
	return nil
}

func (p portRenderer) id(locode string) string {
	if locode == "" {
		return ""
	}
	return boxwatch.PortID(locode)
}
