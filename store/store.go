// Package store keeps boxwatch's data in SQLite (the embedded default) or PostgreSQL (for several
// replicas sharing one database). Statements are written once and run on either dialect; where the
// dialects differ (time columns, rate limits, locking) the difference sits in one function.
//
// Driver errors are translated into boxwatch errors here and never leave the package raw.
package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/cache"
)

// Dialect names a database engine.
type Dialect string

const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// DB is a boxwatch.Store on SQLite or PostgreSQL.
type DB struct {
	dialect Dialect
	read    conn // SQLite: a pool of read-only connections; PostgreSQL: the pool
	write   conn // SQLite: the single writer connection; PostgreSQL: the pool
	closers []func()
	ping    func(context.Context) error
	limiter boxwatch.RateLimiter
	keys    keyCache
	// cache holds hot single objects (nil when off): see readcache.go and readcache_sqlite.go.
	cache       *readCache
	listenerPID atomic.Uint32
	// translate turns a driver error into a boxwatch error where it has a domain meaning.
	translate func(error) error
	// ts converts a time to the value the dialect stores.
	ts func(time.Time) any

	// rebound is PostgreSQL's statement cache, shared by its transactions; statements reports
	// the statement cache of either dialect.
	rebound    *cache.LRU[string, string]
	statements func() cache.Stats

	sqlWriter *sql.DB // SQLite only
	// writer runs the writer's statements, prepared once and cached (SQLite only): transactions
	// run them too.
	writer           sqlConn
	sqlReader        *sql.DB         // SQLite only: background work's readers
	sqlRequestReader *sql.DB         // SQLite only: API requests' readers
	delivered        *deliveredQueue // SQLite only: successes recorded together (see RecordDelivered)
	path             string          // SQLite only: the database file
	pool             *pgxpool.Pool   // PostgreSQL only: background work's pool, and the job queue's
	lanes            lanes           // PostgreSQL only: pool and the API requests' own (ForRequest)
}

// txn is a boxwatch.Tx on the writer.
type txn struct {
	db          *DB
	c           conn
	native      any
	afterCommit []func()
	evicts      []string // read cache keys of the rows written, evicted once committed
	held        bool     // the cache holds evicts back while the commit is under way
}

// evict drops keys from the read cache once the transaction commits (and not before: a read
// in between would cache the row as it was).
func (tx *txn) evict(keys ...string) {
	if tx.db.cache != nil {
		tx.evicts = append(tx.evicts, keys...)
	}
}

var _ boxwatch.Tx = (*txn)(nil)

func (tx *txn) AfterCommit(fn func()) { tx.afterCommit = append(tx.afterCommit, fn) }

// Native is the driver's transaction (*sql.Tx on SQLite, pgx.Tx on PostgreSQL): the job queue
// enqueues in it, so jobs commit with the data. No other package may use it.
func (tx *txn) Native() any { return tx.native }

// InTx runs fn in one transaction and commits when fn returns nil; it rolls back when fn returns
// an error or panics, so a panicking worker never leaves the writer inside a transaction. On
// SQLite the transaction takes the write lock at once; on PostgreSQL rows are locked as the
// Lock… methods read them.
func (db *DB) InTx(ctx context.Context, fn func(tx boxwatch.Tx) error) error {
	tx := &txn{db: db}
	err := db.runTx(ctx, tx, fn)
	if tx.held {
		db.cache.release(tx.evicts...)
	}
	if w := db.cache.sqlite(); w != nil {
		w.reap()
	}
	if err != nil {
		return err
	}
	for _, f := range tx.afterCommit {
		f()
	}
	return nil
}

func (db *DB) runTx(ctx context.Context, tx *txn, fn func(tx boxwatch.Tx) error) error {
	if db.pool != nil {
		t, err := db.lanes.pick(ctx).Begin(ctx)
		if err != nil {
			return db.internal("begin", err)
		}
		tx.c, tx.native = translatingConn{pgConn{t, db.rebound}, db.translate}, t
		return finishTx(fn, tx, func() error { return t.Commit(ctx) }, func() { t.Rollback(context.WithoutCancel(ctx)) })
	}
	t, err := db.sqlWriter.BeginTx(ctx, nil)
	if err != nil {
		return db.internal("begin", err)
	}
	tx.c, tx.native = translatingConn{sqlConn{db: t, tx: t, writer: &db.writer}, db.translate}, t
	// The statements the transaction ran unprepared are prepared once it has given the writer's
	// one connection back.
	defer db.writer.prepareQueued(context.WithoutCancel(ctx))
	return finishTx(fn, tx, t.Commit, func() { t.Rollback() })
}

// finishTx runs fn and commits, or rolls back when fn fails or panics.
func finishTx(fn func(boxwatch.Tx) error, tx *txn, commit func() error, rollback func()) (err error) {
	committed := false
	defer func() {
		if !committed {
			rollback()
		}
	}()
	if err := fn(tx); err != nil {
		// fn's own statements come translated; the job queue's, run on the native transaction,
		// do not.
		return tx.db.translate(err)
	}
	committed = true
	// From just before the commit until InTx releases them, the keys of the rows written neither
	// answer from the cache nor take what a read fetched: a read between the commit and the
	// eviction would otherwise get the row as it was before.
	if len(tx.evicts) > 0 {
		tx.db.cache.hold(tx.evicts...)
		tx.held = true
	}
	if err := commit(); err != nil {
		return tx.db.internal("commit", err)
	}
	return nil
}

// inTx is InTx for the package's own statements.
func (db *DB) inTx(ctx context.Context, fn func(c conn) error) error {
	return db.InTx(ctx, func(tx boxwatch.Tx) error { return fn(tx.(*txn).c) })
}

