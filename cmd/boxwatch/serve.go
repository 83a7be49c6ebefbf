package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/admin"
	"github.com/boxwatch/boxwatch/ais/ingest"
	"github.com/boxwatch/boxwatch/api"
	"github.com/boxwatch/boxwatch/assistant"
	"github.com/boxwatch/boxwatch/cache"
	"github.com/boxwatch/boxwatch/carrier"
	"github.com/boxwatch/boxwatch/carrier/dcsa"
	"github.com/boxwatch/boxwatch/carrier/sim"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/infer"
	"github.com/boxwatch/boxwatch/journey"
	"github.com/boxwatch/boxwatch/jsonapi"
	"github.com/boxwatch/boxwatch/searoute"
	"github.com/boxwatch/boxwatch/store"
	terminals "github.com/boxwatch/boxwatch/terminal"
	"github.com/boxwatch/boxwatch/tracking"
	"github.com/boxwatch/boxwatch/web"
	"github.com/boxwatch/boxwatch/webhook"
	"github.com/boxwatch/boxwatch/webhook/dispatch"
)

// serveConfig is everything "boxwatch serve" can be told. defaultServeConfig holds every
// default, and validate every rule; flags and BOXWATCH_* variables fill it in between.
type serveConfig struct {
	addr, adminAddr, db, publicURL, logLevel string
	demo                                     bool
	limits                                   api.Limits
	carriersFile, terminalsFile              string
	terminalInterval                         time.Duration
	sim                                      bool
	simSpeed                                 float64
	simLatency                               time.Duration
	simDCSAVersion                           string
	retryScale                               float64
	refreshInterval, jobTimeout              time.Duration
	workers, terminalWorkers                 int
	webhookAllowPrivate                      bool
	readCache                                bool
	webhookTimeout                           time.Duration
	webhookWorkers, webhookPerEndpoint       int
	webhookEgressIPs                         sourceList
	webhookPerAccount                        int
	webhookPerAccountFailing                 int
	shutdownTimeout, drainTimeout            time.Duration
	headerTimeout, bodyTimeout               time.Duration
	requestTimeout                           time.Duration
	aisSources                               sourceList
	aisInterval, aisRetention                time.Duration
	retainNotifications, retainEvents        time.Duration
	mapCacheBytes, routeCacheBytes           int64
	trackCacheBytes                          int64
	statementCacheBytes, readCacheBytes      int64
	keyCacheBytes, aisIdentityCacheBytes     int64
}

// sourceList is a repeatable flag; a comma-separated value (as from the environment) adds each.
type sourceList []string

func (l *sourceList) String() string { return strings.Join(*l, ",") }

