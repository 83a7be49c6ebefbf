package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/boxwatch/boxwatch/store"
)

// runBackup is "boxwatch backup FILE" (a consistent copy of the SQLite database, taken while the
// service runs) and "boxwatch restore FILE" (the copy put in place of a database that no process
// uses and that was moved away).
func runBackup(ctx context.Context, cmd string, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, dsn := newFlagSet(cmd, stderr)
	pos, err := parseFlags(fs, args, getenv)
	if err != nil {
		return helpOK(err)
	}
	if len(pos) != 1 {
		return usagef("usage: boxwatch %s FILE [--db FILE]", cmd)
	}
	if store.IsPostgresURL(*dsn) {
		return usagef("boxwatch %s works on SQLite files; back PostgreSQL up with pg_dump or continuous archiving (see docs/operations.md)", cmd)
	}
	if cmd == "restore" {
		if err := store.RestoreSQLite(ctx, pos[0], *dsn); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "restored %s as %s\n", pos[0], *dsn)
		return nil
	}
	if err := store.BackupSQLite(ctx, *dsn, pos[0]); err != nil {
		return err
	}
	st, err := os.Stat(pos[0])
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backed %s up to %s (%d bytes, integrity check ok)\n", *dsn, pos[0], st.Size())
	return nil
}
