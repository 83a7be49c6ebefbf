package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"unsafe"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// The read cache on SQLite. The same cache as PostgreSQL's (readcache.go), kept fresh by other
// means, since SQLite has no notifications:
//
//   - Writes through this store all run on its one writer connection. A pre-update hook on it
//     holds the key of every row of a cached table that a statement inserts, changes or deletes,
//     whatever wrote it (the store's statements, a cascade, a trigger), as PostgreSQL's triggers
//     name them; the keys are released, and evicted again, once the transaction's commit is
//     visible. A held key is neither served nor stored (hold in readcache.go).
//   - Any other writer of the file (the CLI, a second boxwatch, sqlite3 by hand) commits through
//     the same write-ahead log, and every commit increments the counter of the log's shared index
//     (the -shm file's header, https://www.sqlite.org/walformat.html: iChange, "incremented with
//     each transaction"). The store maps that header and reads the counter before it answers from
//     the cache: a value its own commits do not explain empties the cache. Reading the counter is
//     one load from shared memory; asking SQLite (PRAGMA data_version) is a statement, and a
//     connection shared by every read (see BenchmarkFreshnessCheck).
//
// The writer's commit hook tells its own commits from others': it runs inside the commit, while
// the connection holds the write lock, so no one else can commit between the counter it reads
// and its own commit, which adds one to it when the transaction changed rows.

// shmHeaderBytes is how much of the -shm file the store maps: the index header's first copy.
const shmHeaderBytes = 48

// iChangeOffset is where the header keeps its transaction counter (native byte order).
const iChangeOffset = 8

// sqliteWatch follows the writer's transactions and the log's counter for the read cache.
type sqliteWatch struct {
	cache  *readCache
	shm    []byte  // the -shm file's first page, mapped read-only
	holder *sql.DB // a connection of its own kept open, so that SQLite never rebuilds the -shm file under the map

	// Under cache.mu: the counter the cache is consistent with, and the value the writer's
	// commit under way (allowOK) will leave it at.
	known    uint32
	allow    uint32
	allowOK  bool
	external atomic.Int64 // flushes for a change the store did not make

	// The writer's transactions, touched by its hooks and by reap (under mu).
	mu      sync.Mutex
	tables  map[string]cachedTable // by name, the tables whose rows the cache holds
	current map[string]struct{}    // keys held by the transaction under way
	changed int                    // rows it changed, in any table
	batches []heldBatch            // keys of commits that may not be visible yet
}

// heldBatch is the keys a commit wrote, held until the counter moves past pre.
type heldBatch struct {
	keys []string
	pre  uint32
}

// cachedTable says how a row of a cached table names its keys: each column's key prefix.
type cachedTable struct {
	columns  []int    // the columns' positions
	prefixes []string // "containers:", "shipment_containers:"...
	width    int      // 1 + the largest position: how many columns the hook reads
}

// cachedColumns is, for each cached table, the columns whose values name its keys, as PostgreSQL's
// triggers (migrations 0011, 0017, 0021 and 0022) name them.
var cachedColumns = map[string][][2]string{
	"tracking_requests":        {{"id", "tracking_requests:"}},
	"shipments":                {{"id", "shipments:"}},
	"containers":               {{"id", "containers:"}, {"shipment_id", "shipment_containers:"}},
	"transport_events":         {{"container_id", "container_events:"}},
	"terminals":                {{"id", "terminals:"}, {"locode", "port_terminals:"}},
	"custom_field_definitions": {{"id", "custom_field_definitions:"}},
	"custom_field_options":     {{"id", "custom_field_options:"}, {"definition_id", "definition_options:"}},
	"custom_fields":            {{"id", "custom_fields:"}},
	"webhooks":                 {{"id", "webhooks:"}},
	"parties":                  {{"id", "parties:"}},
	"vessels":                  {{"id", "vessels:"}},
	"vessel_identities":        {{"imo", "imo_mmsi:"}},
	"vessel_last_positions":    {{"mmsi", "last_positions:"}},
	"webhook_notifications":    {{"id", "webhook_notifications:"}},
	"events":                   {{"id", "events:"}},
}

