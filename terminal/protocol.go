package terminal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	_ "time/tzdata" // a terminal's time zone is read the same on every machine

	"github.com/boxwatch/boxwatch"
)

// Wire types of the boxwatch terminal protocol, version 1.1 (docs/terminals.md; 1.1 adds optional
// members only, so that a 1.0 reader still reads every 1.1 answer): one container as
// a terminal operating system reports it. The simulator's terminals write them; Parse reads them.

// Statuses of a container at a terminal (Container.Status).
const (
	StatusInbound       = "inbound"        // on a vessel bound for the terminal
	StatusInYard        = "in_yard"        // discharged, in the terminal
	StatusDeparted      = "departed"       // left through the gate, full
	StatusEmptyReturned = "empty_returned" // came back empty
	StatusElsewhere     = "elsewhere"      // at another terminal, named in Terminal
)

// Hold statuses on the wire; a released hold is reported as released or not at all.
const (
	HoldHold     = "hold"
	HoldPending  = "pending"
	HoldReleased = "released"
)

// Container is the answer to GET {base}/v1/containers/{number}.
type Container struct {
	Number string `json:"container_number"`
	Status string `json:"status"`
	// Terminal is the terminal that answers, or with status elsewhere the one the box is at.
	Terminal *Facility `json:"terminal,omitempty"`
	// TimeZone is the terminal's IANA time zone: the last free days are dates there.
	TimeZone           string        `json:"time_zone,omitempty"`
	CheckedAt          string        `json:"checked_at"`
	AvailableForPickup *bool         `json:"available_for_pickup,omitempty"`
	Holds              []Hold        `json:"holds,omitempty"`
	Fees               []Fee         `json:"fees,omitempty"`
	LastFreeDay        *LastFreeDays `json:"last_free_day,omitempty"`
	Appointment        *Appointment  `json:"appointment,omitempty"`
	YardLocation       string        `json:"yard_location,omitempty"`
	DischargedAt       string        `json:"discharged_at,omitempty"`
	FullOutAt          string        `json:"full_out_at,omitempty"`
	EmptyInAt          string        `json:"empty_in_at,omitempty"`
	// VesselBerthedAt is when the box's vessel came alongside the terminal's berth (1.1).
	VesselBerthedAt string `json:"vessel_berthed_at,omitempty"`
	// OffDock is the off-dock yard the terminal moved the box to, full (1.1); the status is
	// departed from the move on.
	OffDock *OffDock `json:"off_dock,omitempty"`
}

// OffDock is a move of a full box from the terminal to an off-dock yard (or another facility of
// the terminal's outside its gate), from which it is picked up.
type OffDock struct {
	Name      string `json:"name"`
	FIRMSCode string `json:"firms_code,omitempty"`
	MovedAt   string `json:"moved_at"`
}

// Facility names a terminal by its port and codes.
type Facility struct {
	LOCODE    string `json:"locode"`
	SMDGCode  string `json:"smdg_code,omitempty"`
	FIRMSCode string `json:"firms_code,omitempty"`
	Name      string `json:"name,omitempty"`
}

// Hold is a hold on the box, by type: customs, freight, usda, tmf or other.
type Hold struct {
	Type        string `json:"type"`
	Status      string `json:"status"`
	Description string `json:"description,omitempty"`
}

// Fee is an amount owed, by type: demurrage, exam, extended_dwell_time, other or total.
type Fee struct {
	Type     string  `json:"type"`
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
}

// LastFreeDays are the last free days, as dates (YYYY-MM-DD) at the terminal: the terminal's own
// and the shipping line's, which differ.
type LastFreeDays struct {
	Terminal string `json:"terminal,omitempty"`
	Line     string `json:"line,omitempty"`
}

// Appointment is the pickup appointment booked for the box.
type Appointment struct {
	At string `json:"at"`
}

