package boxwatch_test

import (
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch"
)

func TestLoadTerminals(t *testing.T) {
	list, err := boxwatch.LoadTerminals(strings.NewReader(`{"terminals": [
		{"locode":"USLAX","smdg_code":"APMT","firms_code":"W185","name":"APM Terminals Pier 400","nickname":"APMT","country":"US"},
		{"locode":"USLGB","firms_code":"W183","name":"Long Beach Container Terminal (Pier F)","country":"US"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != boxwatch.TerminalID("USLAX", "APMT") || !list[0].Listed ||
		list[1].ID != (boxwatch.TerminalRef{FIRMSCode: "W183"}).ID() || list[1].ID == "" {
		t.Fatalf("got %+v", list)
	}
	for name, doc := range map[string]string{
		"NoCode":        `{"terminals":[{"locode":"USLAX","name":"X"}]}`,
		"NoName":        `{"terminals":[{"locode":"USLAX","smdg_code":"A"}]}`,
		"BadLOCODE":     `{"terminals":[{"locode":"uslax","smdg_code":"A","name":"X"}]}`,
		"Twice":         `{"terminals":[{"locode":"USLAX","smdg_code":"A","name":"X"},{"locode":"USLAX","smdg_code":"A","name":"Y"}]}`,
		"FIRMSTwice":    `{"terminals":[{"locode":"USLAX","smdg_code":"A","firms_code":"W1","name":"X"},{"locode":"USLGB","smdg_code":"B","firms_code":"W1","name":"Y"}]}`,
		"TwoFIRMSOnly":  `{"terminals":[{"locode":"USLAX","firms_code":"W1","name":"X"},{"locode":"USLAX","firms_code":"W2","name":"Y"}]}`,
		"UnknownMember": `{"terminals":[{"locode":"USLAX","smdg_code":"A","name":"X","bic":"1"}]}`,
		"NotJSON":       `terminals`,
	} {
		if _, err := boxwatch.LoadTerminals(strings.NewReader(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestTerminalRef(t *testing.T) {
	both := boxwatch.TerminalRef{LOCODE: "USLAX", SMDGCode: "APMT", FIRMSCode: "W185"}
	if both.ID() != boxwatch.TerminalID("USLAX", "APMT") || both.IsZero() || both.String() != "USLAX/APMT (FIRMS W185)" {
		t.Errorf("%+v: id %s, %q", both, both.ID(), both)
	}
	firms := boxwatch.TerminalRef{LOCODE: "USLGB", FIRMSCode: "W183"}
	if firms.ID() == "" || firms.ID() == both.ID() || firms.String() != "FIRMS W183" {
		t.Errorf("%+v: id %s, %q", firms, firms.ID(), firms)
	}
	if zero := (boxwatch.TerminalRef{LOCODE: "USLAX"}); !zero.IsZero() || zero.ID() != "" {
		t.Errorf("a ref without codes names a terminal: %q", zero.ID())
	}
}
