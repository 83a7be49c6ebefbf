package main

import (
	"strings"
	"testing"
)

func TestBuild(t *testing.T) {
	const head = "scac,name,short_names,country,source\n"
	doc, err := build(strings.NewReader(head + "UP,Union Pacific Railroad,UP,US,https://example.org/up\n" +
		"CSXT,CSX Transportation,CSXT CSX,US,https://example.org/csx\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"railways": [
{"scac":"CSXT","name":"CSX Transportation","short_names":["CSXT","CSX"],"country":"US"},
{"scac":"UP","name":"Union Pacific Railroad","short_names":["UP"],"country":"US"}
]}
`
	if string(doc) != want {
		t.Errorf("got\n%s\nwant\n%s", doc, want)
	}
	for name, in := range map[string]string{
		"NoSource":   head + "UP,Union Pacific Railroad,UP,US,\n",
		"BadSCAC":    head + "up,Union Pacific Railroad,UP,US,https://example.org\n",
		"BadHeader":  "scac,name\nUP,Union Pacific Railroad\n",
		"Duplicate":  head + "UP,Union Pacific Railroad,UP,US,https://a\nUPX,Other,UP,US,https://b\n",
		"NoRailways": head,
	} {
		if _, err := build(strings.NewReader(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