func (l *sourceList) Set(v string) error {
	for s := range strings.SplitSeq(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

func defaultServeConfig() serveConfig {
	return serveConfig{
		addr: "127.0.0.1:8080", adminAddr: "127.0.0.1:9090", db: defaultDB, logLevel: "info",
		limits: api.DefaultLimits, simSpeed: 1, simDCSAVersion: dcsa.Version22, retryScale: 1,
		refreshInterval: tracking.DefaultRefreshInterval, jobTimeout: tracking.DefaultJobTimeout, workers: 20, terminalWorkers: tracking.DefaultTerminalWorkers,
		terminalInterval: tracking.DefaultTerminalInterval,
		webhookTimeout:   webhook.DefaultTimeout, webhookWorkers: dispatch.DefaultWorkers, webhookPerEndpoint: dispatch.DefaultPerWebhook,
		webhookPerAccount: dispatch.DefaultPerAccount, webhookPerAccountFailing: dispatch.DefaultPerAccountFailing, shutdownTimeout: 10 * time.Second, drainTimeout: 5 * time.Second, aisInterval: ingest.DefaultInterval,
		headerTimeout: 10 * time.Second, bodyTimeout: 10 * time.Second, requestTimeout: 30 * time.Second,
		aisRetention: tracking.DefaultPositionRetention, readCache: true,
		retainNotifications: tracking.DefaultNotificationRetention, retainEvents: tracking.DefaultEventRetention,
		mapCacheBytes: journey.DefaultMapCacheBytes, routeCacheBytes: journey.DefaultRouteCacheBytes, trackCacheBytes: journey.DefaultTrackCacheBytes,
		statementCacheBytes: store.DefaultStatementCacheBytes, readCacheBytes: store.DefaultReadCacheBytes, keyCacheBytes: store.DefaultKeyCacheBytes,
		aisIdentityCacheBytes: ingest.DefaultIdentityCacheBytes,
	}
}

// validate reports the first rule the configuration breaks, as a usage error naming the flag.
func (c serveConfig) validate() error {
	for _, l := range []struct {
		flag string
		v    int
	}{{"limit-create", c.limits.CreateTrackingRequest}, {"limit-infer", c.limits.InferNumber}, {"limit-default", c.limits.Default}} {
		if l.v < 0 {
			return usagef("--%s must be 0 (no limit) or more, got %d", l.flag, l.v)
		}
	}
	switch {
	case c.addr == "":
		return usagef("--addr must not be empty")
	case c.simSpeed <= 0:
		return usagef("--sim-speed must be more than 0, got %v", c.simSpeed)
	case c.retryScale <= 0:
		return usagef("--retry-scale must be more than 0, got %v", c.retryScale)
	case c.refreshInterval < time.Second:
		return usagef("--refresh-interval must be at least 1s, got %v", c.refreshInterval)
	case c.terminalInterval < time.Second:
		return usagef("--terminal-interval must be at least 1s, got %v", c.terminalInterval)
	case c.workers < 0:
		return usagef("--workers must be 0 or more, got %d", c.workers)
	case c.terminalWorkers < 1:
		return usagef("--terminal-workers must be at least 1, got %d", c.terminalWorkers)
	case c.jobTimeout < time.Second:
		return usagef("--job-timeout must be at least 1s, got %v", c.jobTimeout)
	case c.simLatency < 0:
		return usagef("--sim-latency must not be negative, got %v", c.simLatency)
	case c.simDCSAVersion != dcsa.Version22 && c.simDCSAVersion != dcsa.Version30:
		return usagef("--sim-dcsa-version must be %s or %s, got %q", dcsa.Version22, dcsa.Version30, c.simDCSAVersion)
	case c.webhookTimeout < 100*time.Millisecond:
		return usagef("--webhook-timeout must be at least 100ms, got %v", c.webhookTimeout)
	case c.webhookWorkers < 1 || c.webhookPerEndpoint < 1 || c.webhookPerAccount < 1 || c.webhookPerAccountFailing < 1:
		return usagef("--webhook-workers, --webhook-per-endpoint, --webhook-per-account and --webhook-per-account-failing must be at least 1")
	case c.shutdownTimeout <= 0:
		return usagef("--shutdown-timeout must be more than 0, got %v", c.shutdownTimeout)
	case c.headerTimeout < 100*time.Millisecond || c.headerTimeout > readTimeout:
		return usagef("--header-timeout must be between 100ms and %v, got %v", readTimeout, c.headerTimeout)
	case c.bodyTimeout < 100*time.Millisecond || c.bodyTimeout > readTimeout:
		return usagef("--body-timeout must be between 100ms and %v, got %v", readTimeout, c.bodyTimeout)
	case c.requestTimeout < 100*time.Millisecond:
		return usagef("--request-timeout must be at least 100ms, got %v", c.requestTimeout)
	case c.drainTimeout < 0:
		return usagef("--drain-timeout must not be negative, got %v", c.drainTimeout)
	case c.aisInterval < time.Second:
		return usagef("--ais-interval must be at least 1s, got %v", c.aisInterval)
	}
	for _, r := range []struct {
		flag string
		v    time.Duration
	}{{"ais-retention", c.aisRetention}, {"retain-notifications", c.retainNotifications}, {"retain-events", c.retainEvents}} {
		if r.v != 0 && r.v < time.Hour {
			return usagef("--%s must be 0 (keep for ever) or at least 1h, got %v", r.flag, r.v)
		}
	}
	for _, b := range []struct {
		flag string
		v    int64
	}{{"map-cache-bytes", c.mapCacheBytes}, {"route-cache-bytes", c.routeCacheBytes}, {"track-cache-bytes", c.trackCacheBytes},
		{"statement-cache-bytes", c.statementCacheBytes}, {"read-cache-bytes", c.readCacheBytes}, {"key-cache-bytes", c.keyCacheBytes},
		{"ais-identity-cache-bytes", c.aisIdentityCacheBytes}} {
		if b.v < 0 {
			return usagef("--%s must be 0 (no cache) or more, got %d", b.flag, b.v)
		}
	}
	for _, ip := range c.webhookEgressIPs {
		if _, err := netip.ParseAddr(ip); err != nil {
			return usagef("--webhook-egress-ips: %q is not an IP address", ip)
		}
	}
	for _, src := range c.aisSources {
		if err := ingest.CheckSource(src); err != nil {
			return usagef("--ais: %v", err)
		}
	}
	if _, err := parseLogLevel(c.logLevel); err != nil {
		return err
	}
	return nil
}

// storeBound is a size flag as store.Options and ingest.Config take it: there 0 is the default
// and a negative bound keeps nothing.
func storeBound(flag int64) int64 {
	if flag == 0 {
		return -1
	}
	return flag
}

// egressIPs parses the addresses validate has checked.
func egressIPs(list []string) []netip.Addr {
	var out []netip.Addr
	for _, s := range list {
		if a, err := netip.ParseAddr(s); err == nil {
			out = append(out, a)
		}
	}
	return out
}

// parseServeConfig reads serve's flags and environment over the defaults and validates them.
func parseServeConfig(args []string, getenv func(string) string, stderr io.Writer) (serveConfig, error) {
	fs, dsn := newFlagSet("serve", stderr)
	cfg := defaultServeConfig()
	fs.StringVar(&cfg.addr, "addr", cfg.addr, "address of the API listener")
	fs.StringVar(&cfg.adminAddr, "admin-addr", cfg.adminAddr, `address of the admin listener (/metrics, the job page at /): keep it private; "off" disables it`)
	fs.StringVar(&cfg.publicURL, "public-url", cfg.publicURL, "scheme and host clients reach the API at, for absolute links (default: from each request)")
	fs.StringVar(&cfg.logLevel, "log-level", cfg.logLevel, "debug, info, warn or error")
	fs.BoolVar(&cfg.demo, "demo", cfg.demo, "create the demo account if missing and print a fresh API key for it")
	fs.IntVar(&cfg.limits.CreateTrackingRequest, "limit-create", cfg.limits.CreateTrackingRequest, "POST /v2/tracking_requests per account per minute (0 lifts the limit)")
	fs.IntVar(&cfg.limits.InferNumber, "limit-infer", cfg.limits.InferNumber, "POST /v2/tracking_requests/infer_number per account per minute (0 lifts the limit)")
	fs.IntVar(&cfg.limits.Default, "limit-default", cfg.limits.Default, "every other /v2 request per account per minute (0 lifts the limit)")
	fs.StringVar(&cfg.carriersFile, "carriers", cfg.carriersFile, "carrier configuration file (JSON): SCAC → adapter, base URL, credentials")
	fs.StringVar(&cfg.terminalsFile, "terminals", cfg.terminalsFile, "terminals file (JSON): terminal (USLAX/APMT or FIRMS:W185) → base URL of its boxwatch terminal protocol, credentials, rate (docs/terminals.md)")
	fs.DurationVar(&cfg.terminalInterval, "terminal-interval", cfg.terminalInterval, "how often a container at its terminal of discharge is checked with the terminal")
	fs.BoolVar(&cfg.sim, "sim", cfg.sim, "simulate every carrier the carriers file does not configure, and every terminal the terminals file does not (on with --demo)")
	fs.Float64Var(&cfg.simSpeed, "sim-speed", cfg.simSpeed, "run the simulated world this many times faster than real time")
	fs.DurationVar(&cfg.simLatency, "sim-latency", cfg.simLatency, "delay every simulated carrier answer by this much")
	fs.StringVar(&cfg.simDCSAVersion, "sim-dcsa-version", cfg.simDCSAVersion, "DCSA Track & Trace version the simulated carriers speak: 2.2 or 3.0")
	fs.Float64Var(&cfg.retryScale, "retry-scale", cfg.retryScale, "multiply every retry and backoff delay by this factor")
	fs.DurationVar(&cfg.refreshInterval, "refresh-interval", cfg.refreshInterval, "how often a tracked shipment is looked up again")
	fs.IntVar(&cfg.workers, "workers", cfg.workers, "lookups and refreshes run at once by this process (0: an API-only replica that runs no jobs and sends no webhooks)")
	fs.IntVar(&cfg.terminalWorkers, "terminal-workers", cfg.terminalWorkers, "terminal checks run at once by this process, apart from --workers so that slow terminals never hold up carriers' lookups")
	fs.BoolVar(&cfg.webhookAllowPrivate, "webhook-allow-private", cfg.webhookAllowPrivate, "allow http and private or loopback webhook URLs (development and tests only)")
	fs.BoolVar(&cfg.readCache, "read-cache", cfg.readCache, "answer hot single-object reads from memory, kept fresh by the database's notifications (PostgreSQL) or the writer's hooks and the write-ahead log's counter (SQLite)")
	fs.DurationVar(&cfg.webhookTimeout, "webhook-timeout", cfg.webhookTimeout, "how long a webhook receiver may take to answer")
	fs.IntVar(&cfg.webhookWorkers, "webhook-workers", cfg.webhookWorkers, "webhook deliveries in flight at once in this process")
	fs.IntVar(&cfg.webhookPerEndpoint, "webhook-per-endpoint", cfg.webhookPerEndpoint, "webhook deliveries in flight at once to one webhook, across replicas")
	fs.Var(&cfg.webhookEgressIPs, "webhook-egress-ips", "the addresses webhook deliveries leave from, comma-separated or repeated: GET /v2/webhooks/ips lists them for receivers")
	fs.IntVar(&cfg.webhookPerAccount, "webhook-per-account", cfg.webhookPerAccount, "webhook deliveries in flight at once to one account's healthy endpoints, across replicas")
	fs.IntVar(&cfg.webhookPerAccountFailing, "webhook-per-account-failing", cfg.webhookPerAccountFailing, "webhook deliveries in flight at once to one account's failing or unanswering endpoints (one each), across replicas, apart from its healthy ones")
	fs.DurationVar(&cfg.jobTimeout, "job-timeout", cfg.jobTimeout, "longest a lookup or refresh may run; a dead process's job is taken up again within 20s (or 1.3 times this, if shorter)")
	fs.DurationVar(&cfg.shutdownTimeout, "shutdown-timeout", cfg.shutdownTimeout, "how long a stop waits for requests, jobs and deliveries in flight")
	fs.DurationVar(&cfg.headerTimeout, "header-timeout", cfg.headerTimeout, "how long a client may take to send a request's headers; a slower one is disconnected")
	fs.DurationVar(&cfg.requestTimeout, "request-timeout", cfg.requestTimeout, "longest a request's work may take, database included; a request that outlasts it gets 503")
	fs.DurationVar(&cfg.bodyTimeout, "body-timeout", cfg.bodyTimeout, "how long a client may take to send a request's body once its headers are in; a slower one gets 408")
	fs.DurationVar(&cfg.drainTimeout, "drain-timeout", cfg.drainTimeout, "on a stop, how long /readyz answers 503 while the API still serves, so load balancers take the replica out first; skipped when no readiness check came in that long (0 skips it)")
	fs.Var(&cfg.aisSources, "ais", "an AIS feed of NMEA lines, repeatable: tcp://host:port (a client that reconnects), udp://addr:port (a listener), file:///path (read once); ingested when --workers is above 0")
	fs.DurationVar(&cfg.aisInterval, "ais-interval", cfg.aisInterval, "longest gap between two stored positions of a vessel on an active leg (turns, stops and starts are kept in between)")
	fs.DurationVar(&cfg.aisRetention, "ais-retention", cfg.aisRetention, "how long stored vessel positions are kept (0: for ever)")
	fs.DurationVar(&cfg.retainNotifications, "retain-notifications", cfg.retainNotifications, "how long a webhook notification delivered or failed for good is kept after its last attempt, with its logs (0: for ever); pending ones always are")
	fs.DurationVar(&cfg.retainEvents, "retain-events", cfg.retainEvents, "how long a logged event is kept once no notification refers to it and its shipment stopped (0: for ever)")
	fs.Int64Var(&cfg.mapCacheBytes, "map-cache-bytes", cfg.mapCacheBytes, "bytes of container maps drawn kept for reuse (0: none)")
	fs.Int64Var(&cfg.routeCacheBytes, "route-cache-bytes", cfg.routeCacheBytes, "bytes of sea routes kept for the maps and predicted arrivals (0: none)")
	fs.Int64Var(&cfg.trackCacheBytes, "track-cache-bytes", cfg.trackCacheBytes, "bytes of vessel tracks kept for the maps and predicted arrivals (0: none, every map reads its tracks whole)")
	fs.Int64Var(&cfg.statementCacheBytes, "statement-cache-bytes", cfg.statementCacheBytes, "bytes of database statements kept prepared (SQLite) or rewritten (PostgreSQL) for reuse (0: none)")
	fs.Int64Var(&cfg.readCacheBytes, "read-cache-bytes", cfg.readCacheBytes, "bytes of objects the read cache keeps (0: none, as --read-cache=false)")
	fs.Int64Var(&cfg.aisIdentityCacheBytes, "ais-identity-cache-bytes", cfg.aisIdentityCacheBytes, "bytes of vessel identities from AIS static reports kept to skip writing repeats (0: none, every static report is written)")
	fs.Int64Var(&cfg.keyCacheBytes, "key-cache-bytes", cfg.keyCacheBytes, "bytes of API key records kept verified for 10s (0: none, every request reads its key)")
	pos, err := parseFlags(fs, args, getenv)
	if err != nil {
		return cfg, err
	}
	if len(pos) > 0 {
		return cfg, usagef("serve takes no arguments, got %q", pos)
	}
	cfg.db = *dsn
	cfg.sim = cfg.sim || cfg.demo
	return cfg, cfg.validate()
}

func runServe(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := parseServeConfig(args, getenv, stderr)
	if err != nil {
		return helpOK(err)
	}
	log, err := newLogger(stderr, cfg.logLevel)
	if err != nil {
		return err
	}
	// Outbound clients keep idle connections (and their goroutines) until closed.
	carrierHTTP := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	defer carrierHTTP.CloseIdleConnections()
	registry := data.Carriers()
	configured := map[string]boxwatch.Carrier{}
	if cfg.carriersFile != "" {
		if configured, err = loadCarriers(cfg.carriersFile, registry, getenv, carrierHTTP); err != nil {
			return err
		}
	}
	terminalDir := terminals.NewDirectory()
	if cfg.terminalsFile != "" {
		if err := loadTerminals(cfg.terminalsFile, terminalDir, getenv, carrierHTTP); err != nil {
			return err
		}
	}
	// Every part started below is stopped by the deferred calls, in reverse order: the database
	// closes last, after everything that uses it has finished.
	db, err := store.OpenWith(ctx, cfg.db, store.Options{DisableReadCache: !cfg.readCache, Logger: log.With("component", "store"),
		StatementCacheBytes: storeBound(cfg.statementCacheBytes), ReadCacheBytes: storeBound(cfg.readCacheBytes), KeyCacheBytes: storeBound(cfg.keyCacheBytes)})
	if err != nil {
		return err
	}
	defer db.Close()
	if err := tracking.Migrate(ctx, db); err != nil {
		return err
	}
	if err := tracking.SaveTerminalList(ctx, db, data.Terminals(), time.Now()); err != nil {
		return fmt.Errorf("recording the terminal list: %w", err)
	}
	ports, sea := data.Ports(), data.SeaNetwork()
	carriers := configured
	var simCaches []func() cache.Stats // the simulator's, when it runs
	if cfg.sim {
		network, err := sim.New(sim.Options{Carriers: registry, Ports: ports, Fleet: data.Fleet(),
			State: db, Speed: cfg.simSpeed, Latency: cfg.simLatency, Log: log.With("component", "sim"),
			Dialect: sim.Dialect{Version: cfg.simDCSAVersion}, Router: seaRouter(sea)})
		if err != nil {
			return err
		}
		simCaches = append(simCaches, network.CacheStats()...)
		simLn, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("carrier simulator: %w", err)
		}
		if err := network.Start(simLn); err != nil {
			simLn.Close()
			return err
		}
		defer network.Close()
		// The simulated vessels broadcast AIS on loopback; boxwatch listens to it as to any feed.
		aisLn, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("simulated AIS feed: %w", err)
		}
		if err := network.StartAIS(aisLn); err != nil {
			aisLn.Close()
			return err
		}
		cfg.aisSources = append(cfg.aisSources, "tcp://"+aisLn.Addr().String())
		if carriers, err = carrier.Simulated(network, configured, carrierHTTP); err != nil {
			return err
		}
		for scac, c := range configured {
			carriers[scac] = c
		}
		if carriers, err = carrier.CheckFormats(carriers, configured, registry); err != nil {
			return err
		}
		if err := carrier.SimulatedTerminals(network, terminalDir, configured, carrierHTTP); err != nil {
			return err
		}
		log.Info("carrier simulator", "addr", simLn.Addr().String(), "ais", aisLn.Addr().String(), "speed", cfg.simSpeed, "lines", len(network.SCACs()),
			"terminals", len(network.Terminals()), "dcsa_version", network.Version())
	}
	policy := webhook.Policy{AllowPrivate: cfg.webhookAllowPrivate, Timeout: cfg.webhookTimeout}
	webhookClient := webhook.NewClient(policy)
	defer webhookClient.CloseIdleConnections()

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		admin.PoolCollector(db.PoolStats), admin.ReadCacheCollector(db.ReadCacheStats))

	// AIS ingest runs where jobs run; it is built whether or not it runs, so the engine can wake it.
	feeds, err := ingest.New(ingest.Config{Store: db, Sources: cfg.aisSources, Interval: cfg.aisInterval,
		Logger: log.With("component", "ais"), Metrics: reg, IdentityCacheBytes: storeBound(cfg.aisIdentityCacheBytes)})
	if err != nil {
		return err
	}

	renderer := jsonapi.NewNotificationRenderer(db, registry, ports)
	deliveries, err := dispatch.New(dispatch.Config{Store: db, Work: db, Renderer: renderer, Client: webhookClient,
		Timeout: cfg.webhookTimeout, Workers: cfg.webhookWorkers, PerAccountFailing: cfg.webhookPerAccountFailing,
		PerWebhook: cfg.webhookPerEndpoint, PerAccount: cfg.webhookPerAccount, RetryScale: cfg.retryScale, Logger: log.With("component", "webhooks"), Metrics: reg})
	if err != nil {
		return err
	}
	if carriers, err = carrier.Observed(carriers, log.With("component", "carriers"), reg); err != nil {
		return err
	}
	if err := terminalDir.Observe(reg); err != nil {
		return err
	}
	var terminalSources boxwatch.TerminalDirectory
	if terminalDir.Len() > 0 {
		terminalSources = terminalDir
	}
	// infer_number's engine; requests sent with auto_detect_vocc_scac are looked up with the lines it ranks.
	inferEngine, err := infer.New(registry, data.Lessors())
	if err != nil {
		return err
	}
	// The journey engine predicts arrivals with the waits at ports and canals it learns from the
	// arrivals the tracking engine records (Arrived) and, on start and every learnEvery, from
	// those in the database (RunLearning, below): each replica learns on its own.
	journeys, err := journey.New(journey.Config{Shipments: db, Containers: db, Vessels: db, Positions: db, Ports: ports, Sea: sea,
		Waterways: data.Waterways(), Logger: log.With("component", "journey"), MapCacheBytes: cfg.mapCacheBytes, RouteCacheBytes: cfg.routeCacheBytes,
		TrackCacheBytes: cfg.trackCacheBytes, LearnedCacheBytes: journey.DefaultLearnedCacheBytes})
	if err != nil {
		return err
	}
	// Every in-memory cache, one collector: the journey engine's, the store's and the simulator's.
	reg.MustRegister(admin.CacheCollector(slices.Concat(journeys.CacheStats(), db.CacheStats(), []func() cache.Stats{feeds.CacheStats}, simCaches)...))
	engine, err := tracking.New(tracking.Config{DB: db, Registry: registry, Carriers: carriers, Lines: inferEngine, Logger: log.With("component", "tracking"),
		Terminals: terminalSources, Railways: data.Railways(), TerminalInterval: cfg.terminalInterval,
		RetryScale: cfg.retryScale, RefreshInterval: cfg.refreshInterval, Workers: cfg.workers, TerminalWorkers: cfg.terminalWorkers, JobTimeout: cfg.jobTimeout,
		Notified: deliveries.Wake, RoutesChanged: feeds.Wake, Arrived: journeys.QueueArrivals, Metrics: reg,
		Retention: tracking.Retention{Notifications: cfg.retainNotifications, Events: cfg.retainEvents, Positions: cfg.aisRetention}})
	if err != nil {
		return err
	}

	handler, err := api.NewHandler(api.Config{
		Store: db, Tracker: engine, Redeliverer: deliveries, Limiter: db.Limiter(), Carriers: registry, Ports: ports, Logger: log,
		Infer: inferEngine, Journey: journeys, Positions: db,
		Webhooks: policy, WebhookClient: webhookClient, WebhookEgressIPs: egressIPs(cfg.webhookEgressIPs),
		Limits: cfg.limits, PublicURL: cfg.publicURL, Metrics: reg, BodyTimeout: cfg.bodyTimeout, RequestTimeout: cfg.requestTimeout,
		MCP: func(api http.Handler) http.Handler {
			return assistant.Handler(api, assistant.Options{Version: mcpVersion(), Logger: log.With("component", "mcp")})
		},
	})
	if err != nil {
		return err
	}

	adminHandler := admin.NewHandler(admin.Config{Metrics: reg, Jobs: engine.Queue(), Backlog: db, AIS: feeds.SourceStats,
		Pools: db.PoolStats, Database: fmt.Sprintf("%s (%s)", store.Redact(cfg.db), db.Dialect()), Version: versionString(),
		Logger: log.With("component", "admin")})
	dashboard, err := web.New(handler) // the dashboard at /, /assets/ and /docs; everything else is the API's
	if err != nil {
		return err
	}
	drain := &drainer{}
	servers, err := listen(cfg, drain.wrap(dashboard), adminHandler, log)
	if err != nil {
		return err
	}
	defer servers.close() // only matters when a later step fails: Serve has not run yet
	apiURL := "http://" + servers.listeners[0].Addr().String()
	fmt.Fprintf(stdout, "boxwatch serving the API at %s (database: %s, %s)\n", apiURL, store.Redact(cfg.db), db.Dialect())
	if len(servers.listeners) > 1 {
		fmt.Fprintf(stdout, "boxwatch admin listener at http://%s (metrics and the job page; keep it private)\n", servers.listeners[1].Addr())
	}
	fmt.Fprintf(stdout, "Dashboard: open %s/ in a browser and sign in with an API key; API reference at %s/docs\n", apiURL, apiURL)
	if cfg.demo {
		if err := startDemo(ctx, db, apiURL, stdout); err != nil {
			return err
		}
	}

	// Background work runs on its own context: a stop first drains the listeners, then the work.
	workCtx, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWork()
	var background sync.WaitGroup
	defer background.Wait()
	if cfg.workers > 0 {
		if err := engine.Start(workCtx); err != nil {
			return fmt.Errorf("starting the job workers: %w", err)
		}
		deliveries.Start(workCtx)
	}
	if db.Dialect() == store.Postgres {
		background.Go(func() { sweepRateLimits(workCtx, db, log) })
	}
	background.Go(func() { journeys.RunLearning(workCtx, learnEvery) })
	if cfg.workers > 0 && len(cfg.aisSources) > 0 {
		if err := feeds.Start(workCtx); err != nil {
			return fmt.Errorf("starting AIS ingest: %w", err)
		}
	}
	errc := servers.serve()

	select {
	case err = <-errc:
	case <-ctx.Done():
	}
	// 1. Drain: /readyz answers 503 while the API still serves, so that load balancers take
	// this replica out before it stops accepting.
	if err == nil {
		drain.drain(cfg.drainTimeout, servers.servers[0], log)
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.shutdownTimeout)
	defer cancel()
	// 2. Stop accepting and finish requests in flight; Serve returns once its server is shut down.
	servers.shutdown(shutdownCtx)
	// 3. Stop the workers: jobs and deliveries in flight finish or are taken up after a restart.
	if derr := deliveries.Stop(shutdownCtx); derr != nil {
		log.Warn("stopping webhook deliveries", "error", derr.Error())
	}
	if eerr := engine.Stop(shutdownCtx); eerr != nil {
		log.Warn("stopping the job workers", "error", eerr.Error())
	}
	if ierr := feeds.Stop(shutdownCtx); ierr != nil {
		log.Warn("stopping AIS ingest", "error", ierr.Error())
	}
	// 4. The deferred calls then stop the sweeper and the waits' learner and wait for them, close idle outbound
	// connections, stop the simulator and close the database.
	stopWork()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// learnEvery is how often serve learns again the waits at ports from the arrivals in the database
