package queue

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Outcomes of a job run, the outcome label of boxwatch_job_runs_total.
const (
	OutcomeCompleted = "completed"
	OutcomeRetry     = "retry"     // failed; tried again after a backoff
	OutcomeDiscarded = "discarded" // failed on its last attempt
	OutcomeCancelled = "cancelled"
	OutcomeSnoozed   = "snoozed"
)

// metrics counts what this process's queue does. A nil *metrics counts nothing.
type metrics struct {
	enqueued *prometheus.CounterVec
	runs     *prometheus.CounterVec
	duration *prometheus.HistogramVec
	running  *prometheus.GaugeVec
	rescued  prometheus.Counter
}

func newMetrics(reg prometheus.Registerer, db leaseDB) (*metrics, error) {
	if reg == nil {
		return nil, nil
	}
	m := &metrics{
		enqueued: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "boxwatch_jobs_enqueued_total",
			Help: "Jobs inserted by this process, by kind; a unique job that already waits is not counted. Counted when the insert runs, before its transaction commits.",
		}, []string{"kind"}),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "boxwatch_job_runs_total",
			Help: "Job runs finished in this process, by kind and outcome: completed, retry (failed, to be tried again), discarded (failed on its last attempt), cancelled or snoozed.",
		}, []string{"kind", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "boxwatch_job_run_duration_seconds",
			Help:    "Time one job run took in this process, by kind, whatever its outcome.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120},
		}, []string{"kind"}),
		running: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "boxwatch_jobs_running",
			Help: "Jobs running in this process now, by kind.",
		}, []string{"kind"}),
		rescued: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "boxwatch_jobs_rescued_total",
			Help: "Running jobs whose process stopped renewing their lease (it died), given back to the queue by this process's lease sweep.",
		}),
	}
	for _, c := range []prometheus.Collector{m.enqueued, m.runs, m.duration, m.running, m.rescued, depthCollector{db: db}} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// outcome names how a run that returned err ended.
func outcome(job *rivertype.JobRow, err error) string {
	var cancel *rivertype.JobCancelError
	var snooze *rivertype.JobSnoozeError
	switch {
	case err == nil:
		return OutcomeCompleted
	case errors.As(err, &cancel):
		return OutcomeCancelled
	case errors.As(err, &snooze):
		return OutcomeSnoozed
	case job.Attempt >= job.MaxAttempts:
		return OutcomeDiscarded
	default:
		return OutcomeRetry
	}
}

// metricsMiddleware counts the jobs this process inserts and runs.
type metricsMiddleware struct {
	river.MiddlewareDefaults
	m *metrics
}

func (mw *metricsMiddleware) InsertMany(ctx context.Context, params []*rivertype.JobInsertParams, doInner func(context.Context) ([]*rivertype.JobInsertResult, error)) ([]*rivertype.JobInsertResult, error) {
	res, err := doInner(ctx)
	if err == nil && mw.m != nil {
		for _, r := range res {
			if r != nil && r.Job != nil && !r.UniqueSkippedAsDuplicate {
				mw.m.enqueued.WithLabelValues(r.Job.Kind).Inc()
			}
		}
	}
	return res, err
}

func (mw *metricsMiddleware) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) (err error) {
	if mw.m == nil {
		return doInner(ctx)
	}
	running := mw.m.running.WithLabelValues(job.Kind)
	running.Inc()
	start := time.Now()
	panicked := true
	defer func() {
		running.Dec()
		mw.m.duration.WithLabelValues(job.Kind).Observe(time.Since(start).Seconds())
		if panicked {
			err = errors.New("panic") // only classifies the run; the panic continues
		}
		mw.m.runs.WithLabelValues(job.Kind, outcome(job, err)).Inc()
	}()
	err = doInner(ctx)
	panicked = false
	return err
}

// depthCollector reads the job table at every scrape: unfinished jobs by state and kind, and
// how long the oldest job that could run has waited. Both are the whole queue's, so every
// replica reports the same values. A failed query leaves the metrics out of that scrape.
type depthCollector struct{ db leaseDB }

var (
	depthDesc = prometheus.NewDesc("boxwatch_jobs",
		"Unfinished jobs in the queue (every process's), by state and kind, read from the job table at scrape time.",
		[]string{"state", "kind"}, nil)
	lagDesc = prometheus.NewDesc("boxwatch_jobs_oldest_available_age_seconds",
		"How long the oldest job that is due (state available) has waited to start, 0 when none waits; read from the job table at scrape time.",
		nil, nil)
)

func (c depthCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- depthDesc
	ch <- lagDesc
}

func (c depthCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	counts, err := c.db.counts(ctx)
	if err != nil {
		return
	}
	var lag time.Duration
	for _, n := range counts {
		ch <- prometheus.MustNewConstMetric(depthDesc, prometheus.GaugeValue, float64(n.Jobs), string(n.State), n.Kind)
		if n.State == rivertype.JobStateAvailable && !n.Oldest.IsZero() {
			lag = max(lag, time.Since(n.Oldest))
		}
	}
	ch <- prometheus.MustNewConstMetric(lagDesc, prometheus.GaugeValue, lag.Seconds())
}

// scrapeTimeout bounds the queries a scrape runs.
const scrapeTimeout = 2 * time.Second
