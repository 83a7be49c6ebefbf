// Command benchreport copies "go test -bench" output from stdin to stdout, then prints each
// benchmark's throughput as a ratio to the "baseline" sub-benchmark of its group, measured in the
// same run. Ratios stay meaningful on shared, noisy machines where absolute figures do not.
//
//	go test -run '^$' -bench . ./... | go run ./internal/benchreport
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// result is one benchmark line: its group, its sub-benchmark name and its time per operation.
type result struct {
	group, name string
	nsPerOp     float64
	extra       string  // custom metrics such as req/s, for the summary
	cpuPerOp    float64 // CPU time per operation (a cpu-ns/op metric), 0 when not reported
}

var line = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op(.*)$`)
var custom = regexp.MustCompile(`([\d.]+) ([A-Za-z/]+/s)`)
var cpu = regexp.MustCompile(`([\d.]+) cpu-ns/op`)

func parse(r io.Reader, echo io.Writer) ([]result, error) {
	var out []result
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		text := sc.Text()
		fmt.Fprintln(echo, text)
		m := line.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		ns, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			return nil, err
		}
		group, name := m[1], ""
		if i := strings.LastIndex(m[1], "/"); i >= 0 {
			group, name = m[1][:i], m[1][i+1:]
		}
		extra := ""
		if c := custom.FindStringSubmatch(m[3]); c != nil {
			extra = c[1] + " " + c[2]
		}
		var cpuNs float64
		if c := cpu.FindStringSubmatch(m[3]); c != nil {
			cpuNs, _ = strconv.ParseFloat(c[1], 64)
		}
		out = append(out, result{group: group, name: name, nsPerOp: ns, extra: extra, cpuPerOp: cpuNs})
	}
	return out, sc.Err()
}

// summarise writes, per group with a baseline, each result's speed relative to the baseline
// (baseline time / its time: 0.5 means half the baseline's throughput). With -count > 1 the
// fastest run of each counts, the one least disturbed by neighbours. Results that report the
// CPU time they cost (cpu-ns/op: every process serving them, the database's included) get a
// second ratio by CPU, least cost of the runs: what the throughput ratio would be on a machine
// of their own, where neighbours' load does not shift between a baseline and its results.
func summarise(results []result, w io.Writer) {
	best := map[string]result{}
	leastCPU := map[string]float64{}
	var order []string
	for _, r := range results {
		k := r.group + "/" + r.name
		prev, seen := best[k]
		if !seen {
			order = append(order, k)
		}
		if !seen || r.nsPerOp < prev.nsPerOp {
			best[k] = r
		}
		if c, ok := leastCPU[k]; r.cpuPerOp > 0 && (!ok || r.cpuPerOp < c) {
			leastCPU[k] = r.cpuPerOp
		}
	}
	fmt.Fprintln(w, "\nThroughput relative to the baseline of the same run (1.00 = as fast as the baseline):")
	printed := false
	for _, k := range order {
		r := best[k]
		base, ok := best[r.group+"/baseline"]
		if !ok || r.name == "baseline" || unit(r) != unit(base) {
			continue // a ratio compares like with like (latency runs beside a throughput baseline do not)
		}
		byCPU := ""
		if c, bc := leastCPU[k], leastCPU[r.group+"/baseline"]; c > 0 && bc > 0 {
			byCPU = fmt.Sprintf("   by CPU %.2fx (%.0f µs; baseline %.0f µs)", bc/c, c/1000, bc/1000)
		}
		fmt.Fprintf(w, "  %-45s %6.2fx   (%s; baseline %s)%s\n", r.group+"/"+r.name, base.nsPerOp/r.nsPerOp, orNs(r), orNs(base), byCPU)
		printed = true
	}
	if !printed {
		fmt.Fprintln(w, "  (no benchmark group has a baseline)")
	}
}

// unit is the throughput metric a result reports, or ns/op when it reports none.
func unit(r result) string {
	if _, u, ok := strings.Cut(r.extra, " "); ok {
		return u
	}
	return "ns/op"
}

func orNs(r result) string {
	if r.extra != "" {
		return r.extra
	}
	return strconv.FormatFloat(r.nsPerOp, 'f', 0, 64) + " ns/op"
}

func main() {
	results, err := parse(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
	summarise(results, os.Stdout)
}
