package main

import (
	"strings"
	"testing"
)

// A type 5 message in two sentences from the package's ais28736.log.
const (
	part1 = "!AIVDM,2,1,6,B,5INSC`h2<WbhDiUR3<0<521A84H4hL5800000017JHeC=53e0JQm@F@DEBC8,0*2A"
	part2 = "!AIVDM,2,2,6,B,>r@00000000,2*1D"
	// A position report (type 1) in one sentence, from the same file.
	position = "!AIVDM,1,1,,B,14`c;d002grD>PH50hr7RVE000SG,0*74"
)

func TestReadStatics(t *testing.T) {
	want := staticReport{MMSI: 636015523, IMO: 9215660, CallSign: "ELYX 3", Name: "CAP TRAFALGAR", ShipType: 71, Length: 256}
	tests := []struct {
		name  string
		lines []string
		want  []staticReport
	}{
		{"OK", []string{part1, part2}, []staticReport{want}},
		{"OK with other sentences between", []string{part1, position, part2}, []staticReport{want}},
		{"OK with CRLF", []string{part1 + "\r", part2 + "\r"}, []staticReport{want}},
		{"second part alone", []string{part2}, nil},
		{"parts out of order", []string{part2, part1}, nil},
		{"bad checksum", []string{part1, strings.Replace(part2, "*1D", "*1E", 1)}, nil},
		{"other channel", []string{part1, strings.Replace(part2, ",B,", ",A,", 1)}, nil},
		{"not a type 5 message", []string{position}, nil},
		{"garbage", []string{"", "!", "*", "!AIVDM,2,1,6,B,5,0*", "!AIVDM,x,y,z*00"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readStatics(strings.NewReader(strings.Join(tt.lines, "\n")))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) || len(got) == 1 && got[0] != tt.want[0] {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestMIDFlags(t *testing.T) {
	src := []byte(`const MID_TO_COUNTRY = {
  "219": ["Denmark", "DK"],
  "357": ["Puerto Rico - United States of America", "PR"],
}`)
	flags := midFlags(src)
	if flags["219"] != "DK" || flags["357"] != "PA" {
		t.Errorf("flags %v", flags)
	}
	if mid("219902000") != "219" || mid("111219000") != "" || mid("2199") != "" {
		t.Error("mid reads something other than a ship station's first three digits")
	}
}

func FuzzReadStatics(f *testing.F) {
	f.Add(part1 + "\n" + part2)
	f.Add(position)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := readStatics(strings.NewReader(s))
		if err != nil && len(got) > 0 {
			t.Fatal("reports and an error")
		}
	})
}
