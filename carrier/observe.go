package carrier

import (
	"context"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/boxwatch/boxwatch"
)

// Observed wraps every carrier of carriers (keyed by SCAC) so that the records a lookup had to
// skip (boxwatch.CarrierShipment.Unreadable) are logged, one warning each with the carrier's
// reason, and counted in the boxwatch_carrier_unreadable_events_total counter, by SCAC, which it
// registers with reg. It fails only when the counter cannot be registered.
func Observed(carriers map[string]boxwatch.Carrier, log *slog.Logger, reg prometheus.Registerer) (map[string]boxwatch.Carrier, error) {
	unreadable := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "boxwatch_carrier_unreadable_events_total",
		Help: "Records of carrier answers that could not be read and were skipped, by SCAC.",
	}, []string{"scac"})
	if err := reg.Register(unreadable); err != nil {
		return nil, err
	}
	out := make(map[string]boxwatch.Carrier, len(carriers))
	for scac, c := range carriers {
		out[scac] = observed{Carrier: c, scac: scac, log: log, unreadable: unreadable.WithLabelValues(scac)}
	}
	return out, nil
}

// observed is a carrier whose skipped records are logged and counted.
type observed struct {
	boxwatch.Carrier
	scac       string
	log        *slog.Logger
	unreadable prometheus.Counter
}

func (o observed) Lookup(ctx context.Context, ref boxwatch.CarrierReference) (boxwatch.CarrierShipment, error) {
	s, err := o.Carrier.Lookup(ctx, ref)
	for _, u := range s.Unreadable {
		o.log.Warn("carrier record skipped", "scac", o.scac, "request_type", string(ref.Type), "number", ref.Number,
			"page", u.Page, "index", u.Index, "event_id", u.ID, "reason", u.Reason)
	}
	o.unreadable.Add(float64(len(s.Unreadable)))
	return s, err
}
