package boxwatch

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// TerminalRef names a container terminal as the systems around it do: the port's UN/LOCODE with
// the terminal's SMDG code (carriers' name for it), its FIRMS code (US Customs' name for it), or
// both. A ref with neither code names no terminal.
type TerminalRef struct {
	LOCODE    string
	SMDGCode  string `json:",omitempty"`
	FIRMSCode string `json:",omitempty"`
}

// IsZero reports whether the ref names no terminal.
func (r TerminalRef) IsZero() bool { return r.SMDGCode == "" && r.FIRMSCode == "" }

// ID is the id of the terminal the ref names: by its SMDG code when it has one, else by its FIRMS
// code; "" when it names none.
func (r TerminalRef) ID() string {
	switch {
	case r.SMDGCode != "":
		return TerminalID(r.LOCODE, r.SMDGCode)
	case r.FIRMSCode != "":
		return NameUUID("boxwatch/terminal/firms/" + r.FIRMSCode)
	}
	return ""
}

func (r TerminalRef) String() string {
	switch {
	case r.SMDGCode != "" && r.FIRMSCode != "":
		return r.LOCODE + "/" + r.SMDGCode + " (FIRMS " + r.FIRMSCode + ")"
	case r.SMDGCode != "":
		return r.LOCODE + "/" + r.SMDGCode
	}
	return "FIRMS " + r.FIRMSCode
}

// Ref is the terminal's ref.
func (t Terminal) Ref() TerminalRef {
	return TerminalRef{LOCODE: t.LOCODE, SMDGCode: t.SMDGCode, FIRMSCode: t.FIRMSCode}
}

// TerminalQuery is what a terminal's system is asked about one container. Terminals know boxes by
// number; the line and the shipment's documents help those that key their records by them too.
type TerminalQuery struct {
	Terminal TerminalRef
	// Container is the container number.
	Container string
	// SCAC is the shipping line's primary SCAC.
	SCAC         string
	BillOfLading string
	Booking      string
}

// TerminalSource is a terminal operating system (or a gateway in front of several) that reports
// what it holds of one container. Check returns a *TerminalError for every failure the terminal
// causes: not knowing the box (Reason TerminalNotFound), being unreachable, overloaded or rate
// limiting (Temporary), or answering what cannot be read (TerminalUnrecognized). Any other
// error is boxwatch's own.
type TerminalSource interface {
	Check(ctx context.Context, q TerminalQuery) (TerminalReport, error)
}

// TerminalDirectory finds the source that answers for a terminal; nil when none does.
type TerminalDirectory interface {
	Source(t TerminalRef) TerminalSource
}

// Failure reasons of terminal checks (TerminalError.Reason, Container.TerminalFailedReason).
const (
	TerminalNotFound     = "not_found"
	TerminalUnreachable  = "terminal_unreachable"
	TerminalRateLimited  = "rate_limited"
	TerminalUnrecognized = "unrecognized_response"
	TerminalUnsupported  = "terminal_unsupported"
	TerminalInternal     = "internal_processing_error"
)

// TerminalError is a failure caused by a terminal's system, with the reason it is recorded under.
type TerminalError struct {
	Reason string
	// Temporary failures (timeouts, 5xx, 429) are retried sooner than the schedule.
	Temporary bool
	// RetryAfter is the terminal's own hint; zero when it gave none.
	RetryAfter time.Duration
	// Err is the cause, for logs; it never reaches API clients.
	Err error
}

func (e *TerminalError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("terminal: %s: %v", e.Reason, e.Err)
	}
	return "terminal: " + e.Reason
}

func (e *TerminalError) Unwrap() error { return e.Err }

// TerminalBusy is what a source that paces its own checks returns when a check would wait longer
// for its turn than the source lets one wait: nothing was asked of the terminal, nothing failed,
// and the check is to be made again after Wait. The caller is free meanwhile for checks of other
// terminals.
type TerminalBusy struct {
	Terminal TerminalRef
	Wait     time.Duration
}

func (e *TerminalBusy) Error() string {
	return fmt.Sprintf("terminal %s: its checks are paced: the next turn is in %v", e.Terminal, e.Wait)
}

