package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/store/storetest"
)

// runCmd runs the program with args and an environment, returning stdout, stderr and the error.
func runCmd(t *testing.T, env map[string]string, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, func(k string) string { return env[k] }, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), err
}

func TestAccountAndKey(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		dsn := b.DSN(t)
		out, _, err := runCmd(t, nil, "account", "create", "acme", "--feature", "map", "--db", dsn)
		if err != nil || !regexp.MustCompile(`^[0-9a-f-]{36}\n$`).MatchString(out) {
			t.Fatalf("account create: %q, %v", out, err)
		}
		// The database can come from the environment; flags may follow positional arguments.
		env := map[string]string{"BOXWATCH_DB": dsn}
		if _, _, err := runCmd(t, env, "account", "create", "acme"); err == nil || !strings.Contains(err.Error(), "already exists") {
			t.Fatalf("second acme: err = %v", err)
		}
		out, _, err = runCmd(t, env, "apikey", "create", "acme")
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if key := lines[len(lines)-1]; !regexp.MustCompile(`^bw_[0-9a-f]{16}_[0-9a-f]{32}$`).MatchString(key) {
			t.Fatalf("last line of apikey create is %q, want the key", key)
		}
		if _, _, err := runCmd(t, env, "apikey", "create", "nobody"); err == nil || !strings.Contains(err.Error(), "boxwatch account create nobody") {
			t.Fatalf("key for unknown account: err = %v", err)
		}
		out, _, err = runCmd(t, env, "migrate")
		if err != nil || !regexp.MustCompile(`is at schema version [1-9][0-9]*\n$`).MatchString(out) {
			t.Fatalf("migrate: %q, %v", out, err)
		}
	})
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "x.db")
	for name, args := range map[string][]string{
		"NoCommand":       {},
		"UnknownCommand":  {"launch"},
		"UnknownFeature":  {"account", "create", "acme", "--feature", "teleport", "--db", db},
		"BadAccountName":  {"account", "create", "a b", "--db", db},
		"MissingName":     {"account", "create", "--db", db},
		"UnknownFlag":     {"serve", "--colour", "red"},
		"NegativeLimit":   {"serve", "--limit-create", "-1", "--db", db},
		"AccountNoVerb":   {"account"},
		"MigrateExtraArg": {"migrate", "now", "--db", db},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := runCmd(t, nil, args...)
			if _, ok := err.(usageError); !ok {
				t.Fatalf("err = %v (%T), want a usage error", err, err)
			}
		})
	}
	_, _, err := runCmd(t, map[string]string{"BOXWATCH_LIMIT_DEFAULT": "lots"}, "serve", "--db", db)
	if err == nil || !strings.Contains(err.Error(), "BOXWATCH_LIMIT_DEFAULT") {
		t.Fatalf("bad environment value: err = %v", err)
	}
}

func TestUnreachableDatabase(t *testing.T) {
	t.Parallel()
	for name, dsn := range map[string]string{
		"PostgresRefused":         "postgres://boxwatch:s3cret@127.0.0.1:1/db?sslmode=disable",
		"PostgresRefusedTLSFirst": "postgres://boxwatch:s3cret@127.0.0.1:1/db",
		"SQLiteNoDir":             filepath.Join(t.TempDir(), "missing", "boxwatch.db"),
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := runCmd(t, nil, "migrate", "--db", dsn)
			if err == nil {
				t.Fatal("migrate succeeded against an unreachable database")
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") || strings.Contains(msg, "s3cret") {
				t.Fatalf("error must be one line without the password: %q", msg)
			}
			if !strings.Contains(msg, "127.0.0.1:1") && !strings.Contains(msg, "does not exist") {
				t.Fatalf("error does not say what to fix: %q", msg)
			}
		})
	}
}

func TestServeDemo(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		dsn := b.DSN(t)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		pr, pw := io.Pipe()
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, []string{"serve", "--demo", "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0", "--db", dsn},
				func(string) string { return "" }, strings.NewReader(""), pw, io.Discard)
			pw.Close()
		}()
		url, key := readDemo(t, pr)
		go io.Copy(io.Discard, pr)
		body := `{"data":{"type":"tracking_request","attributes":{"request_type":"bill_of_lading","request_number":"TEST-TR-SUCCEEDED","scac":"TEST"}}}`
		req, _ := http.NewRequest("POST", url+"/v2/tracking_requests", strings.NewReader(body))
		req.Header.Set("Authorization", "Token "+key)
		req.Header.Set("Content-Type", "application/vnd.api+json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 201 {
			t.Fatalf("create with the demo key: %d", res.StatusCode)
		}
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("serve returned %v after shutdown", err)
			}
		case <-time.After(15 * time.Second):
			t.Fatal("serve did not stop after its context was cancelled")
		}

		// A second start reuses the demo account and prints a new key.
		out, _, err := runCmd(t, nil, "account", "create", "demo", "--db", dsn)
		if err == nil || !strings.Contains(err.Error(), "already exists") {
			t.Fatalf("demo account not kept: %q %v", out, err)
		}
	})
}
