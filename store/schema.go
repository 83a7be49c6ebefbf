package store

import (
	"context"
	"fmt"
	"regexp"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

var schemaName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// CreatePostgresSchema creates an empty schema on the PostgreSQL server at dsn. Tests use one
// schema each (with search_path in their DSN) so they run in parallel on one database.
func CreatePostgresSchema(ctx context.Context, dsn, schema string) error {
	return onPostgres(ctx, dsn, schema, "CREATE SCHEMA "+schema)
}

// DropPostgresSchema drops a schema and everything in it.
func DropPostgresSchema(ctx context.Context, dsn, schema string) error {
	return onPostgres(ctx, dsn, schema, "DROP SCHEMA IF EXISTS "+schema+" CASCADE")
}

func onPostgres(ctx context.Context, dsn, schema, statement string) error {
	if !schemaName.MatchString(schema) {
		return fmt.Errorf("invalid schema name %q", schema)
	}
	cfg, err := pgxpool.ParseConfig(dsn) // accepts the pool's own settings (pool_max_conns) too
	if err != nil {
		return fmt.Errorf("invalid PostgreSQL URL %s: %v", Redact(dsn), pgErrorText(err))
	}
	c, err := pgx.ConnectConfig(ctx, cfg.ConnConfig)
	if err != nil {
		return fmt.Errorf("cannot reach PostgreSQL at %s: %v", Redact(dsn), pgErrorText(err))
	}
	defer c.Close(context.WithoutCancel(ctx))
	if _, err := c.Exec(ctx, statement); err != nil {
		return fmt.Errorf("%s: %v", statement, pgErrorText(err))
	}
	return nil
}
