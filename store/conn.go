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
// prepares each distinct statement once and reuses it: parsing dominates SQLite's cost for the
// small queries the API makes.
type sqlConn struct {
	db interface {
		ExecContext(context.Context, string, ...any) (sql.Result, error)
		QueryContext(context.Context, string, ...any) (*sql.Rows, error)
		QueryRowContext(context.Context, string, ...any) *sql.Row
		PrepareContext(context.Context, string) (*sql.Stmt, error)
	}
	stmts *sync.Map // statement → *sql.Stmt; nil inside a transaction
	// tx and writer, inside a transaction: the writer's statements are prepared once on the
	// writer and bound to the transaction, rather than parsed again in every transaction.
	tx     *sql.Tx
	writer *sqlConn
	queued *sync.Map // on the writer: statements transactions ran unprepared, to prepare
}

// prepareQueued prepares the statements transactions ran unprepared; called when no transaction
// holds the writer.
func (c sqlConn) prepareQueued(ctx context.Context) {
	c.queued.Range(func(q, _ any) bool {
		c.queued.Delete(q)
		c.prepared(ctx, q.(string)) // an error leaves it unprepared: the next use queues it again
		return true
	})
}

func newSQLConn(db *sql.DB) sqlConn { return sqlConn{db: db, stmts: &sync.Map{}, queued: &sync.Map{}} }

// prepared returns the cached statement for q, or nil when statements are not cached here.
func (c sqlConn) prepared(ctx context.Context, q string) (*sql.Stmt, error) {
	if c.tx != nil && c.writer != nil {
		// Preparing on the writer now would wait for its one connection, which this
		// transaction holds: a statement not prepared yet runs unprepared, and is prepared once
		// the transaction ends (prepareQueued).
		if st, ok := c.writer.stmts.Load(q); ok {
			return c.tx.StmtContext(ctx, st.(*sql.Stmt)), nil
		}
		c.writer.queued.Store(q, true)
		return nil, nil
	}
	if c.stmts == nil {
		return nil, nil
	}
	if st, ok := c.stmts.Load(q); ok {
		return st.(*sql.Stmt), nil
	}
	st, err := c.db.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	if prev, loaded := c.stmts.LoadOrStore(q, st); loaded {
		st.Close()
		return prev.(*sql.Stmt), nil
	}
	return st, nil
}

func (c sqlConn) exec(ctx context.Context, q string, args ...any) (int64, error) {
	st, err := c.prepared(ctx, q)
	if err != nil {
		return 0, err
	}
	var res sql.Result
	if st != nil {
		res, err = st.ExecContext(ctx, args...)
	} else {
		res, err = c.db.ExecContext(ctx, q, args...)
	}
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (c sqlConn) query(ctx context.Context, q string, args ...any) (rows, error) {
	st, err := c.prepared(ctx, q)
	if err != nil {
		return nil, err
	}
	var r *sql.Rows
	if st != nil {
		r, err = st.QueryContext(ctx, args...)
	} else {
		r, err = c.db.QueryContext(ctx, q, args...)
	}
	if err != nil {
		return nil, err
	}
	return sqlRows{r}, nil
}

func (c sqlConn) queryRow(ctx context.Context, q string, args ...any) row {
	st, err := c.prepared(ctx, q)
	if err != nil {
		return errRow{err}
	}
	if st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return c.db.QueryRowContext(ctx, q, args...)
}

// errRow is a row whose statement could not be prepared.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { r.Rows.Close() }

// pgConn runs statements on a pgx pool or transaction, rewriting ? placeholders to $n once per
// distinct statement.
type pgConn struct {
	db interface {
		Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
		Query(context.Context, string, ...any) (pgx.Rows, error)
		QueryRow(context.Context, string, ...any) pgx.Row
	}
}

func (c pgConn) exec(ctx context.Context, q string, args ...any) (int64, error) {
	tag, err := c.db.Exec(ctx, rebind(q), args...)
	return tag.RowsAffected(), err
}

func (c pgConn) query(ctx context.Context, q string, args ...any) (rows, error) {
	r, err := c.db.Query(ctx, rebind(q), args...)
	if err != nil {
		return nil, err
	}
	return r, nil
}

func (c pgConn) queryRow(ctx context.Context, q string, args ...any) row {
	return c.db.QueryRow(ctx, rebind(q), args...)
}

var rebound sync.Map // statement with ? → statement with $n

// rebind numbers the ? placeholders of q. Statements here never hold a literal '?'.
func rebind(q string) string {
	if v, ok := rebound.Load(q); ok {
		return v.(string)
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
	rebound.Store(q, b.String())
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
