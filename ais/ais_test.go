package ais_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch/ais"
)

// A type 5 message in two sentences, and a position report (type 1) in one, from ais28736.log of
// the npm package aisparser 0.1.2 (Apache-2.0, see data/vessels/LICENSE.aisparser).
const (
	part1    = "!AIVDM,2,1,6,B,5INSC`h2<WbhDiUR3<0<521A84H4hL5800000017JHeC=53e0JQm@F@DEBC8,0*2A"
	part2    = "!AIVDM,2,2,6,B,>r@00000000,2*1D"
	position = "!AIVDM,1,1,,B,14`c;d002grD>PH50hr7RVE000SG,0*74"
)

func TestAssembler(t *testing.T) {
	want := ais.StaticReport{MMSI: 636015523, IMO: 9215660, CallSign: "ELYX 3", Name: "CAP TRAFALGAR", ShipType: 71, Length: 256}
	tests := []struct {
		name  string
		lines []string
		types []int // of the messages the lines complete
		want  []ais.StaticReport
	}{
		{"OK", []string{part1, part2}, []int{5}, []ais.StaticReport{want}},
		{"OK with other sentences between", []string{part1, position, part2}, []int{1, 5}, []ais.StaticReport{want}},
		{"OK with CRLF", []string{part1 + "\r\n", part2 + "\r\n"}, []int{5}, []ais.StaticReport{want}},
		{"OK not a type 5 message", []string{position}, []int{1}, nil},
		{"second part alone", []string{part2}, nil, nil},
		{"parts out of order", []string{part2, part1}, nil, nil},
		{"bad checksum", []string{part1, strings.Replace(part2, "*1D", "*1E", 1)}, nil, nil},
		{"other channel", []string{part1, strings.Replace(part2, ",B,", ",A,", 1)}, nil, nil},
		{"not armoured", []string{"!AIVDM,1,1,,B,1~,0*6A"}, nil, nil},
		{"garbage", []string{"", "!", "*", "!AIVDM,2,1,6,B,5,0*", "!AIVDM,x,y,z*00"}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a ais.Assembler
			var types []int
			var got []ais.StaticReport
			for _, line := range tt.lines {
				m, ok := a.Add(line)
				if !ok {
					continue
				}
				types = append(types, m.Type())
				if s, ok := m.Static(); ok {
					got = append(got, s)
				}
			}
			if !slices.Equal(types, tt.types) {
				t.Errorf("message types %v, want %v", types, tt.types)
			}
			if len(got) != len(tt.want) || len(got) == 1 && got[0] != tt.want[0] {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func FuzzAssembler(f *testing.F) {
	f.Add(part1 + "\n" + part2)
	f.Add(position)
	f.Fuzz(func(t *testing.T, s string) {
		var a ais.Assembler
		for line := range strings.Lines(s) {
			m, ok := a.Add(line)
			if !ok {
				continue
			}
			if typ := m.Type(); typ < 0 || typ > 63 {
				t.Fatalf("type %d does not fit six bits", typ)
			}
			r, ok := m.Static()
			if ok && (m.Type() != 5 || r.Name != strings.Join(strings.Fields(r.Name), " ")) {
				t.Fatalf("static report %+v from a type %d message", r, m.Type())
			}
		}
	})
}
