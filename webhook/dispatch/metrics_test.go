package dispatch

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/internal/promtest"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/webhook"
)

// Each attempt is counted by outcome and status class; a notification given up on and a
// webhook deactivated are counted once each, with the deactivation's reason.
func TestMetricsCountAttempts(t *testing.T) {
	t.Parallel()
	db := storetest.Backends[0].Open(t)
	reg := prometheus.NewRegistry()
	m, err := newMetrics(reg, db, boxwatch.SystemClock)
	if err != nil {
		t.Fatal(err)
	}
	failed := outcome{n: boxwatch.Notification{DeliveryStatus: boxwatch.DeliveryFailed}}
	for _, a := range []struct {
		attempt webhook.Attempt
		out     outcome
	}{
		{webhook.Attempt{Outcome: webhook.Succeeded, StatusCode: 204, Latency: 30 * time.Millisecond}, outcome{}},
		{webhook.Attempt{Outcome: webhook.Retry, StatusCode: 503, Latency: time.Second}, outcome{}},
		{webhook.Attempt{Outcome: webhook.Retry, Latency: 10 * time.Second}, outcome{}}, // no answer
		{webhook.Attempt{Outcome: webhook.Gone, StatusCode: 410}, outcome{n: failed.n, deactivated: true}},
		{webhook.Attempt{Outcome: webhook.Retry, StatusCode: 500}, outcome{n: failed.n, deactivated: true}},
	} {
		m.attempted(a.attempt, a.out)
	}
	got := promtest.Gather(t, reg)
	for key, want := range map[string]float64{
		"boxwatch_webhook_deliveries_total outcome=succeeded status_class=2xx": 1,
		"boxwatch_webhook_deliveries_total outcome=failed status_class=5xx":    2,
		"boxwatch_webhook_deliveries_total outcome=failed status_class=none":   1,
		"boxwatch_webhook_deliveries_total outcome=gone status_class=4xx":      1,
		"boxwatch_webhook_delivery_duration_seconds":                           5, // the count
		"boxwatch_webhook_notifications_failed_total":                          2,
		"boxwatch_webhook_deactivations_total reason=gone":                     1,
		"boxwatch_webhook_deactivations_total reason=failing":                  1,
		"boxwatch_webhook_notifications_pending":                               0,
		"boxwatch_webhook_oldest_due_age_seconds":                              0,
	} {
		if v, ok := got[key]; !ok || v != want {
			t.Errorf("%s = %v (present %v), want %v", key, v, ok, want)
		}
	}
}
