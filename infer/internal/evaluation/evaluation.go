// Package evaluation grades an inference engine on the labelled set of infer/testdata/eval.csv
// and checks the figures against the bars of the inference issue. The set holds two kinds of
// numbers, graded apart: published ones, printed in public documents, and generated ones, drawn
// from the same formats and prefix tables the registry encodes (a second copy of the engine's own
// table, so their figures flatter it). TestEvaluation and the infereval command share it.
package evaluation

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/infer"
)

// Bars the figures must reach.
const (
	MinTypeAccuracy     = 0.99
	MinAutoPrecision    = 0.995
	MinTop1Accuracy     = 0.95
	MinValidationResult = 1.0
)

// Unknown labels a number whose carrier is not a line of the registry.
const Unknown = "unknown"

// Case is one labelled number.
type Case struct {
	Number  string
	Type    infer.NumberType
	Carrier string // SCAC, or Unknown
	// Knowable: the number carries an owner code or a bill-of-lading prefix that identifies its
	// carrier.
	Knowable bool
	// Valid is the ISO 6346 validity of a container number; unknown for other numbers.
	Valid infer.NullBool
	// Source is the key of the fact the label comes from (infer/internal/evalgen/SOURCES.md).
	Source string
	// Published: the number is printed in its source. Otherwise the generator drew it from the
	// formats and prefix tables of its sources, the same facts the registry encodes, so grading
	// it checks the engine against a second copy of its own table.
	Published bool
}

// Load reads the evaluation set.
func Load(r io.Reader) ([]Case, error) {
	rows, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 || strings.Join(rows[0], ",") != "number,type,carrier,knowable,valid,source,origin" {
		return nil, fmt.Errorf("evaluation set: unexpected header")
	}
	cases := make([]Case, 0, len(rows)-1)
	for i, row := range rows[1:] {
		c := Case{Number: row[0], Type: infer.NumberType(row[1]), Carrier: row[2], Source: row[5]}
		switch row[6] {
		case "published":
			c.Published = true
		case "generated":
		default:
			return nil, fmt.Errorf("evaluation set: row %d: origin %q, want published or generated", i+2, row[6])
		}
		if c.Knowable, err = strconv.ParseBool(row[3]); err != nil {
			return nil, fmt.Errorf("evaluation set: row %d: %w", i+2, err)
		}
		if row[4] != "" {
			v, err := strconv.ParseBool(row[4])
			if err != nil {
				return nil, fmt.Errorf("evaluation set: row %d: %w", i+2, err)
			}
			c.Valid = infer.Known(v)
		}
		cases = append(cases, c)
	}
	return cases, nil
}

// Report holds the counts of one evaluation.
type Report struct {
	Numbers, Carriers int

	TypeCorrect int
	// AutoSelected counts auto_select answers, AutoCorrect those whose selected line is the label.
	AutoSelected, AutoCorrect int
	// Knowable counts numbers whose carrier the number identifies, Top1Correct those whose first
	// candidate is it.
	Knowable, Top1Correct int
	// Validated counts container numbers, ValidationCorrect those whose is_valid and
	// check_digit_passed match ISO 6346.
	Validated, ValidationCorrect int
	// Ambiguous counts numbers of a known carrier that do not name it (bare bills and bookings,
	// leased boxes): AmbiguousAuto were auto-selected (never acceptable), AmbiguousListed list the
	// true carrier among the candidates.
	Ambiguous, AmbiguousAuto, AmbiguousListed int
	// Calibration buckets the numbers that received candidates by top confidence.
	Calibration []Bucket
	// Misses describes the numbers answered with a wrong type, a wrong top candidate or a
	// wrong auto_select.
	Misses []string
}

// Bucket is one confidence band: how often the top candidate was the label.
type Bucket struct {
	Low, High      float64
	Count, Correct int
	SumConfidence  float64
}

// Split separates the published numbers of cases from the generated ones, keeping their order.
func Split(cases []Case) (published, generated []Case) {
	for _, c := range cases {
		if c.Published {
			published = append(published, c)
		} else {
			generated = append(generated, c)
		}
	}
	return published, generated
}

