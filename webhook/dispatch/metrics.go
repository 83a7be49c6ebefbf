package dispatch

import (
	"context"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/webhook"
)

// metrics counts this process's deliveries; a nil *metrics counts nothing.
type metrics struct {
	deliveries    *prometheus.CounterVec
	latency       prometheus.Histogram
	inFlight      prometheus.Gauge
	failed        prometheus.Counter
	deactivations *prometheus.CounterVec
	renewals      *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer, work boxwatch.WorkStore, clock boxwatch.Clock) (*metrics, error) {
	if reg == nil {
		return nil, nil
	}
	m := &metrics{
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "boxwatch_webhook_deliveries_total",
			Help: "Webhook delivery attempts made by this process, by outcome (succeeded, failed, gone: a 410) and the response's status class (2xx, 3xx, 4xx, 5xx, or none when no response arrived).",
		}, []string{"outcome", "status_class"}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "boxwatch_webhook_delivery_duration_seconds",
			Help:    "Time from sending a webhook delivery to reading the end of its response, or failing, whatever the outcome.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "boxwatch_webhook_deliveries_in_flight",
			Help: "Webhook deliveries this process is sending now.",
		}),
		failed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "boxwatch_webhook_notifications_failed_total",
			Help: "Notifications this process gave up on: retries exhausted, a 410, or the webhook deactivated.",
		}),
		deactivations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "boxwatch_webhook_deactivations_total",
			Help: "Webhooks this process deactivated, by reason: gone (the receiver answered 410) or failing (every delivery failed for the failing window).",
		}, []string{"reason"}),
		renewals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "boxwatch_webhook_claim_renewals_total",
			Help: "Renewals of this process's delivery claims (one statement renews all of them), by outcome: ok or failed. Two failed in a row let a slow delivery's claim lapse, and another replica may send it again.",
		}, []string{"outcome"}),
	}
	for _, outcome := range []string{"ok", "failed"} {
		m.renewals.WithLabelValues(outcome)
	}
	for _, reason := range []string{"gone", "failing"} {
		m.deactivations.WithLabelValues(reason) // shown at 0 before the first
	}
	for _, c := range []prometheus.Collector{m.deliveries, m.latency, m.inFlight, m.failed, m.deactivations, m.renewals,
		backlogCollector{work: work, clock: clock}} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// statusClass names the class of a response status; 0 (no response) is "none".
func statusClass(code int) string {
	if code < 100 || code > 599 {
		return "none"
	}
	return strconv.Itoa(code/100) + "xx"
}

func (m *metrics) sending() func() {
	if m == nil {
		return func() {}
	}
	m.inFlight.Inc()
	return m.inFlight.Dec
}

// renewed counts a renewal of the claims.
func (m *metrics) renewed(err error) {
	if m == nil {
		return
	}
	if err != nil {
		m.renewals.WithLabelValues("failed").Inc()
		return
	}
	m.renewals.WithLabelValues("ok").Inc()
}

// gaveUp counts a notification that will not be sent again.
func (m *metrics) gaveUp() {
	if m != nil {
		m.failed.Inc()
	}
}

// attempted counts an attempt and what recording it left.
func (m *metrics) attempted(a webhook.Attempt, out outcome) {
	if m == nil {
		return
	}
	label := "failed"
	switch a.Outcome {
	case webhook.Succeeded:
		label = "succeeded"
	case webhook.Gone:
		label = "gone"
	}
	m.deliveries.WithLabelValues(label, statusClass(a.StatusCode)).Inc()
	m.latency.Observe(a.Latency.Seconds())
	if out.n.DeliveryStatus == boxwatch.DeliveryFailed {
		m.gaveUp()
	}
	if out.deactivated {
		reason := "failing"
		if a.Outcome == webhook.Gone {
			reason = "gone"
		}
		m.deactivations.WithLabelValues(reason).Inc()
	}
}

// backlogCollector reads the pending notifications at every scrape: every account's, so every
// replica reports the same values. A failed query leaves them out of that scrape.
type backlogCollector struct {
	work  boxwatch.WorkStore
	clock boxwatch.Clock
}

var (
	pendingDesc = prometheus.NewDesc("boxwatch_webhook_notifications_pending",
		"Notifications waiting to be delivered (every replica's), retries included; read from the database at scrape time.", nil, nil)
	dueDesc = prometheus.NewDesc("boxwatch_webhook_notifications_due",
		"Pending notifications whose delivery is due now, not waiting for a retry's backoff; read at scrape time.", nil, nil)
	oldestDueDesc = prometheus.NewDesc("boxwatch_webhook_oldest_due_age_seconds",
		"How long the oldest due notification has been due, 0 when none is: the delivery lag; read at scrape time.", nil, nil)
)

func (c backlogCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- pendingDesc
	ch <- dueDesc
	ch <- oldestDueDesc
}

func (c backlogCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	now := c.clock()
	b, err := c.work.NotificationBacklog(ctx, now, 0)
	if err != nil {
		return
	}
	lag := 0.0
	if !b.OldestDue.IsZero() {
		lag = max(0, now.Sub(b.OldestDue).Seconds())
	}
	ch <- prometheus.MustNewConstMetric(pendingDesc, prometheus.GaugeValue, float64(b.Pending))
	ch <- prometheus.MustNewConstMetric(dueDesc, prometheus.GaugeValue, float64(b.Due))
	ch <- prometheus.MustNewConstMetric(oldestDueDesc, prometheus.GaugeValue, lag)
}
