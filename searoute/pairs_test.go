package searoute_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/searoute"
)

// samplePair is a pair of testdata/pairs.json.
type samplePair struct {
	ID                  string             `json:"id"`
	Origin              samplePort         `json:"origin"`
	Destination         samplePort         `json:"destination"`
	Avoid               []searoute.Passage `json:"avoid"`
	DistanceNM          float64            `json:"distance_nm"`
	Passages            []searoute.Passage `json:"passages"`
	CrossesAntimeridian bool               `json:"crosses_antimeridian"`
}

type samplePort struct {
	LOCODE string  `json:"locode"`
	Lon    float64 `json:"lon"`
	Lat    float64 `json:"lat"`
}

func (p samplePort) point() geo.Point { return geo.Point{Lat: p.Lat, Lon: p.Lon} }

func (p samplePair) options() searoute.Options { return searoute.Options{Avoid: p.Avoid} }

func readPairs(tb testing.TB) []samplePair {
	tb.Helper()
	b, err := os.ReadFile("testdata/pairs.json")
	if err != nil {
		tb.Fatal(err)
	}
	var doc struct{ Pairs []samplePair }
	if err := json.Unmarshal(b, &doc); err != nil {
		tb.Fatal(err)
	}
	if len(doc.Pairs) != 10 {
		tb.Fatalf("%d pairs, want 10", len(doc.Pairs))
	}
	return doc.Pairs
}
