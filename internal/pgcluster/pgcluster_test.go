package pgcluster_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/boxwatch/boxwatch/internal/pgcluster"
)

// A row committed before the server is killed is there after it restarts, on the same address.
func TestCrashKeepsCommittedRows(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server; skipped with -short")
	}
	c := pgcluster.Start(t)
	c.CreateDatabase(t, "crash")
	ctx := context.Background()
	exec := func(sql string) {
		t.Helper()
		conn, err := pgx.Connect(ctx, c.URL("crash"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	exec("CREATE TABLE t (n int); INSERT INTO t VALUES (42)")
	c.Stop(t, pgcluster.Immediate)
	if conn, err := pgx.Connect(ctx, c.URL("crash")); err == nil {
		conn.Close(ctx)
		t.Fatal("connected to a stopped cluster")
	}
	c.Restart(t)
	conn, err := pgx.Connect(ctx, c.URL("crash"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT n FROM t").Scan(&n); err != nil || n != 42 {
		t.Fatalf("after the crash: n = %d, %v; want 42", n, err)
	}
}
