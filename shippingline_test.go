package boxwatch_test

import (
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch"
)

func TestLoadCarriers(t *testing.T) {
	const msc = `{"scac":"MSCU","name":"Mediterranean Shipping Company","alternative_scacs":["MEDU"],"parent_scac":"MSCU"}`
	tests := []struct {
		name, doc string
		ok        bool
	}{
		{"OK", `{"shipping_lines":[` + msc + `]}`, true},
		{"OK empty", `{"shipping_lines":[]}`, true},
		{"ErrMalformed", `[` + msc + `]`, false},
		{"ErrFieldType", `{"shipping_lines":[{"scac":"MSCU","name":"MSC","alternative_scacs":"MEDU"}]}`, false},
		{"ErrNoName", `{"shipping_lines":[{"scac":"MSCU"}]}`, false},
		{"ErrSCAC", `{"shipping_lines":[{"scac":"MSC","name":"MSC"}]}`, false},
		{"ErrAlternativeSCAC", `{"shipping_lines":[{"scac":"MSCU","name":"MSC","alternative_scacs":["medu"]}]}`, false},
		{"ErrDuplicate", `{"shipping_lines":[` + msc + `,{"scac":"MSCU","name":"Other"}]}`, false},
		{"ErrDuplicateAlternative", `{"shipping_lines":[` + msc + `,{"scac":"MAEU","name":"Maersk","alternative_scacs":["MEDU"]}]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := boxwatch.LoadCarriers(strings.NewReader(tt.doc))
			if (err == nil) != tt.ok {
				t.Errorf("err = %v, want ok %v", err, tt.ok)
			}
		})
	}

	c, err := boxwatch.LoadCarriers(strings.NewReader(`{"shipping_lines":[` + msc + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	l, ok := c.BySCAC("MEDU")
	if !ok || l.SCAC != "MSCU" || l.ID != boxwatch.ShippingLineID("MSCU") {
		t.Fatalf("BySCAC(MEDU) = %+v, %v", l, ok)
	}
	if byID, ok := c.ByID(l.ID); !ok || byID.SCAC != "MSCU" {
		t.Error("ByID does not find it")
	}
	if string(l.Extra["parent_scac"]) != `"MSCU"` || len(l.Extra) != 1 {
		t.Errorf("Extra = %s, want only the field the domain does not read", l.Extra)
	}
	if l.TestLine {
		t.Error("a line without test_line is a test line")
	}

	c, err = boxwatch.LoadCarriers(strings.NewReader(`{"shipping_lines":[{"scac":"TEST","name":"Test","test_line":true}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if l, _ := c.BySCAC("TEST"); !l.TestLine || len(l.Extra) != 0 {
		t.Errorf("test line: %+v", l)
	}
}

func TestShippingLineMatches(t *testing.T) {
	msc := boxwatch.ShippingLine{SCAC: "MSCU", Name: "Mediterranean Shipping Company", ShortName: "MSC", AlternativeSCACs: []string{"MEDU"}}
	tests := []struct {
		name, search string
		want         bool
	}{
		{"OK SCAC", "mscu", true},
		{"OK alternative SCAC", "MEDU", true},
		{"OK part of name", "mediterr", true},
		{"OK short name", "msc", true},
		{"NoMatch part of SCAC", "EDU", false},
		{"NoMatch other line", "Maersk", false},
		{"NoMatch blank", "  ", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := msc.Matches(tt.search); got != tt.want {
				t.Errorf("Matches(%q) = %v, want %v", tt.search, got, tt.want)
			}
		})
	}
}
