package api_test

import (
	"sync"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// A receiver down during an outage: its notification keeps retrying, and shows when it is next
// sent and how often it was tried, as its log does. Once the receiver is back, redeliver?since
// sends it now, not at its next retry (the clock here never reaches it).
func TestRedeliverSinceSendsRetryingNow(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		clock := trackingtest.NewClock(time.Now())
		ts := newTestServer(t, b, delivering(clock))
		var mu sync.Mutex
		down := true
		rc := newReceiver(t, func(int) int {
			mu.Lock()
			defer mu.Unlock()
			if down {
				return 500
			}
			return 200
		})
		id := ts.register(t, ts.acme, rc, "tracking_request.failed")
		ts.mustCreate(t, ts.acme, "bill_of_lading", "TEST-TR-FAILED", "TEST")
		var list response
		trackingtest.Eventually(t, 30*time.Second, "no failed attempt recorded", func() bool {
			list = ts.do(t, "GET", "/v2/webhook_notifications?include=webhook_notification_logs", ts.acme, "").want(t, 200)
			// The listing and its logs are two reads: wait until both show the attempt.
			logs, _ := list.body["included"].([]any)
			return len(logs) == 1 && get(list.body, "data", 0, "attributes", "attempts") == float64(1)
		})
		n := get(list.body, "data", 0)
		// The frozen clock never reaches the retry (tests scale a day of backoff to seconds; the
		// attribute shows whole seconds).
		next, err := time.Parse(time.RFC3339, get(n, "attributes", "next_attempt_at").(string))
		if get(n, "attributes", "delivery_status") != "pending" || get(n, "attributes", "attempts") != float64(1) || err != nil ||
			next.Before(clock.Now().Truncate(time.Second)) {
			t.Fatalf("a retrying notification must show one attempt and its next attempt (now %v): %s", clock.Now(), list.raw)
		}
		notificationID := get(n, "id").(string)

		mu.Lock()
		down = false
		mu.Unlock()
		r := ts.do(t, "POST", "/v2/webhooks/"+id+"/redeliver?since=2000-01-01T00:00:00Z", ts.acme, "").want(t, 202)
		if get(r.body, "meta", "redelivered") != float64(1) {
			t.Fatalf("redeliver since: %s", r.raw)
		}
		trackingtest.Eventually(t, 30*time.Second, "the retrying notification was not sent at once", func() bool { return len(rc.deliveries()) == 1 })
		trackingtest.Eventually(t, 30*time.Second, "the delivery was not recorded", func() bool {
			r = ts.do(t, "GET", "/v2/webhook_notifications/"+notificationID+"?include=webhook_notification_logs", ts.acme, "").want(t, 200)
			return get(r.body, "data", "attributes", "delivery_status") == "succeeded"
		})
		logs, _ := r.body["included"].([]any)
		if get(r.body, "data", "attributes", "attempts") != float64(2) || len(logs) != 2 || get(r.body, "data", "attributes", "next_attempt_at") != nil {
			t.Fatalf("after the redelivery: want two attempts, two log entries and no next attempt: %s", r.raw)
		}
		if rc.deliveries()[0].id != notificationID {
			t.Fatalf("the receiver got %s, want the same notification id %s", rc.deliveries()[0].id, notificationID)
		}
	})
}
