package store

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// On PostgreSQL the store keeps two pools: API requests take their connections from one, and
// background work (lookups, refreshes, terminal checks, webhook deliveries, the job queue) from
// the other. A burst of background work — a thousand terminal checks coming due, a webhook
// backlog draining — then never makes a request wait for a connection that a job holds; before,
// with one pool of ten, the API's p99 followed the workers' backlog. SQLite's readers are split
// the same way (its one writer is shared by nature: writes queue for it whoever makes them).

type requestLane struct{}

// ForRequest marks ctx as serving an API request: the statements run with it take connections
// from the requests' pool (on SQLite, the requests' readers). Anything else (a context without
// the mark) is background work.
func ForRequest(ctx context.Context) context.Context {
	return context.WithValue(ctx, requestLane{}, true)
}

func servesRequest(ctx context.Context) bool {
	v, _ := ctx.Value(requestLane{}).(bool)
	return v
}

// lanes picks a statement's pool by its context.
type lanes struct {
	work, requests *pgxpool.Pool
}

func (l lanes) pick(ctx context.Context) *pgxpool.Pool {
	if l.requests != nil && servesRequest(ctx) {
		return l.requests
	}
	return l.work
}

func (l lanes) Exec(ctx context.Context, q string, args ...any) (pgconn.CommandTag, error) {
	return l.pick(ctx).Exec(ctx, q, args...)
}

func (l lanes) Query(ctx context.Context, q string, args ...any) (pgx.Rows, error) {
	return l.pick(ctx).Query(ctx, q, args...)
}

func (l lanes) QueryRow(ctx context.Context, q string, args ...any) pgx.Row {
	return l.pick(ctx).QueryRow(ctx, q, args...)
}

// readLanes picks SQLite's readers by a statement's context.
type readLanes struct {
	work, requests conn
}

func (l readLanes) pick(ctx context.Context) conn {
	if servesRequest(ctx) {
		return l.requests
	}
	return l.work
}

func (l readLanes) exec(ctx context.Context, q string, args ...any) (int64, error) {
	return l.pick(ctx).exec(ctx, q, args...)
}

func (l readLanes) query(ctx context.Context, q string, args ...any) (rows, error) {
	return l.pick(ctx).query(ctx, q, args...)
}

func (l readLanes) queryRow(ctx context.Context, q string, args ...any) row {
	return l.pick(ctx).queryRow(ctx, q, args...)
}
