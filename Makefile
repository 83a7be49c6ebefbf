# boxwatch: make run starts the service with a demo account; make test runs every test.
GO       ?= go
BIN      := bin/boxwatch
PG_URL   ?= postgres://postgres@127.0.0.1:5432/test?sslmode=disable
FUZZTIME ?= 30s
# staticcheck, pinned; go run fetches it through the module proxy into the module cache once.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: build run test test-postgres test-routes soak soak-long lint bench fuzz deps-check clean assets

# The first build compiles every dependency, pure-Go SQLite above all (about 100 s on two cores; go
# caches it, so later builds take seconds); -v names each package as it is compiled.
build:
	@if [ ! -x $(BIN) ]; then echo "First build of $(BIN): compiling boxwatch and its dependencies: about 2 minutes on two cores while Go's build cache is empty, seconds afterwards. Packages as they compile:"; fi
	$(GO) build -v -o $(BIN) ./cmd/boxwatch

# The service on the embedded SQLite default (boxwatch.db here), with a demo account and key.
run: build
	@echo "Starting $(BIN) serve --demo on ./boxwatch.db (Ctrl-C stops it)..."
	./$(BIN) serve --demo

# Every test, with the race detector, after lint. PostgreSQL tests run when BOXWATCH_TEST_POSTGRES_URL is set (make test-postgres sets it).
# Every other prerequisite is required here: BOXWATCH_TEST_STRICT=1 makes a test that misses a program
# fail instead of skipping, and the scripts install what is missing first. Packages run one at a
# time (-p 1): under the race detector two at once on two cores starve the timing of the replica
# and delivery-claim tests (leases, renewals), which pass alone. The browser tests' screenshots
# are kept under test-output/_artifacts.
test: deps-check
	@if [ -z "$$BOXWATCH_TEST_POSTGRES_URL" ]; then \
	  echo "PostgreSQL tests: skipped (BOXWATCH_TEST_POSTGRES_URL is not set; 'make test-postgres' sets it)"; \
	else echo "PostgreSQL tests: on"; fi
	$(MAKE) --no-print-directory lint
	@# initdb and pg_ctl for the private clusters, node and npm (scripts/testtools.sh); HAProxy for
	@# the replica tests; Chromium for the browser tests.
	@scripts/testtools.sh && h=$$(scripts/haproxy.sh) && export BOXWATCH_TEST_HAPROXY=$$h BOXWATCH_TEST_STRICT=1 && \
	  chromium=$$(scripts/chromium.sh) || exit 1; export BOXWATCH_CHROMIUM="$$chromium"; \
	  rm -rf test-output && mkdir test-output && \
	  echo "BOXWATCH_TEST_STRICT=1 $(GO) test -race -p 1 -count=1 -timeout 40m -artifacts -outputdir test-output ./..." && \
	  $(GO) test -race -p 1 -count=1 -timeout 40m -artifacts -outputdir "$(CURDIR)/test-output" ./...

# The soaks, one after the other: two replicas behind HAProxy over 100,000 seeded shipments on
# PostgreSQL, killed and restarted in turn under a mixed load (TestSoak), then one node on SQLite
# under the same load (TestSoakSQLite). BOXWATCH_SOAK_DURATION (10m each), BOXWATCH_SOAK_REPLICAS
# (2), BOXWATCH_SOAK_KILLS (4) and BOXWATCH_SOAK_SHIPMENTS (100000) tune them; SOAK=TestSoakSQLite
# runs one. Each replica's heap profile, resident memory and live heap are read from its admin
# listener every minute and the growth after warm-up judged (BOXWATCH_SOAK_SAMPLE_EVERY,
# BOXWATCH_SOAK_WARMUP, BOXWATCH_SOAK_PROFILES keeps the profiles). The figures they log go in
# BENCHMARKS.md.
# BOXWATCH_SOAK_CONTAINERS seeds shipments until they hold that many containers instead, and
# BOXWATCH_SOAK_SPREAD (96h) is the time over which the seeded shipments' refreshes come due.
# Each soak ends with a verdict line per goal of issue 25 (PASS, FAIL or UNDECIDED, with the
# figure): memory flat and under 512 MiB per replica run, p99 of a shipment and of the list, the
# refresh lag, deliveries lost or duplicated; and logs the tables' sizes and each replica's
# processor, carrier lookups, deliveries and connections (docs/scale.md).
SOAK ?= TestSoak|TestSoakSQLite
soak:
	scripts/postgres.sh "$(PG_URL)"
	BOXWATCH_TEST_POSTGRES_URL="$${BOXWATCH_TEST_POSTGRES_URL:-$(PG_URL)}" BOXWATCH_TEST_HAPROXY=$$(scripts/haproxy.sh) BOXWATCH_SOAK=1 \
	  $(GO) test -count=1 -timeout 0 -run '^($(SOAK))$$' -v ./internal/replicas

