package main

import (
	"strings"
	"testing"
)

func TestConvert(t *testing.T) {
	src := map[string]sourcePort{
		"SGSIN": {Name: "Singapore", Country: "Singapore", TimeZone: "Asia/Singapore", Coordinates: []float64{103.85, 1.28}},
		"ARRIC": {Name: " Rio Cullen ", Country: "Argentina", TimeZone: "America/Argentina", Coordinates: []float64{-68.35, -52.9}},
		"CNFOC": {Name: "Fuzhou", Country: "China"},
	}
	ports, err := convert(src, testZones(t))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := encode(ports)
	if err != nil {
		t.Fatal(err)
	}
	want := `[
{"locode":"ARRIC","name":"Rio Cullen","country":"Argentina","country_code":"AR","lat":-52.9,"lon":-68.35},
{"locode":"CNFOC","name":"Fuzhou","country":"China","country_code":"CN"},
{"locode":"SGSIN","name":"Singapore","country":"Singapore","country_code":"SG","time_zone":"Asia/Singapore","lat":1.28,"lon":103.85}
]
`
	if string(doc) != want {
		t.Errorf("got\n%s\nwant\n%s", doc, want)
	}
}

func TestConvertRejects(t *testing.T) {
	tests := map[string]map[string]sourcePort{
		"ErrLOCODE":      {"SG-SIN": {Name: "Singapore"}},
		"ErrNoName":      {"SGSIN": {}},
		"ErrCoordinates": {"SGSIN": {Name: "Singapore", Coordinates: []float64{1}}},
		"ErrOutOfRange":  {"SGSIN": {Name: "Singapore", Coordinates: []float64{200, 1}}},
	}
	for name, src := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := convert(src, testZones(t)); err == nil || !strings.Contains(err.Error(), "SG") {
				t.Errorf("err = %v", err)
			}
		})
	}
}
