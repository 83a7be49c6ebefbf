package store

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/boxwatch/boxwatch"
)

// A driver's data errors are the caller's fault (4xx) and its connection errors an outage (503):
// neither may reach a client as an internal error.
func TestTranslatePostgres(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want boxwatch.Kind
	}{
		{"NULByte", &pgconn.PgError{Code: "22021"}, boxwatch.KindBadRequest},
		{"UntranslatableCharacter", &pgconn.PgError{Code: "22P05"}, boxwatch.KindBadRequest},
		{"NumericOutOfRange", &pgconn.PgError{Code: "22003"}, boxwatch.KindBadRequest},
		{"ConnectionFailure", &pgconn.PgError{Code: "08006"}, boxwatch.KindUnavailable},
		{"AdminShutdown", &pgconn.PgError{Code: "57P01"}, boxwatch.KindUnavailable},
		{"CannotConnect", &pgconn.ConnectError{}, boxwatch.KindUnavailable},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := translatePostgres(c.err)
			if !boxwatch.IsKind(got, c.want) {
				t.Fatalf("translatePostgres(%v) = %v, want kind %v", c.err, got, c.want)
			}
		})
	}
	if err := translatePostgres(errors.New("other")); boxwatch.AsError(err) != nil {
		t.Fatalf("an unknown error became %v", err)
	}
	if err := translatePostgres(context.Canceled); boxwatch.AsError(err) != nil {
		t.Fatalf("a cancelled context became %v", err)
	}
}
