package admin

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/boxwatch/boxwatch/cache"
)

// CacheCollector reports every in-memory cache at each scrape, one series per cache named by its
// Stats.Name: its weight against its byte bound, its entries, its lookups by result and the
// entries its bound dropped. stats is called at every scrape and must not block.
func CacheCollector(stats ...func() cache.Stats) prometheus.Collector {
	return cacheCollector(stats)
}

type cacheCollector []func() cache.Stats

var (
	cacheBytesDesc = prometheus.NewDesc("boxwatch_cache_bytes",
		"Bytes an in-memory cache holds, as it weighs its entries.", []string{"cache"}, nil)
	cacheMaxBytesDesc = prometheus.NewDesc("boxwatch_cache_max_bytes",
		"The byte bound of an in-memory cache (its size flag).", []string{"cache"}, nil)
	cacheItemsDesc = prometheus.NewDesc("boxwatch_cache_entries",
		"Entries an in-memory cache holds.", []string{"cache"}, nil)
	cacheLookupsDesc = prometheus.NewDesc("boxwatch_cache_lookups_total",
		"Lookups in an in-memory cache, by result: hit or miss.", []string{"cache", "result"}, nil)
	cacheEvictionsDesc = prometheus.NewDesc("boxwatch_cache_evictions_total",
		"Entries an in-memory cache dropped to stay within its byte bound.", []string{"cache"}, nil)
)

func (c cacheCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{cacheBytesDesc, cacheMaxBytesDesc, cacheItemsDesc, cacheLookupsDesc, cacheEvictionsDesc} {
		ch <- d
	}
}

func (c cacheCollector) Collect(ch chan<- prometheus.Metric) {
	for _, stats := range c {
		s := stats()
		if s.Name == "" {
			continue // a cache that is off
		}
		ch <- prometheus.MustNewConstMetric(cacheBytesDesc, prometheus.GaugeValue, float64(s.Bytes), s.Name)
		ch <- prometheus.MustNewConstMetric(cacheMaxBytesDesc, prometheus.GaugeValue, float64(s.MaxBytes), s.Name)
		ch <- prometheus.MustNewConstMetric(cacheItemsDesc, prometheus.GaugeValue, float64(s.Entries), s.Name)
		ch <- prometheus.MustNewConstMetric(cacheLookupsDesc, prometheus.CounterValue, float64(s.Hits), s.Name, "hit")
		ch <- prometheus.MustNewConstMetric(cacheLookupsDesc, prometheus.CounterValue, float64(s.Misses), s.Name, "miss")
		ch <- prometheus.MustNewConstMetric(cacheEvictionsDesc, prometheus.CounterValue, float64(s.Evictions), s.Name)
	}
}