// startSQLiteReadCache turns the read cache on, bounded at maxBytes, if the database is in WAL
// mode (a file): it hooks the writer connection and maps the log's index.
func (db *DB) startSQLiteReadCache(ctx context.Context, maxBytes int64, log *slog.Logger) {
	w, err := db.watchSQLite(ctx, newReadCache(maxBytes))
	if err != nil {
		log.Warn("read cache off: every read goes to the database", "error", err)
		return
	}
	db.cache = w.cache
	db.write = afterWriteConn{db.write, w.reap}
	db.closers = append(db.closers, w.close)
}

func (db *DB) watchSQLite(ctx context.Context, c *readCache) (*sqliteWatch, error) {
	w := &sqliteWatch{cache: c, tables: map[string]cachedTable{}}
	for table, cols := range cachedColumns {
		t := cachedTable{}
		for _, col := range cols {
			var pos int
			err := db.sqlReader.QueryRowContext(ctx, "SELECT cid FROM pragma_table_info(?) WHERE name = ?", table, col[0]).Scan(&pos)
			if err != nil {
				return nil, fmt.Errorf("column %s.%s: %w", table, col[0], err)
			}
			t.columns, t.prefixes, t.width = append(t.columns, pos), append(t.prefixes, col[1]), max(t.width, pos+1)
		}
		w.tables[table] = t
	}
	holder, err := sql.Open("sqlite", "file:"+db.path+"?_pragma=busy_timeout(10000)&_pragma=query_only(1)")
	if err != nil {
		return nil, err
	}
	holder.SetMaxOpenConns(1)
	holder.SetMaxIdleConns(1)
	holder.SetConnMaxLifetime(0)
	w.holder = holder
	var mode string
	if err := holder.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		w.close()
		return nil, fmt.Errorf("the database is not in WAL mode (%q, %v): no index to watch", mode, err)
	}
	if w.shm, err = mapHeader(db.path + "-shm"); err != nil {
		w.close()
		return nil, err
	}
	writer, err := db.sqlWriter.Conn(ctx)
	if err != nil {
		w.close()
		return nil, err
	}
	defer writer.Close()
	err = writer.Raw(func(dc any) error {
		h, ok := dc.(sqlite.HookRegisterer)
		if !ok {
			return errors.New("the SQLite driver has no hooks")
		}
		h.RegisterPreUpdateHook(w.preUpdate)
		h.RegisterCommitHook(w.commit)
		h.RegisterRollbackHook(w.rollback)
		return nil
	})
	if err != nil {
		w.close()
		return nil, err
	}
	c.mu.Lock()
	w.known = w.counter()
	c.watch = w
	c.live = true
	c.mu.Unlock()
	return w, nil
}

func (w *sqliteWatch) close() {
	if w.shm != nil {
		unmapHeader(w.shm)
		w.shm = nil
	}
	if w.holder != nil {
		w.holder.Close()
	}
}

// counter is the log's transaction counter now.
func (w *sqliteWatch) counter() uint32 {
	return atomic.LoadUint32((*uint32)(unsafe.Pointer(&w.shm[iChangeOffset])))
}

// fresh empties the cache if the database changed in a way the store's own commits do not
// explain; c.mu is held. The cache calls it before it answers.
func (w *sqliteWatch) fresh() {
	c := w.cache
	v := w.counter()
	switch {
	case v == w.known:
	case w.allowOK && v == w.allow:
		w.known, w.allowOK = v, false
	default:
		w.known, w.allowOK = v, false
		w.external.Add(1)
		c.epoch++
		c.lru.Purge()
	}
}

// preUpdate holds the keys of a row of a cached table the writer is about to change.
func (w *sqliteWatch) preUpdate(d sqlite.SQLitePreUpdateData) {
	if d.DatabaseName != "main" {
		return
	}
	w.mu.Lock()
	w.changed++
	t, ok := w.tables[d.TableName]
	w.mu.Unlock()
	if !ok {
		return
	}
	var keys []string
	read := func(row func(...any) error) {
		vals := make([]any, t.width) // the driver stores each column's value in place
		if err := row(vals...); err != nil {
			return
		}
		for i, col := range t.columns {
			if v := vals[col]; v != nil {
				keys = append(keys, t.prefixes[i]+fmt.Sprint(v)) // as the triggers send it
			}
		}
	}
	if d.Op != sqlite3.SQLITE_INSERT {
		read(d.Old)
	}
	if d.Op != sqlite3.SQLITE_DELETE {
		read(d.New)
	}
	w.mu.Lock()
	var fresh []string
	for _, k := range keys {
		if _, ok := w.current[k]; !ok {
			if w.current == nil {
				w.current = map[string]struct{}{}
			}
			w.current[k] = struct{}{}
			fresh = append(fresh, k)
		}
	}
	w.mu.Unlock()
	w.cache.hold(fresh...)
}