// Run evaluates engine on cases. It fails when the engine rejects a number of the set.
func Run(engine *infer.Engine, cases []Case) (Report, error) {
	r := Report{Numbers: len(cases), Calibration: []Bucket{
		{Low: 0, High: 0.3}, {Low: 0.3, High: 0.5}, {Low: 0.5, High: 0.7}, {Low: 0.7, High: 0.95}, {Low: 0.95, High: 1.0001},
	}}
	carriers := map[string]bool{}
	for _, c := range cases {
		if c.Carrier != Unknown {
			carriers[c.Carrier] = true
		}
		res, err := engine.Infer(c.Number)
		if err != nil {
			return r, fmt.Errorf("%s: %w", c.Number, err)
		}
		sl := res.ShippingLine
		top := ""
		if len(sl.Candidates) > 0 {
			top = sl.Candidates[0].SCAC
		}
		var miss []string
		if res.NumberType == c.Type {
			r.TypeCorrect++
		} else {
			miss = append(miss, fmt.Sprintf("type %s, want %s", res.NumberType, c.Type))
		}
		if sl.Decision == infer.AutoSelect {
			r.AutoSelected++
			if sl.Selected.SCAC == c.Carrier {
				r.AutoCorrect++
			} else {
				miss = append(miss, fmt.Sprintf("auto_select %s, want %s", sl.Selected.SCAC, c.Carrier))
			}
		}
		if c.Knowable {
			r.Knowable++
			if top == c.Carrier {
				r.Top1Correct++
			} else {
				miss = append(miss, fmt.Sprintf("top %q, want %s", top, c.Carrier))
			}
		} else if c.Carrier != Unknown {
			r.Ambiguous++
			if sl.Decision == infer.AutoSelect {
				r.AmbiguousAuto++
			}
			for _, cand := range sl.Candidates {
				if cand.SCAC == c.Carrier {
					r.AmbiguousListed++
					break
				}
			}
		}
		if c.Valid.Valid {
			r.Validated++
			v := res.Validation
			if v.IsValid == c.Valid && v.CheckDigitPassed == c.Valid {
				r.ValidationCorrect++
			} else {
				miss = append(miss, fmt.Sprintf("validation %v/%v, want %v", v.IsValid, v.CheckDigitPassed, c.Valid.Bool))
			}
		}
		if len(sl.Candidates) > 0 {
			conf := sl.Candidates[0].Confidence
			for i := range r.Calibration {
				if b := &r.Calibration[i]; conf >= b.Low && conf < b.High {
					b.Count++
					b.SumConfidence += conf
					if top == c.Carrier {
						b.Correct++
					}
				}
			}
		}
		if len(miss) > 0 {
			r.Misses = append(r.Misses, fmt.Sprintf("%s (%s, %s): %s", c.Number, c.Carrier, c.Source, strings.Join(miss, "; ")))
		}
	}
	r.Carriers = len(carriers)
	return r, nil
}

