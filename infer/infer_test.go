package infer_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/infer"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// want is the part of a Result a table case checks.
type want struct {
	numberType infer.NumberType
	decision   infer.Decision
	scacs      []string // candidates in order
	valid      infer.NullBool
	parsed     string // empty: the normalised number
}

func check(t *testing.T, e *infer.Engine, number string, w want) {
	t.Helper()
	r, err := e.Infer(number)
	if err != nil {
		t.Fatalf("Infer(%q): %v", number, err)
	}
	if r.NumberType != w.numberType {
		t.Errorf("number_type = %s, want %s", r.NumberType, w.numberType)
	}
	if r.ShippingLine.Decision != w.decision {
		t.Errorf("decision = %s, want %s (candidates %+v)", r.ShippingLine.Decision, w.decision, r.ShippingLine.Candidates)
	}
	var scacs []string
	for _, c := range r.ShippingLine.Candidates {
		scacs = append(scacs, c.SCAC)
	}
	if strings.Join(scacs, ",") != strings.Join(w.scacs, ",") {
		t.Errorf("candidates = %v, want %v", scacs, w.scacs)
	}
	if r.Validation.IsValid != w.valid {
		t.Errorf("is_valid = %+v, want %+v", r.Validation.IsValid, w.valid)
	}
	parsed := w.parsed
	if parsed == "" {
		parsed = strings.ToUpper(strings.NewReplacer(" ", "", "-", "", ".", "", "/", "").Replace(number))
	}
	if r.Validation.ParsedNumber != parsed {
		t.Errorf("parsed_number = %q, want %q", r.Validation.ParsedNumber, parsed)
	}
}

var (
	valid   = infer.Known(true)
	invalid = infer.Known(false)
	unknown = infer.NullBool{}
)

// TestInferISO6346 runs the ISO 6346 check through the engine.
func TestInferISO6346(t *testing.T) {
	e := mustEngine(t)
	tests := []struct {
		name   string
		number string
		passed bool
	}{
		{"PublishedCSQU", "CSQU3054383", true},
		{"PublishedAPZU", "APZU4812090", true},
		{"PublishedMWCU", "MWCU6059784", true},
		// 3464 = 11·314 + 10: the remainder 10 gives check digit 0.
		{"RemainderTenGivesZero", "MSCU0000060", true},
		{"RemainderTenNotTen", "MSCU0000061", false},
		// Letter values skip 11, 22 and 33 (K=21, L=23, V=34); counting them would give 2, 4, 6.
		{"LettersSkipElevenZIM", "ZIMU1234569", true},
		{"LettersSkipElevenKKL", "KKLU1000009", true},
		{"LettersSkipElevenVVV", "VVVU0000000", true},
		{"NaiveLetterValuesRejected", "ZIMU1234562", false},
		{"WrongCheckDigit", "MSCU1234567", false},
		{"SeparatorsAndCase", "cSqU 305438-3", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := e.Infer(tt.number)
			if err != nil {
				t.Fatal(err)
			}
			if r.NumberType != infer.Container || r.Validation.Type != "container" {
				t.Fatalf("type %s/%s, want container", r.NumberType, r.Validation.Type)
			}
			if r.Validation.CheckDigitPassed != infer.Known(tt.passed) || r.Validation.IsValid != infer.Known(tt.passed) {
				t.Errorf("check_digit_passed %+v, is_valid %+v, want %v", r.Validation.CheckDigitPassed, r.Validation.IsValid, tt.passed)
			}
			wantReason := infer.NullString("")
			if !tt.passed {
				wantReason = "Invalid check digit"
			}
			if r.Validation.Reason != wantReason {
				t.Errorf("reason %q, want %q", r.Validation.Reason, wantReason)
			}
		})
	}
}

