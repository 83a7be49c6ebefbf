package storetest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
)

func testTrackingRequestDuplicateConcurrent(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	const n = 24
	var wg sync.WaitGroup
	errs := make([]error, n)
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = db.CreateTrackingRequest(ctx, newTR(a.ID, "MEDUFR030802", "MSCU", base))
		}()
	}
	close(start)
	wg.Wait()
	created := 0
	for _, err := range errs {
		switch e := boxwatch.AsError(err); {
		case err == nil:
			created++
		case e == nil || e.Code != boxwatch.CodeDuplicate:
			t.Fatalf("concurrent create: unexpected error %v", err)
		}
	}
	_, total, err := db.TrackingRequests(ctx, a.ID, boxwatch.TrackingRequestFilter{}, boxwatch.Page{Number: 1, Size: 100})
	if created != 1 || total != (boxwatch.Total{N: 1}) || err != nil {
		t.Fatalf("%d concurrent creates: %d succeeded, %+v stored (err %v); want exactly 1", n, created, total, err)
	}
}

// race runs fn(i) for i in [0, n) at once and waits for them all.
func race(n int, fn func(i int)) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			fn(i)
		})
	}
	close(start)
	wg.Wait()
}

func count[T comparable](list []T, v T) int {
	n := 0
	for _, x := range list {
		if x == v {
			n++
		}
	}
	return n
}

func testInsertTransportEventConcurrent(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	s := mustCreateShipment(t, db, a.ID, "MEDUFR030802", base)
	c := mustSaveContainer(t, db, newContainer(s, "MSCU1234565", base))
	const n = 8
	stored, errs := make([]bool, n), make([]error, n)
	race(n, func(i int) {
		errs[i] = db.InTx(ctx, func(tx boxwatch.Tx) error {
			var err error
			stored[i], err = tx.InsertTransportEvent(ctx, newTransportEvent(c, "container.transport.vessel_departed", "NLRTM", base))
			return err
		})
	})
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	_, total, err := db.TransportEvents(ctx, a.ID, c.ID, boxwatch.Page{Number: 1, Size: 10})
	if count(stored, true) != 1 || total != 1 || err != nil {
		t.Fatalf("%d racing inserts: %d reported stored, %d stored (err %v); want 1", n, count(stored, true), total, err)
	}
}

func testAppendEventConcurrent(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	mustCreateWebhook(t, db, newWebhook(a.ID, base, eventFailed))
	const n = 8
	stored, errs := make([]bool, n), make([]error, n)
	race(n, func(i int) {
		errs[i] = db.InTx(ctx, func(tx boxwatch.Tx) error {
			e := newEvent(a.ID, eventFailed, "same-change", base)
			var err error
			if stored[i], err = tx.AppendEvent(ctx, e); err != nil || !stored[i] {
				return err
			}
			_, err = tx.Notify(ctx, e)
			return err
		})
	})
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	events, err := db.Events(ctx, a.ID, 0, 100)
	_, notified, _ := db.Notifications(ctx, a.ID, boxwatch.NotificationFilter{}, boxwatch.Page{Number: 1, Size: 10})
	if count(stored, true) != 1 || len(events) != 1 || notified != 1 || err != nil {
		t.Fatalf("%d racing appends: %d reported stored, %d logged, %d notified (err %v); want 1", n, count(stored, true), len(events), notified, err)
	}
}

func testClaimDueNotificationsConcurrent(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	mustCreateWebhook(t, db, newWebhook(a.ID, base, eventFailed))
	const total, workers = 40, 6
	mustInTx(t, db, func(tx boxwatch.Tx) error {
		for i := range total {
			e := newEvent(a.ID, eventFailed, fmt.Sprint("k", i), base)
			if _, err := tx.AppendEvent(ctx, e); err != nil {
				return err
			}
			if _, err := tx.Notify(ctx, e); err != nil {
				return err
			}
		}
		return nil
	})
	now := at(time.Minute)
	claimed, errs := make([][]string, workers), make([]error, workers)
	race(workers, func(i int) {
		// Each worker claims small batches until it finds nothing left to claim.
		for range total {
			ids, err := db.ClaimDueNotifications(ctx, now, now.Add(time.Minute), 3, boxwatch.ClaimBounds{})
			if err != nil || len(ids) == 0 {
				errs[i] = err
				return
			}
			claimed[i] = append(claimed[i], ids...)
		}
	})
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for i, ids := range claimed {
		for _, id := range ids {
			if w, dup := seen[id]; dup {
				t.Fatalf("notification %s handed to workers %d and %d", id, w, i)
			}
			seen[id] = i
		}
	}
	if len(seen) != total {
		t.Fatalf("%d notifications claimed, want all %d", len(seen), total)
	}
}

func testFirstSeenConcurrent(t *testing.T, db *store.DB) {
	const n = 8
	got, errs := make([]time.Time, n), make([]error, n)
	race(n, func(i int) {
		got[i], errs[i] = db.FirstSeen(ctx, "MAEU/123", at(time.Duration(i)*time.Second))
	})
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for i, g := range got {
		if !g.Equal(got[0]) {
			t.Fatalf("caller %d saw %v, caller 0 saw %v; want one answer", i, g, got[0])
		}
	}
	if off := got[0].Sub(base); off < 0 || off >= n*time.Second || off%time.Second != 0 {
		t.Fatalf("first seen at %v, want one of the callers' times", got[0])
	}
}

func testIncrementConcurrent(t *testing.T, db *store.DB) {
	const workers, each = 6, 10
	values, errs := make([][]int, workers), make([]error, workers)
	race(workers, func(i int) {
		for range each {
			v, err := db.Increment(ctx, "attempts")
			if err != nil {
				errs[i] = err
				return
			}
			values[i] = append(values[i], v)
		}
	})
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	all := slices.Concat(values...)
	slices.Sort(all)
	for i, v := range all {
		if v != i+1 {
			t.Fatalf("values handed out: %v; want each of 1..%d exactly once", all, workers*each)
		}
	}
	if v, err := db.Increment(ctx, "attempts"); err != nil || v != workers*each+1 {
		t.Fatalf("next value %d, %v; want %d", v, err, workers*each+1)
	}
}