func ratio(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

// TypeAccuracy is the share of numbers given their true type.
func (r Report) TypeAccuracy() float64 { return ratio(r.TypeCorrect, r.Numbers) }

// AutoPrecision is the share of auto_select answers that selected the true carrier.
func (r Report) AutoPrecision() float64 { return ratio(r.AutoCorrect, r.AutoSelected) }

// AutoCoverage is the share of numbers with a knowable carrier that were auto-selected.
func (r Report) AutoCoverage() float64 { return ratio(r.AutoSelected, r.Knowable) }

// Top1Accuracy is the share of numbers with a knowable carrier whose first candidate is it.
func (r Report) Top1Accuracy() float64 { return ratio(r.Top1Correct, r.Knowable) }

// ValidationAccuracy is the share of container numbers whose check-digit validation is right.
func (r Report) ValidationAccuracy() float64 { return ratio(r.ValidationCorrect, r.Validated) }

// Check returns an error naming every bar the report misses: the rates of the inference issue
// and its rules (see CheckRules).
func (r Report) Check() error {
	return failure(append(r.missedRates(), r.brokenRules()...))
}

// CheckRules returns an error naming every rule the report breaks: a container number whose
// check digit is judged wrongly, or a number that does not name its carrier auto-selected. It
// checks no rate.
func (r Report) CheckRules() error {
	return failure(r.brokenRules())
}

func failure(failed []string) error {
	if len(failed) > 0 {
		return fmt.Errorf("evaluation below the bars: %s", strings.Join(failed, ", "))
	}
	return nil
}

func (r Report) missedRates() []string {
	var failed []string
	bar := func(name string, got, min float64) {
		if got < min {
			failed = append(failed, fmt.Sprintf("%s %.2f%% < %.2f%%", name, 100*got, 100*min))
		}
	}
	bar("number-type accuracy", r.TypeAccuracy(), MinTypeAccuracy)
	bar("auto_select precision", r.AutoPrecision(), MinAutoPrecision)
	bar("top-1 carrier accuracy", r.Top1Accuracy(), MinTop1Accuracy)
	return failed
}

func (r Report) brokenRules() []string {
	var failed []string
	if got := r.ValidationAccuracy(); got < MinValidationResult {
		failed = append(failed, fmt.Sprintf("check-digit validation %.2f%% < %.2f%%", 100*got, 100*MinValidationResult))
	}
	if r.AmbiguousAuto > 0 {
		failed = append(failed, fmt.Sprintf("%d numbers not naming their carrier auto-selected", r.AmbiguousAuto))
	}
	return failed
}

// Lines formats the figures, one per line, marking each rate below its bar.
func (r Report) Lines() []string {
	pct := func(n, d int) string { return fmt.Sprintf("%.2f%% (%d/%d)", 100*ratio(n, d), n, d) }
	rate := func(n, d int, min float64) string {
		if ratio(n, d) < min {
			return pct(n, d) + fmt.Sprintf(", below the bar of %g%%", 100*min)
		}
		return pct(n, d)
	}
	lines := []string{
		fmt.Sprintf("%d numbers, %d carriers", r.Numbers, r.Carriers),
		"number-type accuracy: " + rate(r.TypeCorrect, r.Numbers, MinTypeAccuracy),
		"auto_select precision: " + rate(r.AutoCorrect, r.AutoSelected, MinAutoPrecision),
		"auto_select coverage: " + pct(r.AutoSelected, r.Knowable) + " of numbers with a knowable carrier",
		"top-1 carrier accuracy (knowable): " + rate(r.Top1Correct, r.Knowable, MinTop1Accuracy),
		"check-digit validation: " + rate(r.ValidationCorrect, r.Validated, MinValidationResult),
		"numbers not naming their carrier, auto-selected: " + pct(r.AmbiguousAuto, r.Ambiguous),
		"numbers not naming their carrier, listing it among the candidates: " + pct(r.AmbiguousListed, r.Ambiguous),
	}
	for _, b := range r.Calibration {
		if b.Count > 0 {
			lines = append(lines, fmt.Sprintf("calibration [%.2f, %.2f): mean confidence %.3f, top candidate right %s",
				b.Low, min(b.High, 1), b.SumConfidence/float64(b.Count), pct(b.Correct, b.Count)))
		}
	}
	return lines
}

// Throughput measures inferences per second on one goroutine over numbers, and the same for the
// baseline work of normalising each number and checking its ISO 6346 digit.
func Throughput(engine *infer.Engine, numbers []string) (engineResult, baseline testing.BenchmarkResult) {
	engineResult = testing.Benchmark(func(b *testing.B) { BenchInfer(b, engine, numbers) })
	baseline = testing.Benchmark(func(b *testing.B) { BenchBaseline(b, numbers) })
	return engineResult, baseline
}

// BenchInfer runs b.N inferences over numbers in turn and reports inferences per second.
func BenchInfer(b *testing.B, engine *infer.Engine, numbers []string) {
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := engine.Infer(numbers[i%len(numbers)]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "inferences/s")
}

// BenchBaseline runs the least work an inference needs, over the same numbers: normalise, then
// compute the ISO 6346 check digit.
func BenchBaseline(b *testing.B, numbers []string) {
	b.ReportAllocs()
	b.ResetTimer()
	sink := 0
	for i := 0; i < b.N; i++ {
		sink += baseline(numbers[i%len(numbers)])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "inferences/s")
	if sink == -1 {
		b.Log(sink)
	}
}

// baseline normalises n on the stack and computes its ISO 6346 check digit.
func baseline(n string) int {
	var buf [40]byte
	k := 0
	for i := 0; i < len(n) && k < len(buf); i++ {
		c := n[i]
		switch {
		case c == ' ' || c == '-' || c == '.' || c == '/':
			continue
		case c >= 'a' && c <= 'z':
			c -= 'a' - 'A'
		}
		buf[k] = c
		k++
	}
	d, ok := boxwatch.ContainerCheckDigit(string(buf[:k]))
	if !ok {
		return k
	}
	return int(d)
}
