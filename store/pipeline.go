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

// pipeline runs statements in order in one transaction: on PostgreSQL sent together, in one
// round trip (each statement still reads what committed before it ran, as in any transaction
// at read committed); on SQLite one after another on the writer.
func (db *DB) pipeline(ctx context.Context, steps []statement) error {
	if db.dialect != Postgres {
		return db.inTx(ctx, func(c conn) error {
			for _, st := range steps {
				if _, err := c.exec(ctx, st.q, st.args...); err != nil {
					return err
				}
			}
			return nil
		})
	}
	b := &pgx.Batch{}
	rebinder := pgConn{rebound: db.rebound}
	for _, st := range steps {
		b.Queue(rebinder.rebind(st.q), st.args...)
	}
	// A batch runs as one implicit transaction: a statement that fails rolls back the others.
	return db.translate(db.pool.SendBatch(ctx, b).Close())
}