// commit runs inside each commit of the writer, which holds the write lock: the counter it reads
// is the one the commit will add to.
func (w *sqliteWatch) commit() int32 {
	pre := w.counter()
	w.mu.Lock()
	done := w.batches // commits before this one are visible
	w.batches = nil
	if len(w.current) > 0 {
		w.batches = append(w.batches, heldBatch{keys: keysOf(w.current), pre: pre})
	}
	changed := w.changed
	w.current, w.changed = nil, 0
	w.mu.Unlock()
	w.releaseBatches(done)

	c := w.cache
	c.mu.Lock()
	w.fresh() // someone else's commit since the last check empties the cache now
	w.allow, w.allowOK = pre+1, changed > 0
	c.mu.Unlock()
	return 0
}

// rollback releases what the transaction held, and forgets the count of a commit that failed.
func (w *sqliteWatch) rollback() {
	w.mu.Lock()
	keys := keysOf(w.current)
	done := w.batches
	w.current, w.changed, w.batches = nil, 0, nil
	w.mu.Unlock()
	w.releaseBatches(done)
	w.cache.release(keys...)
	c := w.cache
	c.mu.Lock()
	if w.allowOK {
		// An earlier commit that no read has counted yet is counted now; a count still expected
		// after that is this transaction's commit, which failed: nothing changed.
		w.fresh()
		w.allowOK = false
	}
	c.mu.Unlock()
}

// reap releases the keys of the writer's commits that are visible now, and takes their count: it
// runs after each of the store's writes returns.
func (w *sqliteWatch) reap() {
	w.mu.Lock()
	// Read under mu, after any batch filed so far: the counter only grows, so a batch whose
	// commit is under way has pre == now, never a pre the counter has not reached.
	now := w.counter()
	var done []heldBatch
	keep := w.batches[:0]
	for _, b := range w.batches {
		if b.pre != now {
			done = append(done, b)
		} else {
			keep = append(keep, b)
		}
	}
	w.batches = keep
	w.mu.Unlock()
	w.releaseBatches(done)
	c := w.cache
	c.mu.Lock()
	w.fresh()
	c.mu.Unlock()
}

func (w *sqliteWatch) releaseBatches(bs []heldBatch) {
	for _, b := range bs {
		w.cache.release(b.keys...)
	}
}

func keysOf(m map[string]struct{}) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// afterWriteConn runs after when each statement on the writer outside a transaction is over.
type afterWriteConn struct {
	conn
	after func()
}

func (c afterWriteConn) exec(ctx context.Context, q string, args ...any) (int64, error) {
	defer c.after()
	return c.conn.exec(ctx, q, args...)
}

func (c afterWriteConn) query(ctx context.Context, q string, args ...any) (rows, error) {
	r, err := c.conn.query(ctx, q, args...)
	if err != nil {
		c.after()
		return nil, err
	}
	return afterRows{r, c.after}, nil
}

func (c afterWriteConn) queryRow(ctx context.Context, q string, args ...any) row {
	return afterRow{c.conn.queryRow(ctx, q, args...), c.after}
}

type afterRows struct {
	rows
	after func()
}

func (r afterRows) Close() {
	r.rows.Close()
	r.after()
}

type afterRow struct {
	row
	after func()
}

func (r afterRow) Scan(dest ...any) error {
	defer r.after()
	return r.row.Scan(dest...)
}

// openHeader opens the -shm file for mapping.
func openHeader(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("the write-ahead log's index: %w", err)
	}
	st, err := f.Stat()
	if err != nil || st.Size() < shmHeaderBytes {
		f.Close()
		return nil, fmt.Errorf("the write-ahead log's index %s is not initialised", path)
	}
	return f, nil
}

// answering says whether the cache may answer, after emptying it if the database changed behind
// the store's back (SQLite); c.mu is held.
func (c *readCache) answering() bool {
	if c.live && c.watch != nil {
		c.watch.fresh()
	}
	return c.live
}

// sqlite is the cache's SQLite watch, or nil.
func (c *readCache) sqlite() *sqliteWatch {
	if c == nil {
		return nil
	}
	return c.watch
}