// TerminalReport is what a terminal says of a container as of CheckedAt. Zero times, nil
// pointers and empty lists are what it does not say.
type TerminalReport struct {
	CheckedAt time.Time
	// At is the terminal the box is actually at, when the terminal says it is another one than
	// the terminal asked (a box discharged at a sister terminal); zero otherwise.
	At TerminalRef `json:",omitzero"`
	// Available is whether the box can be picked up now.
	Available *bool          `json:",omitempty"`
	Holds     []TerminalHold `json:",omitempty"`
	Fees      []TerminalFee  `json:",omitempty"`
	// TerminalLFD is the terminal's last free day (storage), LineLFD the shipping line's
	// (demurrage); the two are distinct and either may be unknown.
	TerminalLFD time.Time `json:",omitzero"`
	LineLFD     time.Time `json:",omitzero"`
	// AppointmentAt is the pickup appointment booked for the box.
	AppointmentAt time.Time `json:",omitzero"`
	// Location is where the box stands in the yard.
	Location string `json:",omitempty"`
	// DischargedAt, FullOutAt and EmptyInAt are the terminal's own records of the box coming off
	// the vessel, leaving through the gate full, and coming back empty.
	DischargedAt time.Time `json:",omitzero"`
	FullOutAt    time.Time `json:",omitzero"`
	EmptyInAt    time.Time `json:",omitzero"`
	// VesselBerthedAt is when the box's vessel came alongside the terminal's berth.
	VesselBerthedAt time.Time `json:",omitzero"`
	// OffDockAt is when the terminal moved the box, full, to the off-dock yard OffDockName.
	OffDockAt   time.Time `json:",omitzero"`
	OffDockName string    `json:",omitempty"`
}

// TerminalHold is a hold on a container at the terminal.
type TerminalHold struct {
	// Name is the hold's type: customs, freight, usda, tmf, other, …
	Name string
	// Status is "hold" or "pending"; a released hold is no longer listed.
	Status      string
	Description string `json:",omitempty"`
}

// TerminalFee is a fee owed at the terminal, in Currency (ISO 4217).
type TerminalFee struct {
	// Type is demurrage, exam, extended_dwell_time, other or total.
	Type     string
	Amount   float64
	Currency string
}

// Hold types and statuses, and fee types, the reference API names.
var (
	HoldTypes    = []string{"customs", "freight", "usda", "tmf", "other"}
	HoldStatuses = []string{"hold", "pending"}
	FeeTypes     = []string{"demurrage", "exam", "extended_dwell_time", "other", "total"}
)

// LoadTerminals parses the terminal list (data/terminals/terminals.json): every listed terminal
// with its port, codes, names and address. It rejects a terminal without a port, without a code,
// or named twice (by id or FIRMS code).
func LoadTerminals(r io.Reader) ([]Terminal, error) {
	var doc struct {
		Terminals []struct {
			LOCODE    string `json:"locode"`
			SMDGCode  string `json:"smdg_code"`
			FIRMSCode string `json:"firms_code"`
			Name      string `json:"name"`
			Nickname  string `json:"nickname"`
			Street    string `json:"street"`
			City      string `json:"city"`
			State     string `json:"state"`
			StateAbbr string `json:"state_abbr"`
			Zip       string `json:"zip"`
			Country   string `json:"country"`
		} `json:"terminals"`
	}
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("terminals: %w", err)
	}
	out := make([]Terminal, 0, len(doc.Terminals))
	ids, firms, codes := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for i, t := range doc.Terminals {
		term := Terminal{LOCODE: t.LOCODE, SMDGCode: t.SMDGCode, FIRMSCode: t.FIRMSCode, Name: t.Name, Nickname: t.Nickname,
			Street: t.Street, City: t.City, State: t.State, StateAbbr: t.StateAbbr, Zip: t.Zip, Country: t.Country, Listed: true}
		term.ID = term.Ref().ID()
		// The store keeps one terminal per port and SMDG code, a FIRMS-only one under "".
		code := t.LOCODE + "/" + t.SMDGCode
		switch {
		case len(t.LOCODE) != 5 || strings.ToUpper(t.LOCODE) != t.LOCODE:
			return nil, fmt.Errorf("terminals: #%d: locode %q is not a UN/LOCODE", i, t.LOCODE)
		case term.ID == "":
			return nil, fmt.Errorf("terminals: #%d (%s): neither an SMDG nor a FIRMS code", i, t.Name)
		case t.Name == "":
			return nil, fmt.Errorf("terminals: #%d: no name", i)
		case ids[term.ID] || codes[code]:
			return nil, fmt.Errorf("terminals: %s is listed twice", term.Ref())
		case t.FIRMSCode != "" && firms[t.FIRMSCode]:
			return nil, fmt.Errorf("terminals: FIRMS code %s is listed twice", t.FIRMSCode)
		}
		ids[term.ID], codes[code] = true, true
		if t.FIRMSCode != "" {
			firms[t.FIRMSCode] = true
		}
		out = append(out, term)
	}
	return out, nil
}
