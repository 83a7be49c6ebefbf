package ingest

import (
	"github.com/prometheus/client_golang/prometheus"
)

// register adds the ingest's collector to reg (nil adds nothing).
func (in *Ingest) register(reg prometheus.Registerer) error {
	if reg == nil {
		return nil
	}
	return reg.Register(collector{in})
}

// collector reports the ingest's counts at every scrape: the totals and, by source, what each
// configured source gave (the source label takes only the configured sources).
type collector struct{ in *Ingest }

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, labels, nil)
}

var (
	aisLines      = desc("boxwatch_ais_lines_total", "NMEA lines read from an AIS source by this process, by source.", "source")
	aisMessages   = desc("boxwatch_ais_messages_total", "AIS messages decoded from a source's lines by this process, by source (a multi-sentence message counts once).", "source")
	aisInvalid    = desc("boxwatch_ais_invalid_lines_total", "Lines of a source skipped as malformed (bad checksum, bad armouring, too long), by source.", "source")
	aisReconnects = desc("boxwatch_ais_reconnects_total", "TCP connections to a source made again after a drop, by source.", "source")
	aisLastAge    = desc("boxwatch_ais_last_message_age_seconds", "Time since a message was last decoded from a source, by source; absent until the first one.", "source")
	aisDuplicates = desc("boxwatch_ais_duplicates_total", "Position reports dropped because another source had already given them (every source together).")
	aisPositions  = desc("boxwatch_ais_positions_total", "Position reports taken: a valid position, not a duplicate (every source together).")
	aisStored     = desc("boxwatch_ais_positions_stored_total", "Positions written to the tracks of vessels on active legs; new ones only.")
	aisIdentities = desc("boxwatch_ais_identities_total", "Static reports that changed what is known of a vessel (IMO number, name, call sign).")
	aisFlushErrs  = desc("boxwatch_ais_write_errors_total", "Writes of heard reports that failed; their reports are kept for the next write.")
)

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{aisLines, aisMessages, aisInvalid, aisReconnects, aisLastAge, aisDuplicates, aisPositions,
		aisStored, aisIdentities, aisFlushErrs} {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	counter := func(d *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	now := c.in.cfg.Clock()
	for _, s := range c.in.SourceStats() {
		counter(aisLines, s.Lines, s.Source)
		counter(aisMessages, s.Messages, s.Source)
		counter(aisInvalid, s.Errors, s.Source)
		counter(aisReconnects, s.Reconnects, s.Source)
		if !s.LastMessage.IsZero() {
			ch <- prometheus.MustNewConstMetric(aisLastAge, prometheus.GaugeValue, max(0, now.Sub(s.LastMessage).Seconds()), s.Source)
		}
	}
	st := c.in.Stats()
	counter(aisDuplicates, st.Duplicates)
	counter(aisPositions, st.Positions)
	counter(aisStored, st.Stored)
	counter(aisIdentities, st.Identities)
	counter(aisFlushErrs, st.FlushErrors)
}
