package api

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

type metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	limited  *prometheus.CounterVec
	checked  *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	if reg == nil {
		return nil, nil
	}
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "boxwatch_http_requests_total", Help: "HTTP requests answered, by route pattern and status.",
		}, []string{"method", "route", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "boxwatch_http_request_duration_seconds", Help: "Time to answer HTTP requests, by route pattern.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"method", "route"}),
		limited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "boxwatch_rate_limited_total", Help: "Requests refused with 429, by rate-limit bucket.",
		}, []string{"bucket"}),
		checked: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "boxwatch_rate_limit_checks_total", Help: "Requests checked against an account's rate limit, admitted or not, by rate-limit bucket (routes whose limit is lifted are not checked).",
		}, []string{"bucket"}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.duration, m.limited, m.checked} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *metrics) observe(method, route string, status int, d time.Duration) {
	if m == nil {
		return
	}
	switch method {
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS":
	default:
		method = "other" // callers choose the method: keep label values bounded
	}
	m.requests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(method, route).Observe(d.Seconds())
}

func (m *metrics) rateChecked(b string) {
	if m == nil {
		return
	}
	m.checked.WithLabelValues(b).Inc()
}

func (m *metrics) rateLimited(b string) {
	if m == nil {
		return
	}
	m.limited.WithLabelValues(b).Inc()
}
