package assistant

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// goldenMaps are the journey engine's golden maps: the documents GET /v2/containers/{id}/map_geojson
// promises to keep, which the route and journey tools read.
func goldenMaps(t testing.TB) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob("../journey/testdata/map_*.geojson")
	if err != nil || len(paths) < 5 {
		t.Fatalf("the journey engine's golden maps: %v %v", paths, err)
	}
	out := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(p), ".geojson")] = b
	}
	return out
}

func TestReadMapReadsEveryGoldenMap(t *testing.T) {
	for name, raw := range goldenMaps(t) {
		m, err := readMap(raw)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for seq := 1; seq <= m.total; seq++ {
			if _, ok := m.ports[seq]; !ok {
				t.Errorf("%s: port %d of %d missing", name, seq, m.total)
			}
		}
	}
}

func TestJourneyOf(t *testing.T) {
	maps := goldenMaps(t)
	for _, tt := range []struct {
		name, status, from, to string
		predicted              bool
	}{
		{"map_sea_leg1", "at_sea", "POL", "TS1", true},
		{"map_sea_last_leg", "at_sea", "TS1", "POD", true},
		{"map_transshipment", "in_port", "TS1", "POD", false},
		{"map_arrived", "arrived", "POD", "", false},
		{"map_booked", "not_departed", "POL", "TS1", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := readMap(maps[tt.name])
			if err != nil {
				t.Fatal(err)
			}
			j := journeyOf("c", m)
			to := ""
			if j.To != nil {
				to = j.To.Label
			}
			if j.Status != tt.status || j.From == nil || j.From.Label != tt.from || to != tt.to || (j.PredictedArrival != nil) != tt.predicted {
				t.Fatalf("%+v", j)
			}
			summary := journeySummary(j)
			if !tt.predicted {
				return
			}
			// The prediction sits beside the carrier's ETA, both at the next port, and the difference is theirs.
			if j.Position == nil || j.DistanceToGoNM == nil || j.CarrierETA == nil || j.PredictedLateBy == nil ||
				j.PredictedArrival.TimeZone != *j.To.TimeZone || j.CarrierETA.TimeZone != *j.To.TimeZone {
				t.Fatalf("at sea: %+v", j)
			}
			predicted, _ := time.Parse(time.RFC3339, j.PredictedArrival.UTC)
			eta, _ := time.Parse(time.RFC3339, j.CarrierETA.UTC)
			if got := predicted.Sub(eta).Hours(); got-*j.PredictedLateBy > 0.05 || *j.PredictedLateBy-got > 0.05 {
				t.Errorf("late by %v hours, the times differ by %v", *j.PredictedLateBy, got)
			}
			if !strings.Contains(summary, "boxwatch predicts "+j.PredictedArrival.Local) || !strings.Contains(summary, "nautical miles to go") {
				t.Errorf("summary %q", summary)
			}
		})
	}
}

func TestReadMapRefusesWhatBoxwatchNeverDraws(t *testing.T) {
	for name, doc := range map[string]string{
		"NotJSON":         `{`,
		"NotACollection":  `{"type":"Feature","features":[]}`,
		"PortOutOfRoute":  `{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"feature_type":"port","ports_sequence":3,"ports_total":2}}]}`,
		"TooManyPorts":    `{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"feature_type":"port","ports_sequence":1,"ports_total":1000}}]}`,
		"VesselOffTheMap": `{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[200,2]},"properties":{"feature_type":"current_vessel","ports_sequence":1}}]}`,
		"VesselNoRoute":   `{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"feature_type":"current_vessel","ports_sequence":1}}]}`,
		"PropertiesList":  `{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":[]}]}`,
	} {
		if _, err := readMap([]byte(doc)); err == nil {
			t.Errorf("%s: read", name)
		}
	}
	m, err := readMap([]byte(`{"type":"FeatureCollection","features":[]}`))
	if err != nil || journeyOf("c", m).Status != "no_route" {
		t.Errorf("a map without a route: %+v %v", m, err)
	}
}

func FuzzReadMap(f *testing.F) {
	for _, raw := range goldenMaps(f) {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := readMap(raw)
		if err != nil {
			return
		}
		// Whatever was read, the tools can describe it without failing.
		j := journeyOf("c", m)
		journeySummary(j)
		for seq := 1; seq < m.total; seq++ {
			m.port(seq)
		}
		if v := m.vessel; v != nil && (v.Sequence < 1 || v.Sequence >= m.total) {
			t.Fatalf("a vessel on leg %d of a %d-port route", v.Sequence, m.total)
		}
	})
}

func TestPlaceTime(t *testing.T) {
	at := time.Date(2026, 3, 7, 2, 57, 4, 0, time.UTC)
	for _, tt := range []struct {
		zone            *string
		local, zoneName string
	}{
		{new("Asia/Singapore"), "2026-03-07T10:57:04+08:00", "Asia/Singapore"},
		{new("America/Los_Angeles"), "2026-03-06T18:57:04-08:00", "America/Los_Angeles"},
		{nil, "2026-03-07T02:57:04Z", "UTC"},
		{new("Mars/Olympus_Mons"), "2026-03-07T02:57:04Z", "UTC"},
		{new(""), "2026-03-07T02:57:04Z", "UTC"},
	} {
		got := placeTime(&at, tt.zone)
		if got.Local != tt.local || got.TimeZone != tt.zoneName || got.UTC != "2026-03-07T02:57:04Z" {
			t.Errorf("%v: %+v", tt.zone, got)
		}
	}
	if placeTime(nil, new("UTC")) != nil {
		t.Error("no time is no Time")
	}
}

func TestAPIKey(t *testing.T) {
	for header, want := range map[string]string{"Bearer bw_1": "bw_1", "Token bw_1": "bw_1", "bearer  bw_1 ": "bw_1", "Basic bw_1": "", "Bearer": "", "": "", "Bearer ": ""} {
		if got, ok := apiKey(header); got != want || ok != (want != "") {
			t.Errorf("%q: %q %v", header, got, ok)
		}
	}
}

func TestFilterName(t *testing.T) {
	for in, want := range map[string]string{"scac": "filter[scac]", "filter[scac]": "filter[scac]", "q": "q",
		"created_at[start]": "filter[created_at][start]", "filter[created_at][end]": "filter[created_at][end]"} {
		if got := filterName(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
