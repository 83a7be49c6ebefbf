// Package api serves boxwatch's HTTP API: the Terminal49-compatible /v2 endpoints, health checks
// and the OpenAPI document. It speaks JSON:API, authenticates API keys, scopes every query to the
// caller's account and enforces rate limits. It holds no state of its own beyond caches: data goes
// through boxwatch.Store.
package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/infer"
	"github.com/boxwatch/boxwatch/webhook"
)

// Limits are per-account request budgets per minute, one bucket each; 0 lifts a limit.
type Limits struct {
	CreateTrackingRequest int
	InferNumber           int
	Default               int
}

// DefaultLimits are the reference API's published limits, and a default for everything else.
var DefaultLimits = Limits{CreateTrackingRequest: 100, InferNumber: 200, Default: 1200}

// Config is what the API needs; Store, Tracker, Redeliverer, Limiter and Carriers are required.
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
	// built from it. Empty, they are built from the request's Host.
	PublicURL string
	// Metrics receives the request counters; nil disables them.
	Metrics prometheus.Registerer
	// Infer answers infer_number; nil builds one from Carriers and the shipped lessor list.
	Infer *infer.Engine
	// Webhooks is the URL policy for registrations and the trigger; WebhookClient sends the
	// trigger's sample (nil: webhook.NewClient with the policy).
	Webhooks      webhook.Policy
	WebhookClient *http.Client
}

// bucket names a rate-limit budget.
type bucket string

const (
	bucketDefault bucket = "default"
	bucketCreate  bucket = "create_tracking_request"
	bucketInfer   bucket = "infer_number"
)

// handlerFunc is a handler that returns its error; serve renders it.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

type server struct {
	cfg     Config
	log     *slog.Logger
	keys    *keyCache
	metrics *metrics
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
	cfg.PublicURL = strings.TrimSuffix(cfg.PublicURL, "/")
	s := &server{cfg: cfg, log: cfg.Logger, keys: newKeyCache(cfg.Store, cfg.Clock)}
	m, err := newMetrics(cfg.Metrics)
	if err != nil {
		return nil, err
	}
	s.metrics = m

	mux := http.NewServeMux()
	for _, rt := range s.routes() {
		mux.Handle(rt.method+" "+rt.path, s.wrap(rt))
	}
	return s.observe(s.fallback(mux)), nil
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

func info(r *http.Request) *requestInfo {
	if ri, ok := r.Context().Value(ctxRequestInfo).(*requestInfo); ok {
		return ri
	}
	return &requestInfo{}
}

// account returns the authenticated account; only handlers behind auth call it.
func account(r *http.Request) boxwatch.Account { return info(r).account }

// wrap applies the route's authentication, rate limit and query-parameter rules around its handler.
func (s *server) wrap(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ri := info(r)
		ri.route = rt.path
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

func (s *server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	ri := info(r)
	status, doc, header := errorResponse(err, ri.id)
	if status == http.StatusInternalServerError {
		s.log.ErrorContext(r.Context(), "internal error", "request_id", ri.id, "route", ri.route, "error", err.Error())
	}
	for k, v := range header {
		w.Header()[k] = v
	}
	writeJSON(w, status, doc)
}

// authenticate checks "Authorization: Token <key>". The key is compared by hash in constant time
// and never logged.
func (s *server) authenticate(r *http.Request) (boxwatch.Account, error) {
	scheme, key, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Token") {
		return boxwatch.Account{}, boxwatch.ErrUnauthorized
	}
	key = strings.TrimSpace(key)
	id, ok := boxwatch.ParseAPIKey(key)
	if !ok {
		return boxwatch.Account{}, boxwatch.ErrUnauthorized
	}
	rec, acct, err := s.keys.get(r.Context(), id)
	if err != nil {
		if boxwatch.IsKind(err, boxwatch.KindNotFound) {
			return boxwatch.Account{}, boxwatch.ErrUnauthorized
		}
		return boxwatch.Account{}, err
	}
	if !rec.Matches(key) {
		return boxwatch.Account{}, boxwatch.ErrUnauthorized
	}
	return acct, nil
}

// rateLimit takes one request from the account's bucket for the route, or answers 429.
func (s *server) rateLimit(w http.ResponseWriter, r *http.Request, a boxwatch.Account, b bucket) error {
	limit, detail := s.cfg.Limits.Default, "Your account has exceeded its API rate limit. Please try again later."
	switch b {
	case bucketCreate:
		limit, detail = s.cfg.Limits.CreateTrackingRequest, "You've hit the create tracking requests limit. Please try again in a minute."
	case bucketInfer:
		limit, detail = s.cfg.Limits.InferNumber, "You've hit the infer number limit. Please try again in a minute."
	}
	if limit <= 0 { // a limit of 0 or less lifts it
		return nil
	}
	ok, retry, err := s.cfg.Limiter.Allow(r.Context(), "acct:"+a.ID+":"+string(b), limit, time.Minute)
	if err != nil {
		return err
	}
	if ok {
		return nil
	}
	secs := int(math.Ceil(retry.Seconds()))
	if secs < 1 {
		secs = 1
	}
	s.metrics.rateLimited(string(b))
	return &httpError{status: http.StatusTooManyRequests, code: "rate_limited", detail: detail,
		header: http.Header{"Retry-After": {strconv.Itoa(secs)}}}
}

// fallback answers unknown paths with 404 and known paths with the wrong method with 405, both as
// JSON:API errors (ServeMux alone would answer in plain text).
func (s *server) fallback(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, pattern := mux.Handler(r)
		if pattern != "" {
			mux.ServeHTTP(w, r) // sets the path values that mux.Handler does not
			return
		}
		probe := &statusProbe{header: http.Header{}}
		h.ServeHTTP(probe, r)
		if probe.status == http.StatusMethodNotAllowed {
			s.writeError(w, r, &httpError{status: http.StatusMethodNotAllowed, code: "method_not_allowed",
				detail: fmt.Sprintf("%s is not allowed here. Allowed: %s.", r.Method, probe.header.Get("Allow")),
				header: http.Header{"Allow": probe.header.Values("Allow")}})
			return
		}
		s.writeError(w, r, &httpError{status: http.StatusNotFound, code: "route_not_found",
			detail: fmt.Sprintf("No endpoint at %s.", r.URL.Path)})
	})
}

