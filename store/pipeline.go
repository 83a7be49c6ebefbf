package store

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// statement is one statement of a pipeline, with ? placeholders, and its arguments.
type statement struct {
	q    string
	args []any
}

// commitLazily starts a PostgreSQL transaction of delivery bookkeeping (a claim, a recorded
// success), whose commit then does not wait for its WAL to reach the disk: a crash of the server
// can lose the last fraction of a second of it, which only sends those notifications again,
// with the same webhook-id, as a replica's crash does. Everything else commits durably.
var commitLazily = statement{q: "SELECT set_config('synchronous_commit', 'off', true)"}

// pipeline runs statements in order in one transaction: on PostgreSQL sent together, in one
// round trip (each statement still reads what committed before it ran, as in any transaction
// at read committed); on SQLite one after another on the writer. Its last statement's rows, if
// any, are scanned with scan.
func pipeline[T any](ctx context.Context, db *DB, steps []statement, scan func(row) (T, error)) ([]T, error) {
	last := steps[len(steps)-1]
	if db.dialect != Postgres {
		var list []T
		err := db.inTx(ctx, func(c conn) error {
			for _, st := range steps[:len(steps)-1] {
				if _, err := c.exec(ctx, st.q, st.args...); err != nil {
					return err
				}
			}
			rs, err := c.query(ctx, last.q, last.args...)
			if err != nil {
				return err
			}
			list, err = collect(rs, scan)
			return err
		})
		return list, err
	}
	b := &pgx.Batch{}
	rebinder := pgConn{rebound: db.rebound}
	for _, st := range steps {
		b.Queue(rebinder.rebind(st.q), st.args...)
	}
	// A batch runs as one implicit transaction: a statement that fails rolls back the others.
	br := db.lanes.pick(ctx).SendBatch(ctx, b)
	defer br.Close()
	for range steps[:len(steps)-1] {
		if _, err := br.Exec(); err != nil {
			return nil, db.translate(err)
		}
	}
	rs, err := br.Query()
	if err != nil {
		return nil, db.translate(err)
	}
	list, err := collect(rs, scan)
	if err != nil {
		return nil, db.translate(err)
	}
	return list, db.translate(br.Close())
}

// noRows scans nothing: the scan of a pipeline whose last statement returns no rows.
func noRows(row) (struct{}, error) { return struct{}{}, nil }
