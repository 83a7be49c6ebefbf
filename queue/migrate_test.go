package queue_test

import (
	"context"
	"sync"
	"testing"

	"github.com/boxwatch/boxwatch/queue"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// TestMigrateConcurrently starts several replicas' migrations of the job queue at once on a
// fresh PostgreSQL database, as replicas started together do: every one succeeds. (Without the
// lock most fail: River's migrator takes none.)
func TestMigrateConcurrently(t *testing.T) {
	t.Parallel()
	storetest.RequirePostgres(t)
	dsn := storetest.Postgres.DSN(t)
	const replicas = 4
	dbs := make([]*store.DB, replicas)
	for i := range dbs {
		db, err := store.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs[i] = db
	}
	var wg sync.WaitGroup
	errs := make([]error, replicas)
	for i, db := range dbs {
		wg.Go(func() { errs[i] = queue.Migrate(context.Background(), db) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("replica %d: %v", i, err)
		}
	}
}
