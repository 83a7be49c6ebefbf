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
// go run ./infer/internal/evalgen -o infer/testdata/eval.csv). The generated numbers must reach
// the bars. The published ones, which the engine's tables were not drawn from, must keep
// its rules (check digits judged right, no number that does not name its carrier auto-selected);
// their rates are logged beside their bars, which they miss (BENCHMARKS.md).
func TestEvaluation(t *testing.T) {
	published, generated := evaluation.Split(mustEvalSet(t))
	if len(generated) < 600 {
		t.Fatalf("evaluation set has %d generated numbers, want at least 600", len(generated))
	}
	if len(published) < 70 {
		t.Fatalf("evaluation set has %d published numbers, want at least 70", len(published))
	}
	grade := func(t *testing.T, cases []evaluation.Case, check func(evaluation.Report) error) evaluation.Report {
		r, err := evaluation.Run(mustEngine(t), cases)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range r.Lines() {
			t.Log(l)
		}
		for _, m := range r.Misses {
			t.Log("miss:", m)
		}
		if err := check(r); err != nil {
			t.Error(err)
		}
		return r
	}
	t.Run("Published", func(t *testing.T) {
		grade(t, published, evaluation.Report.CheckRules)
	})
	t.Run("Generated", func(t *testing.T) {
		if r := grade(t, generated, evaluation.Report.Check); r.Carriers < 25 {
			t.Errorf("generated numbers cover %d carriers, want at least 25", r.Carriers)
		}
	})
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
