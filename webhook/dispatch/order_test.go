package dispatch

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// scriptedReceiver answers each call with the next status of its script (the last one repeats)
// and records the notification ids it accepted, in order.
type scriptedReceiver struct {
	*httptest.Server
	mu       sync.Mutex
	script   []int
	calls    int
	accepted []string
	done     chan struct{} // closed once want deliveries were accepted
	want     int
}

func newScriptedReceiver(t *testing.T, want int, script ...int) *scriptedReceiver {
	rc := &scriptedReceiver{script: script, done: make(chan struct{}), want: want}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc.mu.Lock()
		status := rc.script[min(rc.calls, len(rc.script)-1)]
		rc.calls++
		if status < 300 {
			rc.accepted = append(rc.accepted, r.Header.Get("webhook-id"))
			if len(rc.accepted) == rc.want {
				close(rc.done)
			}
		}
		rc.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(rc.Close)
	return rc
}

// mustContainerEvent logs an event about a container at the given time and returns the ids of
// its notifications.
func mustContainerEvent(t *testing.T, db *store.DB, accountID, containerID string, at time.Time) []string {
	t.Helper()
	var ids []string
	err := db.InTx(context.Background(), func(tx boxwatch.Tx) error {
		e := boxwatch.Event{ID: boxwatch.NewID(at), AccountID: accountID, Name: testEvent, ObjectType: "transport_event",
			ObjectID: boxwatch.NewID(at), ContainerID: containerID, Key: boxwatch.NewID(at), CreatedAt: at}
		if _, err := tx.AppendEvent(context.Background(), e); err != nil {
			return err
		}
		var err error
		ids, err = tx.Notify(context.Background(), e)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// syncBuffer is a log destination tests read while the dispatcher writes.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// lines returns the logged lines with the given message.
func (s *syncBuffer) lines(t *testing.T, msg string) []map[string]any {
	s.mu.Lock()
	text := s.b.String()
	s.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		if line["msg"] == msg {
			out = append(out, line)
		}
	}
	return out
}

// await returns the logged lines with the given message once there is one, failing the test
// after 30 seconds without any.
func (s *syncBuffer) await(t *testing.T, msg string) []map[string]any {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		if l := s.lines(t, msg); len(l) > 0 {
			return l
		}
		select {
		case <-deadline:
			t.Fatalf("no log line %q", msg)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// A container's notifications reach a webhook in event order: the second waits while the first
// is retrying. Each failed attempt is one log line, and so is a deactivation.
func TestSubjectOrderAndFailureLogs(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		db := b.Open(t)
		acct := mustAccount(t, db, "acme")
		rc := newScriptedReceiver(t, 2, 500, 200)
		mustWebhook(t, db, acct.ID, rc.URL+"/hook")
		box := boxwatch.NewID(time.Now())
		at := time.Now().Add(-time.Second)
		first := mustContainerEvent(t, db, acct.ID, box, at)
		second := mustContainerEvent(t, db, acct.ID, box, at.Add(time.Microsecond))

		logs := &syncBuffer{}
		d := mustStart(t, db, Config{Timeout: 10 * time.Second, RetryScale: 1e-6, Logger: slog.New(slog.NewJSONHandler(logs, nil))})
		d.Wake()
		select {
		case <-rc.done:
		case <-time.After(30 * time.Second):
			t.Fatalf("the two notifications were not delivered: %d calls, logs %s", rc.calls, logs.b.String())
		}
		rc.mu.Lock()
		accepted, calls := slices.Clone(rc.accepted), rc.calls
		rc.mu.Unlock()
		if want := append(slices.Clone(first), second...); !slices.Equal(accepted, want) || calls != 3 {
			t.Fatalf("accepted %v after %d calls, want %v after 3: the first, retried, then the second", accepted, calls, want)
		}
		// The line is written once the attempt is recorded, and the retry may be claimed and sent
		// by another worker before the goroutine that recorded it writes it.
		failures := logs.await(t, "webhook delivery failed")
		if len(failures) != 1 || failures[0]["notification_id"] != first[0] || failures[0]["status_code"] != float64(500) ||
			failures[0]["next_attempt_at"] == nil {
			t.Fatalf("failure log lines %v, want one for the first attempt with its next attempt", failures)
		}

		gone := newScriptedReceiver(t, 1, 410)
		hook := mustWebhook(t, db, mustAccount(t, db, "globex").ID, gone.URL+"/hook")
		mustEvents(t, db, hook.AccountID, 1)
		d.Wake()
		if l := logs.await(t, "webhook deactivated"); len(l) != 1 || l[0]["webhook_id"] != hook.ID || !strings.Contains(l[0]["reason"].(string), "410") {
			t.Fatalf("deactivation log lines %v", l)
		}
	})
}

// openTwice opens the backend's new database twice, as two replicas would: two stores, two
// connection pools, one database.
func openTwice(t *testing.T, b storetest.Backend) (*store.DB, *store.DB) {
	t.Helper()
	dsn := b.DSN(t)
	var dbs [2]*store.DB
	for i := range dbs {
		db, err := store.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs[i] = db
	}
	return dbs[0], dbs[1]
}

// One webhook with a backlog of many subjects, drained by two dispatchers (two replicas) with a
// receiver that fails one call in seven: every notification arrives, and of each subject none is
// sent before the one before it succeeded, retries included.
func TestDrainInSubjectOrder(t *testing.T) {
	// Not parallel: its leases and renewals are timed, and SQLite under the race detector beside the
	// package's other tests starves them; alone it runs in seconds.
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		db, other := openTwice(t, b)
		acct := mustAccount(t, db, "acme")
		const subjects, each = 60, 5
		type call struct {
			id string
			ok bool
		}
		var mu sync.Mutex
		var calls []call
		var accepted int
		done := make(chan struct{})
		rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			ok := len(calls)%7 != 3
			calls = append(calls, call{r.Header.Get("webhook-id"), ok})
			if !ok {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			if accepted++; accepted == subjects*each {
				close(done)
			}
			w.WriteHeader(http.StatusNoContent)
		}))
		t.Cleanup(rc.Close)
		mustWebhook(t, db, acct.ID, rc.URL+"/hook")
		subjectOf, place := map[string]int{}, map[string]int{} // notification → subject, and its place among the subject's
		at := time.Now().Add(-time.Minute)
		for i := range each {
			for s := range subjects {
				ids := mustSubjectEvent(t, db, acct.ID, fmt.Sprintf("subject-%d", s), at)
				at = at.Add(time.Microsecond)
				subjectOf[ids[0]], place[ids[0]] = s, i
			}
		}
		// The receiver's failures are occasional: a failing window scaled down with the retries
		// (a quarter of a second) would take a slow moment for a dead endpoint and deactivate it.
		cfg := Config{Timeout: 10 * time.Second, RetryScale: 1e-6, FailingWindow: time.Hour, PerWebhook: 8, PerAccount: 16}
		mustStart(t, db, cfg).Wake()
		mustStart(t, other, cfg).Wake()
		select {
		case <-done:
		case <-time.After(2 * time.Minute):
			mu.Lock()
			defer mu.Unlock()
			t.Fatalf("%d of %d notifications accepted after %d calls", accepted, subjects*each, len(calls))
		}
		mu.Lock()
		defer mu.Unlock()
		next := make([]int, subjects) // the place of each subject's next notification due
		for i, c := range calls {
			s, ok := subjectOf[c.id]
			if !ok {
				t.Fatalf("call %d delivered an unknown notification %q", i, c.id)
			}
			if place[c.id] != next[s] {
				t.Fatalf("call %d sent notification %d of subject %d while notification %d was not delivered yet", i, place[c.id], s, next[s])
			}
			if c.ok {
				next[s]++
			}
		}
		for s, n := range next {
			if n != each {
				t.Fatalf("subject %d: %d of %d delivered", s, n, each)
			}
		}
	})
}

// mustSubjectEvent logs an event whose subject is the given reference object and returns the ids of its
// notifications.
func mustSubjectEvent(t *testing.T, db *store.DB, accountID, subject string, at time.Time) []string {
	t.Helper()
	var ids []string
	err := db.InTx(context.Background(), func(tx boxwatch.Tx) error {
		// The reference object is the subject: shipment ids must name stored shipments.
		e := boxwatch.Event{ID: boxwatch.NewID(at), AccountID: accountID, Name: testEvent, ObjectType: "transport_event",
			ObjectID: subject, Key: boxwatch.NewID(at), CreatedAt: at}
		if _, err := tx.AppendEvent(context.Background(), e); err != nil {
			return err
		}
		var err error
		ids, err = tx.Notify(context.Background(), e)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}