// Error is the body of an answer other than 200.
type Error struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// Bounds of what Parse accepts.
const (
	// MaxResponseBytes is the largest answer read; a longer one is unrecognized.
	MaxResponseBytes = 256 << 10
	maxListed        = 100 // holds or fees
	maxText          = 200 // bytes of a code, name, description or yard location
)

// Parse reads a terminal's answer about container (its number, upper case) into a report. It
// fails, with a message quoting what was wrong, on a body that is not the protocol's: malformed
// JSON, another container's number, an unknown status, hold or fee type, a missing or unreadable
// time, a negative or non-finite amount, a currency that is not three letters, text or lists
// past their bounds. Released holds are left out; a fee of zero is kept.
func Parse(body []byte, container string) (boxwatch.TerminalReport, error) {
	var r boxwatch.TerminalReport
	if len(body) > MaxResponseBytes {
		return r, fmt.Errorf("answer of %d bytes is longer than %d", len(body), MaxResponseBytes)
	}
	var c Container
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&c); err != nil {
		return r, fmt.Errorf("not a container document: %w", err)
	}
	if dec.More() {
		return r, errors.New("data after the container document")
	}
	if !strings.EqualFold(c.Number, container) {
		return r, fmt.Errorf("answer is about container %.20q, not %s", c.Number, container)
	}
	loc := time.UTC
	if c.TimeZone != "" {
		l, err := location(c.TimeZone)
		if err != nil {
			return r, err
		}
		loc = l
	}
	var err error
	if r.CheckedAt, err = instant("checked_at", c.CheckedAt, true); err != nil {
		return r, err
	}
	switch c.Status {
	case StatusInbound, StatusInYard, StatusDeparted, StatusEmptyReturned:
	case StatusElsewhere:
		if c.Terminal == nil {
			return r, errors.New("status elsewhere names no terminal")
		}
	default:
		return r, fmt.Errorf("unknown status %.30q", c.Status)
	}
	if c.Terminal != nil {
		f := c.Terminal
		for _, s := range []string{f.LOCODE, f.SMDGCode, f.FIRMSCode, f.Name} {
			if err := text("terminal", s); err != nil {
				return r, err
			}
		}
		if f.LOCODE != "" && len(f.LOCODE) != 5 || f.SMDGCode == "" && f.FIRMSCode == "" {
			return r, fmt.Errorf("terminal %.20q/%.20q/%.20q is not a port with an SMDG or FIRMS code", f.LOCODE, f.SMDGCode, f.FIRMSCode)
		}
		if c.Status == StatusElsewhere {
			r.At = boxwatch.TerminalRef{LOCODE: strings.ToUpper(f.LOCODE), SMDGCode: strings.ToUpper(f.SMDGCode), FIRMSCode: strings.ToUpper(f.FIRMSCode)}
			return r, nil
		}
	}
	r.Available = c.AvailableForPickup
	if len(c.Holds) > maxListed || len(c.Fees) > maxListed {
		return r, fmt.Errorf("more than %d holds or fees", maxListed)
	}
	for _, h := range c.Holds {
		typ := strings.ToLower(h.Type)
		switch {
		case !slices.Contains(boxwatch.HoldTypes, typ):
			return r, fmt.Errorf("unknown hold type %.30q", h.Type)
		case h.Status == HoldReleased:
			continue
		case !slices.Contains(boxwatch.HoldStatuses, h.Status):
			return r, fmt.Errorf("unknown hold status %.30q", h.Status)
		}
		if err := text("hold description", h.Description); err != nil {
			return r, err
		}
		r.Holds = append(r.Holds, boxwatch.TerminalHold{Name: typ, Status: h.Status, Description: h.Description})
	}
	for _, f := range c.Fees {
		typ := strings.ToLower(f.Type)
		switch {
		case !slices.Contains(boxwatch.FeeTypes, typ):
			return r, fmt.Errorf("unknown fee type %.30q", f.Type)
		case f.Amount < 0 || math.IsNaN(f.Amount) || math.IsInf(f.Amount, 0) || f.Amount > 1e9:
			return r, fmt.Errorf("fee amount %v is not an amount", f.Amount)
		case len(f.Currency) != 3 || strings.ToUpper(f.Currency) != f.Currency || strings.ContainsFunc(f.Currency, func(c rune) bool { return c < 'A' || c > 'Z' }):
			return r, fmt.Errorf("currency %.10q is not an ISO 4217 code", f.Currency)
		}
		r.Fees = append(r.Fees, boxwatch.TerminalFee{Type: typ, Amount: f.Amount, Currency: f.Currency})
	}
	if lfd := c.LastFreeDay; lfd != nil {
		if r.TerminalLFD, err = date("last_free_day.terminal", lfd.Terminal, loc); err != nil {
			return r, err
		}
		if r.LineLFD, err = date("last_free_day.line", lfd.Line, loc); err != nil {
			return r, err
		}
	}
	if a := c.Appointment; a != nil {
		if r.AppointmentAt, err = instant("appointment.at", a.At, true); err != nil {
			return r, err
		}
	}
	if err := text("yard_location", c.YardLocation); err != nil {
		return r, err
	}
	r.Location = c.YardLocation
	for _, t := range []struct {
		name, v string
		dst     *time.Time
	}{{"discharged_at", c.DischargedAt, &r.DischargedAt}, {"full_out_at", c.FullOutAt, &r.FullOutAt}, {"empty_in_at", c.EmptyInAt, &r.EmptyInAt},
		{"vessel_berthed_at", c.VesselBerthedAt, &r.VesselBerthedAt}} {
		if *t.dst, err = instant(t.name, t.v, false); err != nil {
			return r, err
		}
	}
	if o := c.OffDock; o != nil {
		for _, s := range []string{o.Name, o.FIRMSCode} {
			if err := text("off_dock", s); err != nil {
				return r, err
			}
		}
		if r.OffDockAt, err = instant("off_dock.moved_at", o.MovedAt, true); err != nil {
			return r, err
		}
		r.OffDockName = o.Name
	}
	return r, nil
}

