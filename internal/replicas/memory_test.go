package replicas_test

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/internal/replicas"
)

// The bar of issue 25 on memory: after warm-up, each replica's growth is indistinguishable from
// zero, and its resident memory stays under maxRSS. A slope is judged flat when its 95 %
// confidence interval holds zero and lies within flatTolerance of it (an hour at that rate is
// 60 MiB); wider, the run cannot tell.
const (
	maxRSS        = 512 // MiB
	flatTolerance = 1.0 // MiB per minute
)

// memoryWatch samples each replica while the load runs, every interval: its resident memory, its
// live Go heap (after a collection) and a heap profile from its admin listener, kept in dir. At
// the end it reports, for each run of each replica (a restart begins a new run), the growth after
// warm-up and a verdict against the bar, and what grew according to the profiles.
type memoryWatch struct {
	c             *replicas.Cluster
	every, warmup time.Duration
	dir           string
	start         time.Time
	stopc, done   chan struct{}
	once          sync.Once
	mu            sync.Mutex
	runs          map[string]*memoryRun
	order         []string // run keys in the order first seen
	fetchErrs     []string
	client        http.Client
}

type memoryRun struct {
	name    string // "r0 run 1"
	samples []memorySample
}

type memorySample struct {
	at              time.Duration // since the load began
	rssMiB, heapMiB float64
	// cacheMiB is what the bounded caches hold (boxwatch_cache_bytes, every cache): the heap
	// they grow into until their bounds is expected growth, the rest is not.
	cacheMiB float64
	profile  string // the heap profile's file; "" when it could not be fetched
	// What the scale table needs (docs/scale.md): processor time used since the process
	// started, carrier lookups and webhook deliveries it made (counters, from /metrics), and its
	// open database connections.
	cpu                 time.Duration
	lookups, deliveries float64
	connections         float64
}

// startMemoryWatch begins sampling now (when the load begins). BOXWATCH_SOAK_SAMPLE_EVERY sets the
// interval (default 1m), BOXWATCH_SOAK_WARMUP the samples left out of the slope (default a third
// of the load, at most 10m), BOXWATCH_SOAK_PROFILES the directory the profiles are kept in
// (default a temporary one, removed after the test).
func startMemoryWatch(t *testing.T, c *replicas.Cluster, load time.Duration) *memoryWatch {
	t.Helper()
	w := &memoryWatch{c: c, every: soakEnv(t, "BOXWATCH_SOAK_SAMPLE_EVERY", time.Minute),
		warmup: soakEnv(t, "BOXWATCH_SOAK_WARMUP", min(10*time.Minute, load/3)), dir: os.Getenv("BOXWATCH_SOAK_PROFILES"),
		start: time.Now(), stopc: make(chan struct{}), done: make(chan struct{}), runs: map[string]*memoryRun{},
		client: http.Client{Timeout: 30 * time.Second}}
	if w.dir == "" {
		w.dir = t.TempDir()
	} else if err := os.MkdirAll(w.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(w.every)
		defer tick.Stop()
		for {
			select {
			case <-w.stopc:
				return
			case <-tick.C:
				w.sample()
			}
		}
	}()
	return w
}

// stop ends the sampling; it may be called again.
func (w *memoryWatch) stop() {
	w.once.Do(func() { close(w.stopc) })
	<-w.done
}