// statusProbe records what ServeMux's own 404 or 405 handler would send, and discards the body.
type statusProbe struct {
	header http.Header
	status int
}

func (p *statusProbe) Header() http.Header         { return p.header }
func (p *statusProbe) Write(b []byte) (int, error) { return len(b), nil }
func (p *statusProbe) WriteHeader(status int)      { p.status = status }

// observe gives each request an id, recovers panics as 500s, and logs and counts each request.
func (s *server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ri := &requestInfo{id: requestID(r)}
		r = r.WithContext(context.WithValue(r.Context(), ctxRequestInfo, ri))
		rec := &recorder{ResponseWriter: w}
		rec.Header().Set("X-Request-Id", ri.id)
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.ErrorContext(r.Context(), "panic", "request_id", ri.id, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				if !rec.wrote {
					s.writeError(rec, r, fmt.Errorf("panic: %v", p))
				}
			}
			elapsed := time.Since(start)
			route := ri.route
			if route == "" {
				route = "unmatched"
			}
			s.metrics.observe(r.Method, route, rec.status, elapsed)
			s.log.LogAttrs(r.Context(), slog.LevelInfo, "request",
				slog.String("request_id", ri.id),
				slog.String("method", r.Method),
				slog.String("path", r.URL.Path),
				slog.String("route", route),
				slog.Int("status", rec.status),
				slog.Int64("bytes", rec.bytes),
				slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
				slog.String("account_id", ri.account.ID),
				slog.String("remote", r.RemoteAddr),
			)
		}()
		next.ServeHTTP(rec, r)
	})
}

// requestID keeps a caller's X-Request-Id when it is short and plain, or makes a new one.
func requestID(r *http.Request) string {
	if id := r.Header.Get("X-Request-Id"); id != "" && len(id) <= 64 && plainToken(id) {
		return id
	}
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func plainToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
	wrote  bool
}

func (r *recorder) WriteHeader(status int) {
	if !r.wrote {
		r.status, r.wrote = status, true
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(b []byte) (int, error) {
	if !r.wrote {
		r.status, r.wrote = http.StatusOK, true
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

// keyCache remembers verified key records briefly, sparing a database read per request. It holds
// the stored hash, never the key.
type keyCache struct {
	store boxwatch.Store
	now   boxwatch.Clock
	mu    sync.Mutex
	m     map[string]cachedKey
}

type cachedKey struct {
	key     boxwatch.APIKey
	account boxwatch.Account
	expires time.Time
}

const (
	keyCacheTTL  = 10 * time.Second
	keyCacheSize = 10000
)

func newKeyCache(s boxwatch.Store, now boxwatch.Clock) *keyCache {
	return &keyCache{store: s, now: now, m: map[string]cachedKey{}}
}

func (c *keyCache) get(ctx context.Context, id string) (boxwatch.APIKey, boxwatch.Account, error) {
	now := c.now()
	c.mu.Lock()
	e, ok := c.m[id]
	c.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.key, e.account, nil
	}
	k, a, err := c.store.APIKey(ctx, id)
	if err != nil {
		return k, a, err
	}
	c.mu.Lock()
	if len(c.m) >= keyCacheSize {
		clear(c.m)
	}
	c.m[id] = cachedKey{key: k, account: a, expires: now.Add(keyCacheTTL)}
	c.mu.Unlock()
	return k, a, nil
}
