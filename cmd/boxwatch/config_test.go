package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

func TestServeConfigValidate(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		change func(*serveConfig)
		want   string // in the error; "" for OK
	}{
		"OK":                   {func(*serveConfig) {}, ""},
		"OKNoLimits":           {func(c *serveConfig) { c.limits.Default, c.limits.CreateTrackingRequest, c.limits.InferNumber = 0, 0, 0 }, ""},
		"OKAPIOnly":            {func(c *serveConfig) { c.workers = 0 }, ""},
		"NegativeLimitCreate":  {func(c *serveConfig) { c.limits.CreateTrackingRequest = -1 }, "--limit-create"},
		"NegativeLimitInfer":   {func(c *serveConfig) { c.limits.InferNumber = -1 }, "--limit-infer"},
		"NegativeLimitDefault": {func(c *serveConfig) { c.limits.Default = -5 }, "--limit-default"},
		"EmptyAddr":            {func(c *serveConfig) { c.addr = "" }, "--addr"},
		"ZeroSimSpeed":         {func(c *serveConfig) { c.simSpeed = 0 }, "--sim-speed"},
		"ZeroRetryScale":       {func(c *serveConfig) { c.retryScale = 0 }, "--retry-scale"},
		"ShortRefresh":         {func(c *serveConfig) { c.refreshInterval = time.Millisecond }, "--refresh-interval"},
		"NegativeWorkers":      {func(c *serveConfig) { c.workers = -1 }, "--workers"},
		"NoTerminalWorkers":    {func(c *serveConfig) { c.terminalWorkers = 0 }, "--terminal-workers"},
		"ShortJobTimeout":      {func(c *serveConfig) { c.jobTimeout = 10 * time.Millisecond }, "--job-timeout"},
		"NegativeSimLatency":   {func(c *serveConfig) { c.simLatency = -time.Second }, "--sim-latency"},
		"OKSimDCSA30":          {func(c *serveConfig) { c.simDCSAVersion = "3.0" }, ""},
		"UnknownSimDCSA":       {func(c *serveConfig) { c.simDCSAVersion = "2.1" }, "--sim-dcsa-version"},
		"ShortWebhookTimeout":  {func(c *serveConfig) { c.webhookTimeout = time.Millisecond }, "--webhook-timeout"},
		"NoWebhookWorkers":     {func(c *serveConfig) { c.webhookWorkers = 0 }, "--webhook-workers"},
		"NoPerEndpoint":        {func(c *serveConfig) { c.webhookPerEndpoint = 0 }, "--webhook-per-endpoint"},
		"NoPerAccount":         {func(c *serveConfig) { c.webhookPerAccount = 0 }, "--webhook-per-account"},
		"NoPerAccountFailing":  {func(c *serveConfig) { c.webhookPerAccountFailing = 0 }, "--webhook-per-account-failing"},
		"ZeroShutdownTimeout":  {func(c *serveConfig) { c.shutdownTimeout = 0 }, "--shutdown-timeout"},
		"OKShortTimeouts":      {func(c *serveConfig) { c.headerTimeout, c.bodyTimeout = 100*time.Millisecond, 100*time.Millisecond }, ""},
		"ShortHeaderTimeout":   {func(c *serveConfig) { c.headerTimeout = time.Millisecond }, "--header-timeout"},
		"LongHeaderTimeout":    {func(c *serveConfig) { c.headerTimeout = time.Hour }, "--header-timeout"},
		"ZeroBodyTimeout":      {func(c *serveConfig) { c.bodyTimeout = 0 }, "--body-timeout"},
		"LongBodyTimeout":      {func(c *serveConfig) { c.bodyTimeout = 2 * time.Minute }, "--body-timeout"},
		"ShortRequestTimeout":  {func(c *serveConfig) { c.requestTimeout = time.Millisecond }, "--request-timeout"},
		"UnknownLogLevel":      {func(c *serveConfig) { c.logLevel = "chatty" }, "--log-level"},
		"OKAISSources": {func(c *serveConfig) {
			c.aisSources = sourceList{"tcp://127.0.0.1:5631", "udp://0.0.0.0:10110", "file:///var/lib/ais.nmea"}
		}, ""},
		"AISSourceScheme":            {func(c *serveConfig) { c.aisSources = sourceList{"http://feed.example:80"} }, "--ais"},
		"AISSourceNoPort":            {func(c *serveConfig) { c.aisSources = sourceList{"tcp://127.0.0.1"} }, "--ais"},
		"ShortAISInterval":           {func(c *serveConfig) { c.aisInterval = time.Millisecond }, "--ais-interval"},
		"ShortAISRetention":          {func(c *serveConfig) { c.aisRetention = time.Minute }, "--ais-retention"},
		"ShortNotificationRetention": {func(c *serveConfig) { c.retainNotifications = time.Minute }, "--retain-notifications"},
		"ShortEventRetention":        {func(c *serveConfig) { c.retainEvents = time.Minute }, "--retain-events"},
		"OKKeepForEver":              {func(c *serveConfig) { c.aisRetention, c.retainNotifications, c.retainEvents = 0, 0, 0 }, ""},
		"OKEgressIPs":                {func(c *serveConfig) { c.webhookEgressIPs = sourceList{"203.0.113.7", "2001:db8::1"} }, ""},
		"EgressNotAnIP":              {func(c *serveConfig) { c.webhookEgressIPs = sourceList{"egress.example.com"} }, "--webhook-egress-ips"},
		"OKNoCaches": {func(c *serveConfig) {
			c.mapCacheBytes, c.routeCacheBytes, c.trackCacheBytes, c.statementCacheBytes, c.readCacheBytes, c.keyCacheBytes = 0, 0, 0, 0, 0, 0
			c.aisIdentityCacheBytes = 0
		}, ""},
		"NegativeStatements": {func(c *serveConfig) { c.statementCacheBytes = -1 }, "--statement-cache-bytes"},
		"NegativeReads":      {func(c *serveConfig) { c.readCacheBytes = -1 }, "--read-cache-bytes"},
		"NegativeKeys":       {func(c *serveConfig) { c.keyCacheBytes = -1 }, "--key-cache-bytes"},
		"NegativeIdentities": {func(c *serveConfig) { c.aisIdentityCacheBytes = -1 }, "--ais-identity-cache-bytes"},
		"NegativeMaps":       {func(c *serveConfig) { c.mapCacheBytes = -1 }, "--map-cache-bytes"},
		"NegativeRoutes":     {func(c *serveConfig) { c.routeCacheBytes = -1 }, "--route-cache-bytes"},
		"NegativeTracks":     {func(c *serveConfig) { c.trackCacheBytes = -1 }, "--track-cache-bytes"},
	} {
		t.Run(name, func(t *testing.T) {
			c := defaultServeConfig()
			tc.change(&c)
			err := c.validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("valid configuration refused: %v", err)
			case tc.want != "" && err == nil:
				t.Fatalf("invalid configuration accepted, want an error about %s", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Fatalf("error %q does not name %s", err, tc.want)
			case err != nil:
				if _, ok := err.(usageError); !ok {
					t.Fatalf("error %v is a %T, want a usage error", err, err)
				}
			}
		})
	}
}