// sample reads every running replica: resident memory first, then a heap profile (its ?gc=1 runs
// a collection first), then the heap the collection left live.
func (w *memoryWatch) sample() {
	at := time.Since(w.start)
	for i, r := range w.c.Replicas() {
		kb := w.c.RSS(i)
		if kb == 0 {
			continue // killed, or between a kill and its restart
		}
		key := fmt.Sprintf("%s run %d", r.Name, w.c.Run(i))
		s := memorySample{at: at, rssMiB: float64(kb) / 1024, cpu: w.c.CPU(i)}
		file := filepath.Join(w.dir, fmt.Sprintf("heap-%s-run%d-%04ds.pb.gz", r.Name, w.c.Run(i), int(at.Seconds())))
		if err := w.fetch("http://"+r.AdminAddr+"/debug/pprof/heap?gc=1", file); err != nil {
			w.mu.Lock()
			w.fetchErrs = append(w.fetchErrs, fmt.Sprintf("%s at %v: %v", key, at.Round(time.Second), err))
			w.mu.Unlock()
		} else {
			s.profile = file
		}
		m, err := w.metrics(r.AdminAddr, "go_memstats_heap_alloc_bytes", "boxwatch_cache_bytes",
			"boxwatch_carrier_lookups_total", "boxwatch_webhook_deliveries_total", "boxwatch_db_connections")
		if err == nil {
			err = need(m, "go_memstats_heap_alloc_bytes", "boxwatch_cache_bytes")
		}
		if err != nil {
			w.mu.Lock()
			w.fetchErrs = append(w.fetchErrs, fmt.Sprintf("%s at %v: %v", key, at.Round(time.Second), err))
			w.mu.Unlock()
			continue
		}
		s.heapMiB, s.cacheMiB = m["go_memstats_heap_alloc_bytes"]/(1<<20), m["boxwatch_cache_bytes"]/(1<<20)
		s.lookups, s.deliveries, s.connections = m["boxwatch_carrier_lookups_total"], m["boxwatch_webhook_deliveries_total"], m["boxwatch_db_connections"]
		w.mu.Lock()
		run := w.runs[key]
		if run == nil {
			run = &memoryRun{name: key}
			w.runs[key] = run
			w.order = append(w.order, key)
		}
		run.samples = append(run.samples, s)
		w.mu.Unlock()
	}
}

func (w *memoryWatch) fetch(url, file string) error {
	res, err := w.client.Get(url)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, res.Status)
	}
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	return os.WriteFile(file, body, 0o644)
}

// metrics reads a replica's /metrics and returns, for each name with a sample, the sum of its
// samples (every label set). A counter with labels has no sample until it first counts: need
// says which names must be there.
func (w *memoryWatch) metrics(admin string, names ...string) (map[string]float64, error) {
	res, err := w.client.Get("http://" + admin + "/metrics")
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	sums := map[string]float64{}
	for line := range strings.Lines(string(body)) {
		for _, name := range names {
			rest, ok := strings.CutPrefix(line, name)
			if !ok || rest == "" || rest[0] != ' ' && rest[0] != '{' {
				continue
			}
			v, err := strconv.ParseFloat(strings.TrimSpace(rest[strings.LastIndexByte(rest, ' ')+1:]), 64)
			if err != nil {
				return nil, fmt.Errorf("/metrics: %q: %v", line, err)
			}
			sums[name] += v
		}
	}
	return sums, nil
}

// need returns an error naming the first of names m has no sample of.
func need(m map[string]float64, names ...string) error {
	for _, name := range names {
		if _, ok := m[name]; !ok {
			return fmt.Errorf("/metrics has no %s", name)
		}
	}
	return nil
}

// slope is a least-squares line through points: its slope and the half-width of the slope's 95 %
// confidence interval (infinite with fewer than three points).
func slope(xs, ys []float64) (b, half float64) {
	n := float64(len(xs))
	if len(xs) < 2 {
		return 0, math.Inf(1)
	}
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	mx, my = mx/n, my/n
	var sxx, sxy float64
	for i := range xs {
		sxx += (xs[i] - mx) * (xs[i] - mx)
		sxy += (xs[i] - mx) * (ys[i] - my)
	}
	if sxx == 0 {
		return 0, math.Inf(1)
	}
	b = sxy / sxx
	if len(xs) < 3 {
		return b, math.Inf(1)
	}
	var sse float64
	for i := range xs {
		r := ys[i] - (my + b*(xs[i]-mx))
		sse += r * r
	}
	return b, tQuantile975(len(xs)-2) * math.Sqrt(sse/(n-2)/sxx)
}

// tQuantile975 is Student's t at 0.975 for df degrees of freedom.
func tQuantile975(df int) float64 {
	table := []float64{0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}
	if df < len(table) {
		return table[df]
	}
	return 1.96 + 2.4/float64(df) // within 0.01 of the exact value above 30
}

// medianRange returns the median, least and greatest of xs.
func medianRange(xs []float64) (med, lo, hi float64) {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	med = s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return med, s[0], s[n-1]
}

