package terminal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/boxwatch/boxwatch"
)

// Directory finds the source of a terminal: by its port and SMDG code, else by its FIRMS code.
// It is filled before use (Add) and read-only after, so safe for concurrent Source calls.
type Directory struct {
	sources map[string]boxwatch.TerminalSource
}

// NewDirectory returns an empty directory.
func NewDirectory() *Directory { return &Directory{sources: map[string]boxwatch.TerminalSource{}} }

// Key is the directory's (and the terminals file's) name of a terminal: "LOCODE/SMDG" when it has
// an SMDG code, else "FIRMS:CODE".
func Key(t boxwatch.TerminalRef) string {
	if t.SMDGCode != "" {
		return strings.ToUpper(t.LOCODE + "/" + t.SMDGCode)
	}
	return "FIRMS:" + strings.ToUpper(t.FIRMSCode)
}

// Add makes src the source of t under each code t has, replacing an earlier one.
func (d *Directory) Add(t boxwatch.TerminalRef, src boxwatch.TerminalSource) {
	if t.SMDGCode != "" {
		d.sources[Key(boxwatch.TerminalRef{LOCODE: t.LOCODE, SMDGCode: t.SMDGCode})] = src
	}
	if t.FIRMSCode != "" {
		d.sources[Key(boxwatch.TerminalRef{FIRMSCode: t.FIRMSCode})] = src
	}
}

// Source implements boxwatch.TerminalDirectory.
func (d *Directory) Source(t boxwatch.TerminalRef) boxwatch.TerminalSource {
	if t.SMDGCode != "" {
		if s, ok := d.sources[Key(boxwatch.TerminalRef{LOCODE: t.LOCODE, SMDGCode: t.SMDGCode})]; ok {
			return s
		}
	}
	if t.FIRMSCode != "" {
		if s, ok := d.sources[Key(boxwatch.TerminalRef{FIRMSCode: t.FIRMSCode})]; ok {
			return s
		}
	}
	return nil
}

// Len is how many codes the directory answers for.
func (d *Directory) Len() int { return len(d.sources) }

// Outcomes of a check, the outcome label of boxwatch_terminal_checks_total.
const (
	OutcomeOK        = "ok"
	OutcomeElsewhere = "elsewhere"
	OutcomeNotFound  = "not_found"
	OutcomeTemporary = "temporary"
	OutcomeFailed    = "failed"
	OutcomeError     = "error"
	// OutcomePaced: the check's turn was further away than a check may wait; nothing was asked.
	OutcomePaced = "paced"
)

var outcomes = []string{OutcomeOK, OutcomeElsewhere, OutcomeNotFound, OutcomeTemporary, OutcomeFailed, OutcomeError, OutcomePaced}

// Outcome classifies what a Check returned.
func Outcome(r boxwatch.TerminalReport, err error) string {
	var te *boxwatch.TerminalError
	var busy *boxwatch.TerminalBusy
	switch {
	case errors.As(err, &busy):
		return OutcomePaced
	case err == nil && !r.At.IsZero():
		return OutcomeElsewhere
	case err == nil:
		return OutcomeOK
	case !errors.As(err, &te):
		return OutcomeError
	case te.Reason == boxwatch.TerminalNotFound:
		return OutcomeNotFound
	case te.Temporary:
		return OutcomeTemporary
	}
	return OutcomeFailed
}

// Observe wraps every source of the directory so that its checks are counted by terminal and
// outcome and timed (boxwatch_terminal_checks_total, boxwatch_terminal_check_duration_seconds),
// registered with reg. The terminal label takes only the directory's keys.
func (d *Directory) Observe(reg prometheus.Registerer) error {
	checks := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "boxwatch_terminal_checks_total",
		Help: "Checks of containers with terminal operating systems, by terminal (LOCODE/SMDG or FIRMS:code) and outcome: ok, elsewhere (the box is at another terminal), not_found, temporary (unreachable, 5xx, 429, timeout), failed (an answer that cannot be read), error (boxwatch's own) or paced (not asked: the terminal's turn was too far away; checked again then).",
	}, []string{"terminal", "outcome"})
	latency := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "boxwatch_terminal_check_duration_seconds",
		Help:    "Time a terminal check took, the wait for the terminal's rate limit included, by terminal.",
		Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"terminal"})
	for _, c := range []prometheus.Collector{checks, latency} {
		if err := reg.Register(c); err != nil {
			return fmt.Errorf("terminal: %w", err)
		}
	}
	for key, src := range d.sources {
		o := observed{src: src, latency: latency.WithLabelValues(key), checks: map[string]prometheus.Counter{}}
		for _, outcome := range outcomes {
			o.checks[outcome] = checks.WithLabelValues(key, outcome)
		}
		d.sources[key] = o
	}
	return nil
}

type observed struct {
	src     boxwatch.TerminalSource
	latency prometheus.Observer
	checks  map[string]prometheus.Counter // by outcome; read only
}

func (o observed) Check(ctx context.Context, q boxwatch.TerminalQuery) (boxwatch.TerminalReport, error) {
	start := time.Now()
	r, err := o.src.Check(ctx, q)
	outcome := Outcome(r, err)
	if outcome != OutcomePaced {
		o.latency.Observe(time.Since(start).Seconds())
	}
	o.checks[outcome].Inc()
	return r, err
}