// SQLWriter is the SQLite writer pool (nil on PostgreSQL) and Pool the PostgreSQL pool (nil on
// SQLite): the job queue runs on the same connections, so jobs commit with the data.
func (db *DB) SQLWriter() *sql.DB  { return db.sqlWriter }
func (db *DB) Pool() *pgxpool.Pool { return db.pool }

var (
	_ boxwatch.Store     = (*DB)(nil)
	_ boxwatch.WorkStore = (*DB)(nil)
)

// IsPostgresURL reports whether dsn names a PostgreSQL database rather than a SQLite file.
func IsPostgresURL(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Open connects to the database named by dsn (a postgres:// URL or a SQLite file path), checks that
// it answers, and applies any pending migrations. Errors say what to fix and never echo a password.
func Open(ctx context.Context, dsn string) (*DB, error) {
	return OpenWith(ctx, dsn, Options{})
}

// Options tune what Open sets up.
type Options struct {
	// DisableReadCache turns off the per-process cache of hot single objects (see readcache.go
	// and readcache_sqlite.go): every read then goes to the database.
	DisableReadCache bool
	// The bounds of the store's in-memory caches, in bytes (caches.go): the statements prepared
	// or rewritten, PostgreSQL's read cache, and the API keys verified. 0 takes the default
	// (DefaultStatementCacheBytes...), a negative bound keeps nothing.
	StatementCacheBytes, ReadCacheBytes, KeyCacheBytes int64
	// Logger receives the store's own reports (the read cache's listener lost and regained);
	// nil is slog's default logger.
	Logger *slog.Logger
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, dsn string, o Options) (*DB, error) {
	var db *DB
	var err error
	if IsPostgresURL(dsn) {
		db, err = openPostgres(ctx, dsn, o)
	} else {
		db, err = openSQLite(ctx, dsn, o)
	}
	if err != nil {
		return nil, err
	}
	db.keys.lru = newKeyCache(bound(o.KeyCacheBytes, DefaultKeyCacheBytes))
	if err := db.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrating %s: %w", Redact(dsn), err)
	}
	if readBytes := bound(o.ReadCacheBytes, DefaultReadCacheBytes); !o.DisableReadCache && readBytes > 0 {
		if db.dialect == Postgres {
			db.startReadCache(readBytes, cmp.Or(o.Logger, slog.Default()))
		} else {
			db.startSQLiteReadCache(ctx, readBytes, cmp.Or(o.Logger, slog.Default()))
		}
	}
	return db, nil
}

// Redact hides the password of a database URL so it can be printed.
func Redact(dsn string) string {
	if !IsPostgresURL(dsn) {
		return dsn
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres://(unparseable URL)"
	}
	return u.Redacted()
}

// Dialect says which engine the store runs on.
func (db *DB) Dialect() Dialect { return db.dialect }

// Limiter returns the rate limiter that fits the deployment: in process for SQLite (one node), in
// the database for PostgreSQL, so that every replica shares the same buckets (see leaseLimiter
// for how close to exact it stays).
func (db *DB) Limiter() boxwatch.RateLimiter { return db.limiter }

// NewLimiter returns a rate limiter of its own, as another process would have: on PostgreSQL it
// shares the database's buckets and times its leases with clock; on SQLite it keeps buckets of
// its own, timed by clock. Tests use it to play several replicas in one process.
func (db *DB) NewLimiter(clock boxwatch.Clock) boxwatch.RateLimiter {
	if db.dialect == Postgres {
		return newLeaseLimiter(db, clock)
	}
	return newMemoryLimiter(clock)
}

// Ping reports whether the database answers.
func (db *DB) Ping(ctx context.Context) error { return db.ping(ctx) }

// Close releases every connection.
func (db *DB) Close() error {
	for i := len(db.closers) - 1; i >= 0; i-- {
		db.closers[i]()
	}
	db.closers = nil
	return nil
}

// internal wraps an unexpected driver error with the operation that failed.
func (db *DB) internal(op string, err error) error {
	if err == nil {
		return nil
	}
	if t := db.translate(err); t != err {
		return t
	}
	return fmt.Errorf("store: %s: %w", op, err)
}

var errNoRows = errors.New("no rows")

// errBadValue is a value the database refused as data, which only the request can have brought:
// validation at the API's edge should have caught it first.
var errBadValue = boxwatch.NewSentinel(boxwatch.KindBadRequest, boxwatch.CodeInvalid,
	"The request holds a value the database cannot store or compare.")

// errUnavailable is a database that cannot be reached, is shutting down or is too busy to answer:
// the same request may succeed in a moment.
var errUnavailable = boxwatch.NewSentinel(boxwatch.KindUnavailable, boxwatch.CodeUnavailable,
	"The database is unavailable: try again shortly.")

// unavailableError is errUnavailable with the driver error behind it: callers see a KindUnavailable
// *boxwatch.Error, logs see the cause, and errors.Is still finds it (a context's deadline, say).
type unavailableError struct{ cause error }

func unavailable(cause error) error { return &unavailableError{cause} }

func (e *unavailableError) Error() string   { return "database unavailable: " + e.cause.Error() }
func (e *unavailableError) Unwrap() []error { return []error{errUnavailable, e.cause} }

// translateLost recognises, on either dialect, a database that stopped answering: a connection
// refused, reset or cut mid-statement, or a deadline that ran out while waiting for it. A
// cancelled context is the caller leaving and is not an outage.
func translateLost(err error) error {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return unavailable(err)
	}
	return err
}
