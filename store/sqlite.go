package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/boxwatch/boxwatch"
)

// sqliteReaders is the size of each read pool (background work's, API requests'); WAL lets
// readers run beside the one writer.
const sqliteReaders = 4

func openSQLite(ctx context.Context, path string, o Options) (*DB, error) {
	if path == "" {
		return nil, errors.New("empty database path: set --db or BOXWATCH_DB to a SQLite file or a postgres:// URL")
	}
	if dir := filepath.Dir(path); dir != "" {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("cannot open SQLite database %s: directory %s does not exist", path, dir)
		}
	}
	pragmas := url.Values{"_pragma": {
		"journal_mode(WAL)", "busy_timeout(10000)", "foreign_keys(1)", "synchronous(NORMAL)",
	}}
	writeDSN := "file:" + path + "?" + pragmas.Encode() + "&_txlock=immediate"
	pragmas["_pragma"] = append(pragmas["_pragma"], "query_only(1)")
	readDSN := "file:" + path + "?" + pragmas.Encode()

	w, err := sql.Open("sqlite", writeDSN)
	if err != nil {
		return nil, fmt.Errorf("cannot open SQLite database %s: %w", path, err)
	}
	// SQLite has one writer: a single connection serialises writes instead of failing them busy.
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("cannot open SQLite database %s: %w", path, err)
	}
	readers := func() (*sql.DB, error) {
		r, err := sql.Open("sqlite", readDSN)
		if err != nil {
			return nil, fmt.Errorf("cannot open SQLite database %s: %w", path, err)
		}
		r.SetMaxOpenConns(sqliteReaders)
		r.SetMaxIdleConns(sqliteReaders)
		r.SetConnMaxLifetime(0)
		return r, nil
	}
	r, err := readers()
	if err != nil {
		w.Close()
		return nil, err
	}
	rq, err := readers()
	if err != nil {
		r.Close()
		w.Close()
		return nil, err
	}

	stmts := newSQLStatements(bound(o.StatementCacheBytes, DefaultStatementCacheBytes))
	writer := newSQLConn(w, "write", stmts)
	return &DB{
		dialect: SQLite,
		read: readLanes{
			work:     translatingConn{newSQLConn(r, "read", stmts), translateSQLite},
			requests: translatingConn{newSQLConn(rq, "read_requests", stmts), translateSQLite},
		},
		write:      translatingConn{writer, translateSQLite},
		writer:     writer,
		statements: stmts.Stats,
		closers:    []func(){func() { rq.Close() }, func() { r.Close() }, func() { w.Close() }},
		ping: func(ctx context.Context) error {
			if servesRequest(ctx) {
				return rq.PingContext(ctx)
			}
			return r.PingContext(ctx)
		},
		limiter:          newMemoryLimiter(boxwatch.SystemClock),
		translate:        translateSQLite,
		ts:               func(t time.Time) any { return t.UnixMicro() },
		sqlWriter:        w,
		sqlReader:        r,
		sqlRequestReader: rq,
		delivered:        &deliveredQueue{},
		path:             path,
	}, nil
}

func translateSQLite(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return errUniqueViolation
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return boxwatch.ErrNotFound
		}
		switch se.Code() & 0xff { // the primary code of an extended one
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_FULL:
			return unavailable(err)
		}
		return err
	}
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return errNoRows
	case errors.Is(err, sql.ErrConnDone):
		return unavailable(err)
	}
	return translateLost(err)
}
