package store

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
