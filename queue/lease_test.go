package queue_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/internal/promtest"
	"github.com/boxwatch/boxwatch/queue"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

type slowArgs struct{}

func (slowArgs) Kind() string { return "slow" }

// slowWorker works each job for hold, counting how many times each job starts.
type slowWorker struct {
	river.WorkerDefaults[slowArgs]
	hold time.Duration

	mu      sync.Mutex
	starts  int
	started chan struct{} // one send per start
	done    chan struct{} // one send per finish
}

func (w *slowWorker) Work(ctx context.Context, job *river.Job[slowArgs]) error {
	w.mu.Lock()
	w.starts++
	w.mu.Unlock()
	w.started <- struct{}{}
	select {
	case <-time.After(w.hold):
	case <-ctx.Done():
	}
	w.done <- struct{}{}
	return ctx.Err()
}

func startQueue(t *testing.T, db *store.DB, w *slowWorker, lease time.Duration, reg prometheus.Registerer) *queue.Queue {
	t.Helper()
	workers := river.NewWorkers()
	river.AddWorker(workers, w)
	q, err := queue.New(db, queue.Config{Workers: workers, MaxWorkers: 4, JobTimeout: time.Minute, Lease: lease, Metrics: reg})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		q.Stop(ctx)
	})
	return q
}

func wait(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(60 * time.Second):
		t.Fatal(what)
	}
}

// A job working for five leases keeps its lease with heartbeats, so the sweeps that take up a
// dead process's jobs never take it while it works, and the metrics count one job, one run and
// no rescue. (Without the heartbeats it starts three
// times; the crash tests in cmd/boxwatch show the sweeps taking up a killed process's job.)
func TestLease(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		db := b.Open(t)
		if err := queue.Migrate(context.Background(), db); err != nil {
			t.Fatal(err)
		}
		const lease = time.Second // long enough that a loaded machine (-race, parallel packages) still heartbeats in time
		w := &slowWorker{hold: 5 * lease, started: make(chan struct{}, 8), done: make(chan struct{}, 8)}
		reg := prometheus.NewRegistry()
		q := startQueue(t, db, w, lease, reg)
		if err := db.InTx(context.Background(), func(tx boxwatch.Tx) error {
			return q.Enqueue(context.Background(), tx, slowArgs{}, nil)
		}); err != nil {
			t.Fatal(err)
		}
		wait(t, w.started, "the job never started")
		wait(t, w.done, "the job never finished")
		w.mu.Lock()
		starts := w.starts
		w.mu.Unlock()
		if starts != 1 {
			t.Fatalf("a job working for five leases started %d times, want once", starts)
		}
		got := map[string]float64{}
		trackingtest.Eventually(t, 10*time.Second, "the run was never counted", func() bool {
			got = promtest.Gather(t, reg)
			return got["boxwatch_job_runs_total kind=slow outcome=completed"] == 1
		})
		for key, want := range map[string]float64{
			"boxwatch_jobs_enqueued_total kind=slow":      1,
			"boxwatch_job_run_duration_seconds kind=slow": 1, // the count
			"boxwatch_jobs_running kind=slow":             0,
			"boxwatch_jobs_rescued_total":                 0,
			"boxwatch_jobs_oldest_available_age_seconds":  0,
		} {
			if v, ok := got[key]; !ok || v != want {
				t.Errorf("%s = %v (present %v), want %v; all: %v", key, v, ok, want, got)
			}
		}
	})
}

type orderArgs struct{ N int }

func (orderArgs) Kind() string { return "order" }

// orderWorker records the order in which jobs run.
type orderWorker struct {
	river.WorkerDefaults[orderArgs]
	ran chan int
}

func (w *orderWorker) Work(ctx context.Context, job *river.Job[orderArgs]) error {
	w.ran <- job.Args.N
	return nil
}

