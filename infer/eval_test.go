package infer_test

import (
	"os"
	"testing"

	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/infer"
	"github.com/boxwatch/boxwatch/infer/internal/evaluation"
)

func mustEngine(t testing.TB) *infer.Engine {
	t.Helper()
	e, err := infer.New(data.Carriers(), data.Lessors())
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func mustEvalSet(t testing.TB) []evaluation.Case {
	t.Helper()
	f, err := os.Open("testdata/eval.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cases, err := evaluation.Load(f)
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestEvaluation grades the engine on the labelled set (regenerate it with
// go run ./infer/internal/evalgen -o infer/testdata/eval.csv) and fails below the bars.
func TestEvaluation(t *testing.T) {
	cases := mustEvalSet(t)
	if len(cases) < 600 {
		t.Fatalf("evaluation set has %d numbers, want at least 600", len(cases))
	}
	r, err := evaluation.Run(mustEngine(t), cases)
	if err != nil {
		t.Fatal(err)
	}
	if r.Carriers < 25 {
		t.Errorf("evaluation set covers %d carriers, want at least 25", r.Carriers)
	}
	for _, l := range r.Lines() {
		t.Log(l)
	}
	for _, m := range r.Misses {
		t.Log("miss:", m)
	}
	if err := r.Check(); err != nil {
		t.Error(err)
	}
}

func evalNumbers(b *testing.B) []string {
	cases := mustEvalSet(b)
	numbers := make([]string, len(cases))
	for i, c := range cases {
		numbers[i] = c.Number
	}
	return numbers
}

// BenchmarkInfer infers every number of the evaluation set in turn.
// BenchmarkInfer measures the engine on the evaluation set next to a baseline doing the least
// work an inference needs on the same numbers: normalise and compute the ISO 6346 check digit.
func BenchmarkInfer(b *testing.B) {
	b.Run("baseline", func(b *testing.B) { evaluation.BenchBaseline(b, evalNumbers(b)) })
	b.Run("engine", func(b *testing.B) { evaluation.BenchInfer(b, mustEngine(b), evalNumbers(b)) })
}