// (journey.Engine.RunLearning): those another replica recorded, on every replica, and all of them
// on an API-only one.
const learnEvery = time.Hour

// seaRouter lets the simulated vessels sail net's sea paths, passages open by default.
func seaRouter(net *searoute.Network) sim.Router {
	return func(from, to geo.Point) ([]geo.Point, float64, error) {
		p, err := net.Route(from, to, searoute.Options{})
		return p.Points, p.DistanceNM, err
	}
}

// readTimeout bounds a whole request, headers and body; --header-timeout and --body-timeout are
// the tighter bounds slow clients meet first.
const readTimeout = time.Minute

// servers are the API listener and, unless turned off, the admin listener.
type servers struct {
	servers   []*http.Server
	listeners []net.Listener
	wg        sync.WaitGroup
	serving   bool
}

// listen opens the API listener (first) and the admin listener.
func listen(cfg serveConfig, handler, adminHandler http.Handler, log *slog.Logger) (*servers, error) {
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s: %w (choose another with --addr)", cfg.addr, err)
	}
	s := &servers{
		servers:   []*http.Server{{Handler: handler, ReadHeaderTimeout: cfg.headerTimeout, ReadTimeout: readTimeout, IdleTimeout: 2 * time.Minute}},
		listeners: []net.Listener{ln},
	}
	if cfg.adminAddr != "off" && cfg.adminAddr != "" {
		aln, err := net.Listen("tcp", cfg.adminAddr)
		if err != nil {
			ln.Close()
			return nil, fmt.Errorf("cannot listen on %s: %w (choose another with --admin-addr, or --admin-addr off)", cfg.adminAddr, err)
		}
		s.servers = append(s.servers, &http.Server{Handler: adminHandler, ReadHeaderTimeout: cfg.headerTimeout,
			ReadTimeout: time.Minute, WriteTimeout: time.Minute, IdleTimeout: 2 * time.Minute})
		s.listeners = append(s.listeners, aln)
		log.Info("admin listener", "addr", aln.Addr().String())
		if ap, err := netip.ParseAddrPort(aln.Addr().String()); err == nil && !ap.Addr().IsLoopback() {
			log.Warn("the admin listener is not on loopback: it has no authentication, so only Prometheus and operators may reach it", "addr", aln.Addr().String())
		}
	}
	return s, nil
}