// Flags override the environment, which overrides the defaults.
func TestServeConfigSources(t *testing.T) {
	t.Parallel()
	env := map[string]string{"BOXWATCH_WORKERS": "3", "BOXWATCH_SIM_SPEED": "50", "BOXWATCH_DB": "env.db",
		"BOXWATCH_WEBHOOK_EGRESS_IPS": "203.0.113.7,203.0.113.8",
		"BOXWATCH_AIS":                "tcp://127.0.0.1:5631, udp://127.0.0.1:10110",
		"BOXWATCH_BODY_TIMEOUT":       "3s", "BOXWATCH_HEADER_TIMEOUT": "4s",
		"BOXWATCH_MAP_CACHE_BYTES": "1048576"}
	cfg, err := parseServeConfig([]string{"--workers", "7", "--demo"}, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	def := defaultServeConfig()
	if cfg.workers != 7 || cfg.simSpeed != 50 || cfg.db != "env.db" || !cfg.sim || cfg.addr != def.addr || cfg.jobTimeout != def.jobTimeout {
		t.Fatalf("workers %d (want 7, the flag), sim speed %v (want 50, the environment), db %q, sim %v (on with --demo), addr %q, job timeout %v",
			cfg.workers, cfg.simSpeed, cfg.db, cfg.sim, cfg.addr, cfg.jobTimeout)
	}
	if cfg.bodyTimeout != 3*time.Second || cfg.headerTimeout != 4*time.Second {
		t.Fatalf("body timeout %v (want 3s), header timeout %v (want 4s), from the environment", cfg.bodyTimeout, cfg.headerTimeout)
	}
	if cfg.mapCacheBytes != 1<<20 || cfg.trackCacheBytes != def.trackCacheBytes {
		t.Fatalf("map cache %d bytes (want 1 MiB, the environment), track cache %d (want the default)", cfg.mapCacheBytes, cfg.trackCacheBytes)
	}
	if got := egressIPs(cfg.webhookEgressIPs); len(got) != 2 || got[1].String() != "203.0.113.8" {
		t.Fatalf("egress addresses from the environment: %v", got)
	}
	if got := cfg.aisSources.String(); got != "tcp://127.0.0.1:5631,udp://127.0.0.1:10110" {
		t.Fatalf("AIS sources from the environment: %q", got)
	}
	cfg, err = parseServeConfig([]string{"--ais", "tcp://127.0.0.1:1", "--ais", "file:///x.nmea"}, func(string) string { return "" }, io.Discard)
	if err != nil || cfg.aisSources.String() != "tcp://127.0.0.1:1,file:///x.nmea" {
		t.Fatalf("repeated --ais: %q, %v", cfg.aisSources, err)
	}
}
