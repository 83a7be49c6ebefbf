package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/tracking"
)

// usageError is a mistake on the command line; main exits 2 for it.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

const usage = `boxwatch tracks ocean containers behind a Terminal49-compatible API.

Usage:
  boxwatch serve [--addr 127.0.0.1:8080] [--admin-addr 127.0.0.1:9090] [--db FILE|URL] [--demo]
                 [--carriers FILE] [--sim] [--sim-speed N] [--refresh-interval 4h] [--retry-scale F]
  boxwatch migrate [--db FILE|URL]
  boxwatch backup FILE [--db FILE]        (SQLite; while serve runs)
  boxwatch restore FILE [--db FILE]       (SQLite; the database moved away first)
  boxwatch account create NAME [--feature map]... | account list          [--db FILE|URL]
  boxwatch apikey create ACCOUNT_NAME | apikey list ACCOUNT_NAME | apikey revoke KEY_ID   [--db ...]
  boxwatch ais decode FILE|- [--stats]
  boxwatch route FROM TO [--avoid suez,panama] [--open kiel] [--format geojson|json]
  boxwatch route --pairs FILE [--repeat N]
  boxwatch version

Client commands (talk to a running service; --url, default http://127.0.0.1:8080, --key, --json):
  boxwatch track NUMBER [--scac SCAC] [--type bill_of_lading|booking_number|container] [--no-wait]
  boxwatch infer NUMBER
  boxwatch shipments [--q TEXT] [--number N] [--stopped true|false] [--page N] [--size N]
  boxwatch container NUMBER|ID
  boxwatch map CONTAINER_NUMBER|ID [-o FILE]
  boxwatch webhooks list | add URL --event NAME... | rm ID | deliveries [WEBHOOK_ID] | redeliver ID
  boxwatch mcp                            (MCP tools on stdin/stdout for a desktop assistant; docs/mcp.md)

--db is a SQLite file (default boxwatch.db) or a postgres:// URL. Every flag can also be set with
an environment variable: --admin-addr as BOXWATCH_ADMIN_ADDR, --db as BOXWATCH_DB, --url as
BOXWATCH_URL, --key as BOXWATCH_KEY, and so on. Run "boxwatch COMMAND --help" for a command's flags.
Exit codes: 0 done, 1 failed, 2 bad usage, 3 the tracking request failed, 4 the carrier needs a
choice and there is no terminal to ask on.
`

// run is the whole program; main only calls it, so tests can run it in process.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return usagef("no command given")
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return runServe(ctx, rest, getenv, stdout, stderr)
	case "migrate":
		return runMigrate(ctx, rest, getenv, stdout, stderr)
	case "account":
		return runAccount(ctx, rest, getenv, stdout, stderr)
	case "apikey":
		return runAPIKey(ctx, rest, getenv, stdout, stderr)
	case "version":
		return runVersion(rest, stdout)
	case "track":
		return runTrack(ctx, rest, getenv, stdin, stdout, stderr)
	case "infer":
		return runInfer(ctx, rest, getenv, stdin, stdout, stderr)
	case "shipments":
		return runShipments(ctx, rest, getenv, stdin, stdout, stderr)
	case "container":
		return runContainer(ctx, rest, getenv, stdin, stdout, stderr)
	case "map":
		return runMap(ctx, rest, getenv, stdin, stdout, stderr)
	case "webhooks":
		return runWebhooks(ctx, rest, getenv, stdin, stdout, stderr)
	case "mcp":
		return runMCP(ctx, rest, getenv, stdin, stdout, stderr)
	case "ais":
		return runAIS(ctx, rest, getenv, stdin, stdout, stderr)
	case "route":
		return runRoute(ctx, rest, getenv, stdout, stderr)
	case "backup", "restore":
		return runBackup(ctx, cmd, rest, getenv, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return usagef("unknown command %q", cmd)
}

// flagSet is a command's flags. Parse errors print nothing themselves: they come back as one line
// from run; --help prints the flags to the command's stderr.
type flagSet struct {
	*flag.FlagSet
	help io.Writer
}

// parseFlags parses flags that may come before, between or after positional arguments, then fills
// every flag not given on the command line from its BOXWATCH_* environment variable.
func parseFlags(fs flagSet, args []string, getenv func(string) string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprintf(fs.help, "Usage of boxwatch %s:\n", fs.Name())
				fs.SetOutput(fs.help)
				fs.PrintDefaults()
				return nil, err
			}
			return nil, usagef("%v (see 'boxwatch %s --help')", err, fs.Name())
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		env := envName(f.Name)
		if v := getenv(env); v != "" && !set[f.Name] && err == nil {
			if e := fs.Set(f.Name, v); e != nil {
				err = usagef("invalid %s=%q: %v", env, v, e)
			}
		}
	})
	return positional, err
}

func envName(flagName string) string {
	return "BOXWATCH_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

func newFlagSet(name string, stderr io.Writer) (flagSet, *string) {
	fs := flagSet{flag.NewFlagSet(name, flag.ContinueOnError), stderr}
	fs.SetOutput(io.Discard)
	db := fs.String("db", defaultDB, "SQLite file or postgres:// URL (env BOXWATCH_DB)")
	return fs, db
}

func runMigrate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, dsn := newFlagSet("migrate", stderr)
	pos, err := parseFlags(fs, args, getenv)
	if err != nil {
		return helpOK(err)
	}
	if len(pos) > 0 {
		return usagef("migrate takes no arguments, got %q", pos)
	}
	db, err := store.Open(ctx, *dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := tracking.Migrate(ctx, db); err != nil {
		return err
	}
	v, err := db.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "database %s is at schema version %d\n", store.Redact(*dsn), v)
	return nil
}

// helpOK turns a --help request into success: the flag package has printed the usage.
func helpOK(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}

// defaultDB is the database every command uses without --db or BOXWATCH_DB.
const defaultDB = "boxwatch.db"

func newLogger(w io.Writer, level string) (*slog.Logger, error) {
	l, err := parseLogLevel(level)
	if err != nil {
		return nil, err
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l})), nil
}

func parseLogLevel(level string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return l, usagef("invalid --log-level %q: use debug, info, warn or error", level)
	}
	return l, nil
}