// report logs every sample, then per run the slope of resident memory and heap after warm-up with
// its confidence interval, the minute-to-minute growth over every run (median and range), what
// the heap profiles say grew, what each run used (processor, carrier lookups, deliveries,
// connections: the scale table's figures), and the verdicts it returns; a run that grows or
// passes maxRSS fails the test.
func (w *memoryWatch) report(t *testing.T) []verdict {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	var lines []string
	var verdicts []verdict
	var rssSteps, heapSteps, uncachedSteps []float64 // MiB per minute between consecutive samples after warm-up
	shown := false
	for _, key := range w.order {
		run := w.runs[key]
		lines = append(lines, run.resources())
		var xs, rss, heap, uncached []float64
		var after []memorySample
		maxSeen := 0.0
		for _, s := range run.samples {
			lines = append(lines, fmt.Sprintf("%s at %5.1f min: resident %4.0f MiB, live heap %4.0f MiB, of which bounded caches %4.0f MiB",
				key, s.at.Minutes(), s.rssMiB, s.heapMiB, s.cacheMiB))
			if s.at < w.warmup {
				continue
			}
			if n := len(after); n > 0 {
				dt := (s.at - after[n-1].at).Minutes()
				rssSteps = append(rssSteps, (s.rssMiB-after[n-1].rssMiB)/dt)
				heapSteps = append(heapSteps, (s.heapMiB-after[n-1].heapMiB)/dt)
				uncachedSteps = append(uncachedSteps, (s.heapMiB-s.cacheMiB-after[n-1].heapMiB+after[n-1].cacheMiB)/dt)
			}
			after = append(after, s)
			xs, rss, heap = append(xs, s.at.Minutes()), append(rss, s.rssMiB), append(heap, s.heapMiB)
			uncached = append(uncached, s.heapMiB-s.cacheMiB)
			maxSeen = max(maxSeen, s.rssMiB)
		}
		if len(after) < 3 {
			lines = append(lines, fmt.Sprintf("%s: %d samples after the %v warm-up: too few for a slope", key, len(after), w.warmup))
			verdicts = append(verdicts, verdict{undecided, "memory of " + key, fmt.Sprintf("%d samples after the %v warm-up: too few for a slope", len(after), w.warmup)})
			continue
		}
		shown = true
		rb, rh := slope(xs, rss)
		hb, hh := slope(xs, heap)
		ub, uh := slope(xs, uncached)
		// The verdict is on what no bound holds: the live heap outside the bounded caches, which
		// grow until their bounds (the sum of the size flags) and, with them, resident memory;
		// resident memory itself is held to maxRSS.
		var judged string
		state := pass
		switch {
		case ub-uh > 0:
			judged, state = "GROWS (its 95 % interval lies above zero)", fail
			t.Errorf("memory of %s grows after warm-up: live heap outside the bounded caches %+.2f ± %.2f MiB/min", key, ub, uh)
		case uh > flatTolerance:
			state = undecided
			judged = fmt.Sprintf("UNDECIDED: no growth shown, but its interval is wider than ±%.0f MiB/min (run longer, or sample more often)", flatTolerance)
		default:
			judged = fmt.Sprintf("flat: indistinguishable from zero, within ±%.0f MiB/min", flatTolerance)
		}
		rssVerdict, rssState := "under", pass
		if maxSeen >= maxRSS {
			rssVerdict, rssState = "OVER", fail
			t.Errorf("%s: resident memory reached %.0f MiB after warm-up, the bar is under %d MiB", key, maxSeen, maxRSS)
		}
		lines = append(lines, fmt.Sprintf("%s: %d samples from %.1f to %.1f min: resident %+.2f ± %.2f MiB/min, live heap %+.2f ± %.2f MiB/min, "+
			"live heap outside the bounded caches %+.2f ± %.2f MiB/min (95 %%), %s; largest resident %.0f MiB, %s the %d MiB bar",
			key, len(after), xs[0], xs[len(xs)-1], rb, rh, hb, hh, ub, uh, judged, maxSeen, rssVerdict, maxRSS))
		verdicts = append(verdicts,
			verdict{state, "memory of " + key + " flat after warm-up", fmt.Sprintf("live heap outside the bounded caches %+.2f ± %.2f MiB/min "+
				"(95 %% interval of the least-squares slope, Student's t, %d samples; flat when it holds zero and lies within ±%.0f MiB/min); "+
				"resident %+.2f ± %.2f, live heap %+.2f ± %.2f MiB/min", ub, uh, len(after), flatTolerance, rb, rh, hb, hh)},
			verdict{rssState, "resident memory of " + key + " under 512 MiB", fmt.Sprintf("largest %.0f MiB after warm-up", maxSeen)})
		if diff := w.profileDiff(after[0].profile, after[len(after)-1].profile); diff != "" {
			lines = append(lines, fmt.Sprintf("%s: heap in use at %.1f min against %.1f min (go tool pprof -top -diff_base):\n%s", key,
				xs[len(xs)-1], xs[0], diff))
		}
		if top := w.profileTop(after[len(after)-1].profile); top != "" {
			lines = append(lines, fmt.Sprintf("%s: heap in use at %.1f min (go tool pprof -top):\n%s", key, xs[len(xs)-1], top))
		}
	}
	if len(rssSteps) > 0 {
		rm, rl, rh := medianRange(rssSteps)
		hm, hl, hh := medianRange(heapSteps)
		um, ul, uh := medianRange(uncachedSteps)
		lines = append(lines, fmt.Sprintf("growth between samples after warm-up, over every replica (%d steps): resident median %+.2f MiB/min (range %+.2f to %+.2f), "+
			"live heap median %+.2f MiB/min (range %+.2f to %+.2f), outside the bounded caches median %+.2f MiB/min (range %+.2f to %+.2f)",
			len(rssSteps), rm, rl, rh, hm, hl, hh, um, ul, uh))
	}
	if !shown {
		lines = append(lines, "memory verdict: NOT SHOWN: no replica ran three samples past the warm-up (lengthen BOXWATCH_SOAK_DURATION, or fewer kills)")
	}
	if len(w.fetchErrs) > 0 {
		lines = append(lines, "heap profiles not fetched: "+strings.Join(w.fetchErrs, "; "))
	}
	t.Logf("memory every %v after the load began (warm-up %v; profiles in %s):\n%s", w.every, w.warmup, w.dir, strings.Join(lines, "\n"))
	return verdicts
}

