package ingest_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/boxwatch/boxwatch/ais/ingest"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// TestSourceStatsAndMetrics replays a file of two reports and a garbage line: the source's
// counts, and the metrics labelled with it, say so.
func TestSourceStatsAndMetrics(t *testing.T) {
	t.Parallel()
	db := storetest.SQLite.Open(t)
	path := filepath.Join(t.TempDir(), "feed.nmea")
	feed := append(nmea(t, static(), report(0, 90)), []byte("garbage\n")...)
	if err := os.WriteFile(path, feed, 0o600); err != nil {
		t.Fatal(err)
	}
	source := "file://" + path
	reg := prometheus.NewRegistry()
	in := newIngest(t, db, ingest.Config{FlushEvery: 20 * time.Millisecond, Sources: []string{source, source}, Metrics: reg})
	if err := in.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer in.Stop(ctx)
	trackingtest.Eventually(t, 10*time.Second, "the file was never read whole", func() bool {
		s := in.SourceStats()
		return len(s) == 1 && s[0].Lines == 8 // the same file, configured twice, is one source read twice
	})
	s := in.SourceStats()[0]
	if s.Source != source || s.Messages != 4 || s.Errors != 2 || s.LastMessage.IsZero() {
		t.Errorf("source stats %+v; want 4 messages and 2 garbage lines of %s", s, source)
	}
	values := map[string]float64{}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			key := f.GetName()
			for _, l := range m.GetLabel() {
				key += " " + l.GetName() + "=" + l.GetValue()
			}
			values[key] = m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	for key, want := range map[string]float64{
		"boxwatch_ais_lines_total source=" + source:         float64(s.Lines),
		"boxwatch_ais_messages_total source=" + source:      4,
		"boxwatch_ais_invalid_lines_total source=" + source: 2,
		"boxwatch_ais_reconnects_total source=" + source:    0,
		"boxwatch_ais_duplicates_total":                     1, // the second reading of the position report
	} {
		if got, ok := values[key]; !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", key, got, ok, want)
		}
	}
	if _, ok := values["boxwatch_ais_last_message_age_seconds source="+source]; !ok {
		t.Error("no last message age for the source")
	}
}
