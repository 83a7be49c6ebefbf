package carrier_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/carrier"
	"github.com/boxwatch/boxwatch/carrier/dcsa"
)

func TestObservedCountsAndLogsSkippedRecords(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `[{"eventType": "GTOT", "eventID": "bad-1", "eventClassifierCode": "ACT", "eventDateTime": "2025-03-05T10:15:00+08:00"},
			{"eventID": "e1", "eventType": "EQUIPMENT", "eventClassifierCode": "ACT", "eventDateTime": "2025-03-05T10:15:00+08:00",
			 "equipmentEventTypeCode": "GTOT", "equipmentReference": "HLXU1234563", "emptyIndicatorCode": "EMPTY"}]`)
	}))
	defer srv.Close()
	client, err := dcsa.New(dcsa.Config{BaseURL: srv.URL, HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	reg := prometheus.NewRegistry()
	carriers, err := carrier.Observed(map[string]boxwatch.Carrier{"HLCU": client}, slog.New(slog.NewTextHandler(&logs, nil)), reg)
	if err != nil {
		t.Fatal(err)
	}
	ref := boxwatch.CarrierReference{Type: boxwatch.RequestContainer, Number: "HLXU1234563", SCAC: "HLCU"}
	for range 2 {
		s, err := carriers["HLCU"].Lookup(t.Context(), ref)
		if err != nil || len(s.Events) != 1 || len(s.Unreadable) != 1 {
			t.Fatalf("Lookup = %+v, %v", s, err)
		}
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	counted := -1.0
	for _, f := range families {
		if f.GetName() == "boxwatch_carrier_unreadable_events_total" && len(f.GetMetric()) == 1 &&
			f.GetMetric()[0].GetLabel()[0].GetValue() == "HLCU" {
			counted = f.GetMetric()[0].GetCounter().GetValue()
		}
	}
	if counted != 2 {
		t.Errorf("boxwatch_carrier_unreadable_events_total{scac=HLCU} = %v, want 2", counted)
	}
	if !strings.Contains(logs.String(), `event_id=bad-1`) || !strings.Contains(logs.String(), `eventType \"GTOT\"`) {
		t.Errorf("log:\n%s", logs.String())
	}
}

func TestOutcome(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"OK", nil, carrier.OutcomeOK},
		{"NotFound", &boxwatch.CarrierError{Reason: boxwatch.ReasonNotFound}, carrier.OutcomeNotFound},
		{"Temporary", fmt.Errorf("page 2: %w", &boxwatch.CarrierError{Reason: boxwatch.ReasonUnreachable, Temporary: true}), carrier.OutcomeTemporary},
		{"Failed", &boxwatch.CarrierError{Reason: boxwatch.ReasonUnrecognizedResponse}, carrier.OutcomeFailed},
		{"Error", context.Canceled, carrier.OutcomeError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := carrier.Outcome(tc.err); got != tc.want {
				t.Errorf("Outcome(%v) = %q, want %q", tc.err, got, tc.want)
			}
		})
	}
}
