package main

import (
	"strings"
	"testing"
)

func TestBuild(t *testing.T) {
	hand := "locode,smdg_code,firms_code,name,nickname\nUSLAX,APMT,W185,APM Terminals Pier 400,APMT\nUSLGB,,W183,LBCT Pier F,LBCT F\n"
	smdg := "UNLOCODE,Alternative UNLOCODE,Terminal Code,Terminal Facility Name,Terminal Address\n" +
		`USLAX,,APMT,APM TERMINALS,"2500 Navy Way, Berths 401-406, Terminal Island, CA 90731, USA"` + "\n"
	doc, err := build(strings.NewReader(hand), strings.NewReader(smdg))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"terminals": [
{"locode":"USLAX","smdg_code":"APMT","firms_code":"W185","name":"APM Terminals Pier 400","nickname":"APMT","street":"2500 Navy Way, Berths 401-406","city":"Terminal Island","state":"California","state_abbr":"CA","zip":"90731","country":"US"},
{"locode":"USLGB","firms_code":"W183","name":"LBCT Pier F","nickname":"LBCT F","country":"US"}
]}
`
	if string(doc) != want {
		t.Errorf("got\n%s\nwant\n%s", doc, want)
	}
	if _, err := build(strings.NewReader(hand+"USNYC,NOPE,,X,Y\n"), strings.NewReader(smdg)); err == nil {
		t.Error("a code missing from SMDG's list was accepted")
	}
	for _, a := range []string{"Somewhere", "1 Road, City, CA 90731, France", "1 Road, City, XX 1, USA"} {
		if _, _, _, _, err := splitAddress(a); err == nil {
			t.Errorf("address %q accepted", a)
		}
	}
}
