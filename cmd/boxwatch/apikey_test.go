package main

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch/store/storetest"
)

func status(t *testing.T, url, key string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", url+"/v2/shipping_lines/MSCU", nil)
	req.Header.Set("Authorization", "Token "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

func TestAPIKeyListAndRevoke(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		env := map[string]string{"BOXWATCH_DB": b.DSN(t)}
		if out, _, err := runCmd(t, env, "account", "list"); err != nil || !strings.HasPrefix(out, "no accounts") {
			t.Fatalf("account list of an empty database: %q, %v", out, err)
		}
		if _, _, err := runCmd(t, env, "account", "create", "acme", "--feature", "map"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := runCmd(t, env, "account", "create", "globex"); err != nil {
			t.Fatal(err)
		}
		var keys []string
		for range 2 {
			out, _, err := runCmd(t, env, "apikey", "create", "acme")
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			keys = append(keys, lines[len(lines)-1])
		}
		out, _, err := runCmd(t, env, "account", "list")
		if err != nil || !regexp.MustCompile(`(?m)^acme +[0-9a-f-]{36} +map +2 `).MatchString(out) ||
			!regexp.MustCompile(`(?m)^globex +[0-9a-f-]{36} +- +0 `).MatchString(out) {
			t.Fatalf("account list:\n%s%v", out, err)
		}
		out, _, err = runCmd(t, env, "apikey", "list", "acme")
		id0, id1 := keys[0][3:19], keys[1][3:19]
		if err != nil || !strings.Contains(out, id0) || !strings.Contains(out, id1) || strings.Contains(out, keys[0][20:]) {
			t.Fatalf("apikey list shows the ids and never a secret:\n%s%v", out, err)
		}
		if out, _, err := runCmd(t, env, "apikey", "list", "globex"); err != nil || !strings.Contains(out, "has no keys") {
			t.Fatalf("apikey list of an account without keys: %q %v", out, err)
		}
		if _, _, err := runCmd(t, env, "apikey", "list", "nobody"); err == nil || !strings.Contains(err.Error(), "no account named") {
			t.Fatalf("apikey list nobody: %v", err)
		}

		// A whole key may be given; only its id is used and it is not printed back.
		out, _, err = runCmd(t, env, "apikey", "revoke", keys[0])
		if err != nil || !strings.Contains(out, id0+" revoked") || strings.Contains(out, keys[0][20:]) {
			t.Fatalf("apikey revoke: %q %v", out, err)
		}
		if _, _, err := runCmd(t, env, "apikey", "revoke", id0); err == nil || !strings.Contains(err.Error(), "no key with id") {
			t.Fatalf("revoking twice: %v", err)
		}
		if out, _, _ := runCmd(t, env, "apikey", "list", "acme"); strings.Contains(out, id0) || !strings.Contains(out, id1) {
			t.Fatalf("after revoke:\n%s", out)
		}
		for _, bad := range []string{"0123", "ZZZZZZZZZZZZZZZZ", "'; DROP TABLE api_keys; --"} {
			if _, _, err := runCmd(t, env, "apikey", "revoke", bad); err == nil {
				t.Fatalf("apikey revoke %q succeeded", bad)
			} else if _, ok := err.(usageError); !ok {
				t.Fatalf("apikey revoke %q: %v, want a usage error", bad, err)
			}
		}
		for _, args := range [][]string{{"apikey"}, {"apikey", "rotate"}, {"apikey", "list"}, {"apikey", "revoke"}, {"account", "list", "x"}} {
			if _, _, err := runCmd(t, env, args...); err == nil {
				t.Fatalf("%v succeeded", args)
			} else if _, ok := err.(usageError); !ok {
				t.Fatalf("%v: %v, want a usage error", args, err)
			}
		}
	})
}

// Every start of serve --demo prints a new key and revokes the earlier ones: the demo account
// keeps one live key, and an old key is refused.
func TestDemoRestartRevokesTheEarlierKey(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		dsn := b.DSN(t)
		var keys []string
		for i := range 3 {
			t.Run("Start", func(t *testing.T) {
				url, key := demoServer(t, dsn)
				keys = append(keys, key)
				if got := status(t, url, key); got != 200 {
					t.Fatalf("start %d: the new key gets %d", i+1, got)
				}
				for _, old := range keys[:i] {
					if got := status(t, url, old); got != 401 {
						t.Fatalf("start %d: an earlier demo key gets %d, want 401", i+1, got)
					}
				}
			})
		}
		out, _, err := runCmd(t, map[string]string{"BOXWATCH_DB": dsn}, "apikey", "list", "demo")
		if err != nil || strings.Count(out, "\n") != 2 || !strings.Contains(out, keys[2][3:19]) {
			t.Fatalf("demo keys after three starts:\n%s%v", out, err)
		}
	})
}