// resources is what the run used between its first and last sample: processor (cores busy),
// carrier lookups and webhook deliveries a second, and its most open database connections.
func (r *memoryRun) resources() string {
	if len(r.samples) < 2 {
		return fmt.Sprintf("%s: one sample, no rates", r.name)
	}
	first, last := r.samples[0], r.samples[len(r.samples)-1]
	secs := (last.at - first.at).Seconds()
	conns := 0.0
	for _, s := range r.samples {
		conns = max(conns, s.connections)
	}
	return fmt.Sprintf("%s used from %.1f to %.1f min: %.2f cores, %.2f carrier lookups/s, %.2f webhook deliveries/s, at most %.0f database connections",
		r.name, first.at.Minutes(), last.at.Minutes(), (last.cpu-first.cpu).Seconds()/secs, (last.lookups-first.lookups)/secs,
		(last.deliveries-first.deliveries)/secs, conns)
}

// profileTop is the top of a heap profile by space in use; "" when go tool pprof cannot read it.
func (w *memoryWatch) profileTop(file string) string {
	if file == "" {
		return ""
	}
	return w.pprof("-top", "-nodecount=15", "-sample_index=inuse_space", file)
}

// profileDiff is what grew in space in use from one profile to another.
func (w *memoryWatch) profileDiff(base, file string) string {
	if base == "" || file == "" || base == file {
		return ""
	}
	return w.pprof("-top", "-nodecount=15", "-sample_index=inuse_space", "-diff_base="+base, file)
}

func (w *memoryWatch) pprof(args ...string) string {
	out, err := exec.Command("go", append([]string{"tool", "pprof"}, args...)...).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("(go tool pprof: %v: %s)", err, strings.TrimSpace(string(out)))
	}
	return strings.TrimSpace(string(out))
}

func TestSlope(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5}
	b, half := slope(xs, []float64{10, 12, 14, 16, 18})
	if b != 2 || half != 0 {
		t.Errorf("a straight line: slope %v ± %v, want 2 ± 0", b, half)
	}
	b, half = slope(xs, []float64{100, 101, 99, 100, 100})
	if math.Abs(b) > half {
		t.Errorf("noise around a level: slope %v ± %v, want an interval holding zero", b, half)
	}
	b, half = slope(xs, []float64{100, 103, 105, 109, 111})
	if b-half <= 0 {
		t.Errorf("a noisy climb: slope %v ± %v, want an interval above zero", b, half)
	}
	if _, half := slope(xs[:2], []float64{1, 2}); !math.IsInf(half, 1) {
		t.Errorf("two points: half-width %v, want no interval", half)
	}
	if med, lo, hi := medianRange([]float64{3, -1, 2, 8}); med != 2.5 || lo != -1 || hi != 8 {
		t.Errorf("medianRange = %v %v %v", med, lo, hi)
	}
}
