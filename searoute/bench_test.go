package searoute_test

import (
	"os"
	"runtime"
	"testing"

	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/geo/land"
	"github.com/boxwatch/boxwatch/searoute"
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

// BenchmarkLoad times what start-up does to make the embedded network ready (decode the land, the
// fairways and the network, index them, place the landmarks) and reports the heap it holds
// afterwards: "stored" as shipped, with the snapping grids' cells read from the network file;
// "baseline" with them dropped after decoding, so that New finds them along every edge as
// start-up did before they were stored.
func BenchmarkLoad(b *testing.B) {
	landBin, err := os.ReadFile("../data/land/land-50m.bin")
	if err != nil {
		b.Fatal(err)
	}
	netBin, err := os.ReadFile("../data/searoute/network.bin")
	if err != nil {
		b.Fatal(err)
	}
	fairwaysJSON, err := os.ReadFile("../data/rivers/fairways.json")
	if err != nil {
		b.Fatal(err)
	}
	for _, stored := range []bool{false, true} {
		name := "baseline"
		if stored {
			name = "stored"
		}
		b.Run(name, func(b *testing.B) {
			var heapMB float64
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				rings, err := land.Decode(landBin)
				if err != nil {
					b.Fatal(err)
				}
				l, err := land.New(rings)
				if err != nil {
					b.Fatal(err)
				}
				g, err := searoute.Decode(netBin)
				if err != nil {
					b.Fatal(err)
				}
				if !stored {
					g = searoute.Graph{Nodes: g.Nodes, Edges: g.Edges, Shapes: g.Shapes}
				}
				f, err := searoute.DecodeFairways(fairwaysJSON)
				if err != nil {
					b.Fatal(err)
				}
				n, err := searoute.New(g, searoute.Water{Land: l, Fairways: f})
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				runtime.GC()
				runtime.ReadMemStats(&after)
				heapMB = float64(after.HeapAlloc-before.HeapAlloc) / (1 << 20)
				runtime.KeepAlive(n)
				b.StartTimer()
			}
			b.ReportMetric(heapMB, "MB-heap")
		})
	}
}
