package infer_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/infer"
)

// FuzzInfer checks the invariants of every answer: no panic, errors only of the documented kind,
// confidences in [0, 1] and ranked, a decision that follows the top confidence, selected set
// exactly when a carrier is predicted, and the same answer for the normalised number.
func FuzzInfer(f *testing.F) {
	for _, seed := range []string{
		"", " ", "-", "MSCU1234566", "mscu 123456-6", "MSCU123456", "MSCZ1234560", "TGHU1234567",
		"MAEU123456789", "MEDUAB123456", "HLCUABC1A2B3C4D5", "ONEYHAMA71223610", "HAMA71223610",
		"1234567890", "987654321", "ABC709951", "CAT123456", "SA12345678", "E123456789",
		"CKCOABC1234567", "PCIU12345678", "A1B2C3D4E5F6", "X", strings.Repeat("9", 40),
		strings.Repeat("A", 41), "MSCU_1", "MSCÜ1234567", "a/b.c-d e",
	} {
		f.Add(seed)
	}
	e, err := infer.New(data.Carriers(), data.Lessors())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, number string) {
		r, err := e.Infer(number)
		if err != nil {
			be := boxwatch.AsError(err)
			if be == nil || be.Kind != boxwatch.KindInvalid || be.Pointer != "/number" {
				t.Fatalf("Infer(%q): unexpected error %v", number, err)
			}
			return
		}
		switch r.NumberType {
		case infer.Container:
			if r.Validation.Type != "container" || !r.Validation.CheckDigitPassed.Valid {
				t.Fatalf("container without check-digit result: %+v", r.Validation)
			}
		case infer.BillOfLading, infer.Booking:
			if r.Validation.Type != "shipment" || r.Validation.CheckDigitPassed.Valid {
				t.Fatalf("%s with container validation: %+v", r.NumberType, r.Validation)
			}
		default:
			t.Fatalf("number_type %q", r.NumberType)
		}
		if r.Validation.ParsedNumber == "" {
			t.Fatal("empty parsed_number")
		}
		if (r.Validation.Reason != "") != (r.Validation.IsValid == infer.Known(false)) {
			t.Fatalf("reason %q with is_valid %+v", r.Validation.Reason, r.Validation.IsValid)
		}
		sl := r.ShippingLine
		if sl.Candidates == nil {
			t.Fatal("nil candidates")
		}
		for i, c := range sl.Candidates {
			if c.Confidence < 0 || c.Confidence > 1 {
				t.Fatalf("confidence %v out of [0, 1]", c.Confidence)
			}
			if i > 0 && c.Confidence > sl.Candidates[i-1].Confidence {
				t.Fatalf("candidates not ranked: %+v", sl.Candidates)
			}
			if c.SCAC == "" || c.Name == "" {
				t.Fatalf("incomplete candidate %+v", c)
			}
		}
		want := infer.NoPrediction
		if len(sl.Candidates) > 0 {
			switch top := sl.Candidates[0].Confidence; {
			case top >= 0.95:
				want = infer.AutoSelect
			case top >= 0.70:
				want = infer.NeedsConfirmation
			}
		}
		if sl.Decision != want {
			t.Fatalf("decision %s, want %s for %+v", sl.Decision, want, sl.Candidates)
		}
		if (sl.Selected == nil) != (sl.Decision == infer.NoPrediction) {
			t.Fatalf("selected %+v with decision %s", sl.Selected, sl.Decision)
		}
		if sl.Selected != nil && *sl.Selected != sl.Candidates[0] {
			t.Fatalf("selected %+v is not the top candidate %+v", *sl.Selected, sl.Candidates[0])
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatal(err)
		}
		normalised := strings.ToUpper(strings.NewReplacer(" ", "", "-", "", ".", "", "/", "").Replace(number))
		again, err := e.Infer(normalised)
		if err != nil {
			t.Fatalf("normalised %q rejected: %v", normalised, err)
		}
		a, _ := json.Marshal(r)
		b, _ := json.Marshal(again)
		if string(a) != string(b) {
			t.Fatalf("%q and %q answer differently:\n%s\n%s", number, normalised, a, b)
		}
	})
}
