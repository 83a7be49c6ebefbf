package storetest

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/boxwatch/boxwatch/store"
)

func testBackup(t *testing.T, db *store.DB) {
	MustCreateAccount(t, db, "acme")
	path := filepath.Join(t.TempDir(), "copy.db")
	if db.Dialect() == store.Postgres {
		if err := db.Backup(ctx, path); err == nil {
			t.Fatal("Backup on PostgreSQL succeeded, want an error pointing to pg_dump")
		}
		return
	}
	if err := db.Backup(ctx, path); err != nil {
		t.Fatal(err)
	}
	if err := db.Backup(ctx, path); !errors.Is(err, store.ErrBackupExists) {
		t.Fatalf("a second backup to the same file: err = %v, want ErrBackupExists", err)
	}
	restored := filepath.Join(t.TempDir(), "restored.db")
	if err := store.RestoreSQLite(ctx, path, restored); err != nil {
		t.Fatal(err)
	}
	if err := store.RestoreSQLite(ctx, path, restored); !errors.Is(err, store.ErrBackupExists) {
		t.Fatalf("restoring over a database: err = %v, want ErrBackupExists", err)
	}
	copyDB, err := store.Open(ctx, restored)
	if err != nil {
		t.Fatal(err)
	}
	defer copyDB.Close()
	if _, err := copyDB.AccountByName(ctx, "acme"); err != nil {
		t.Fatalf("the restored copy lacks the account: %v", err)
	}
}