// TestInferCarriers holds one or more cases per carrier, named carrier/outcome.
func TestInferCarriers(t *testing.T) {
	e := mustEngine(t)
	tests := []struct {
		name   string
		number string
		want   want
	}{
		{"MSCU/ContainerAutoSelect", "MSCU0000060", want{infer.Container, infer.AutoSelect, []string{"MSCU"}, valid, ""}},
		{"MSCU/ContainerBadDigitNeedsConfirmation", "MSCU1234567", want{infer.Container, infer.NeedsConfirmation, []string{"MSCU"}, invalid, ""}},
		{"MSCU/MissingDigitNeedsConfirmation", "MSCU123456", want{infer.Container, infer.NeedsConfirmation, []string{"MSCU"}, invalid, ""}},
		{"MSCU/BillMEDUPrefixStripped", "MEDUAB123456", want{infer.BillOfLading, infer.AutoSelect, []string{"MSCU"}, valid, "AB123456"}},
		{"MAEU/ContainerAutoSelect", "MWCU6059784", want{infer.Container, infer.AutoSelect, []string{"MAEU"}, valid, ""}},
		{"MAEU/BillAutoSelect", "MAEU123456789", want{infer.BillOfLading, infer.AutoSelect, []string{"MAEU"}, valid, "123456789"}},
		{"MAEU/BillMRKUPrefix", "MRKU 123456789", want{infer.BillOfLading, infer.AutoSelect, []string{"MAEU"}, valid, "123456789"}},
		{"MAEU/BareNineDigitsIsBookingNeedsConfirmation", "987654321", want{infer.Booking, infer.NeedsConfirmation, []string{"MAEU"}, unknown, ""}},
		{"MAEU/BillBodyOffFormatNeedsConfirmation", "MAEU12345678", want{infer.BillOfLading, infer.NeedsConfirmation, []string{"MAEU"}, unknown, "12345678"}},
		{"CMDU/BillAutoSelect", "CMDUABC1234567", want{infer.BillOfLading, infer.AutoSelect, []string{"CMDU"}, valid, "ABC1234567"}},
		{"CMDU/BareBodySharedWithGroupAndOthersNoPrediction", "ABC1234567", want{infer.BillOfLading, infer.NoPrediction, []string{"CMDU", "APLU", "ANNU", "KMTU", "ZIMU"}, valid, ""}},
		{"APLU/ContainerSelectsParentNeedsConfirmation", "APZU4812090", want{infer.Container, infer.NeedsConfirmation, []string{"CMDU", "APLU"}, valid, ""}},
		{"APLU/BillStaysWithBrand", "APLUABC1234567", want{infer.BillOfLading, infer.AutoSelect, []string{"APLU"}, valid, "ABC1234567"}},
		{"ANNU/BillANLCPrefix", "ANLCXYZ7654321", want{infer.BillOfLading, infer.AutoSelect, []string{"ANNU"}, valid, "XYZ7654321"}},
		{"COSU/BillAutoSelect", "COSU1234567890", want{infer.BillOfLading, infer.AutoSelect, []string{"COSU"}, valid, "1234567890"}},
		{"COSU/BareTenDigitsNoPrediction", "1234567890", want{infer.BillOfLading, infer.NoPrediction, []string{"COSU", "OOLU", "MATS"}, valid, ""}},
		{"OOLU/BillAutoSelect", "OOLU2148468620", want{infer.BillOfLading, infer.AutoSelect, []string{"OOLU"}, valid, "2148468620"}},
		{"HLCU/ContainerAutoSelect", "CSQU3054383", want{infer.Container, infer.AutoSelect, []string{"HLCU"}, valid, ""}},
		{"HLCU/BillAutoSelect", "HLCUABC1A2B3C4D5", want{infer.BillOfLading, infer.AutoSelect, []string{"HLCU"}, valid, "ABC1A2B3C4D5"}},
		{"EGLV/BillAutoSelect", "EGLV084900042045", want{infer.BillOfLading, infer.AutoSelect, []string{"EGLV"}, valid, "084900042045"}},
		{"EGLV/BareTwelveDigitsNeedsConfirmation", "084900042045", want{infer.BillOfLading, infer.NeedsConfirmation, []string{"EGLV"}, valid, ""}},
		{"ONEY/BillAutoSelect", "ONEYHAMA71223610", want{infer.BillOfLading, infer.AutoSelect, []string{"ONEY"}, valid, "HAMA71223610"}},
		{"ONEY/BareBodySharedNoPrediction", "HAMA71223610", want{infer.BillOfLading, infer.NoPrediction, []string{"ONEY", "HDMU", "SMLM"}, valid, ""}},
		{"HDMU/BillAutoSelect", "HDMUSELM12345678", want{infer.BillOfLading, infer.AutoSelect, []string{"HDMU"}, valid, "SELM12345678"}},
		{"YMLU/BillAutoSelect", "YMLUE123456789", want{infer.BillOfLading, infer.AutoSelect, []string{"YMLU"}, valid, "E123456789"}},
		{"YMLU/BareBodyNeedsConfirmation", "E123456789", want{infer.BillOfLading, infer.NeedsConfirmation, []string{"YMLU"}, valid, ""}},
		{"ZIMU/BillAutoSelect", "ZIMUABC1234567", want{infer.BillOfLading, infer.AutoSelect, []string{"ZIMU"}, valid, "ABC1234567"}},
		{"WHLC/ContainerAutoSelect", "WHLU1234560", want{infer.Container, infer.AutoSelect, []string{"WHLC"}, valid, ""}},
		{"PCIU/BillWithoutKnownFormatNeedsConfirmation", "PCIU12345678", want{infer.BillOfLading, infer.NeedsConfirmation, []string{"PCIU"}, unknown, "12345678"}},
		{"KMTU/BillAutoSelect", "KMTUABCD123456", want{infer.BillOfLading, infer.AutoSelect, []string{"KMTU"}, valid, "ABCD123456"}},
		{"SMLM/BillAutoSelect", "SMLMNJPE70038700", want{infer.BillOfLading, infer.AutoSelect, []string{"SMLM"}, valid, "NJPE70038700"}},
		{"MATS/BillAutoSelect", "MATS1234567890", want{infer.BillOfLading, infer.AutoSelect, []string{"MATS"}, valid, "1234567890"}},
		{"ARKU/BillAutoSelect", "ARKUABC123456789", want{infer.BillOfLading, infer.AutoSelect, []string{"ARKU"}, valid, "ABC123456789"}},
		{"ACLU/BillAutoSelect", "ACLUSA12345678", want{infer.BillOfLading, infer.AutoSelect, []string{"ACLU"}, valid, "SA12345678"}},
		{"ACLU/BareLiteralNeedsConfirmation", "SA12345678", want{infer.BillOfLading, infer.NeedsConfirmation, []string{"ACLU"}, valid, ""}},
		{"CLAM/BillCWLQAutoSelect", "CWLQABCD1A123456", want{infer.BillOfLading, infer.AutoSelect, []string{"CLAM"}, valid, "ABCD1A123456"}},
		{"CLAM/BareCATNeedsConfirmation", "CAT123456", want{infer.BillOfLading, infer.NeedsConfirmation, []string{"CLAM"}, valid, ""}},
		{"SUDU/ContainerSelectsMaersk", "SUDU1234569", want{infer.Container, infer.NeedsConfirmation, []string{"MAEU", "SUDU"}, valid, ""}},
		{"SUDU/BillStaysWithBrand", "SUDU12345AAAAAAA", want{infer.BillOfLading, infer.AutoSelect, []string{"SUDU"}, valid, "12345AAAAAAA"}},
		{"SEAU/ContainerAutoSelect", "SEAU1234563", want{infer.Container, infer.AutoSelect, []string{"SEAU"}, valid, ""}},
		{"SITC/ContainerAutoSelect", "SITU1234567", want{infer.Container, infer.AutoSelect, []string{"SITC"}, valid, ""}},
		{"GOSU/ContainerAutoSelect", "GSLU1234566", want{infer.Container, infer.AutoSelect, []string{"GOSU"}, valid, ""}},
		{"Lessor/TritonNoPrediction", "TCLU1234568", want{infer.Container, infer.NoPrediction, nil, unknown, ""}},
		{"Lessor/TextainerNoPrediction", "TGHU1234567", want{infer.Container, infer.NoPrediction, nil, unknown, ""}},
		{"Unknown/OwnerNoPrediction", "QQQU1234560", want{infer.Container, infer.NoPrediction, nil, unknown, ""}},
		{"Unknown/ChassisListedNotSelected", "MSCZ1234560", want{infer.Container, infer.NoPrediction, []string{"MSCU"}, unknown, ""}},
		{"Unknown/ForeignPrefixedBill", "CKCOABC1234567", want{infer.BillOfLading, infer.NoPrediction, nil, unknown, ""}},
		{"Unknown/ShortReferenceIsBooking", "AB12", want{infer.Booking, infer.NoPrediction, nil, unknown, ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := tt.want
			if w.numberType == infer.Container && w.valid == unknown {
				// Lessor and unknown-owner cases: validity follows the check digit.
				r, _ := e.Infer(tt.number)
				w.valid = r.Validation.IsValid
			}
			check(t, e, tt.number, w)
		})
	}
}

