package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch/api"
	"github.com/boxwatch/boxwatch/store/storetest"
)

func TestInferNumber(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, storetest.SQLite)
	post := func(t *testing.T, body string, headers ...string) response {
		t.Helper()
		return ts.do(t, "POST", "/v2/tracking_requests/infer_number", ts.acme, body, append([]string{"Content-Type", "application/json"}, headers...)...)
	}
	tests := []struct {
		name, number, numberType, decision, selected string
		isValid, checkDigit                          any
	}{
		{"ContainerOwnLine", "MSCU1234566", "container", "auto_select", "MSCU", true, true},
		{"ContainerSeparatorsAndCase", " mscu 123456-6 ", "container", "auto_select", "MSCU", true, true},
		{"ContainerBadCheckDigit", "MSCU1234567", "container", "needs_confirmation", "MSCU", false, false},
		{"ContainerLessor", "TGHU1234560", "container", "no_prediction", "", nil, nil},
		{"BillWithPrefix", "MEDUAB123456", "bill_of_lading", "auto_select", "MSCU", nil, nil},
		{"BareNumber", "123456789012", "", "", "", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := post(t, `{"number":"`+tt.number+`"}`).want(t, http.StatusOK)
			if ct := r.header.Get("Content-Type"); ct != api.MediaType {
				t.Fatalf("Content-Type %q", ct)
			}
			if get(r.body, "data", "type") != "infer_number_results" || len(fmt.Sprint(get(r.body, "data", "id"))) != 36 {
				t.Fatalf("resource: %s", r.raw)
			}
			attrs := get(r.body, "data", "attributes")
			if tt.numberType != "" && get(attrs, "number_type") != tt.numberType {
				t.Fatalf("number_type = %v, want %s", get(attrs, "number_type"), tt.numberType)
			}
			decision := get(attrs, "shipping_line", "decision")
			if tt.decision != "" && decision != tt.decision {
				t.Fatalf("decision = %v, want %s; %s", decision, tt.decision, r.raw)
			}
			sel := get(attrs, "shipping_line", "selected")
			switch {
			case decision == "no_prediction" && sel != nil:
				t.Fatalf("no_prediction with a selected carrier: %s", r.raw)
			case decision != "no_prediction" && sel == nil:
				t.Fatalf("%v without a selected carrier: %s", decision, r.raw)
			case tt.selected != "" && get(sel, "scac") != tt.selected:
				t.Fatalf("selected = %v, want %s", get(sel, "scac"), tt.selected)
			}
			if tt.name == "BareNumber" && decision == "auto_select" {
				t.Fatalf("a bare number was auto-selected: %s", r.raw)
			}
			if tt.numberType == "container" {
				if v := get(attrs, "validation", "check_digit_passed"); tt.checkDigit != nil && v != tt.checkDigit {
					t.Fatalf("check_digit_passed = %v, want %v", v, tt.checkDigit)
				}
				if v := get(attrs, "validation", "is_valid"); tt.isValid != nil && v != tt.isValid {
					t.Fatalf("is_valid = %v, want %v", v, tt.isValid)
				}
				if tt.checkDigit == false && get(attrs, "validation", "reason") != "Invalid check digit" {
					t.Fatalf("reason = %v", get(attrs, "validation", "reason"))
				}
			}
			if get(attrs, "shipping_line", "candidates") == nil {
				t.Fatalf("candidates must be an array: %s", r.raw)
			}
		})
	}
	// Both media types are accepted.
	ts.do(t, "POST", "/v2/tracking_requests/infer_number", ts.acme, `{"number":"MSCU1234566"}`).want(t, 200)

	for _, tt := range []struct {
		name, body string
		status     int
		code       string
		pointer    string
	}{
		{"ErrMissing", `{}`, 422, "blank", "/number"},
		{"ErrNull", `{"number":null}`, 422, "blank", "/number"},
		{"ErrEmpty", `{"number":""}`, 422, "blank", "/number"},
		{"ErrOnlySeparators", `{"number":" - . / "}`, 422, "", "/number"},
		{"ErrTooLong", `{"number":"` + strings.Repeat("1", 41) + `"}`, 422, "too_long", "/number"},
		{"ErrCharacters", `{"number":"MSCU<script>"}`, 422, "invalid", "/number"},
		{"ErrNotString", `{"number":12345}`, 422, "invalid", "/number"},
		{"ErrUnknownMember", `{"number":"MSCU1234566","scac":"MSCU"}`, 422, "invalid", "/scac"},
		{"ErrNotObject", `["MSCU1234566"]`, 422, "invalid", "/"},
		{"ErrMalformed", `{"number":`, 400, "invalid_json", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			post(t, tt.body).wantError(t, tt.status, tt.code, tt.pointer, "")
		})
	}
	ts.do(t, "POST", "/v2/tracking_requests/infer_number", ts.acme, `{"number":"MSCU1234566"}`, "Content-Type", "text/plain").
		wantError(t, 415, "unsupported_media_type", "", "")
	ts.do(t, "POST", "/v2/tracking_requests/infer_number", "", `{"number":"MSCU1234566"}`).wantError(t, 401, "unauthorized", "", "")
}

func TestInferNumberRateLimit(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, storetest.SQLite, withLimits(api.Limits{CreateTrackingRequest: 1, InferNumber: 2, Default: 100}))
	for range 2 {
		ts.do(t, "POST", "/v2/tracking_requests/infer_number", ts.acme, `{"number":"MSCU1234566"}`).want(t, 200)
	}
	r := ts.do(t, "POST", "/v2/tracking_requests/infer_number", ts.acme, `{"number":"MSCU1234566"}`)
	r.wantError(t, 429, "rate_limited", "", "")
	if r.header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}
	// Its own bucket: creating a tracking request is still allowed.
	ts.mustCreate(t, ts.acme, "bill_of_lading", "MEDUAB123456", "MSCU")
}
