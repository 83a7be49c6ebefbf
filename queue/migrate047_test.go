package queue_test

import (
	"context"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/boxwatch/boxwatch/queue"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// river047Version is the last River migration of River 0.47, on both drivers.
const river047Version = 7

type upgradeArgs struct{ N int }

func (upgradeArgs) Kind() string { return "upgrade_probe" }

// TestMigrateFromRiver047: a database whose queue River 0.47 migrated is brought up to date by
// Migrate, its jobs kept; then a job id freed by deleting the newest job is not handed out again
// (on SQLite, River's migration 8 rebuilt river_job for that; before it, the id came back).
func TestMigrateFromRiver047(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		db := b.Open(t)
		insert := migrate047(t, db)
		first := insert(1)
		if err := queue.Migrate(ctx, db); err != nil {
			t.Fatal(err)
		}
		second := insert(2)
		var jobs int
		if pool := db.Pool(); pool != nil {
			_, err := pool.Exec(ctx, "DELETE FROM river_job WHERE id = $1", second)
			if err == nil {
				err = pool.QueryRow(ctx, "SELECT count(*) FROM river_job WHERE id = $1 AND kind = 'upgrade_probe'", first).Scan(&jobs)
			}
			if err != nil {
				t.Fatal(err)
			}
		} else {
			_, err := db.SQLWriter().ExecContext(ctx, "DELETE FROM river_job WHERE id = ?", second)
			if err == nil {
				err = db.SQLWriter().QueryRowContext(ctx, "SELECT count(*) FROM river_job WHERE id = ? AND kind = 'upgrade_probe'", first).Scan(&jobs)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if jobs != 1 {
			t.Fatalf("the job stored before the upgrade: %d rows; want 1", jobs)
		}
		if third := insert(3); third <= second {
			t.Fatalf("a job inserted after the newest was deleted has id %d; the deleted one had %d", third, second)
		}
	})
}

// migrate047 migrates db's queue to River 0.47's last version and returns a function that
// inserts a job by an insert-only client and returns its id.
func migrate047(t *testing.T, db *store.DB) func(n int) int64 {
	t.Helper()
	if pool := db.Pool(); pool != nil {
		return migrateTo(t, riverpgxv5.New(pool), river047Version)
	}
	return migrateTo(t, riversqlite.New(db.SQLWriter()), river047Version)
}

func migrateTo[TTx any](t *testing.T, driver riverdriver.Driver[TTx], version int) func(n int) int64 {
	t.Helper()
	ctx := context.Background()
	m, err := rivermigrate.New(driver, nil)
	if err == nil {
		_, err = m.Migrate(ctx, rivermigrate.DirectionUp, &rivermigrate.MigrateOpts{TargetVersion: version})
	}
	if err != nil {
		t.Fatal(err)
	}
	c, err := river.NewClient(driver, &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return func(n int) int64 {
		t.Helper()
		r, err := c.Insert(ctx, upgradeArgs{n}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r.Job.ID
	}
}
