package searoute_test

import (
	"testing"

	"github.com/boxwatch/boxwatch/data"
)

// BenchmarkRoute times one query over each sample pair in turn (network loaded, no cache).
func BenchmarkRoute(b *testing.B) {
	n := data.SeaNetwork()
	pairs := readPairs(b)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		p := pairs[i%len(pairs)]
		if _, err := n.Route(p.Origin.point(), p.Destination.point(), p.options()); err != nil {
			b.Fatal(err)
		}
	}
}
