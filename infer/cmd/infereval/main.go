// Command infereval prints the evaluation figures of the number-inference engine on its labelled
// set, and its throughput against a baseline, one figure per line. The figures come in two
// blocks: the published numbers (printed in public documents: the engine never saw them) and the
// generated ones (drawn from the formats and prefix tables the registry itself encodes, so they
// flatter it). It exits with status 1 when the generated numbers miss a bar of the inference
// issue, or when the published ones break one of its rules (a check digit judged wrongly, a
// number that does not name its carrier auto-selected); the published rates are printed against
// their bars but do not fail the run.
//
// Usage, from the module root:
//
//	go run ./infer/cmd/infereval [-set infer/testdata/eval.csv] [-bench=false]
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"testing"

	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/infer"
	"github.com/boxwatch/boxwatch/infer/internal/evaluation"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "infereval:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("infereval", flag.ContinueOnError)
	setPath := fs.String("set", "infer/testdata/eval.csv", "labelled evaluation set")
	bench := fs.Bool("bench", true, "also measure inferences per second")
	if err := fs.Parse(args); err != nil {
		return err
	}
	f, err := os.Open(*setPath)
	if err != nil {
		return err
	}
	cases, err := evaluation.Load(f)
	f.Close()
	if err != nil {
		return err
	}
	engine, err := infer.New(data.Carriers(), data.Lessors())
	if err != nil {
		return err
	}
	published, generated := evaluation.Split(cases)
	pub, err := evaluation.Run(engine, published)
	if err != nil {
		return err
	}
	gen, err := evaluation.Run(engine, generated)
	if err != nil {
		return err
	}
	block := func(title string, r evaluation.Report) {
		fmt.Fprintln(stdout, title)
		for _, l := range r.Lines() {
			fmt.Fprintln(stdout, "  "+l)
		}
	}
	block("published numbers (printed in public documents):", pub)
	block("generated numbers (drawn from the formats and prefix tables the registry encodes):", gen)
	if *bench {
		runtime.GOMAXPROCS(1)
		numbers := make([]string, len(cases))
		for i, c := range cases {
			numbers[i] = c.Number
		}
		eng, base := evaluation.Throughput(engine, numbers)
		line := func(name string, r testing.BenchmarkResult) {
			fmt.Fprintf(stdout, "%s: %.0f inferences/s on one core, %d ns/op, %d allocs/op\n",
				name, r.Extra["inferences/s"], r.NsPerOp(), r.AllocsPerOp())
		}
		line("throughput", eng)
		line("baseline (normalise + ISO 6346 check)", base)
		fmt.Fprintf(stdout, "engine/baseline time ratio: %.1f\n", float64(eng.T)/float64(eng.N)/(float64(base.T)/float64(base.N)))
	}
	return errors.Join(pub.CheckRules(), gen.Check())
}
