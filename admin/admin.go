// Package admin serves the admin listener: Prometheus metrics at /metrics, a read-only page of
// what the service is doing (jobs by state and kind, running jobs and their leases, recent
// failures, the webhook backlog, AIS sources, database pools) at / with the same data as JSON at
// /status.json, and Go's runtime profiles (net/http/pprof) under /debug/pprof/.
//
// The admin listener has no authentication: it must stay on loopback or a private network (a
// profile shows the program's memory). This package never writes: it reads the queue, the store
// and the ingest's counters.
package admin

import (
	"context"
	"embed"
	"encoding/json"
	"html/template"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/riverqueue/river/rivertype"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/ais/ingest"
	"github.com/boxwatch/boxwatch/queue"
	"github.com/boxwatch/boxwatch/store"
)

// Jobs is what the page reads of the job queue (queue.Queue implements it).
type Jobs interface {
	Counts(ctx context.Context) ([]queue.Count, error)
	Running(ctx context.Context, kind string, limit int) ([]*rivertype.JobRow, error)
	Failures(ctx context.Context, kind string, limit int) ([]*rivertype.JobRow, error)
	LeaseLength() time.Duration
}

// Backlog is what the page reads of the webhook deliveries (store.DB implements it).
type Backlog interface {
	NotificationBacklog(ctx context.Context, now time.Time, limit int) (boxwatch.NotificationBacklog, error)
}

// Config is what the admin listener serves; Metrics is required, the rest may be nil and is
// then left out of the page.
type Config struct {
	Metrics prometheus.Gatherer
	Jobs    Jobs
	Backlog Backlog
	// AIS returns the ingest's sources and their counts.
	AIS func() []ingest.SourceStats
	// Pools returns the database's connection pools.
	Pools func() []store.PoolStats
	// Database names the database (its dialect and redacted address); Version the build.
	Database, Version string
	Clock             boxwatch.Clock
	Logger            *slog.Logger
}

// Bounds of the page's parameters.
const (
	defaultLimit = 50
	maxLimit     = 500
	maxErrorLen  = 1000 // runes of a job error shown
	readTimeout  = 5 * time.Second
)

//go:embed page.html
var files embed.FS

var page = template.Must(template.New("page.html").Funcs(template.FuncMap{
	"stamp": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.UTC().Format("2006-01-02 15:04:05Z")
	},
}).ParseFS(files, "page.html"))

