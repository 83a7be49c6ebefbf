package store

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/boxwatch/boxwatch/cache"
)

// conn is the little each dialect must provide: statements written once, with ? placeholders, run
// on database/sql (SQLite) or pgx (PostgreSQL).
type conn interface {
	exec(ctx context.Context, q string, args ...any) (int64, error)
	query(ctx context.Context, q string, args ...any) (rows, error)
	queryRow(ctx context.Context, q string, args ...any) row
}

type rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

type row interface{ Scan(dest ...any) error }

// sqlConn runs statements on a database/sql handle (a pool or a transaction). On a pool it
// prepares each distinct statement once and reuses it from the store's statement cache: parsing
// dominates SQLite's cost for the small queries the API makes.
type sqlConn struct {
	db interface {
		ExecContext(context.Context, string, ...any) (sql.Result, error)
		QueryContext(context.Context, string, ...any) (*sql.Rows, error)
		QueryRowContext(context.Context, string, ...any) *sql.Row
		PrepareContext(context.Context, string) (*sql.Stmt, error)
	}
	stmts *cache.LRU[stmtKey, *preparedStmt] // nil inside a transaction
	pool  string                             // which pool's statements: the cache's key
	// tx and writer, inside a transaction on the SQLite writer: the statements the writer has
	// prepared run bound to the transaction, rather than parsed again in each one. Preparing one
	// now would wait for the writer's one connection, which the transaction holds: a statement
	// not prepared yet runs unprepared and is queued, to be prepared once the transaction ends.
	tx     *sql.Tx
	writer *sqlConn
	queued *sync.Map // on the writer: statements transactions ran unprepared
}

// stmtKey names a prepared statement: the pool it was prepared on, and its text.
type stmtKey struct{ pool, q string }

// preparedStmt is a cached statement. The cache closes it once it lets it go; a statement
// starting on it then holds mu for reading, so the close waits for the start (rows already
// returned outlive it: database/sql finalizes the statement after them).
type preparedStmt struct {
	mu     sync.RWMutex
	st     *sql.Stmt
	closed bool
}

func (p *preparedStmt) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	p.st.Close()
}

// sqliteStmtWeight is what a prepared statement is counted to weigh beyond its text: SQLite's
// compiled program for it, per connection it runs on, lives outside the Go heap where the store
// cannot measure it; a few kilobytes is what a simple statement's program takes.
const sqliteStmtWeight = 8 << 10

// newSQLStatements returns the cache of the prepared statements of a SQLite database's pools.
func newSQLStatements(maxBytes int64) *cache.LRU[stmtKey, *preparedStmt] {
	return cache.NewReleasing(statementCacheName, maxBytes,
		func(k stmtKey, _ *preparedStmt) int64 { return int64(len(k.pool)+len(k.q)) + sqliteStmtWeight },
		func(_ stmtKey, p *preparedStmt) { go p.close() }) // it waits for statements starting on it
}

func newSQLConn(db *sql.DB, pool string, stmts *cache.LRU[stmtKey, *preparedStmt]) sqlConn {
	return sqlConn{db: db, stmts: stmts, pool: pool, queued: &sync.Map{}}
}

// prepareQueued prepares the statements transactions ran unprepared; called when no
// transaction holds the writer. An error leaves a statement unprepared: its next use queues it
// again.
func (c sqlConn) prepareQueued(ctx context.Context) {
	c.queued.Range(func(q, _ any) bool {
		c.queued.Delete(q)
		c.prepared(ctx, q.(string))
		return true
	})
}

// prepared returns the cached statement for q, preparing and caching it if need be, or nil when
// statements are not cached here.
func (c sqlConn) prepared(ctx context.Context, q string) (*preparedStmt, error) {
	if c.stmts == nil {
		return nil, nil
	}
	key := stmtKey{c.pool, q}
	if p, ok := c.stmts.Get(key); ok {
		return p, nil
	}
	st, err := c.db.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	p := &preparedStmt{st: st}
	c.stmts.Add(key, p) // one kept (another prepared at once is released), or too heavy and closed: either way usable below
	return p, nil
}

// run starts q on its prepared statement, or unprepared when there is none or the cache closed it.
func (c sqlConn) run(ctx context.Context, q string, prepared func(*sql.Stmt) error, direct func() error) error {
	if c.tx != nil {
		p, ok := c.writer.stmts.Get(stmtKey{c.writer.pool, q})
		if !ok {
			c.writer.queued.Store(q, true)
			return direct()
		}
		p.mu.RLock()
		defer p.mu.RUnlock()
		if p.closed {
			return direct()
		}
		return prepared(c.tx.StmtContext(ctx, p.st))
	}
	p, err := c.prepared(ctx, q)
	if err != nil {
		return err
	}
	if p != nil {
		p.mu.RLock()
		if !p.closed {
			err := prepared(p.st)
			p.mu.RUnlock()
			return err
		}
		p.mu.RUnlock()
	}
	return direct()
}

