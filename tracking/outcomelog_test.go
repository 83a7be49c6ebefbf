package tracking_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// lockedBuffer is a log sink the engine's goroutines write to while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// outcomes returns, per tracking request id, the outcome lines logged for it in order, each as
// its message and reason.
func (b *lockedBuffer) outcomes(t *testing.T) map[string][]string {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string][]string{}
	for line := range bytes.Lines(b.buf.Bytes()) {
		var rec struct {
			Msg    string `json:"msg"`
			ID     string `json:"tracking_request_id"`
			Reason string `json:"reason"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		switch rec.Msg {
		case "tracking request succeeded", "tracking request failed", "tracking request retrying", "tracking request awaiting manifest":
			out[rec.ID] = append(out[rec.ID], rec.Msg+" "+rec.Reason)
		}
	}
	return out
}

// Every outcome of a lookup is one log line, written once it is committed: succeeded, failed
// with its reason, retrying with its reason, awaiting the manifest.
func TestOutcomesLogged(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		sink := &lockedBuffer{}
		f := newFixture(t, b, trackingtest.Options{Logger: slog.New(slog.NewJSONHandler(sink, nil))})
		ok := f.track(t, boxwatch.RequestBillOfLading, "TEST-TR-SUCCEEDED", "TEST")
		bad := f.track(t, boxwatch.RequestBillOfLading, "TEST-TR-FAILED", "TEST")
		flaky := f.track(t, boxwatch.RequestBillOfLading, "HLCU123459999", "HLCU")
		unknown := f.track(t, boxwatch.RequestBillOfLading, "MAEU987650000", "MAEU")
		for _, id := range []string{ok.ID, bad.ID, unknown.ID} {
			f.settled(t, id)
		}
		trackingtest.Eventually(t, 20*time.Second, "the flaky bill never became a shipment", func() bool {
			return f.get(t, flaky.ID).Status == boxwatch.StatusCreated
		})
		wants := map[string][]string{
			ok.ID:      {"tracking request succeeded "},
			bad.ID:     {"tracking request failed " + boxwatch.ReasonNotFound},
			flaky.ID:   {"tracking request retrying " + boxwatch.ReasonUnreachable, "tracking request retrying " + boxwatch.ReasonUnreachable, "tracking request succeeded "},
			unknown.ID: {"tracking request awaiting manifest "},
		}
		// A line is written just after its outcome commits: wait until each request has logged as
		// many lines as it should, then compare them (a line too many still fails).
		var got map[string][]string
		trackingtest.Eventually(t, 20*time.Second, "the outcomes were not all logged", func() bool {
			got = sink.outcomes(t)
			for id, want := range wants {
				if len(got[id]) < len(want) {
					return false
				}
			}
			return true
		})
		for id, want := range wants {
			if !slices.Equal(got[id], want) {
				t.Errorf("request %s logged %q, want %q", id, got[id], want)
			}
		}
	})
}
