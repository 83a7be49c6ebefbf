package main

import (
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"
)

// drainer takes the replica out of its load balancer before it stops: once draining, /readyz
// answers 503 while every other request is still served, and connections are closed after
// their current response, so clients reconnect (through the balancer, to another replica).
//
// A drain only waits when something watches readiness: with no /readyz request in the last
// drain period there is no balancer to tell, and waiting would only delay the stop.
type drainer struct {
	draining  atomic.Bool
	lastCheck atomic.Int64 // Unix nanoseconds of the last /readyz request; 0 if none
}

// readyzPath is the readiness check the drain answers; the API serves it otherwise.
const readyzPath = "/readyz"

// wrap answers /readyz with 503 while draining and notes every readiness check.
func (d *drainer) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == readyzPath {
			d.lastCheck.Store(time.Now().UnixNano())
			if d.draining.Load() {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Connection", "close")
				w.WriteHeader(http.StatusServiceUnavailable)
				w.Write([]byte(`{"status":"unavailable"}` + "\n"))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// drain turns readiness off and keeps serving for period, unless no readiness check came in the
// last period. It returns when the drain is over.
func (d *drainer) drain(period time.Duration, srv *http.Server, log *slog.Logger) {
	d.draining.Store(true)
	srv.SetKeepAlivesEnabled(false)
	last := d.lastCheck.Load()
	if period <= 0 || last == 0 || time.Since(time.Unix(0, last)) > period {
		return
	}
	log.Info("draining: /readyz answers 503 while requests are still served", "for", period.String())
	time.Sleep(period)
}
