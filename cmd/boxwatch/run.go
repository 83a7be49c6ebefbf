package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/boxwatch/boxwatch"
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
  boxwatch account create NAME [--feature map]... [--db FILE|URL]
  boxwatch apikey create ACCOUNT_NAME [--db FILE|URL]
  boxwatch ais decode FILE|- [--stats]
  boxwatch route FROM TO [--avoid suez,panama] [--open kiel] [--format geojson|json]
  boxwatch route --pairs FILE [--repeat N]

--db is a SQLite file (default boxwatch.db) or a postgres:// URL. Every flag can also be set with
an environment variable: --admin-addr as BOXWATCH_ADMIN_ADDR, --db as BOXWATCH_DB, and so on.
Run "boxwatch COMMAND --help" for a command's flags.
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
	case "account", "apikey":
		if len(rest) == 0 || rest[0] != "create" {
			return usagef("usage: boxwatch %s create ...", cmd)
		}
		if cmd == "account" {
			return runAccountCreate(ctx, rest[1:], getenv, stdout, stderr)
		}
		return runAPIKeyCreate(ctx, rest[1:], getenv, stdout, stderr)
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

// featureList collects repeated --feature flags.
type featureList []boxwatch.Feature

func (l *featureList) String() string { return fmt.Sprint(*l) }
func (l *featureList) Set(s string) error {
	f, err := boxwatch.ParseFeature(s)
	if err != nil {
		return err
	}
	*l = append(*l, f)
	return nil
}

func runAccountCreate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, dsn := newFlagSet("account create", stderr)
	var features featureList
	fs.Var(&features, "feature", "grant a feature to the account; repeatable (known: map)")
	pos, err := parseFlags(fs, args, getenv)
	if err != nil {
		return helpOK(err)
	}
	if len(pos) != 1 {
		return usagef("usage: boxwatch account create NAME [--feature map]...")
	}
	if err := boxwatch.ValidateAccountName(pos[0]); err != nil {
		return usageError{err.Error()}
	}
	db, err := store.Open(ctx, *dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	a, err := createAccount(ctx, db, pos[0], features)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, a.ID)
	return nil
}

func createAccount(ctx context.Context, st boxwatch.Store, name string, features []boxwatch.Feature) (boxwatch.Account, error) {
	now := boxwatch.SystemClock()
	if features == nil {
		features = []boxwatch.Feature{}
	}
	a := boxwatch.Account{ID: boxwatch.NewID(now), Name: name, Features: features, CreatedAt: now}
	if err := st.CreateAccount(ctx, a); err != nil {
		if e := boxwatch.AsError(err); e != nil {
			return a, errors.New(e.Message)
		}
		return a, err
	}
	return a, nil
}

func runAPIKeyCreate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, dsn := newFlagSet("apikey create", stderr)
	pos, err := parseFlags(fs, args, getenv)
	if err != nil {
		return helpOK(err)
	}
	if len(pos) != 1 {
		return usagef("usage: boxwatch apikey create ACCOUNT_NAME")
	}
	db, err := store.Open(ctx, *dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	a, err := db.AccountByName(ctx, pos[0])
	if boxwatch.IsKind(err, boxwatch.KindNotFound) {
		return fmt.Errorf("no account named %q: create it first with 'boxwatch account create %s'", pos[0], pos[0])
	} else if err != nil {
		return err
	}
	key, err := createKey(ctx, db, a)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "API key for account %s (shown once; only its hash is stored):\n%s\n", a.Name, key)
	return nil
}

func createKey(ctx context.Context, st boxwatch.Store, a boxwatch.Account) (string, error) {
	key, rec, err := boxwatch.NewAPIKey(a.ID, boxwatch.SystemClock())
	if err != nil {
		return "", err
	}
	return key, st.CreateAPIKey(ctx, rec)
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
