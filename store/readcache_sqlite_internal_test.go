package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
)

// openSQLiteCached opens a new SQLite database with the read cache bounded at maxBytes, with an
// account and n shipments (each with its tracking request), whose ids it returns.
func openSQLiteCached(t testing.TB, maxBytes int64, n int) (db *DB, path, accountID string, ids []string) {
	t.Helper()
	ctx := context.Background()
	path = filepath.Join(t.TempDir(), "boxwatch.db")
	db, err := OpenWith(ctx, path, Options{ReadCacheBytes: maxBytes})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if !db.ReadCacheStats().Live {
		t.Fatal("the read cache is off on SQLite")
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	a := boxwatch.Account{ID: boxwatch.NewID(now), Name: "acme", CreatedAt: now}
	if err := db.CreateAccount(ctx, a); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		number := fmt.Sprintf("SQLC%07d", i)
		tr := boxwatch.TrackingRequest{ID: boxwatch.NewID(now), AccountID: a.ID, RequestType: boxwatch.RequestBillOfLading,
			RequestNumber: number, SCAC: "MSCU", Status: boxwatch.StatusCreated, CreatedAt: now, UpdatedAt: now}
		s := boxwatch.Shipment{ID: boxwatch.NewID(now), AccountID: a.ID, TrackingRequestID: tr.ID, SCAC: "MSCU", BillOfLading: number,
			NormalizedNumber: number, Tags: []string{"v0"}, Reference: boxwatch.CarrierReference{Type: tr.RequestType, Number: number, SCAC: "MSCU"},
			CreatedAt: now, UpdatedAt: now}
		tr.ShipmentID = s.ID
		err := db.InTx(ctx, func(tx boxwatch.Tx) error {
			if err := tx.CreateTrackingRequest(ctx, tr); err != nil {
				return err
			}
			return tx.InsertShipment(ctx, s)
		})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	return db, path, a.ID, ids
}

// TestSQLiteReadCacheBound: on SQLite too the cache answers from memory within its bound in bytes,
// dropping the least recently used, and reports it in the cache metrics.
func TestSQLiteReadCacheBound(t *testing.T) {
	const max = 8 << 10
	db, _, accountID, ids := openSQLiteCached(t, max, 60)
	for range 2 {
		for _, id := range ids {
			if _, err := db.Shipment(context.Background(), accountID, id); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The last shipment read is the most recently used: it answers from memory.
	h := db.ReadCacheStats().Hits
	db.Shipment(context.Background(), accountID, ids[len(ids)-1])
	if db.ReadCacheStats().Hits != h+1 {
		t.Error("the most recently read shipment was not answered from the cache")
	}
	var read bool
	for _, stats := range db.CacheStats() {
		if s := stats(); s.Name == "read" {
			read = true
			if s.MaxBytes != max || s.Bytes > max || s.Evictions == 0 || s.Entries == 0 || s.Entries >= len(ids) {
				t.Errorf("read cache %+v: want a bound of %d bytes, held, and evictions", s, max)
			}
		}
	}
	if !read {
		t.Error("the read cache is not in CacheStats")
	}
}

// TestSQLiteReadCacheNeverStale: while readers fill the cache from every goroutine, each write
// (through the store, through a second store on the file, by raw SQL on a connection of its own)
// shows in the first read after it returns, whatever reads were under way when it committed.
func TestSQLiteReadCacheNeverStale(t *testing.T) {
	ctx := context.Background()
	db, path, accountID, ids := openSQLiteCached(t, 1<<20, 1)
	id := ids[0]
	other, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					db.Shipment(ctx, accountID, id)
				}
			}
		}()
	}
	writes := []func(tag string) error{
		func(tag string) error {
			_, err := db.SetShipmentLabels(ctx, accountID, id, nil, []string{tag}, time.Now())
			return err
		},
		func(tag string) error {
			_, err := other.SetShipmentLabels(ctx, accountID, id, nil, []string{tag}, time.Now())
			return err
		},
		func(tag string) error {
			_, err := raw.ExecContext(ctx, "UPDATE shipments SET tags = json_array(?) WHERE id = ?", tag, id)
			return err
		},
		func(tag string) error { // the store's own writer, behind its back: the hook names the row
			_, err := db.SQLWriter().ExecContext(ctx, "UPDATE shipments SET tags = json_array(?) WHERE id = ?", tag, id)
			return err
		},
	}
	hits := db.ReadCacheStats().Hits
	for i := range 400 {
		tag := fmt.Sprintf("t%d", i)
		if err := writes[i%len(writes)](tag); err != nil {
			t.Fatal(err)
		}
		s, err := db.Shipment(ctx, accountID, id)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(s.Tags, ","); got != tag {
			close(stop)
			wg.Wait()
			t.Fatalf("write %d (kind %d): the next read answers %q, want %q", i, i%len(writes), got, tag)
		}
	}
	close(stop)
	wg.Wait()
	if db.ReadCacheStats().Hits == hits {
		t.Error("no read was answered from the cache: the test exercised nothing")
	}
}

// BenchmarkFreshnessCheck: what the SQLite cache's check that no one else wrote costs per read:
// the counter of the write-ahead log's index, read from the mapped header under the cache's lock,
// against asking SQLite for PRAGMA data_version on a connection kept for it.
func BenchmarkFreshnessCheck(b *testing.B) {
	db, _, _, _ := openSQLiteCached(b, 1<<20, 1)
	b.Run("wal_index_counter", func(b *testing.B) {
		c := db.cache
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				c.mu.Lock()
				c.answering()
				c.mu.Unlock()
			}
		})
	})
	b.Run("pragma_data_version", func(b *testing.B) {
		conn, err := db.sqlReader.Conn(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close()
		var mu sync.Mutex
		b.RunParallel(func(pb *testing.PB) {
			var v int64
			for pb.Next() {
				mu.Lock()
				err := conn.QueryRowContext(context.Background(), "PRAGMA data_version").Scan(&v)
				mu.Unlock()
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}