// serve runs every server; the channel receives the first one's error.
func (s *servers) serve() <-chan error {
	s.serving = true
	errc := make(chan error, len(s.servers))
	for i, srv := range s.servers {
		s.wg.Go(func() { errc <- srv.Serve(s.listeners[i]) })
	}
	return errc
}

// shutdown stops accepting, waits for requests in flight up to ctx's deadline, closes what is
// left, and waits for every Serve to return.
func (s *servers) shutdown(ctx context.Context) {
	for _, srv := range s.servers {
		if err := srv.Shutdown(ctx); err != nil {
			srv.Close()
		}
	}
	s.wg.Wait()
}

// close releases the listeners of servers that never served.
func (s *servers) close() {
	if s.serving {
		return
	}
	for _, ln := range s.listeners {
		ln.Close()
	}
}

// startDemo makes sure the demo account exists with every feature, prints a fresh key for it and
// revokes the keys earlier starts printed, so restarts do not pile up live keys: the demo
// account holds one key, the last one printed.
func startDemo(ctx context.Context, db boxwatch.AccountStore, apiURL string, stdout io.Writer) error {
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
	newID, _ := boxwatch.ParseAPIKey(key)
	keys, err := db.APIKeys(ctx, a.ID)
	if err != nil {
		return fmt.Errorf("demo keys: %w", err)
	}
	revoked := 0
	for _, k := range keys {
		if k.ID == newID {
			continue
		}
		if err := db.RevokeAPIKey(ctx, k.ID); err != nil && !boxwatch.IsKind(err, boxwatch.KindNotFound) {
			return fmt.Errorf("revoking an earlier demo key: %w", err)
		}
		revoked++
	}
	fmt.Fprintf(stdout, "\nDemo account ready. Its API key, new at every start (only its hash is stored; the keys of earlier starts are revoked: %d):\n  %s\n\nTry:\n\nKEY=%s\n%s\n", revoked, key, key, demoCommands(apiURL))
	return nil
}

