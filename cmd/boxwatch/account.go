package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
)

// runAccount administers accounts in the database directly: create and list.
func runAccount(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "create":
			return runAccountCreate(ctx, args[1:], getenv, stdout, stderr)
		case "list":
			return runAccountList(ctx, args[1:], getenv, stdout, stderr)
		}
	}
	return usagef("usage: boxwatch account create NAME [--feature map]... | account list")
}

func runAccountList(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, dsn := newFlagSet("account list", stderr)
	pos, err := parseFlags(fs, args, getenv)
	if err != nil {
		return helpOK(err)
	}
	if len(pos) != 0 {
		return usagef("account list takes no arguments, got %q", pos)
	}
	db, err := store.Open(ctx, *dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	list, err := db.Accounts(ctx)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		fmt.Fprintln(stdout, "no accounts (create one with 'boxwatch account create NAME')")
		return nil
	}
	tw := table(stdout, "NAME", "ID", "FEATURES", "KEYS", "CREATED")
	for _, a := range list {
		keys, err := db.APIKeys(ctx, a.ID)
		if err != nil {
			return err
		}
		features := make([]string, len(a.Features))
		for i, f := range a.Features {
			features[i] = string(f)
		}
		row(tw, a.Name, a.ID, orDash(strings.Join(features, ",")), fmt.Sprint(len(keys)), when(&a.CreatedAt))
	}
	return tw.Flush()
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

func createAccount(ctx context.Context, st boxwatch.AccountStore, name string, features []boxwatch.Feature) (boxwatch.Account, error) {
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
