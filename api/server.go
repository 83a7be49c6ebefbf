// Package api serves boxwatch's HTTP API: the Terminal49-compatible /v2 endpoints, health checks
// and the OpenAPI document. It speaks JSON:API, authenticates API keys, scopes every query to the
// caller's account and enforces rate limits. It holds no state of its own: data goes through the
// domain's store interfaces, each handler taking only those it uses, maps and predictions through
// the journey engine, both handed to it by the binary; the documents it answers with are rendered
// by package jsonapi.
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
	"github.com/boxwatch/boxwatch/webhook"
)

// handlerFunc is a handler that returns its error; serve renders it.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

type server struct {
	cfg     Config
	log     *slog.Logger
	metrics *metrics
}

// NewHandler returns the API's handler.
func NewHandler(cfg Config) (http.Handler, error) {
	if cfg.Store == nil || cfg.Tracker == nil || cfg.Redeliverer == nil || cfg.Limiter == nil || cfg.Carriers == nil ||
		cfg.Infer == nil || cfg.Journey == nil {
		return nil, fmt.Errorf("api: Store, Tracker, Redeliverer, Limiter, Carriers, Infer and Journey are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Clock == nil {
		cfg.Clock = boxwatch.SystemClock
	}
	if cfg.WebhookClient == nil {
		cfg.WebhookClient = webhook.NewClient(cfg.Webhooks)
	}
	cfg.PublicURL = strings.TrimSuffix(cfg.PublicURL, "/")
	if cfg.BodyTimeout <= 0 {
		cfg.BodyTimeout = 10 * time.Second
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = 30 * time.Second
	}
	s := &server{cfg: cfg, log: cfg.Logger}
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
	h := s.observe(s.fallback(mux, fixed))
	if cfg.MCP != nil {
		mux.Handle("/mcp", s.authenticated(cfg.MCP(h)))
	}
	return h, nil
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
var errTooSlow = boxwatch.NewSentinel(boxwatch.KindUnavailable, boxwatch.CodeUnavailable,
	"The request took too long to answer: try again shortly.")

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
