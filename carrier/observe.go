package carrier

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/boxwatch/boxwatch"
)

// Observed wraps every carrier of carriers (keyed by SCAC) so that its lookups are counted and
// timed, by SCAC and outcome (see Outcome), and the records a lookup had to skip
// (boxwatch.CarrierShipment.Unreadable) are logged, one warning each with the carrier's reason,
// and counted. It registers its metrics (boxwatch_carrier_*) with reg; the SCAC label takes only
// the keys of carriers. It fails only when a metric cannot be registered.
func Observed(carriers map[string]boxwatch.Carrier, log *slog.Logger, reg prometheus.Registerer) (map[string]boxwatch.Carrier, error) {
	unreadable := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "boxwatch_carrier_unreadable_events_total",
		Help: "Records of carrier answers that could not be read and were skipped, by SCAC.",
	}, []string{"scac"})
	lookups := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "boxwatch_carrier_lookups_total",
		Help: "Lookups (first lookups and refreshes) made with carriers, by SCAC and outcome: ok, not_found, temporary (unreachable, 5xx, 429, timeout: retried), failed (any other refusal by the carrier) or error (boxwatch's own, or cancelled).",
	}, []string{"scac", "outcome"})
	latency := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "boxwatch_carrier_lookup_duration_seconds",
		Help:    "Time a carrier lookup took, every page of the answer included, by SCAC, whatever its outcome.",
		Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
	}, []string{"scac"})
	inFlight := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "boxwatch_carrier_lookups_in_flight",
		Help: "Carrier lookups this process is making now, by SCAC.",
	}, []string{"scac"})
	for _, c := range []prometheus.Collector{unreadable, lookups, latency, inFlight} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	out := make(map[string]boxwatch.Carrier, len(carriers))
	for scac, c := range carriers {
		o := observed{Carrier: c, scac: scac, log: log, unreadable: unreadable.WithLabelValues(scac),
			latency: latency.WithLabelValues(scac), inFlight: inFlight.WithLabelValues(scac), lookups: map[string]prometheus.Counter{}}
		for _, outcome := range outcomes {
			o.lookups[outcome] = lookups.WithLabelValues(scac, outcome)
		}
		out[scac] = o
	}
	return out, nil
}

// Outcomes of a lookup, the outcome label of boxwatch_carrier_lookups_total.
const (
	OutcomeOK        = "ok"
	OutcomeNotFound  = "not_found"
	OutcomeTemporary = "temporary"
	OutcomeFailed    = "failed"
	OutcomeError     = "error"
)

var outcomes = []string{OutcomeOK, OutcomeNotFound, OutcomeTemporary, OutcomeFailed, OutcomeError}

// Outcome classifies what a Lookup returned.
func Outcome(err error) string {
	var ce *boxwatch.CarrierError
	switch {
	case err == nil:
		return OutcomeOK
	case !errors.As(err, &ce):
		return OutcomeError
	case ce.Reason == boxwatch.ReasonNotFound:
		return OutcomeNotFound
	case ce.Temporary:
		return OutcomeTemporary
	default:
		return OutcomeFailed
	}
}

// observed is a carrier whose lookups are counted and timed, and whose skipped records are
// logged and counted.
type observed struct {
	boxwatch.Carrier
	scac       string
	log        *slog.Logger
	unreadable prometheus.Counter
	latency    prometheus.Observer
	inFlight   prometheus.Gauge
	lookups    map[string]prometheus.Counter // by outcome; read only
}

func (o observed) Lookup(ctx context.Context, ref boxwatch.CarrierReference) (boxwatch.CarrierShipment, error) {
	o.inFlight.Inc()
	start := time.Now()
	s, err := o.Carrier.Lookup(ctx, ref)
	o.latency.Observe(time.Since(start).Seconds())
	o.inFlight.Dec()
	o.lookups[Outcome(err)].Inc()
	for _, u := range s.Unreadable {
		o.log.Warn("carrier record skipped", "scac", o.scac, "request_type", string(ref.Type), "number", ref.Number,
			"page", u.Page, "index", u.Index, "event_id", u.ID, "reason", u.Reason)
	}
	o.unreadable.Add(float64(len(s.Unreadable)))
	return s, err
}
