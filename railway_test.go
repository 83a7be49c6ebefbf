package boxwatch_test

import (
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch"
)

func TestLoadRailways(t *testing.T) {
	const ok = `{"railways": [{"scac":"CSXT","name":"CSX Transportation","short_names":["CSX"],"country":"US"},
{"scac":"UP","name":"Union Pacific Railroad","short_names":[],"country":"US"}]}`
	rs, err := boxwatch.LoadRailways(strings.NewReader(ok))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, want string }{
		{"CSX Bedford Park Intermodal Terminal", "CSXT"},
		{"Pier 400 on-dock rail (UP)", "UP"},
		{"UPTOWN Intermodal", ""},  // a word that only starts with a short name
		{"Union Pacific yard", ""}, // names, not short names, are not matched
		{"up Global IV", ""},       // short names are matched in capitals
	}
	for _, tt := range tests {
		r, found := rs.Named(tt.name)
		if found != (tt.want != "") || r.SCAC != tt.want {
			t.Errorf("%q: got %q, %v; want %q", tt.name, r.SCAC, found, tt.want)
		}
	}
	if r, found := rs.BySCAC("UP"); !found || r.Name != "Union Pacific Railroad" || len(r.ShortNames) != 1 {
		t.Errorf("BySCAC(UP) = %+v, %v", r, found)
	}
	var none *boxwatch.Railways
	if _, found := none.Named("BNSF"); found {
		t.Error("a nil set names a railway")
	}
	for name, doc := range map[string]string{
		"ErrSCAC":      `{"railways": [{"scac":"Up","name":"x","country":"US"}]}`,
		"ErrLongSCAC":  `{"railways": [{"scac":"UPRRX","name":"x","country":"US"}]}`,
		"ErrName":      `{"railways": [{"scac":"UP","name":"","country":"US"}]}`,
		"ErrCountry":   `{"railways": [{"scac":"UP","name":"x","country":"usa"}]}`,
		"ErrDuplicate": `{"railways": [{"scac":"UP","name":"x","country":"US"},{"scac":"UPX","name":"y","short_names":["UP"],"country":"US"}]}`,
		"ErrShortName": `{"railways": [{"scac":"UP","name":"x","short_names":["Union Pacific"],"country":"US"}]}`,
		"ErrField":     `{"railways": [{"scac":"UP","name":"x","country":"US","mark":"UP"}]}`,
	} {
		if _, err := boxwatch.LoadRailways(strings.NewReader(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
