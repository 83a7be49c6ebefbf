package ais_test

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch/ais"
)

// BenchmarkDecodeLine measures nanoseconds per line of aisparser's nmea-sample for
// ais-stream-decoder@2.1.2 (the baseline, timed by Node itself: the fastest of five passes after
// a warm-up) and for this package, in the same run; internal/benchreport prints the ratio. An
// operation is one line; allocs/op counts a pass over all 85,194 lines.
func BenchmarkDecodeLine(b *testing.B) {
	path := samplePath(b)
	lines := readLines(b, path)
	var baseline float64 // Node times its own passes: run it once, when the framework asks for one operation
	b.Run("baseline", func(b *testing.B) {
		if b.N > 1 {
			b.ReportMetric(baseline, "ns/op")
			return
		}
		cmd := exec.Command("node", "decode.js", "bench", path)
		cmd.Dir = filepath.Join("..", "bench", "ais")
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("node decode.js bench: %v", err)
		}
		ns, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
		if err != nil {
			b.Fatalf("node decode.js bench printed %q", out)
		}
		baseline = ns
		b.ReportMetric(ns, "ns/op")
	})
	b.Run("boxwatch", func(b *testing.B) {
		b.ReportAllocs()
		var d ais.Decoder
		var m ais.Message
		for b.Loop() {
			for _, line := range lines {
				d.Decode(line, &m)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lines)), "ns/op")
		if d.Stats.Messages[1] == 0 {
			b.Fatal("no position decoded")
		}
	})
}
