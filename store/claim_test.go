package store_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// fullScan matches a plan line of SQLite that reads all of webhook_notifications (by any of the
// claim's names for it), through an index or not.
var fullScan = regexp.MustCompile(`^SCAN (webhook_notifications|n|x|c)\b`)

// A claim costs the same whatever the backlog: with 100 pending notifications of one webhook in
// 10 subjects, or 2,000 in 200, PostgreSQL reads no more rows of the notifications, and SQLite's
// plan reads them only through index searches. (BenchmarkDeliver's drain compares the time at
// 100 and 100,000 pending.)
func TestClaimCostIndependentOfBacklog(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		var read []float64
		for _, subjectCount := range []int{10, 200} {
			const each = 10
			db := b.Open(t)
			a := storetest.MustCreateAccount(t, db, "acme")
			base := time.Now().Add(-time.Hour)
			hook := boxwatch.Webhook{ID: boxwatch.NewID(base), AccountID: a.ID, URL: "https://93.184.216.34/x", Active: true,
				Events: []string{"tracking_request.failed"}, Secret: "s", CreatedAt: base, UpdatedAt: base}
			if err := db.CreateWebhook(ctx, hook); err != nil {
				t.Fatal(err)
			}
			subjects := make([]string, subjectCount)
			for i := range subjects {
				subjects[i] = boxwatch.NewID(base)
			}
			err := db.InTx(ctx, func(tx boxwatch.Tx) error {
				for i := range each * len(subjects) {
					at := base.Add(time.Duration(i) * time.Millisecond)
					e := boxwatch.Event{ID: boxwatch.NewID(at), AccountID: a.ID, Name: "tracking_request.failed", ObjectType: "transport_event",
						ObjectID: boxwatch.NewID(at), ContainerID: subjects[i%len(subjects)], Key: fmt.Sprint(i), CreatedAt: at}
					if _, err := tx.AppendEvent(ctx, e); err != nil {
						return err
					}
					if _, err := tx.Notify(ctx, e); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if db.Dialect() == store.Postgres {
				if _, err := db.Pool().Exec(ctx, "ANALYZE webhook_notifications"); err != nil {
					t.Fatal(err)
				}
			}
			now := base.Add(time.Hour)
			bounds := boxwatch.ClaimBounds{PerWebhook: 16, PerAccount: 32, PerAccountFailing: 8, SlowAfter: time.Second}
			// Some claims are live, as they are while a backlog drains.
			if ids, err := db.ClaimDueNotifications(ctx, now, now.Add(time.Minute), 10, bounds); err != nil || len(ids) != 10 {
				t.Fatalf("claimed %v, %v; want 10", ids, err)
			}
			plan, rows, err := db.ClaimPlan(ctx, now, now.Add(time.Minute), 50, bounds)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range plan {
				if fullScan.MatchString(line) {
					t.Errorf("%d pending: the claim reads all the notifications: %q in\n%s", each*len(subjects), line, strings.Join(plan, "\n"))
				}
			}
			read = append(read, rows)
			if t.Failed() {
				t.Logf("plan:\n%s", strings.Join(plan, "\n"))
			}
		}
		if b.Name == "postgres" && read[1] > read[0] {
			t.Errorf("the claim read %v rows of notifications at 100 pending and %v at 2,000, want no more", read[0], read[1])
		}
		t.Logf("rows read: %v", read)
	})
}
