package store_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// cacheReplicas opens two stores with read caches on one new PostgreSQL database, with the hooks
// given set on the second before it reads anything, and one shipment to read.
func cacheReplicas(t *testing.T, fetched func(string), reconnecting func()) (writer, reader *store.DB, accountID, shipmentID string) {
	t.Helper()
	dsn := storetest.Postgres.DSN(t)
	var dbs []*store.DB
	for range 2 {
		db, err := store.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs = append(dbs, db)
	}
	writer, reader = dbs[0], dbs[1]
	reader.SetReadCacheHooks(fetched, reconnecting)
	a := storetest.MustCreateAccount(t, writer, "acme")
	now := time.Now().UTC().Truncate(time.Millisecond)
	tr := boxwatch.TrackingRequest{ID: boxwatch.NewID(now), AccountID: a.ID, RequestType: boxwatch.RequestBillOfLading,
		RequestNumber: "CACHE000001", SCAC: "MSCU", Status: boxwatch.StatusCreated, CreatedAt: now, UpdatedAt: now}
	s := boxwatch.Shipment{ID: boxwatch.NewID(now), AccountID: a.ID, TrackingRequestID: tr.ID, SCAC: "MSCU", BillOfLading: tr.RequestNumber,
		NormalizedNumber: tr.RequestNumber, Tags: []string{"v1"}, Reference: boxwatch.CarrierReference{Type: tr.RequestType, Number: tr.RequestNumber, SCAC: "MSCU"},
		CreatedAt: now, UpdatedAt: now}
	tr.ShipmentID = s.ID
	err := writer.InTx(context.Background(), func(tx boxwatch.Tx) error {
		if err := tx.CreateTrackingRequest(context.Background(), tr); err != nil {
			return err
		}
		return tx.InsertShipment(context.Background(), s)
	})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the reader's cache starts", reader.ReadCacheLive)
	return writer, reader, a.ID, s.ID
}

// waitCached reads the shipment until a read is answered from the cache: the read that fills
// it may not store its answer when a notification (the shipment's insert, or any write of a key
// sharing its generation counter) arrives meanwhile.
func waitCached(t *testing.T, db *store.DB, accountID, id string) {
	t.Helper()
	eventually(t, "a read answered from the cache", func() bool {
		h := db.ReadCacheStats().Hits
		tags(t, db, accountID, id)
		return db.ReadCacheStats().Hits > h
	})
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for start := time.Now(); !cond(); time.Sleep(time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("%s: not within 10s", what)
		}
	}
}

func tags(t *testing.T, db *store.DB, accountID, id string) []string {
	t.Helper()
	s, err := db.Shipment(context.Background(), accountID, id)
	if err != nil {
		t.Fatal(err)
	}
	return s.Tags
}

func setTags(t *testing.T, db *store.DB, id, tags string) {
	t.Helper()
	if _, err := db.Pool().Exec(context.Background(), "UPDATE shipments SET tags = $1 WHERE id = $2", tags, id); err != nil {
		t.Fatal(err)
	}
}

// TestReadCacheListenerLoss: when the listener's connection dies (its backend terminated), the
// cache stops answering at once, however long the listener takes to come back: every read goes
// to the database and sees writes nobody notified. Back, the cache answers again, and
// notifications evict again.
func TestReadCacheListenerLoss(t *testing.T) {
	storetest.RequirePostgres(t)
	hold := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(hold) }) }
	t.Cleanup(release)
	writer, reader, acct, id := cacheReplicas(t, nil, func() { <-hold })
	waitCached(t, reader, acct, id)
	pid := reader.ReadCacheListenerPID()
	var terminated bool
	if err := writer.Pool().QueryRow(context.Background(), "SELECT pg_terminate_backend($1)", int32(pid)).Scan(&terminated); err != nil || !terminated {
		t.Fatalf("terminate the listener's backend %d: %v, %v", pid, terminated, err)
	}
	lost := time.Now()
	eventually(t, "the cache turns off", func() bool { return !reader.ReadCacheLive() })
	t.Logf("cache off %v after the listener's backend was terminated", time.Since(lost).Round(time.Microsecond))

	// The listener is held before reconnecting: every read goes to the database.
	hits := reader.ReadCacheStats().Hits
	for i, v := range []string{`["v2"]`, `["v3"]`} {
		setTags(t, writer, id, v)
		if got := tags(t, reader, acct, id); !slices.Equal(got, []string{[]string{"v2", "v3"}[i]}) {
			t.Fatalf("with the listener down, a read answers %v after %s was written", got, v)
		}
	}
	if h := reader.ReadCacheStats().Hits; h != hits {
		t.Fatalf("the cache answered %d reads while its listener was down", h-hits)
	}

	release()
	eventually(t, "the cache comes back", reader.ReadCacheLive)
	if reader.ReadCacheListenerPID() == pid {
		t.Fatal("the listener came back on the terminated backend")
	}
	waitCached(t, reader, acct, id)
	if got := tags(t, reader, acct, id); !slices.Equal(got, []string{"v3"}) {
		t.Fatalf("back, the cache answers %v", got)
	}
	setTags(t, writer, id, `["v4"]`)
	eventually(t, "a notification evicts after the reconnection", func() bool {
		return slices.Equal(tags(t, reader, acct, id), []string{"v4"})
	})
}

// TestReadCacheStaleInsert: a read that fetched a row before a change, and would store it after
// the change's eviction, stores nothing: the next read sees the change.
func TestReadCacheStaleInsert(t *testing.T) {
	storetest.RequirePostgres(t)
	var writer, reader *store.DB
	var id string
	raced := false
	fetched := func(key string) {
		if raced || key != "shipments:"+id {
			return
		}
		raced = true
		// Between the reader's fetch and its storing, another replica changes the row and the
		// notification evicts the key.
		n := reader.ReadCacheNotified()
		setTags(t, writer, id, `["after"]`)
		eventually(t, "the change is notified", func() bool { return reader.ReadCacheNotified() > n })
	}
	writer, reader, acct, sid := cacheReplicas(t, fetched, nil)
	id = sid
	if got := tags(t, reader, acct, id); !slices.Equal(got, []string{"v1"}) {
		t.Fatalf("the racing read answers %v, want the row it fetched, [v1]", got)
	}
	if !raced {
		t.Fatal("the hook never ran: the test raced nothing")
	}
	if got := tags(t, reader, acct, id); !slices.Equal(got, []string{"after"}) {
		t.Fatalf("after the race the cache answers %v: the read before the change stored it after its eviction", got)
	}
}
