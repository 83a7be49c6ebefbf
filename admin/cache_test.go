package admin

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/boxwatch/boxwatch/cache"
	"github.com/boxwatch/boxwatch/internal/promtest"
)

func TestCacheCollector(t *testing.T) {
	routes := cache.New("routes", 10*cache.Overhead, func(k, v string) int64 { return int64(len(v)) })
	routes.Add("a", "12345")
	routes.Get("a")
	routes.Get("b")
	var off *cache.LRU[string, string]
	reg := prometheus.NewRegistry()
	reg.MustRegister(CacheCollector(routes.Stats, off.Stats))
	got := promtest.Gather(t, reg)
	want := map[string]float64{
		"boxwatch_cache_bytes cache=routes":                     cache.Overhead + 5,
		"boxwatch_cache_max_bytes cache=routes":                 10 * cache.Overhead,
		"boxwatch_cache_entries cache=routes":                   1,
		"boxwatch_cache_lookups_total cache=routes result=hit":  1,
		"boxwatch_cache_lookups_total cache=routes result=miss": 1,
		"boxwatch_cache_evictions_total cache=routes":           0,
	}
	if len(got) != len(want) {
		t.Errorf("gathered %v, want exactly %v (a cache that is off reports nothing)", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
}
