// Package promtest reads a Prometheus registry in tests: every sample by its name and labels.
// It is for tests only and holds no state.
package promtest

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// Gather returns every sample of reg keyed "name label=value ...", labels in the registry's
// order: a counter's or gauge's value, a histogram's count. A failed gather fails the test.
func Gather(t testing.TB, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			key := f.GetName()
			for _, l := range m.GetLabel() {
				key += " " + l.GetName() + "=" + l.GetValue()
			}
			out[key] = m.GetCounter().GetValue() + m.GetGauge().GetValue() + float64(m.GetHistogram().GetSampleCount())
		}
	}
	return out
}