// demoCommands are the commands serve --demo suggests; the README's quick start shows the same
// block for the default address (a test keeps them equal).
func demoCommands(apiURL string) string {
	return strings.NewReplacer("{api}", apiURL).Replace(`curl -s {api}/v2/tracking_requests \
  -H "Authorization: Token $KEY" -H 'Content-Type: application/vnd.api+json' \
  -d '{"data":{"type":"tracking_request","attributes":{"request_type":"bill_of_lading","request_number":"MEDUFR030802","scac":"MSCU"}}}'
curl -s {api}/v2/tracking_requests -H "Authorization: Token $KEY"
curl -s {api}/v2/tracking_requests/infer_number \
  -H "Authorization: Token $KEY" -H 'Content-Type: application/json' -d '{"number":"MSCU 123456-6"}'
curl -s {api}/v2/shipping_lines -H "Authorization: Token $KEY"
curl -s '{api}/v2/shipments?include=containers' -H "Authorization: Token $KEY"
curl -sg '{api}/v2/tracking_requests?page[size]=5&filter[status]=created' -H "Authorization: Token $KEY"

# or with the CLI, from another terminal:
export BOXWATCH_URL={api} BOXWATCH_KEY=$KEY
./bin/boxwatch track MAEU123456784
./bin/boxwatch shipments
`)
}

// sweepRateLimits deletes full rate-limit buckets every minute so the table stays small.
func sweepRateLimits(ctx context.Context, db *store.DB, log *slog.Logger) {
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

// loadTerminals reads the terminals file and adds a client of each of its terminals to dir.
func loadTerminals(path string, dir *terminals.Directory, getenv func(string) string, client *http.Client) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("--terminals: %w", err)
	}
	defer f.Close()
	cfg, err := terminals.Load(f)
	if err == nil {
		err = cfg.Build(dir, getenv, client)
	}
	if err != nil {
		return fmt.Errorf("--terminals %s: %w", path, err)
	}
	return nil
}

// loadCarriers reads the carrier configuration file and builds its adapters.
func loadCarriers(path string, registry *boxwatch.Carriers, getenv func(string) string, client *http.Client) (map[string]boxwatch.Carrier, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--carriers: %w", err)
	}
	defer f.Close()
	cfg, err := carrier.Load(f)
	if err != nil {
		return nil, fmt.Errorf("--carriers %s: %w", path, err)
	}
	built, err := cfg.Build(registry, getenv, client)
	if err != nil {
		return nil, fmt.Errorf("--carriers %s: %w", path, err)
	}
	return built, nil
}
