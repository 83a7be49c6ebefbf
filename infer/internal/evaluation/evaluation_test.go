package evaluation

import (
	"strings"
	"testing"
)

func TestLoad(t *testing.T) {
	const header = "number,type,carrier,knowable,valid,source,origin\n"
	tests := []struct {
		name, csv string
		want      []Case // nil when Load must fail
	}{
		{"OK", header + "MSCU1234566,container,MSCU,true,true,A,generated\n212157148,bill_of_lading,MAEU,false,,t49-oas-tracked,published\n", []Case{
			{Number: "MSCU1234566", Type: "container", Carrier: "MSCU", Knowable: true, Source: "A"},
			{Number: "212157148", Type: "bill_of_lading", Carrier: "MAEU", Source: "t49-oas-tracked", Published: true},
		}},
		{"ErrHeaderWithoutOrigin", "number,type,carrier,knowable,valid,source\nMSCU1234566,container,MSCU,true,true,A\n", nil},
		{"ErrOrigin", header + "MSCU1234566,container,MSCU,true,true,A,\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Load(strings.NewReader(tt.csv))
			if tt.want == nil {
				if err == nil {
					t.Fatalf("Load = %+v, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("Load gave %d cases, want %d", len(got), len(tt.want))
			}
			for i := range got {
				g, w := got[i], tt.want[i]
				if g.Number != w.Number || g.Type != w.Type || g.Carrier != w.Carrier || g.Knowable != w.Knowable || g.Source != w.Source || g.Published != w.Published {
					t.Errorf("case %d = %+v, want %+v", i, g, w)
				}
			}
			published, generated := Split(got)
			if len(published) != 1 || published[0].Number != "212157148" || len(generated) != 1 || generated[0].Number != "MSCU1234566" {
				t.Errorf("Split = %v, %v", published, generated)
			}
		})
	}
}