func (c sqlConn) exec(ctx context.Context, q string, args ...any) (int64, error) {
	var res sql.Result
	err := c.run(ctx, q,
		func(st *sql.Stmt) (err error) { res, err = st.ExecContext(ctx, args...); return err },
		func() (err error) { res, err = c.db.ExecContext(ctx, q, args...); return err })
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (c sqlConn) query(ctx context.Context, q string, args ...any) (rows, error) {
	var r *sql.Rows
	err := c.run(ctx, q,
		func(st *sql.Stmt) (err error) { r, err = st.QueryContext(ctx, args...); return err },
		func() (err error) { r, err = c.db.QueryContext(ctx, q, args...); return err })
	if err != nil {
		return nil, err
	}
	return sqlRows{r}, nil
}

func (c sqlConn) queryRow(ctx context.Context, q string, args ...any) row {
	var r *sql.Row
	err := c.run(ctx, q,
		func(st *sql.Stmt) error { r = st.QueryRowContext(ctx, args...); return nil },
		func() error { r = c.db.QueryRowContext(ctx, q, args...); return nil })
	if err != nil {
		return errRow{err}
	}
	return r
}

// errRow is a row whose statement could not be prepared.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { r.Rows.Close() }

// pgConn runs statements on a pgx pool or transaction, rewriting ? placeholders to $n once per
// distinct statement: the rewrites are kept in the store's statement cache.
type pgConn struct {
	db interface {
		Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
		Query(context.Context, string, ...any) (pgx.Rows, error)
		QueryRow(context.Context, string, ...any) pgx.Row
	}
	rebound *cache.LRU[string, string] // statement with ? → statement with $n
}

// newPGStatements returns the cache of a PostgreSQL store's rewritten statements.
func newPGStatements(maxBytes int64) *cache.LRU[string, string] {
	return cache.New(statementCacheName, maxBytes, func(q, rebound string) int64 { return int64(len(q) + len(rebound)) })
}

func (c pgConn) exec(ctx context.Context, q string, args ...any) (int64, error) {
	tag, err := c.db.Exec(ctx, c.rebind(q), args...)
	return tag.RowsAffected(), err
}

func (c pgConn) query(ctx context.Context, q string, args ...any) (rows, error) {
	r, err := c.db.Query(ctx, c.rebind(q), args...)
	if err != nil {
		return nil, err
	}
	return r, nil
}

func (c pgConn) queryRow(ctx context.Context, q string, args ...any) row {
	return c.db.QueryRow(ctx, c.rebind(q), args...)
}

// rebind numbers the ? placeholders of q. Statements here never hold a literal '?'.
func (c pgConn) rebind(q string) string {
	if v, ok := c.rebound.Get(q); ok {
		return v
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(q[i])
	}
	c.rebound.Add(q, b.String())
	return b.String()
}

// countingConn counts the statements run through it.
type countingConn struct {
	conn
	n *atomic.Int64
}

func (c countingConn) exec(ctx context.Context, q string, args ...any) (int64, error) {
	c.n.Add(1)
	return c.conn.exec(ctx, q, args...)
}

func (c countingConn) query(ctx context.Context, q string, args ...any) (rows, error) {
	c.n.Add(1)
	return c.conn.query(ctx, q, args...)
}

func (c countingConn) queryRow(ctx context.Context, q string, args ...any) row {
	c.n.Add(1)
	return c.conn.queryRow(ctx, q, args...)
}

// CountStatements makes the store count every statement it runs outside transactions from now
// on, and returns the counter; tests use it to hold the cost of a request constant. Call it
// before the store is shared: it is not safe to call while statements run.
func (db *DB) CountStatements() *atomic.Int64 {
	n := &atomic.Int64{}
	db.read, db.write = countingConn{db.read, n}, countingConn{db.write, n}
	return n
}

// translatingConn hands back every driver error already translated, so that no statement's error
// can leave the package raw whatever the method around it does with it.
type translatingConn struct {
	c         conn
	translate func(error) error
}

func (c translatingConn) exec(ctx context.Context, q string, args ...any) (int64, error) {
	n, err := c.c.exec(ctx, q, args...)
	return n, c.err(err)
}

func (c translatingConn) query(ctx context.Context, q string, args ...any) (rows, error) {
	r, err := c.c.query(ctx, q, args...)
	if err != nil {
		return nil, c.err(err)
	}
	return translatingRows{r, c.translate}, nil
}

func (c translatingConn) queryRow(ctx context.Context, q string, args ...any) row {
	return translatingRow{c.c.queryRow(ctx, q, args...), c.translate}
}

func (c translatingConn) err(err error) error {
	if err == nil {
		return nil
	}
	return c.translate(err)
}

type translatingRow struct {
	row
	translate func(error) error
}

func (r translatingRow) Scan(dest ...any) error {
	if err := r.row.Scan(dest...); err != nil {
		return r.translate(err)
	}
	return nil
}

type translatingRows struct {
	rows
	translate func(error) error
}

func (r translatingRows) Scan(dest ...any) error {
	if err := r.rows.Scan(dest...); err != nil {
		return r.translate(err)
	}
	return nil
}

func (r translatingRows) Err() error {
	if err := r.rows.Err(); err != nil {
		return r.translate(err)
	}
	return nil
}