# The long form of issue 25: an hour of the same load over 1,000,000 seeded containers on
# PostgreSQL (two replicas, four kills), then over 300,000 on SQLite (one node); the refreshes
# of the seeded shipments come due over 24 hours (about 6 a second at a million containers).
# BOXWATCH_SOAK_DURATION shortens it (BENCHMARKS.md says what each run showed). The SQLite soak
# runs even when the PostgreSQL one fails; the target fails if either did.
soak-long:
	pg=0; BOXWATCH_SOAK_DURATION=$${BOXWATCH_SOAK_DURATION:-1h} BOXWATCH_SOAK_CONTAINERS=1000000 BOXWATCH_SOAK_SPREAD=24h \
	  $(MAKE) soak SOAK=TestSoak || pg=$$?; \
	BOXWATCH_SOAK_DURATION=$${BOXWATCH_SOAK_DURATION:-1h} BOXWATCH_SOAK_CONTAINERS=300000 BOXWATCH_SOAK_SPREAD=24h \
	  $(MAKE) soak SOAK=TestSoakSQLite && exit $$pg

# gofmt, go vet and staticcheck over every package, tests included.
lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

# The sea router's property tests over the whole port list (searoute/property_test.go): every port
# within 5 km of water to 20 others chosen at random, positions every 50 nm along every simulator
# leg, every stored position of the demo numbers' last legs in the simulated world
# (searoute/replay_test.go), and the network's own 1.25 bound between nodes (TestNetworkStretch). The
# seed is logged; BOXWATCH_ROUTES_SEED=N repeats a run. About 5
# minutes on two cores.
test-routes:
	BOXWATCH_ROUTES_FULL=1 $(GO) test -count=1 -timeout 60m -v -run 'TestPortProperties|TestPositionsOnLegs|TestEveryPortSnaps|TestReplayLastLegs|TestNetworkStretch' ./searoute

test-postgres:
	scripts/postgres.sh "$(PG_URL)"
	BOXWATCH_TEST_POSTGRES_URL="$(PG_URL)" $(MAKE) test

# Benchmarks named by the issues, each printed as a ratio to a baseline from the same run.
# PostgreSQL figures need BOXWATCH_TEST_POSTGRES_URL, as for the tests.
# Read endpoints run beside a bare handler on both databases: the polled ones 3 x 1s, every other
# GET route once for 0.5s (32 routes; the ratio is to the same run's baseline, so one short run
# keeps make bench under a few minutes). The rate limiter's speed runs beside the in-process one,
# and its exactness across four replicas is reported as excess/short counts.
# Pipeline benchmarks run fixed batches (their setup is long): 300 lookups or refreshes, 5,000
# webhook deliveries. AIS decoding runs beside the npm decoder it must beat (needs npm once, see
# scripts/aisdata.sh).
bench:
	$(GO) run ./infer/cmd/infereval
	( $(GO) test -run '^$$' -bench 'Benchmark(GetTrackingRequest|CreateTrackingRequest|Infer)' -benchtime 2s -count 3 ./api ./infer && \
	  $(GO) test -run '^$$' -bench 'BenchmarkRead$$' -benchtime 1s -count 3 ./api && \
	  $(GO) test -run '^$$' -bench 'BenchmarkReadEveryRoute$$' -benchtime 0.5s -count 1 ./api && \
	  $(GO) test -run '^$$' -bench Limiter -benchtime 1s -count 3 ./store && \
	  $(GO) test -run '^$$' -bench Deliver -benchtime 5000x -count 1 ./api && \
	  $(GO) test -run '^$$' -bench RenderNotification -benchtime 1s -count 3 ./api && \
	  $(GO) test -run '^$$' -bench ContainerMap -benchtime 2s -count 3 ./journey && \
	  $(GO) test -run '^$$' -bench ContainerMapHTTP -benchtime 2s -count 3 ./api && \
	  $(GO) test -run '^$$' -bench HealthyWhile -benchtime 4000x -count 1 ./webhook/dispatch && \
	  $(GO) test -run '^$$' -bench . -benchtime 300x -count 1 ./tracking && \
	  $(GO) test -run '^$$' -bench DecodeLine -count 3 ./ais && \
	  $(GO) test -run '^$$' -bench Ingest -benchtime 300000x -count 3 ./ais/ingest ) | $(GO) run ./internal/benchreport
	REPEAT=21 bench/searoute/run.sh

# Short runs of every fuzz target (each FUZZTIME long); the seed corpora also run in make test.
fuzz:
	@for pkg in . ./api ./infer ./carrier/dcsa ./carrier/sim ./terminal ./webhook ./ais ./ais/ingest ./geo/land ./searoute ./cmd/boxwatch ./client ./assistant; do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 200x $$pkg || exit 1; \
	  done; \
	done

# modernc.org/sqlite works only with the exact modernc.org/libc its own go.mod names.
deps-check:
	@want=$$($(GO) mod download -json modernc.org/sqlite@$$($(GO) list -m -f '{{.Version}}' modernc.org/sqlite) \
	  | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p' | xargs grep -E '^\s*modernc.org/libc ' | awk '{print $$2}'); \
	have=$$($(GO) list -m -f '{{.Version}}' modernc.org/libc); \
	if [ "$$want" != "$$have" ]; then echo "modernc.org/libc is $$have but modernc.org/sqlite needs $$want"; exit 1; fi

# The dashboard's third-party files (MapLibre, Swagger UI, Natural Earth land) from the npm packages
# pinned in web/package-lock.json, copied into web/vendor and checked against web/vendor/SHA256SUMS.
# They are committed: go build needs no Node. Needs npm.
# The browser tests' axe-core likewise, from internal/browsertest/package-lock.json.
assets:
	scripts/assets.sh
	scripts/axe.sh

clean:
	rm -rf bin
