package store

import (
	"context"
	"fmt"
)

// Hooks for the read cache's tests (readcache_test.go).

// ReadCacheLive reports whether the read cache answers: its listener is connected.
func (db *DB) ReadCacheLive() bool { return db.cache.isLive() }

// ReadCacheListenerPID is the backend process of the cache's listener connection.
func (db *DB) ReadCacheListenerPID() uint32 { return db.listenerPID.Load() }

// ReadCacheNotified counts the notifications the listener has handled.
func (db *DB) ReadCacheNotified() int64 { return db.cache.notified.Load() }

// SetReadCacheHooks sets fetched, run by each read between the database's answer and storing
// it, and reconnecting, run before the listener connects again. Set them before any read.
func (db *DB) SetReadCacheHooks(fetched func(key string), reconnecting func()) {
	db.cache.mu.Lock()
	defer db.cache.mu.Unlock()
	db.cache.testHooks.fetched, db.cache.testHooks.reconnecting = fetched, reconnecting
}

// RunStatement runs q (with ? placeholders) on the reader and returns the one integer it selects:
// the statement cache's tests run many distinct statements through it.
func (db *DB) RunStatement(ctx context.Context, q string, args ...any) (int64, error) {
	var n int64
	err := db.read.queryRow(ctx, q, args...).Scan(&n)
	return n, err
}

// RunMigration runs the SQL of the dialect's migration named name again, in a transaction, as
// it ran when the database was migrated; its test checks what it did to the rows already there.
func (db *DB) RunMigration(ctx context.Context, name string) error {
	ms, err := migrations(db.dialect)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if m.name == name {
			return db.inTx(ctx, func(c conn) error {
				_, err := c.exec(ctx, m.sql)
				return err
			})
		}
	}
	return fmt.Errorf("no migration %q", name)
}