// A job taken back from a dead process keeps its place in the queue: it runs before the jobs
// enqueued after it, so a backlog built up meanwhile does not stretch the recovery window.
func TestLeaseKeepsTheQueueOrder(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		db := b.Open(t)
		if err := queue.Migrate(ctx, db); err != nil {
			t.Fatal(err)
		}
		w := &orderWorker{ran: make(chan int, 8)}
		workers := river.NewWorkers()
		river.AddWorker(workers, w)
		q, err := queue.New(db, queue.Config{Workers: workers, MaxWorkers: 1, JobTimeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		enqueue := func(n int) {
			t.Helper()
			if err := db.InTx(ctx, func(tx boxwatch.Tx) error { return q.Enqueue(ctx, tx, orderArgs{N: n}, nil) }); err != nil {
				t.Fatal(err)
			}
		}
		enqueue(0)
		if err := queue.Orphan(ctx, db); err != nil {
			t.Fatal(err)
		}
		for n := 1; n <= 3; n++ {
			enqueue(n)
		}
		if n, err := queue.Sweep(ctx, db, queue.DefaultLease); err != nil || n != 1 {
			t.Fatalf("the sweep took up %d jobs (%v), want the dead process's one", n, err)
		}
		if err := q.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			q.Stop(ctx)
		})
		var order []int
		for range 4 {
			select {
			case n := <-w.ran:
				order = append(order, n)
			case <-time.After(time.Minute):
				t.Fatalf("only jobs %v ran", order)
			}
		}
		if order[0] != 0 {
			t.Fatalf("jobs ran in the order %v: the dead process's job 0 went behind those enqueued after it", order)
		}
	})
}

// settleArgs is a job kind whose worker records the attempt of every run.
type settleArgs struct{}

func (settleArgs) Kind() string { return "settle" }

// slowToRecord delays River's record of a run's outcome after its work, by settle for the
// second attempt of a job: what a completer backlog on a saturated database does.
type slowToRecord struct {
	river.MiddlewareDefaults
	settle time.Duration
}

func (m slowToRecord) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	err := doInner(ctx)
	if job.Attempt == 2 {
		time.Sleep(m.settle)
	}
	return err
}

// settleWorker records the attempt of every run.
type settleWorker struct {
	river.WorkerDefaults[settleArgs]
	ran chan int
}

func (w *settleWorker) Work(ctx context.Context, job *river.Job[settleArgs]) error {
	w.ran <- job.Attempt
	return nil
}

// A dead process's job, taken up by one of two live processes, stays that process's until River
// has recorded its outcome, however long after its work that takes: the sweeps of neither process
// give it back meanwhile, so it runs once and completes. (Holding the run only while it worked,
// the sweeps gave the job back between its work and its completion: it ran again elsewhere, and
// on PostgreSQL a sweep that changed its row under River's completer made River 0.47 panic.)
func TestLeaseHoldsARescuedJobUntilItsOutcomeIsRecorded(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		db := b.Open(t)
		if err := queue.Migrate(ctx, db); err != nil {
			t.Fatal(err)
		}
		const lease = time.Second // long enough that a loaded machine (-race, parallel packages) still heartbeats in time
		w := &settleWorker{ran: make(chan int, 8)}
		var queues []*queue.Queue
		for range 2 {
			workers := river.NewWorkers()
			river.AddWorker(workers, w)
			q, err := queue.NewAround(db, queue.Config{Workers: workers, MaxWorkers: 2, JobTimeout: time.Minute, Lease: lease},
				&slowToRecord{settle: 5 * lease})
			if err != nil {
				t.Fatal(err)
			}
			queues = append(queues, q)
		}
		if err := db.InTx(ctx, func(tx boxwatch.Tx) error {
			return queues[0].Enqueue(ctx, tx, settleArgs{}, nil)
		}); err != nil {
			t.Fatal(err)
		}
		if err := queue.Orphan(ctx, db); err != nil { // its first attempt's process died
			t.Fatal(err)
		}
		for _, q := range queues {
			if err := q.Start(ctx); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				q.Stop(ctx)
			})
		}
		select {
		case attempt := <-w.ran:
			if attempt != 2 {
				t.Fatalf("the rescued job ran as attempt %d, want 2", attempt)
			}
		case <-time.After(time.Minute):
			t.Fatal("the dead process's job was never taken up")
		}
		trackingtest.Eventually(t, time.Minute, "the rescued job never completed", func() bool {
			state, err := queue.State(ctx, db)
			if err != nil {
				t.Fatal(err)
			}
			return state == rivertype.JobStateCompleted
		})
		var again []int
		for len(w.ran) > 0 {
			again = append(again, <-w.ran)
		}
		if len(again) > 0 {
			t.Fatalf("the rescued job ran again (attempts %v) before its outcome was recorded", again)
		}
	})
}
