package admin

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/boxwatch/boxwatch/store"
)

// PoolCollector reports the database's connection pools at every scrape, from pools (the
// store's PoolStats, which runs no query).
func PoolCollector(pools func() []store.PoolStats) prometheus.Collector {
	return poolCollector(pools)
}

type poolCollector func() []store.PoolStats

var (
	connsDesc = prometheus.NewDesc("boxwatch_db_connections",
		"Open database connections of this process, by pool (postgres, postgres_requests, sqlite_writer, sqlite_readers, sqlite_request_readers) and state (in_use, idle).",
		[]string{"pool", "state"}, nil)
	maxConnsDesc = prometheus.NewDesc("boxwatch_db_connections_max",
		"Most connections a pool of this process may open, by pool.", []string{"pool"}, nil)
	waitsDesc = prometheus.NewDesc("boxwatch_db_acquire_waits_total",
		"Connection acquisitions that found every connection of the pool busy and waited, by pool.", []string{"pool"}, nil)
	waitTimeDesc = prometheus.NewDesc("boxwatch_db_acquire_wait_seconds_total",
		"Total time spent waiting for a busy pool's connection, by pool.", []string{"pool"}, nil)
)

func (c poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{connsDesc, maxConnsDesc, waitsDesc, waitTimeDesc} {
		ch <- d
	}
}

func (c poolCollector) Collect(ch chan<- prometheus.Metric) {
	for _, p := range c() {
		ch <- prometheus.MustNewConstMetric(connsDesc, prometheus.GaugeValue, float64(p.InUse), p.Name, "in_use")
		ch <- prometheus.MustNewConstMetric(connsDesc, prometheus.GaugeValue, float64(p.Idle), p.Name, "idle")
		ch <- prometheus.MustNewConstMetric(maxConnsDesc, prometheus.GaugeValue, float64(p.MaxOpen), p.Name)
		ch <- prometheus.MustNewConstMetric(waitsDesc, prometheus.CounterValue, float64(p.Waits), p.Name)
		ch <- prometheus.MustNewConstMetric(waitTimeDesc, prometheus.CounterValue, p.WaitTime.Seconds(), p.Name)
	}
}
