package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/puddle/v2"

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
		{"CannotConnectNow", &pgconn.PgError{Code: "57P03"}, boxwatch.KindUnavailable},
		{"TooManyConnections", &pgconn.PgError{Code: "53300"}, boxwatch.KindUnavailable},
		{"SerializationFailure", &pgconn.PgError{Code: "40001"}, boxwatch.KindUnavailable},
		{"Deadlock", &pgconn.PgError{Code: "40P01"}, boxwatch.KindUnavailable},
		{"StatementTimeout", &pgconn.PgError{Code: "57014"}, boxwatch.KindUnavailable},
		{"CannotConnect", &pgconn.ConnectError{}, boxwatch.KindUnavailable},
		{"PoolClosed", fmt.Errorf("acquire: %w", puddle.ErrClosedPool), boxwatch.KindUnavailable},
		{"ConnClosed", fmt.Errorf("exec: %w", pgconn.ErrConnClosed), boxwatch.KindUnavailable},
		{"CutMidStatement", fmt.Errorf("receive message: %w", io.ErrUnexpectedEOF), boxwatch.KindUnavailable},
		{"ConnectionReset", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, boxwatch.KindUnavailable},
		{"Refused", fmt.Errorf("dial: %w", syscall.ECONNREFUSED), boxwatch.KindUnavailable},
		{"Deadline", fmt.Errorf("query: %w", context.DeadlineExceeded), boxwatch.KindUnavailable},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := translatePostgres(c.err)
			if !boxwatch.IsKind(got, c.want) {
				t.Fatalf("translatePostgres(%v) = %v, want kind %v", c.err, got, c.want)
			}
			if !errors.Is(got, c.err) && c.want == boxwatch.KindUnavailable {
				t.Fatalf("translatePostgres(%v) = %v lost its cause", c.err, got)
			}
		})
	}
	for _, err := range []error{errors.New("other"), context.Canceled, &pgconn.PgError{Code: "42P01"}} {
		if got := translatePostgres(err); boxwatch.AsError(got) != nil {
			t.Fatalf("%v became %v, want it left for a 500", err, got)
		}
	}
}

// SQLite answers SQLITE_BUSY when another connection holds the write lock past the busy timeout:
// an outage to retry, like PostgreSQL's.
func TestTranslateSQLiteBusy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "busy.db")
	ctx := context.Background()
	holder, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	hc, err := holder.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer hc.Close()
	if _, err := hc.ExecContext(ctx, "CREATE TABLE t (n int); BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	_, err = other.ExecContext(ctx, "INSERT INTO t VALUES (1)")
	if err == nil {
		t.Fatal("wrote past an exclusive lock")
	}
	if got := translateSQLite(err); !boxwatch.IsKind(got, boxwatch.KindUnavailable) {
		t.Fatalf("translateSQLite(%v) = %v, want KindUnavailable", err, got)
	}
	for _, err := range []error{errors.New("other"), context.Canceled} {
		if got := translateSQLite(err); boxwatch.AsError(got) != nil {
			t.Fatalf("%v became %v, want it left for a 500", err, got)
		}
	}
}
