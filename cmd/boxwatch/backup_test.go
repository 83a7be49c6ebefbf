package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
)

// A backup taken while another connection writes is a sound database holding every row committed
// before the backup began; it is never written over, and restore puts it in place of a database
// that was moved away.
func TestBackupUnderWriteLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	live := filepath.Join(dir, "live.db")
	db, err := store.Open(context.Background(), live)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	var committed atomic.Int64
	stop := make(chan struct{})
	writerDone := make(chan error, 1)
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				writerDone <- nil
				return
			default:
			}
			now := time.Now()
			if err := db.CreateAccount(context.Background(), boxwatch.Account{ID: boxwatch.NewID(now), Name: fmt.Sprint("acct-", i),
				Features: []boxwatch.Feature{}, CreatedAt: now}); err != nil {
				writerDone <- err
				return
			}
			committed.Store(int64(i + 1))
		}
	}()
	for committed.Load() < 200 {
		select {
		case err := <-writerDone:
			t.Fatalf("writer: %v", err)
		case <-time.After(time.Millisecond):
		}
	}
	env := map[string]string{"BOXWATCH_DB": live}
	backup := filepath.Join(dir, "backup.db")
	before := committed.Load()
	out, _, err := runCmd(t, env, "backup", backup)
	after := committed.Load()
	close(stop)
	if werr := <-writerDone; werr != nil {
		t.Fatalf("writer: %v", werr)
	}
	if err != nil || !strings.Contains(out, "integrity check ok") {
		t.Fatalf("backup: %v, %q", err, out)
	}
	t.Logf("%d rows committed before the backup, %d when it ended", before, after)

	if _, _, err := runCmd(t, env, "backup", backup); !errors.Is(err, store.ErrBackupExists) {
		t.Fatalf("a backup over an existing file: err = %v, want ErrBackupExists", err)
	}
	if _, _, err := runCmd(t, env, "restore", backup); !errors.Is(err, store.ErrBackupExists) {
		t.Fatalf("a restore over the live database: err = %v, want ErrBackupExists", err)
	}
	restored := filepath.Join(dir, "restored.db")
	if out, _, err := runCmd(t, map[string]string{"BOXWATCH_DB": restored}, "restore", backup); err != nil || !strings.Contains(out, "restored") {
		t.Fatalf("restore: %v, %q", err, out)
	}
	copyDB, err := store.Open(context.Background(), restored)
	if err != nil {
		t.Fatal(err)
	}
	defer copyDB.Close()
	for i := range before {
		if _, err := copyDB.AccountByName(context.Background(), fmt.Sprint("acct-", i)); err != nil {
			t.Fatalf("row %d of %d committed before the backup began is missing from it: %v", i, before, err)
		}
	}

	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
	}{
		{"PostgreSQL", map[string]string{"BOXWATCH_DB": "postgres://u@127.0.0.1:1/x"}, []string{"backup", filepath.Join(dir, "pg.db")}},
		{"NoFile", env, []string{"backup"}},
		{"MissingDatabase", map[string]string{"BOXWATCH_DB": filepath.Join(dir, "none.db")}, []string{"backup", filepath.Join(dir, "none-copy.db")}},
		{"NotADatabase", map[string]string{"BOXWATCH_DB": filepath.Join(dir, "other.db")}, []string{"restore", filepath.Join(dir, "live.db-wal")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := runCmd(t, tc.env, tc.args...); err == nil {
				t.Fatalf("%v succeeded, want an error", tc.args)
			}
		})
	}
}
