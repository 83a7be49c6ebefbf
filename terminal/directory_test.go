package terminal_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/internal/promtest"
	"github.com/boxwatch/boxwatch/terminal"
)

func TestKey(t *testing.T) {
	for _, tt := range []struct {
		ref  boxwatch.TerminalRef
		want string
	}{
		{boxwatch.TerminalRef{LOCODE: "uslax", SMDGCode: "apmt", FIRMSCode: "W185"}, "USLAX/APMT"},
		{boxwatch.TerminalRef{LOCODE: "USLGB", FIRMSCode: "w183"}, "FIRMS:W183"},
	} {
		if got := terminal.Key(tt.ref); got != tt.want {
			t.Errorf("Key(%+v) = %q, want %q", tt.ref, got, tt.want)
		}
		if ref, err := terminal.ParseKey(tt.want); err != nil || terminal.Key(ref) != tt.want {
			t.Errorf("ParseKey(%q) = %+v, %v", tt.want, ref, err)
		}
	}
}

// Every check through an observed directory is counted by terminal and outcome.
func TestObserve(t *testing.T) {
	inYard, elsewhere := mustRead(t, "in_yard.json"), mustRead(t, "elsewhere.json")
	// The terminal answers the checks in turn: a report, not found twice, then unavailable.
	var calls atomic.Int32
	base := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch calls.Add(1) {
		case 1:
			w.Write(inYard)
		case 2, 3:
			w.WriteHeader(http.StatusNotFound)
		default:
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	moved := serve(t, func(w http.ResponseWriter, r *http.Request) { w.Write(elsewhere) })
	dir := terminal.NewDirectory()
	apmt := boxwatch.TerminalRef{LOCODE: "USLAX", SMDGCode: "APMT"}
	dir.Add(apmt, mustClient(t, terminal.Config{BaseURL: base}))
	dir.Add(boxwatch.TerminalRef{LOCODE: "USLAX", SMDGCode: "EAGLE"}, mustClient(t, terminal.Config{BaseURL: moved}))
	reg := prometheus.NewRegistry()
	if err := dir.Observe(reg); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 4 {
		r, err := dir.Source(apmt).Check(ctx, query)
		if i == 0 && (err != nil || len(r.Holds) == 0) {
			t.Fatalf("observed check lost the report: %+v, %v", r, err)
		}
	}
	// A query that is no container number fails in boxwatch's client: not_found, not asked.
	bad := query
	bad.Container = "NOT A BOX"
	if _, err := dir.Source(apmt).Check(ctx, bad); err == nil {
		t.Fatal("a malformed number was checked")
	}
	if _, err := dir.Source(boxwatch.TerminalRef{LOCODE: "USLAX", SMDGCode: "EAGLE"}).Check(ctx, query); err != nil {
		t.Fatal(err)
	}
	got := promtest.Gather(t, reg)
	for key, want := range map[string]float64{
		"boxwatch_terminal_checks_total outcome=ok terminal=USLAX/APMT":         1,
		"boxwatch_terminal_checks_total outcome=not_found terminal=USLAX/APMT":  3,
		"boxwatch_terminal_checks_total outcome=temporary terminal=USLAX/APMT":  1,
		"boxwatch_terminal_checks_total outcome=failed terminal=USLAX/APMT":     0,
		"boxwatch_terminal_checks_total outcome=elsewhere terminal=USLAX/EAGLE": 1,
		"boxwatch_terminal_check_duration_seconds terminal=USLAX/APMT":          5,
	} {
		if got[key] != want {
			t.Errorf("%s = %v, want %v", key, got[key], want)
		}
	}
}

func TestOutcome(t *testing.T) {
	for _, tt := range []struct {
		r    boxwatch.TerminalReport
		err  error
		want string
	}{
		{boxwatch.TerminalReport{}, nil, terminal.OutcomeOK},
		{boxwatch.TerminalReport{At: boxwatch.TerminalRef{FIRMSCode: "W183"}}, nil, terminal.OutcomeElsewhere},
		{boxwatch.TerminalReport{}, &boxwatch.TerminalError{Reason: boxwatch.TerminalNotFound}, terminal.OutcomeNotFound},
		{boxwatch.TerminalReport{}, &boxwatch.TerminalError{Reason: boxwatch.TerminalRateLimited, Temporary: true}, terminal.OutcomeTemporary},
		{boxwatch.TerminalReport{}, &boxwatch.TerminalError{Reason: boxwatch.TerminalUnrecognized}, terminal.OutcomeFailed},
		{boxwatch.TerminalReport{}, errors.New("boxwatch's own"), terminal.OutcomeError},
		{boxwatch.TerminalReport{}, fmt.Errorf("check: %w", &boxwatch.TerminalBusy{Wait: time.Second}), terminal.OutcomePaced},
	} {
		if got := terminal.Outcome(tt.r, tt.err); got != tt.want {
			t.Errorf("Outcome(%v) = %s, want %s", tt.err, got, tt.want)
		}
	}
}
