package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/api"
	"github.com/boxwatch/boxwatch/carrier"
	"github.com/boxwatch/boxwatch/carrier/sim"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/tracking"
	"github.com/boxwatch/boxwatch/webhook"
)

// serveConfig is everything "boxwatch serve" can be told, with its defaults.
type serveConfig struct {
	addr, adminAddr, db, publicURL, logLevel string
	demo                                     bool
	limits                                   api.Limits
	carriersFile                             string
	sim                                      bool
	simSpeed                                 float64
	simLatency                               time.Duration
	retryScale                               float64
	refreshInterval, jobTimeout              time.Duration
	workers                                  int
	webhookAllowPrivate                      bool
	webhookTimeout                           time.Duration
	webhookWorkers, webhookPerEndpoint       int
}

func runServe(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, dsn := newFlagSet("serve", stderr)
	cfg := serveConfig{limits: api.DefaultLimits}
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:8080", "address of the API listener")
	fs.StringVar(&cfg.adminAddr, "admin-addr", "127.0.0.1:9090", `address of the admin listener (/metrics); "off" disables it`)
	fs.StringVar(&cfg.publicURL, "public-url", "", "scheme and host clients reach the API at, for absolute links (default: from each request)")
	fs.StringVar(&cfg.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.BoolVar(&cfg.demo, "demo", false, "create the demo account if missing and print a fresh API key for it")
	fs.IntVar(&cfg.limits.CreateTrackingRequest, "limit-create", cfg.limits.CreateTrackingRequest, "POST /v2/tracking_requests per account per minute (0 lifts the limit)")
	fs.IntVar(&cfg.limits.InferNumber, "limit-infer", cfg.limits.InferNumber, "POST /v2/tracking_requests/infer_number per account per minute (0 lifts the limit)")
	fs.IntVar(&cfg.limits.Default, "limit-default", cfg.limits.Default, "every other /v2 request per account per minute (0 lifts the limit)")
	fs.StringVar(&cfg.carriersFile, "carriers", "", "carrier configuration file (JSON): SCAC → adapter, base URL, credentials")
	fs.BoolVar(&cfg.sim, "sim", false, "simulate every carrier the carriers file does not configure (on with --demo)")
	fs.Float64Var(&cfg.simSpeed, "sim-speed", 1, "run the simulated world this many times faster than real time")
	fs.DurationVar(&cfg.simLatency, "sim-latency", 0, "delay every simulated carrier answer by this much")
	fs.Float64Var(&cfg.retryScale, "retry-scale", 1, "multiply every retry and backoff delay by this factor")
	fs.DurationVar(&cfg.refreshInterval, "refresh-interval", 4*time.Hour, "how often a tracked shipment is looked up again")
	fs.IntVar(&cfg.workers, "workers", 20, "lookups and refreshes run at once by this process (0: an API-only replica)")
	fs.BoolVar(&cfg.webhookAllowPrivate, "webhook-allow-private", false, "allow http and private or loopback webhook URLs (development and tests only)")
	fs.DurationVar(&cfg.webhookTimeout, "webhook-timeout", 10*time.Second, "how long a webhook receiver may take to answer")
	fs.IntVar(&cfg.webhookWorkers, "webhook-workers", 50, "webhook deliveries in flight at once in this process")
	fs.IntVar(&cfg.webhookPerEndpoint, "webhook-per-endpoint", 4, "webhook deliveries in flight at once to one webhook")
	fs.DurationVar(&cfg.jobTimeout, "job-timeout", 2*time.Minute, "longest a lookup or refresh may run; a job left running by a dead process is retried after twice this")
	pos, err := parseFlags(fs, args, getenv)
	if err != nil {
		return helpOK(err)
	}
	if len(pos) > 0 {
		return usagef("serve takes no arguments, got %q", pos)
	}
	cfg.db = *dsn
	for name, v := range map[string]int{"limit-create": cfg.limits.CreateTrackingRequest, "limit-infer": cfg.limits.InferNumber, "limit-default": cfg.limits.Default} {
		if v < 0 {
			return usagef("--%s must be 0 (no limit) or more, got %d", name, v)
		}
	}
	switch {
	case cfg.simSpeed <= 0:
		return usagef("--sim-speed must be more than 0, got %v", cfg.simSpeed)
	case cfg.retryScale <= 0:
		return usagef("--retry-scale must be more than 0, got %v", cfg.retryScale)
	case cfg.refreshInterval < time.Second:
		return usagef("--refresh-interval must be at least 1s, got %v", cfg.refreshInterval)
	case cfg.workers < 0:
		return usagef("--workers must be 0 or more, got %d", cfg.workers)
	case cfg.jobTimeout < time.Second:
		return usagef("--job-timeout must be at least 1s, got %v", cfg.jobTimeout)
	case cfg.simLatency < 0:
		return usagef("--sim-latency must not be negative, got %v", cfg.simLatency)
	case cfg.webhookTimeout < 100*time.Millisecond:
		return usagef("--webhook-timeout must be at least 100ms, got %v", cfg.webhookTimeout)
	case cfg.webhookWorkers < 1 || cfg.webhookPerEndpoint < 1:
		return usagef("--webhook-workers and --webhook-per-endpoint must be at least 1")
	}
	cfg.sim = cfg.sim || cfg.demo
	log, err := newLogger(stderr, cfg.logLevel)
	if err != nil {
		return err
	}
	registry := data.Carriers()
	configured := map[string]boxwatch.Carrier{}
	if cfg.carriersFile != "" {
		if configured, err = loadCarriers(cfg.carriersFile, registry, getenv); err != nil {
			return err
		}
	}

	db, err := store.Open(ctx, cfg.db)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := tracking.Migrate(ctx, db); err != nil {
		return err
	}
	ports := data.Ports()
	carriers := configured
	if cfg.sim {
		network, err := sim.New(sim.Options{Carriers: registry, Ports: ports, Fleet: data.Fleet(),
			State: store.SimState{DB: db}, Speed: cfg.simSpeed, Latency: cfg.simLatency, Log: log.With("component", "sim")})
		if err != nil {
			return err
		}
		simLn, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("carrier simulator: %w", err)
		}
		if err := network.Start(simLn); err != nil {
			return err
		}
		defer network.Close()
		simulated, err := carrier.Simulated(network, configured, nil)
		if err != nil {
			return err
		}
		for scac, c := range configured {
			simulated[scac] = c
		}
		carriers = simulated
		log.Info("carrier simulator", "addr", simLn.Addr().String(), "speed", cfg.simSpeed, "lines", len(network.SCACs()))
	}
	policy := webhook.Policy{AllowPrivate: cfg.webhookAllowPrivate, Timeout: cfg.webhookTimeout}
	webhookClient := webhook.NewClient(policy)
	engine, err := tracking.New(tracking.Config{DB: db, Registry: registry, Carriers: carriers, Logger: log.With("component", "tracking"),
		RetryScale: cfg.retryScale, RefreshInterval: cfg.refreshInterval, Workers: cfg.workers, JobTimeout: cfg.jobTimeout,
		Deliveries: tracking.Deliveries{Renderer: api.NewRenderer(db, registry, ports), Client: webhookClient, Timeout: cfg.webhookTimeout,
			Workers: cfg.webhookWorkers, PerWebhook: cfg.webhookPerEndpoint}})
	if err != nil {
		return err
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	handler, err := api.NewHandler(api.Config{
		Store: db, Tracker: engine, Limiter: db.Limiter(), Carriers: registry, Ports: ports, Logger: log,
		Webhooks: policy, WebhookClient: webhookClient,
		Limits: cfg.limits, PublicURL: cfg.publicURL, Metrics: reg,
	})
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w (choose another with --addr)", cfg.addr, err)
	}
	servers := []*http.Server{{Handler: handler, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, IdleTimeout: 2 * time.Minute}}
	listeners := []net.Listener{ln}
	if cfg.adminAddr != "off" && cfg.adminAddr != "" {
		aln, err := net.Listen("tcp", cfg.adminAddr)
		if err != nil {
			ln.Close()
			return fmt.Errorf("cannot listen on %s: %w (choose another with --admin-addr, or --admin-addr off)", cfg.adminAddr, err)
		}
		admin := http.NewServeMux()
		admin.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
		servers = append(servers, &http.Server{Handler: admin, ReadHeaderTimeout: 10 * time.Second})
		listeners = append(listeners, aln)
		log.Info("admin listener", "addr", aln.Addr().String())
	}

	apiURL := "http://" + ln.Addr().String()
	fmt.Fprintf(stdout, "boxwatch serving the API at %s (database: %s, %s)\n", apiURL, store.Redact(cfg.db), db.Dialect())
	if cfg.demo {
		if err := startDemo(ctx, db, apiURL, stdout); err != nil {
			ln.Close()
			return err
		}
	}

	if err := engine.Start(ctx); err != nil {
		return fmt.Errorf("starting the job workers: %w", err)
	}
	errc := make(chan error, len(servers))
	for i, srv := range servers {
		go func() { errc <- srv.Serve(listeners[i]) }()
	}
	if db.Dialect() == store.Postgres {
		go sweepRateLimits(ctx, db, log)
	}

	select {
	case err = <-errc:
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, srv := range servers {
		srv.Shutdown(shutdownCtx)
	}
	if err := engine.Stop(shutdownCtx); err != nil {
		log.Warn("stopping the job workers", "error", err.Error())
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// startDemo makes sure the demo account exists with every feature and prints a fresh key for it.
func startDemo(ctx context.Context, db boxwatch.Store, apiURL string, stdout io.Writer) error {
	a, err := db.AccountByName(ctx, "demo")
	if boxwatch.IsKind(err, boxwatch.KindNotFound) {
		a, err = createAccount(ctx, db, "demo", boxwatch.Features)
	}
	if err != nil {
		return fmt.Errorf("demo account: %w", err)
	}
	key, err := createKey(ctx, db, a)
	if err != nil {
		return fmt.Errorf("demo key: %w", err)
	}
	fmt.Fprintf(stdout, `
Demo account ready. Its API key (new at every start; only its hash is stored):
  %[2]s

Try:
  curl -s %[1]s/v2/shipping_lines -H 'Authorization: Token %[2]s'
  curl -s %[1]s/v2/tracking_requests -H 'Authorization: Token %[2]s' \
    -H 'Content-Type: application/vnd.api+json' \
    -d '{"data":{"type":"tracking_request","attributes":{"request_type":"bill_of_lading","request_number":"TEST-TR-SUCCEEDED","scac":"TEST"}}}'

`, apiURL, key)
	return nil
}

// sweepRateLimits deletes full rate-limit buckets every minute so the table stays small.
func sweepRateLimits(ctx context.Context, db *store.DB, log interface {
	Warn(msg string, args ...any)
}) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := db.SweepRateLimits(ctx); err != nil && ctx.Err() == nil {
				log.Warn("sweeping rate limits", "error", err.Error())
			}
		}
	}
}

// loadCarriers reads the carrier configuration file and builds its adapters.
func loadCarriers(path string, registry *boxwatch.Carriers, getenv func(string) string) (map[string]boxwatch.Carrier, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--carriers: %w", err)
	}
	defer f.Close()
	cfg, err := carrier.Load(f)
	if err != nil {
		return nil, fmt.Errorf("--carriers %s: %w", path, err)
	}
	built, err := cfg.Build(registry, getenv, nil)
	if err != nil {
		return nil, fmt.Errorf("--carriers %s: %w", path, err)
	}
	return built, nil
}