// NewHandler returns the admin listener's handler.
func NewHandler(cfg Config) http.Handler {
	if cfg.Clock == nil {
		cfg.Clock = boxwatch.SystemClock
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	mux := http.NewServeMux()
	// A collector that fails leaves its series out; the rest of the scrape still answers.
	mux.Handle("GET /metrics", promhttp.HandlerFor(cfg.Metrics, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		q, err := parseQuery(r.URL.RawQuery)
		if err != nil {
			secure(w, "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(err.Error() + "\n"))
			return
		}
		s := cfg.status(r.Context(), q)
		secure(w, "text/html; charset=utf-8")
		if err := page.Execute(w, s); err != nil {
			cfg.Logger.Warn("admin page", "error", err.Error())
		}
	})
	// The profiles, as net/http/pprof serves them on the default mux, which boxwatch never
	// serves: here only. Index serves every named profile (heap, goroutine, allocs...).
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.HandleFunc("GET /status.json", func(w http.ResponseWriter, r *http.Request) {
		secure(w, "application/json")
		q, err := parseQuery(r.URL.RawQuery)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
			return
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.Encode(cfg.status(r.Context(), q))
	})
	return mux
}

// secure sets the content type and the headers that keep the page inert: no scripts, no
// framing, no caching.
func secure(w http.ResponseWriter, contentType string) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
}

// query is what the page's parameters ask for.
type query struct {
	limit int    // rows of running jobs, failures and webhooks
	kind  string // only jobs of this kind; "" for every kind
}

// badRequest is a parameter refused, with a message safe to echo (it quotes nothing sent).
type badRequest string

func (e badRequest) Error() string { return string(e) }

// parseQuery reads limit (1–500) and kind (a job kind: letters, digits and underscores); any
// other parameter, a repeated one, or one that does not parse is refused.
func parseQuery(raw string) (query, error) {
	q := query{limit: defaultLimit}
	if len(raw) > 1024 {
		return q, badRequest("the query string is too long")
	}
	values, err := url.ParseQuery(raw)
	if err != nil {
		return q, badRequest("the query string is malformed")
	}
	for name, v := range values {
		if len(v) != 1 {
			return q, badRequest("each parameter may be given once")
		}
		switch name {
		case "limit":
			n, err := strconv.Atoi(v[0])
			if err != nil || n < 1 || n > maxLimit {
				return q, badRequest("limit must be a whole number from 1 to 500")
			}
			q.limit = n
		case "kind":
			if !validKind(v[0]) {
				return q, badRequest("kind must be a job kind: 1 to 64 letters, digits or underscores")
			}
			q.kind = v[0]
		default:
			return q, badRequest("unknown parameter: the page takes limit and kind")
		}
	}
	return q, nil
}

func validKind(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// Status is everything the page shows, and the document /status.json returns.
type Status struct {
	GeneratedAt time.Time `json:"generated_at"`
	Version     string    `json:"version"`
	Database    string    `json:"database"`
	Kind        string    `json:"kind,omitempty"` // the kind filter applied, if any
	Jobs        JobStatus `json:"jobs"`
	Webhooks    *Webhooks `json:"webhooks,omitempty"`
	AIS         []AIS     `json:"ais_sources"`
	Pools       []Pool    `json:"database_pools"`
	// Errors name the parts that could not be read (the database down, a timeout); the rest
	// is shown.
	Errors []string `json:"errors,omitempty"`
}

// JobStatus is the queue: unfinished jobs by kind and state (every process's), the running
// ones with their process and lease, and the latest failures.
type JobStatus struct {
	States                    []string    `json:"states"`
	ByKind                    []KindCount `json:"by_kind"`
	OldestAvailableAgeSeconds float64     `json:"oldest_available_age_seconds"`
	LeaseSeconds              float64     `json:"lease_seconds"`
	Running                   []Job       `json:"running"`
	Failures                  []Job       `json:"failures"`
}

// KindCount is one kind's unfinished jobs, one count per state of JobStatus.States.
type KindCount struct {
	Kind   string  `json:"kind"`
	Counts []int64 `json:"counts"`
	Total  int64   `json:"total"`
}

// Job is one job as the page shows it.
type Job struct {
	ID          int64     `json:"id"`
	Kind        string    `json:"kind"`
	State       string    `json:"state"`
	Attempt     int       `json:"attempt"`
	MaxAttempts int       `json:"max_attempts"`
	Args        string    `json:"args"`
	ScheduledAt time.Time `json:"scheduled_at"`
	// Process is the client that runs (or last ran) it; Heartbeat its last lease renewal, and
	// LeaseExpires when another process may take it up. Lapsed says the lease has run out:
	// its process stopped renewing it and the next lease sweep gives it back to the queue.
	Process      string    `json:"process,omitempty"`
	Heartbeat    time.Time `json:"heartbeat,omitzero"`
	LeaseExpires time.Time `json:"lease_expires,omitzero"`
	Lapsed       bool      `json:"lapsed,omitempty"`
	// Error is the last attempt's error, cut to 1,000 characters; FailedAt its time.
	Error    string    `json:"error,omitempty"`
	FailedAt time.Time `json:"failed_at,omitzero"`
}

// Webhooks is the delivery backlog: totals and the webhooks holding the most.
type Webhooks struct {
	Pending   int64     `json:"pending"`
	Due       int64     `json:"due"`
	OldestDue time.Time `json:"oldest_due,omitzero"`
	ByWebhook []Webhook `json:"by_webhook"`
}

// Webhook is one webhook's backlog.
type Webhook struct {
	ID        string `json:"id"`
	AccountID string `json:"account_id"`
	URL       string `json:"url"` // without user information or query

	Active       bool      `json:"active"`
	FailingSince time.Time `json:"failing_since,omitzero"`
	Pending      int64     `json:"pending"`
	Due          int64     `json:"due"`
	OldestDue    time.Time `json:"oldest_due,omitzero"`
}

// AIS is one AIS source and what it gave this process.
type AIS struct {
	Source      string    `json:"source"`
	Lines       int64     `json:"lines"`
	Messages    int64     `json:"messages"`
	Invalid     int64     `json:"invalid"`
	Reconnects  int64     `json:"reconnects"`
	LastMessage time.Time `json:"last_message,omitzero"`
}

// Pool is one database connection pool of this process.
type Pool struct {
	Name           string  `json:"name"`
	MaxOpen        int     `json:"max_open"`
	Open           int     `json:"open"`
	InUse          int     `json:"in_use"`
	Idle           int     `json:"idle"`
	Waits          int64   `json:"waits"`
	WaitSecondsSum float64 `json:"wait_seconds_total"`
}

var jobStates = []string{string(rivertype.JobStateAvailable), string(rivertype.JobStateScheduled), string(rivertype.JobStateRetryable),
	string(rivertype.JobStateRunning), string(rivertype.JobStatePending)}

// status reads every part; a part that fails is named in Errors and left empty.
func (cfg Config) status(ctx context.Context, q query) Status {
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	now := cfg.Clock()
	s := Status{GeneratedAt: now.UTC(), Version: cfg.Version, Database: cfg.Database, Kind: q.kind,
		Jobs: JobStatus{States: jobStates, Running: []Job{}, Failures: []Job{}, ByKind: []KindCount{}}, AIS: []AIS{}, Pools: []Pool{}}
	fail := func(part string, err error) {
		cfg.Logger.Warn("admin page: reading "+part, "error", err.Error())
		s.Errors = append(s.Errors, "could not read "+part)
	}
	if cfg.Jobs != nil {
		s.Jobs.LeaseSeconds = cfg.Jobs.LeaseLength().Seconds()
		if counts, err := cfg.Jobs.Counts(ctx); err != nil {
			fail("the job counts", err)
		} else {
			s.Jobs.ByKind, s.Jobs.OldestAvailableAgeSeconds = byKind(counts, q.kind, now)
		}
		if running, err := cfg.Jobs.Running(ctx, q.kind, q.limit); err != nil {
			fail("the running jobs", err)
		} else {
			lease := cfg.Jobs.LeaseLength()
			for _, j := range running {
				job := jobOf(j)
				if j.AttemptedAt != nil {
					job.Heartbeat = j.AttemptedAt.UTC()
					job.LeaseExpires = job.Heartbeat.Add(lease)
					job.Lapsed = now.After(job.LeaseExpires)
				}
				s.Jobs.Running = append(s.Jobs.Running, job)
			}
		}
		if failures, err := cfg.Jobs.Failures(ctx, q.kind, q.limit); err != nil {
			fail("the failed jobs", err)
		} else {
			for _, j := range failures {
				job := jobOf(j)
				if n := len(j.Errors); n > 0 {
					job.Error, job.FailedAt = cut(j.Errors[n-1].Error, maxErrorLen), j.Errors[n-1].At.UTC()
				}
				s.Jobs.Failures = append(s.Jobs.Failures, job)
			}
		}
	}
	if cfg.Backlog != nil {
		if b, err := cfg.Backlog.NotificationBacklog(ctx, now, q.limit); err != nil {
			fail("the webhook backlog", err)
		} else {
			s.Webhooks = &Webhooks{Pending: b.Pending, Due: b.Due, OldestDue: b.OldestDue, ByWebhook: []Webhook{}}
			for _, w := range b.Webhooks {
				s.Webhooks.ByWebhook = append(s.Webhooks.ByWebhook, Webhook{ID: w.WebhookID, AccountID: w.AccountID, URL: redactURL(w.URL),
					Active: w.Active, FailingSince: w.FailingSince, Pending: w.Pending, Due: w.Due, OldestDue: w.OldestDue})
			}
		}
	}
	if cfg.AIS != nil {
		for _, src := range cfg.AIS() {
			s.AIS = append(s.AIS, AIS{Source: src.Source, Lines: src.Lines, Messages: src.Messages, Invalid: src.Errors,
				Reconnects: src.Reconnects, LastMessage: src.LastMessage})
		}
	}
	if cfg.Pools != nil {
		for _, p := range cfg.Pools() {
			s.Pools = append(s.Pools, Pool{Name: p.Name, MaxOpen: p.MaxOpen, Open: p.Open, InUse: p.InUse, Idle: p.Idle,
				Waits: p.Waits, WaitSecondsSum: p.WaitTime.Seconds()})
		}
	}
	return s
}

// byKind turns the queue's counts into one row per kind, and the age of the oldest due job.
func byKind(counts []queue.Count, kind string, now time.Time) ([]KindCount, float64) {
	rows := []KindCount{}
	var oldest time.Time
	for _, c := range counts {
		if kind != "" && c.Kind != kind {
			continue
		}
		i := slices.IndexFunc(rows, func(r KindCount) bool { return r.Kind == c.Kind })
		if i < 0 {
			rows = append(rows, KindCount{Kind: c.Kind, Counts: make([]int64, len(jobStates))})
			i = len(rows) - 1
		}
		if st := slices.Index(jobStates, string(c.State)); st >= 0 {
			rows[i].Counts[st] += c.Jobs
			rows[i].Total += c.Jobs
		}
		if c.State == rivertype.JobStateAvailable && !c.Oldest.IsZero() && (oldest.IsZero() || c.Oldest.Before(oldest)) {
			oldest = c.Oldest
		}
	}
	slices.SortFunc(rows, func(a, b KindCount) int { return strings.Compare(a.Kind, b.Kind) })
	if oldest.IsZero() {
		return rows, 0
	}
	return rows, max(0, now.Sub(oldest).Seconds())
}

func jobOf(j *rivertype.JobRow) Job {
	job := Job{ID: j.ID, Kind: j.Kind, State: string(j.State), Attempt: j.Attempt, MaxAttempts: j.MaxAttempts,
		Args: cut(string(j.EncodedArgs), maxErrorLen), ScheduledAt: j.ScheduledAt.UTC()}
	if n := len(j.AttemptedBy); n > 0 {
		job.Process = j.AttemptedBy[n-1]
	}
	return job
}

// redactURL drops what a webhook URL may carry as a secret, its user information and its query,
// keeping where deliveries go.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable URL)"
	}
	u.User = nil
	if u.RawQuery != "" {
		u.RawQuery = "…"
	}
	u.Fragment = ""
	return u.String()
}

// cut shortens s to n runes, marking the cut, and makes it valid UTF-8.
func cut(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
