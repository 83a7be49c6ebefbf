package api

import (
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/infer"
	"github.com/boxwatch/boxwatch/journey"
	"github.com/boxwatch/boxwatch/webhook"
	"github.com/prometheus/client_golang/prometheus"
)

// Limits are per-account request budgets per minute, one bucket each; 0 lifts a limit.
type Limits struct {
	CreateTrackingRequest int
	InferNumber           int
	Default               int
	// Refresh is PATCH /v2/containers/{id}/refresh's own budget.
	Refresh int
}

// DefaultLimits are the reference API's published limits, and a default for everything else.
var DefaultLimits = Limits{CreateTrackingRequest: 100, InferNumber: 200, Default: 1200, Refresh: 10}

// Config is what the API needs; Store, Tracker, Redeliverer, Limiter, Carriers, Infer and Journey
// are required.
type Config struct {
	Store       boxwatch.Store
	Tracker     boxwatch.Tracker
	Redeliverer boxwatch.Redeliverer
	Limiter     boxwatch.RateLimiter
	Carriers    *boxwatch.Carriers
	// Ports names the ports of routes; nil leaves names and time zones null.
	Ports  boxwatch.PortLookup
	Logger *slog.Logger
	Clock  boxwatch.Clock
	Limits Limits
	// PublicURL is the scheme and host clients use (https://track.example.com); absolute links are
	// built from it. Empty, they name the address of the listener that took the request: the
	// request's Host header is never trusted.
	PublicURL string
	// Metrics receives the request counters; nil disables them.
	Metrics prometheus.Registerer
	// Infer answers infer_number and names the shipping line of tracking requests without one.
	Infer *infer.Engine
	// Webhooks is the URL policy for registrations and the trigger; WebhookClient sends the
	// trigger's sample (nil: webhook.NewClient with the policy).
	Webhooks      webhook.Policy
	WebhookClient *http.Client
	// WebhookEgressIPs are the addresses deliveries leave from, as the operator states them;
	// GET /v2/webhooks/ips lists them so that receivers can allow them. Empty, it lists none.
	WebhookEgressIPs []netip.Addr

	// Journey draws the container maps, predicts arrivals and lays out the vessels' future paths.
	Journey *journey.Engine
	// Positions reads the vessels' stored AIS positions for GET /v2/vessels/{id}; nil lists none.
	Positions boxwatch.PositionStore

	// BodyTimeout bounds the time a client has to send a request body, from when the handler
	// starts; a slower client gets 408. Zero means 10 seconds. The server's own read timeout,
	// much longer, still bounds the whole request.
	BodyTimeout time.Duration
	// RequestTimeout bounds the work of one request, from when the handler starts: a database
	// that stops answering (a partition rather than a refusal) makes requests fail with 503
	// instead of piling up. Zero means 30 seconds.
	RequestTimeout time.Duration

	// MCP, when set, makes the handler served at /mcp to callers with a valid API key (others
	// get 401). It is given the API's own handler, which the MCP tools call in process with the
	// caller's key, so that a tool call is authorised, scoped to the account and rate-limited as
	// the REST calls behind it are.
	MCP func(api http.Handler) http.Handler

	// testRoutes join the route table in tests only (see export_test.go).
	testRoutes []route
}
