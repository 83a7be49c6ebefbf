package boxwatch_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch"
)

func TestLoadWaterways(t *testing.T) {
	ws, err := boxwatch.LoadWaterways(strings.NewReader(`{"waterways": [
{"name":"Rhine","ports":["NLRTM","NLDOR","DEDUS","DECGN"]},
{"name":"Canal","ports":["BEANR","NLDOR","DEDUS"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, from, to string
		want           []string
	}{
		{"Upstream", "NLRTM", "DEDUS", []string{"NLRTM", "NLDOR", "DEDUS"}},
		{"Downstream", "DECGN", "NLDOR", []string{"DECGN", "DEDUS", "NLDOR"}},
		{"SecondWaterway", "BEANR", "DEDUS", []string{"BEANR", "NLDOR", "DEDUS"}},
		{"NoWaterwayHasBoth", "BEANR", "DECGN", nil},
		{"SamePort", "NLRTM", "NLRTM", nil},
		{"UnknownPort", "NLRTM", "CHBSL", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ws.Between(tt.from, tt.to)
			if ok != (tt.want != nil) || !slices.Equal(got, tt.want) {
				t.Errorf("Between(%s, %s) = %v, %v; want %v", tt.from, tt.to, got, ok, tt.want)
			}
		})
	}
	var none *boxwatch.Waterways
	if _, ok := none.Between("NLRTM", "DEDUS"); ok {
		t.Error("a nil set has a waterway")
	}
	for name, doc := range map[string]string{
		"ErrName":      `{"waterways": [{"name":"","ports":["NLRTM","DEDUS"]}]}`,
		"ErrOnePort":   `{"waterways": [{"name":"x","ports":["NLRTM"]}]}`,
		"ErrLOCODE":    `{"waterways": [{"name":"x","ports":["NLRTM","Duisburg"]}]}`,
		"ErrDuplicate": `{"waterways": [{"name":"x","ports":["NLRTM","DEDUS","NLRTM"]}]}`,
		"ErrField":     `{"waterways": [{"name":"x","ports":["NLRTM","DEDUS"],"km":[1,2]}]}`,
	} {
		if _, err := boxwatch.LoadWaterways(strings.NewReader(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
