package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

//go:embed migrations
var migrationFiles embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

// migrations lists the dialect's migrations (migrations/<dialect>/NNNN_name.sql) in version order.
func migrations(d Dialect) ([]migration, error) {
	dir := path.Join("migrations", string(d))
	entries, err := fs.ReadDir(migrationFiles, dir)
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		name := e.Name()
		num, rest, ok := strings.Cut(strings.TrimSuffix(name, ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || !strings.HasSuffix(name, ".sql") {
			return nil, fmt.Errorf("migration file %s is not named NNNN_name.sql", name)
		}
		body, err := fs.ReadFile(migrationFiles, path.Join(dir, name))
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: rest, sql: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("migrations for %s skip or repeat version %d", d, m.version)
		}
	}
	return ms, nil
}

// migrationLockID is the PostgreSQL advisory lock that keeps replicas starting together from
// migrating at the same time ("boxwatch" in ASCII).
const migrationLockID = 0x626f787761746368

// migrate applies pending migrations in one transaction: all of them or none. On PostgreSQL an
// advisory lock makes concurrent replicas wait for the first one; on SQLite the write lock does.
func (db *DB) migrate(ctx context.Context) error {
	ms, err := migrations(db.dialect)
	if err != nil {
		return err
	}
	return db.inTx(ctx, func(c conn) error {
		if db.dialect == Postgres {
			if _, err := c.exec(ctx, "SELECT pg_advisory_xact_lock(?)", int64(migrationLockID)); err != nil {
				return err
			}
		}
		if _, err := c.exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version INTEGER PRIMARY KEY,
			name    TEXT NOT NULL
		)`); err != nil {
			return err
		}
		var current int
		if err := c.queryRow(ctx, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations").Scan(&current); err != nil {
			return err
		}
		if current > len(ms) {
			return fmt.Errorf("the database is at schema version %d but this binary knows only %d: run a newer boxwatch", current, len(ms))
		}
		for _, m := range ms[current:] {
			if _, err := c.exec(ctx, m.sql); err != nil {
				return fmt.Errorf("migration %04d_%s: %w", m.version, m.name, err)
			}
			if _, err := c.exec(ctx, "INSERT INTO schema_migrations (version, name) VALUES (?, ?)", m.version, m.name); err != nil {
				return err
			}
		}
		return nil
	})
}

// SchemaVersion returns the newest migration applied.
func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := db.read.queryRow(ctx, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations").Scan(&v)
	return v, err
}
