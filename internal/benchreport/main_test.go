package main

import (
	"io"
	"strings"
	"testing"
)

func TestSummarise(t *testing.T) {
	in := `goos: linux
BenchmarkGet/baseline-2   	  100	     20000 ns/op	     50000 req/s	 6962 B/op	 77 allocs/op
BenchmarkGet/sqlite-2     	  100	     40000 ns/op	     25000 req/s
BenchmarkGet/sqlite-2     	  100	     50000 ns/op	     20000 req/s
BenchmarkInfer/baseline   	  100	        40 ns/op
BenchmarkInfer/engine     	  100	       160 ns/op
BenchmarkLonely-2         	  100	       160 ns/op
BenchmarkGet/latency-2    	  100	   5000000 ns/op	  3.1 p50-ms
BenchmarkCPU/baseline-2   	  100	     20000 ns/op	 40000 cpu-ns/op	     50000 req/s
BenchmarkCPU/baseline-2   	  100	     30000 ns/op	 50000 cpu-ns/op	     33333 req/s
BenchmarkCPU/postgres-2   	  100	     80000 ns/op	 90000 cpu-ns/op	     12500 req/s
BenchmarkCPU/postgres-2   	  100	     90000 ns/op	 80000 cpu-ns/op	     11111 req/s
PASS`
	results, err := parse(strings.NewReader(in), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	summarise(results, &out)
	got := out.String()
	for _, want := range []string{
		"BenchmarkGet/sqlite                             0.50x   (25000 req/s; baseline 50000 req/s)",
		"BenchmarkInfer/engine                           0.25x   (160 ns/op; baseline 40 ns/op)\n",
		// Throughput from the fastest runs, CPU from the cheapest.
		"BenchmarkCPU/postgres                           0.25x   (12500 req/s; baseline 50000 req/s)   by CPU 0.50x (80 µs; baseline 40 µs)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Lonely") {
		t.Errorf("a benchmark without a baseline got a ratio:\n%s", got)
	}
	if strings.Contains(got, "latency") {
		t.Errorf("a result in another unit than its baseline got a ratio:\n%s", got)
	}
}
