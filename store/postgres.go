package store

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/puddle/v2"

	"github.com/boxwatch/boxwatch"
)

func openPostgres(ctx context.Context, dsn string, o Options) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("invalid PostgreSQL URL %s: %v", Redact(dsn), pgErrorText(err))
	}
	if !strings.Contains(dsn, "pool_max_conns") {
		// pgx's default, as many connections as cores (at least 4), leaves work queueing for a
		// connection while round trips are in flight. pool_max_conns in the URL overrides this,
		// for each of the two pools (lanes.go): a replica opens at most twice as many.
		cfg.MaxConns = int32(max(10, 2*runtime.GOMAXPROCS(0)))
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 5 * time.Second
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot connect to PostgreSQL at %s: %v", Redact(dsn), pgErrorText(err))
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("cannot reach PostgreSQL at %s: %v (is the server running? check --db or BOXWATCH_DB)", Redact(dsn), pgErrorText(err))
	}
	requests, err := pgxpool.NewWithConfig(ctx, cfg.Copy())
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("cannot connect to PostgreSQL at %s: %v", Redact(dsn), pgErrorText(err))
	}
	l := lanes{work: pool, requests: requests}
	rebound := newPGStatements(bound(o.StatementCacheBytes, DefaultStatementCacheBytes))
	db := &DB{
		dialect:    Postgres,
		read:       translatingConn{pgConn{l, rebound}, translatePostgres},
		write:      translatingConn{pgConn{l, rebound}, translatePostgres},
		rebound:    rebound,
		statements: rebound.Stats,
		closers:    []func(){requests.Close, pool.Close},
		ping:       func(ctx context.Context) error { return l.pick(ctx).Ping(ctx) },
		translate:  translatePostgres,
		ts:         func(t time.Time) any { return t },
		pool:       pool,
		lanes:      l,
	}
	db.limiter = newLeaseLimiter(db, time.Now) // monotonic: leases last their length whatever the wall clock does
	return db, nil
}

// pgErrorText keeps the cause of a connection error short and on one line: pgx wraps it in the
// full DSN, and joins the errors of its attempts (with and without TLS) with newlines.
func pgErrorText(err error) string {
	var ce *pgconn.ConnectError
	var pe *pgconn.ParseConfigError
	switch {
	case errors.As(err, &ce) && ce.Unwrap() != nil:
		err = ce.Unwrap()
	case errors.As(err, &pe) && pe.Unwrap() != nil:
		err = pe.Unwrap()
	}
	var lines []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if l = strings.TrimSpace(l); l != "" && !slices.Contains(lines, l) {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "; ")
}

func translatePostgres(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "23505": // unique_violation
			return errUniqueViolation
		case "23503": // foreign_key_violation
			return boxwatch.ErrNotFound
		case "57P01", "57P02", "57P03", // admin_shutdown, crash_shutdown, cannot_connect_now
			"57014",          // query_canceled: a statement timeout
			"40001", "40P01": // serialization_failure, deadlock_detected: the same request may succeed again
			return unavailable(err)
		}
		switch pe.Code[:min(len(pe.Code), 2)] {
		case "22": // data_exception: a NUL byte, invalid UTF-8, a number out of range
			return errBadValue
		case "08", "53": // connection_exception, insufficient_resources (too many connections, disk full)
			return unavailable(err)
		}
		return err
	}
	var ce *pgconn.ConnectError
	switch {
	case errors.As(err, &ce), errors.Is(err, puddle.ErrClosedPool), errors.Is(err, pgconn.ErrConnClosed), pgconn.Timeout(err):
		return unavailable(err)
	case errors.Is(err, pgx.ErrNoRows):
		return errNoRows
	}
	return translateLost(err)
}