func TestInferRejects(t *testing.T) {
	e := mustEngine(t)
	tests := []struct {
		name, number, code string
	}{
		{"Empty", "", boxwatch.CodeBlank},
		{"OnlySeparators", " -./ ", boxwatch.CodeBlank},
		{"TooLong", strings.Repeat("A", 41), boxwatch.CodeTooLong},
		{"TooLongWithSpaces", "MSCU1234567" + strings.Repeat(" ", 30), boxwatch.CodeTooLong},
		{"Underscore", "MSCU_1234567", boxwatch.CodeInvalid},
		{"Tab", "MSCU\t1234567", boxwatch.CodeInvalid},
		{"NonASCII", "MSCÜ1234567", boxwatch.CodeInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.Infer(tt.number)
			be := boxwatch.AsError(err)
			if be == nil {
				t.Fatalf("Infer(%q) = %v, want a *boxwatch.Error", tt.number, err)
			}
			if be.Kind != boxwatch.KindInvalid || be.Code != tt.code || be.Pointer != "/number" {
				t.Errorf("error %+v, want KindInvalid, code %s, pointer /number", be, tt.code)
			}
		})
	}
	if _, err := e.Infer(strings.Repeat("1", 40)); err != nil {
		t.Errorf("40 characters rejected: %v", err)
	}
}

