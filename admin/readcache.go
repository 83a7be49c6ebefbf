package admin

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/boxwatch/boxwatch/store"
)

// ReadCacheCollector reports the store's read cache at every scrape, from stats (the store's
// ReadCacheStats, which runs no query). A store without one reports nothing.
func ReadCacheCollector(stats func() store.ReadCacheStats) prometheus.Collector {
	return readCacheCollector(stats)
}

type readCacheCollector func() store.ReadCacheStats

var (
	cacheLiveDesc = prometheus.NewDesc("boxwatch_read_cache_live",
		"1 while the read cache answers (its PostgreSQL listener is connected, or the SQLite log's index is watched), 0 while every read goes to the database.", nil, nil)
	cacheEntriesDesc = prometheus.NewDesc("boxwatch_read_cache_entries", "Objects the read cache holds.", nil, nil)
	cacheReadsDesc   = prometheus.NewDesc("boxwatch_read_cache_reads_total",
		"Reads of cacheable objects, by result: hit (answered from memory) or miss (read from the database).", []string{"result"}, nil)
)

func (c readCacheCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{cacheLiveDesc, cacheEntriesDesc, cacheReadsDesc} {
		ch <- d
	}
}

func (c readCacheCollector) Collect(ch chan<- prometheus.Metric) {
	s := c()
	if !s.On {
		return
	}
	live := 0.0
	if s.Live {
		live = 1
	}
	ch <- prometheus.MustNewConstMetric(cacheLiveDesc, prometheus.GaugeValue, live)
	ch <- prometheus.MustNewConstMetric(cacheEntriesDesc, prometheus.GaugeValue, float64(s.Entries))
	ch <- prometheus.MustNewConstMetric(cacheReadsDesc, prometheus.CounterValue, float64(s.Hits), "hit")
	ch <- prometheus.MustNewConstMetric(cacheReadsDesc, prometheus.CounterValue, float64(s.Misses), "miss")
}
