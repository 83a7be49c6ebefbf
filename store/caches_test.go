package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// TestStatementCacheBound: the statements kept are held to their byte bound on both databases,
// and every statement answers right whether it was kept, evicted and prepared again, or evicted
// (and closed) while another goroutine was starting it.
func TestStatementCacheBound(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		const max = 48 << 10
		ctx := context.Background()
		db, err := store.OpenWith(ctx, b.DSN(t), store.Options{StatementCacheBytes: max})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for g := range 8 {
			wg.Go(func() {
				for round := range 3 {
					for i := range 150 {
						want := int64(1000*g + i + round)
						got, err := db.RunStatement(ctx, fmt.Sprintf("SELECT %d + ? -- goroutine %d", 1000*g+i, g), int64(round))
						if err != nil || got != want {
							errs <- fmt.Errorf("goroutine %d statement %d round %d: %d, %v; want %d", g, i, round, got, err, want)
							return
						}
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		for _, stats := range db.CacheStats() {
			if st := stats(); st.Name == "statements" {
				if st.Bytes > max || st.MaxBytes != max || st.Evictions == 0 || st.Entries >= 8*150 {
					t.Errorf("statements after 1,200 distinct ones: %+v, want evictions within %d bytes", st, max)
				}
				t.Logf("%+v", st)
				return
			}
		}
		t.Error("no statements cache")
	})
}
