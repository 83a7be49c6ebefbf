package boxwatch_test

import (
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch"
)

func TestValidateTestLine(t *testing.T) {
	carriers, err := boxwatch.LoadCarriers(strings.NewReader(`{"shipping_lines":[
		{"scac":"MAEU","name":"Maersk","tracking_support":{"bill_of_lading":true,"container":true}},
		{"scac":"ABCD","name":"Test","tracking_support":{"bill_of_lading":true,"container":true},"test_line":true}]}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, number, scac string
		ok                 bool
	}{
		{"OK container number", "CSQU3054383", "MAEU", true},
		{"OK test line with any number", "TEST-CONTAINER", "ABCD", true},
		{"OK test line in lower case", "test-container", "abcd", true},
		{"ErrContainerNumber", "TEST-CONTAINER", "MAEU", false},
		{"ErrCheckDigit", "CSQU3054384", "MAEU", false},
		{"ErrCharacters on a test line too", "TEST/1", "ABCD", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := boxwatch.NewTrackingRequest{RequestType: boxwatch.RequestContainer, RequestNumber: tt.number, SCAC: tt.scac}
			err := n.Validate(carriers)
			if (err == nil) != tt.ok {
				t.Errorf("err = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

func TestValidateNormalizesContainerNumbers(t *testing.T) {
	carriers, err := boxwatch.LoadCarriers(strings.NewReader(`{"shipping_lines":[
		{"scac":"MSCU","name":"MSC","tracking_support":{"bill_of_lading":true,"container":true}},
		{"scac":"TEST","name":"Test","tracking_support":{"bill_of_lading":true,"container":true},"test_line":true}]}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, typ, number, scac, want string
	}{
		{"OK spaces and dash", "container", " MSCU 123456-6 ", "MSCU", "MSCU1234566"},
		{"OK lower case", "container", "mscu1234566", "MSCU", "MSCU1234566"},
		{"OK bill keeps its dashes", "bill_of_lading", "MEDU-FR030802", "MSCU", "MEDU-FR030802"},
		{"OK test line keeps its dashes", "container", "TEST-TR-SUCCEEDED", "TEST", "TEST-TR-SUCCEEDED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := boxwatch.NewTrackingRequest{RequestType: boxwatch.RequestType(tt.typ), RequestNumber: tt.number, SCAC: tt.scac}
			if err := n.Validate(carriers); err != nil && tt.typ == "container" {
				t.Fatal(err)
			}
			if n.RequestNumber != tt.want {
				t.Errorf("number %q, want %q", n.RequestNumber, tt.want)
			}
		})
	}
	if got := boxwatch.NormalizeContainerNumber("msku 123 456-5\t"); got != "MSKU1234565" {
		t.Errorf("NormalizeContainerNumber = %q", got)
	}
}

// A request sent to have its line detected may leave the SCAC empty; its number is checked as any
// real line's would be.
func TestValidateAutoDetect(t *testing.T) {
	carriers, err := boxwatch.LoadCarriers(strings.NewReader(`{"shipping_lines":[
		{"scac":"MSCU","name":"MSC","tracking_support":{"bill_of_lading":true,"container":true}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, typ, number, scac string
		autoDetect              bool
		want                    string // the normalised number, "" when invalid
		wantSCAC                string
	}{
		{"OK container", "container", "mscu 123456-6", "", true, "MSCU1234566", ""},
		{"OK bill", "bill_of_lading", "MEDUAB123458", "", true, "MEDUAB123458", ""},
		{"OK a given scac stands", "bill_of_lading", "MEDUAB123458", "MSCU", true, "MEDUAB123458", "MSCU"},
		{"ErrCheckDigit", "container", "MSCU1234567", "", true, "", ""},
		{"ErrNumber", "bill_of_lading", "MEDU/1", "", true, "", ""},
		{"ErrBlankWithoutAutoDetect", "bill_of_lading", "MEDUAB123458", "", false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := boxwatch.NewTrackingRequest{RequestType: boxwatch.RequestType(tt.typ), RequestNumber: tt.number, SCAC: tt.scac, AutoDetect: tt.autoDetect}
			err := n.Validate(carriers)
			if (err == nil) != (tt.want != "") {
				t.Fatalf("err = %v, want valid %v", err, tt.want != "")
			}
			if err == nil && (n.RequestNumber != tt.want || n.SCAC != tt.wantSCAC) {
				t.Errorf("normalised to %q with scac %q, want %q with %q", n.RequestNumber, n.SCAC, tt.want, tt.wantSCAC)
			}
		})
	}
}