// location reads an IANA time zone name; names that could reach outside the zone database are
// refused before it is asked.
func location(name string) (*time.Location, error) {
	if len(name) > 64 || strings.Contains(name, "..") || strings.HasPrefix(name, "/") ||
		strings.ContainsFunc(name, func(c rune) bool {
			return !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.ContainsRune("/_-+", c))
		}) {
		return nil, fmt.Errorf("time_zone %.70q is not an IANA time zone", name)
	}
	l, err := time.LoadLocation(name)
	if err != nil || name == "Local" {
		return nil, fmt.Errorf("time_zone %.70q is not an IANA time zone", name)
	}
	return l, nil
}

// instant reads an RFC 3339 time; an empty one is zero unless required.
func instant(name, v string, required bool) (time.Time, error) {
	if v == "" {
		if required {
			return time.Time{}, fmt.Errorf("%s is missing", name)
		}
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil || t.Year() < 1970 || t.Year() > 9999 {
		return time.Time{}, fmt.Errorf("%s %.40q is not an RFC 3339 time", name, v)
	}
	return t.UTC(), nil
}

// date reads a date (YYYY-MM-DD) as the start of that day in loc; an empty one is zero.
func date(name, v string, loc *time.Location) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.ParseInLocation(time.DateOnly, v, loc)
	if err != nil || t.Year() < 1970 {
		return time.Time{}, fmt.Errorf("%s %.40q is not a date (YYYY-MM-DD)", name, v)
	}
	return t.UTC(), nil
}

// text checks a code, name or description against maxText and control characters.
func text(name, s string) error {
	if len(s) > maxText {
		return fmt.Errorf("%s is longer than %d bytes", name, maxText)
	}
	if strings.ContainsFunc(s, func(c rune) bool { return c < 0x20 || c == 0x7f || c == '\uFFFD' }) {
		return fmt.Errorf("%s %.40q holds control characters or invalid UTF-8", name, s)
	}
	return nil
}