// TestResultJSON compares the attributes of a few answers with golden files (-update rewrites them).
func TestResultJSON(t *testing.T) {
	e := mustEngine(t)
	for name, number := range map[string]string{
		"container":     "CSQU3054383",
		"container_bad": "MSCU1234567",
		"lessor":        "TGHU1234567",
		"bill":          "MAEU123456789",
		"bare":          "HAMA71223610",
		"booking":       "987654321",
	} {
		t.Run(name, func(t *testing.T) {
			r, err := e.Infer(number)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(r, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := filepath.Join("testdata", "golden", name+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			wantJSON, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, wantJSON) {
				t.Errorf("%s:\n%s\nwant\n%s", number, got, wantJSON)
			}
			var back infer.Result
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatal(err)
			}
			again, _ := json.MarshalIndent(back, "", "  ")
			if !bytes.Equal(append(again, '\n'), got) {
				t.Errorf("round trip changed the document:\n%s", again)
			}
		})
	}
}

func TestInferAllocations(t *testing.T) {
	e := mustEngine(t)
	for number, max := range map[string]float64{
		"CSQU3054383":   1, // the candidate slice
		"TGHU1234567":   0,
		"MAEU123456789": 1,
		"HAMA71223610":  1,
		"csqu 305438 3": 2, // and the normalised copy
	} {
		if got := testing.AllocsPerRun(100, func() { e.Infer(number) }); got > max {
			t.Errorf("Infer(%q) allocates %v times, want at most %v", number, got, max)
		}
	}
}

func TestNewAcceptsShippedData(t *testing.T) {
	// New refuses an owner code claimed twice; the shipped registry and lessors must pass.
	mustEngine(t)
}
