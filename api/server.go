// Package api serves boxwatch's HTTP API: the Terminal49-compatible /v2 endpoints, health checks
// and the OpenAPI document. It speaks JSON:API, authenticates API keys, scopes every query to the
// caller's account and enforces rate limits. It holds no state of its own beyond caches: data goes
// through the domain's store interfaces, each handler taking only those it uses, and the
// documents it answers with are rendered by package jsonapi.
package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/infer"
	"github.com/boxwatch/boxwatch/webhook"
)

// handlerFunc is a handler that returns its error; serve renders it.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

type server struct {
	cfg     Config
	log     *slog.Logger
	metrics *metrics
	// maps draws container maps; mapCache keeps those drawn recently (nil: none kept).
	maps     *mapper
	mapCache *mapCache
}

// NewHandler returns the API's handler.
func NewHandler(cfg Config) (http.Handler, error) {
	if cfg.Store == nil || cfg.Tracker == nil || cfg.Redeliverer == nil || cfg.Limiter == nil || cfg.Carriers == nil {
		return nil, fmt.Errorf("api: Store, Tracker, Redeliverer, Limiter and Carriers are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Clock == nil {
		cfg.Clock = boxwatch.SystemClock
	}
	if cfg.Infer == nil {
		engine, err := infer.New(cfg.Carriers, data.Lessors())
		if err != nil {
			return nil, err
		}
		cfg.Infer = engine
	}
	if cfg.WebhookClient == nil {
		cfg.WebhookClient = webhook.NewClient(cfg.Webhooks)
	}
	if cfg.Positions == nil {
		cfg.Positions, _ = cfg.Store.(boxwatch.PositionStore)
	}
	if cfg.Sea == nil {
		cfg.Sea = data.SeaNetwork()
	}
	cfg.PublicURL = strings.TrimSuffix(cfg.PublicURL, "/")
	if cfg.BodyTimeout <= 0 {
		cfg.BodyTimeout = 10 * time.Second
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = 30 * time.Second
	}
	s := &server{cfg: cfg, log: cfg.Logger}
	s.maps = &mapper{st: cfg.Store, positions: cfg.Positions, ports: portRenderer{ports: cfg.Ports}, sea: cfg.Sea,
		now: cfg.Clock, log: cfg.Logger, routes: newRouteCache(4096)}
	if !cfg.NoTrackCache {
		s.maps.tracks = newTrackCache(2048) // legs; one at sea keeps its raw track, some 40 KB a week
	}
	if !cfg.NoMapCache {
		s.mapCache = newMapCache(10_000)
	}
	m, err := newMetrics(cfg.Metrics)
	if err != nil {
		return nil, err
	}
	s.metrics = m

	mux := http.NewServeMux()
	fixed := map[string][]string{}
	for _, rt := range s.routes() {
		if !strings.Contains(rt.path, "{") {
			fixed[rt.path] = append(fixed[rt.path], rt.method)
		}
		if rt.feature != "" && !rt.auth {
			return nil, fmt.Errorf("api: %s %s needs the %s feature but no API key", rt.method, rt.path, rt.feature)
		}
		mux.Handle(rt.method+" "+rt.path, s.wrap(rt))
	}
	return s.observe(s.fallback(mux, fixed)), nil
}

type ctxKey int

const ctxRequestInfo ctxKey = 0

// requestInfo is filled in as a request passes through: the authenticated account for the
// handlers, and what the log line reports.
type requestInfo struct {
	id      string
	account boxwatch.Account
	route   string
}

func requestInfoOf(r *http.Request) *requestInfo {
	if ri, ok := r.Context().Value(ctxRequestInfo).(*requestInfo); ok {
		return ri
	}
	return &requestInfo{}
}

// account returns the authenticated account; only handlers behind auth call it.
func account(r *http.Request) boxwatch.Account { return requestInfoOf(r).account }

// wrap applies the route's authentication, rate limit and query-parameter rules around its handler.
func (s *server) wrap(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ri := requestInfoOf(r)
		ri.route = rt.path
		ctx, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout)
		defer cancel()
		r = r.WithContext(ctx)
		if r.Body != http.NoBody {
			// The error is ignored: a writer that cannot take a deadline (one a test records
			// into) leaves the server's read timeout in charge.
			_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(s.cfg.BodyTimeout))
		}
		err := func() error {
			if rt.auth {
				a, err := s.authenticate(r)
				if err != nil {
					return err
				}
				ri.account = a
				if err := s.rateLimit(w, r, a, rt.bucket); err != nil {
					return err
				}
				if rt.feature != "" && !a.Has(rt.feature) {
					if rt.forbidden != nil {
						return rt.forbidden
					}
					return rt.feature.NotEnabled()
				}
			}
			if err := checkPath(r, rt.path); err != nil {
				return err
			}
			if err := checkParams(r, rt.params); err != nil {
				return err
			}
			return rt.handler(w, r)
		}()
		if err != nil {
			s.writeError(w, r, err)
		}
	})
}

// errTooSlow answers a request whose work outlasted Config.RequestTimeout.
var errTooSlow = &boxwatch.Error{Kind: boxwatch.KindUnavailable, Code: boxwatch.CodeUnavailable,
	Message: "The request took too long to answer: try again shortly."}

func (s *server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	ri := requestInfoOf(r)
	if boxwatch.AsError(err) == nil && errors.Is(r.Context().Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("%w: %w", errTooSlow, err)
	}
	status, doc, header := errorResponse(err, ri.id)
	switch {
	case status == http.StatusServiceUnavailable:
		// An outage answers many requests at once: a warning each, the cause kept for the operator.
		s.log.WarnContext(r.Context(), "unavailable", "status", status, "request_id", ri.id, "route", ri.route, "error", err.Error())
	case status >= http.StatusInternalServerError:
		s.log.ErrorContext(r.Context(), "internal error", "status", status, "request_id", ri.id, "route", ri.route, "error", err.Error())
	}
	for k, v := range header {
		w.Header()[k] = v
	}
	writeJSON(w, status, doc)
}
