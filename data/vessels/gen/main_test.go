package main

import (
	"strings"
	"testing"
)

func TestReadStatics(t *testing.T) {
	// A type 5 message in two sentences around a position report, from the package's ais28736.log;
	// package ais tests the decoding itself.
	lines := []string{
		"!AIVDM,2,1,6,B,5INSC`h2<WbhDiUR3<0<521A84H4hL5800000017JHeC=53e0JQm@F@DEBC8,0*2A",
		"!AIVDM,1,1,,B,14`c;d002grD>PH50hr7RVE000SG,0*74",
		"!AIVDM,2,2,6,B,>r@00000000,2*1D",
	}
	got, err := readStatics(strings.NewReader(strings.Join(lines, "\r\n")))
	want := static{MMSI: 636015523, IMO: 9215660, CallSign: "ELYX 3", Name: "CAP TRAFALGAR", ShipType: 71, Length: 256}
	if err != nil || len(got) != 1 || got[0] != want {
		t.Errorf("got %+v, %v; want %+v", got, err, want)
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
