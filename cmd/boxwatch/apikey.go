package main

import (
	"context"
	"fmt"
	"io"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
)

// runAPIKey administers API keys in the database directly: create, list and revoke. Keys are
// shown once, at creation; afterwards only their public key id is known.
func runAPIKey(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "create":
			return runAPIKeyCreate(ctx, args[1:], getenv, stdout, stderr)
		case "list":
			return runAPIKeyList(ctx, args[1:], getenv, stdout, stderr)
		case "revoke":
			return runAPIKeyRevoke(ctx, args[1:], getenv, stdout, stderr)
		}
	}
	return usagef("usage: boxwatch apikey create ACCOUNT_NAME | apikey list ACCOUNT_NAME | apikey revoke KEY_ID")
}

// accountNamed finds an account by name; none is an error that says how to create it.
func accountNamed(ctx context.Context, db *store.DB, name string) (boxwatch.Account, error) {
	a, err := db.AccountByName(ctx, name)
	if boxwatch.IsKind(err, boxwatch.KindNotFound) {
		return a, fmt.Errorf("no account named %q: create it first with 'boxwatch account create %s'", printable(name), printable(name))
	}
	return a, err
}

// openAccountArg parses the flags of a command that takes one ACCOUNT_NAME, opens the database
// and finds the account. The caller closes the database when err is nil.
func openAccountArg(ctx context.Context, command string, args []string, getenv func(string) string, stderr io.Writer) (*store.DB, boxwatch.Account, error) {
	fs, dsn := newFlagSet(command, stderr)
	pos, err := parseFlags(fs, args, getenv)
	if err != nil {
		return nil, boxwatch.Account{}, err // flag.ErrHelp included: the caller's helpOK takes it
	}
	if len(pos) != 1 {
		return nil, boxwatch.Account{}, usagef("usage: boxwatch %s ACCOUNT_NAME", command)
	}
	db, err := store.Open(ctx, *dsn)
	if err != nil {
		return nil, boxwatch.Account{}, err
	}
	a, err := accountNamed(ctx, db, pos[0])
	if err != nil {
		db.Close()
		return nil, boxwatch.Account{}, err
	}
	return db, a, nil
}

func runAPIKeyList(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	db, a, err := openAccountArg(ctx, "apikey list", args, getenv, stderr)
	if err != nil {
		return helpOK(err)
	}
	defer db.Close()
	keys, err := db.APIKeys(ctx, a.ID)
	if err != nil {
		return err
	}
	if len(keys) == 0 {
		fmt.Fprintf(stdout, "account %s has no keys (create one with 'boxwatch apikey create %s')\n", a.Name, a.Name)
		return nil
	}
	tw := table(stdout, "KEY ID", "CREATED")
	for _, k := range keys {
		row(tw, k.ID, when(&k.CreatedAt))
	}
	return tw.Flush()
}

func runAPIKeyRevoke(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, dsn := newFlagSet("apikey revoke", stderr)
	pos, err := parseFlags(fs, args, getenv)
	if err != nil {
		return helpOK(err)
	}
	if len(pos) != 1 {
		return usagef("usage: boxwatch apikey revoke KEY_ID (the 16 hex digits after bw_, as 'apikey list' shows)")
	}
	id := pos[0]
	// A whole key is accepted too; only its id is used, and the key is never printed back.
	if kid, ok := boxwatch.ParseAPIKey(id); ok {
		id = kid
	}
	if !isKeyID(id) {
		return usagef("%q is not a key id: 16 lower-case hex digits, as 'boxwatch apikey list' shows", printable(pos[0]))
	}
	db, err := store.Open(ctx, *dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.RevokeAPIKey(ctx, id); boxwatch.IsKind(err, boxwatch.KindNotFound) {
		return fmt.Errorf("no key with id %s", id)
	} else if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "key %s revoked; running servers refuse it within 10 seconds (their key cache)\n", id)
	return nil
}

func isKeyID(s string) bool {
	if len(s) != 16 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func runAPIKeyCreate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	db, a, err := openAccountArg(ctx, "apikey create", args, getenv, stderr)
	if err != nil {
		return helpOK(err)
	}
	defer db.Close()
	key, err := createKey(ctx, db, a)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "API key for account %s (shown once; only its hash is stored):\n%s\n", a.Name, key)
	return nil
}

func createKey(ctx context.Context, st boxwatch.AccountStore, a boxwatch.Account) (string, error) {
	key, rec, err := boxwatch.NewAPIKey(a.ID, boxwatch.SystemClock())
	if err != nil {
		return "", err
	}
	return key, st.CreateAPIKey(ctx, rec)
}
