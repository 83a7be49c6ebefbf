package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ErrBackupExists is returned when a backup or restore would overwrite a file.
var ErrBackupExists = errors.New("the file exists; boxwatch never overwrites one: choose a new name or move it away")

// Backup writes a consistent copy of a SQLite database to path while the service runs (see
// BackupSQLite). On PostgreSQL it returns an error: use pg_dump or the server's continuous
// archiving.
func (db *DB) Backup(ctx context.Context, path string) error {
	if db.dialect != SQLite {
		return errors.New("boxwatch backup copies SQLite databases; back PostgreSQL up with pg_dump or continuous archiving (see docs/operations.md)")
	}
	return BackupSQLite(ctx, db.path, path)
}

// BackupSQLite writes a consistent copy of the SQLite database at source to dest, whether or not
// a service is using it: the copy holds every transaction committed before it began, and writers
// go on meanwhile. It neither migrates nor creates source, and refuses a dest that exists
// (ErrBackupExists). The copy passes SQLite's integrity check before it returns.
func BackupSQLite(ctx context.Context, source, dest string) error {
	if _, err := os.Stat(source); err != nil {
		return fmt.Errorf("cannot read database %s: %w", source, err)
	}
	if err := absent(dest); err != nil {
		return err
	}
	// VACUUM INTO reads the database in one read transaction, so the copy is a snapshot; on a
	// connection of its own it neither waits for the writer nor holds it up (WAL).
	c, err := sql.Open("sqlite", "file:"+source+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "VACUUM INTO ?", dest); err != nil {
		os.Remove(dest) // a partial copy is no backup
		return fmt.Errorf("backup to %s: %w", dest, err)
	}
	return CheckSQLite(ctx, dest)
}

// CheckSQLite opens the SQLite file at path read-only and runs SQLite's integrity check; it
// returns nil when the file is a sound database.
func CheckSQLite(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("cannot read %s: %w", path, err)
	}
	c, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return fmt.Errorf("cannot open %s: %w", path, err)
	}
	defer c.Close()
	var result string
	if err := c.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&result); err != nil {
		return fmt.Errorf("%s is not a SQLite database: %w", path, err)
	}
	if result != "ok" {
		return fmt.Errorf("%s failed SQLite's integrity check: %s", path, result)
	}
	return nil
}

// RestoreSQLite puts a backup in place as the database at path, after checking it. No process may
// use path: RestoreSQLite refuses when path, or its WAL or shared-memory file, exists
// (ErrBackupExists), so the database it replaces must be moved away first. The copy is written
// beside path and renamed into place, so path is the whole backup or nothing.
func RestoreSQLite(ctx context.Context, backup, path string) error {
	if err := CheckSQLite(ctx, backup); err != nil {
		return err
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := absent(p); err != nil {
			return err
		}
	}
	src, err := os.Open(backup)
	if err != nil {
		return err
	}
	defer src.Close()
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".restore-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, src); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := absent(path); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// absent returns ErrBackupExists, naming path, when something is there.
func absent(path string) error {
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s: %w", path, ErrBackupExists)
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
