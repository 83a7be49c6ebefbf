// Package testenv is the one place where a test says what it needs from outside the module: a
// program (PostgreSQL's server programs, Node.js, npm, HAProxy, Chromium) or the shared reference
// files. When the thing is missing, a bare go test skips the test, naming what to install; with
// BOXWATCH_TEST_STRICT=1, which make test and .ci/run set, the test fails instead, so a green run
// never stands on skipped tests.
//
// It is for tests only. It never installs anything: scripts/testtools.sh, scripts/haproxy.sh and
// scripts/chromium.sh do, and make test runs them.
package testenv

import (
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// StrictEnv names the environment variable that turns a missing prerequisite from a skip into a
// failure: any value but "" and "0" does.
const StrictEnv = "BOXWATCH_TEST_STRICT"

// installs says, for each prerequisite a test may name, how to get it.
var installs = map[string]string{
	"initdb":   postgresServer,
	"pg_ctl":   postgresServer,
	"node":     "Node.js (Debian package nodejs), which scripts/testtools.sh installs",
	"npm":      "npm (Debian package npm), which scripts/testtools.sh installs",
	"haproxy":  "HAProxy (Debian package haproxy), which scripts/haproxy.sh installs",
	"chromium": "Chromium (Debian package chromium), which scripts/chromium.sh installs",
	"shared/reference/dcsa": "the project's shared DCSA reference: a folder shared/reference/dcsa in a folder above " +
		"the checkout, holding tnt-220-response-sample.json (dcsaorg/Conformance-Gateway, " +
		"tnt/src/main/resources/standards/tnt/messages/tnt-220-response.json, Apache-2.0); no script fetches it",
}

const postgresServer = "PostgreSQL's server programs initdb and pg_ctl (Debian package postgresql), which scripts/testtools.sh installs"

// Strict reports whether StrictEnv asks for missing prerequisites to fail tests.
func Strict() bool {
	v := os.Getenv(StrictEnv)
	return v != "" && v != "0"
}

// Need returns the path of the program name, looked for on PATH and then in each of dirs in turn.
// A dir may be a glob pattern, whose matches are tried highest version first (numbers compared by
// value: /usr/lib/postgresql/17/bin before /usr/lib/postgresql/9.6/bin). When the program is in
// none, Need skips t, or fails it when Strict, naming what to install. name must be one of the
// prerequisites this package knows, or t fails whatever the mode.
func Need(t testing.TB, name string, dirs ...string) string {
	t.Helper()
	known(t, name)
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, pattern := range dirs {
		matches, _ := filepath.Glob(pattern)
		slices.SortFunc(matches, func(a, b string) int { return compareVersions(b, a) })
		for _, dir := range matches {
			p := filepath.Join(dir, name)
			if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
				return p
			}
		}
	}
	where := "is not on PATH"
	if len(dirs) > 0 {
		where = "is neither on PATH nor in " + strings.Join(dirs, ", ")
	}
	Missing(t, name, where)
	return ""
}

// Missing skips t, or fails it when Strict, for want of the prerequisite name; why completes "name,
// which …" with what was looked for. Like t.Skip and t.Fatal, it never returns. name must be one
// of the prerequisites this package knows, or t fails whatever the mode.
func Missing(t testing.TB, name, why string) {
	t.Helper()
	known(t, name)
	msg := fmt.Sprintf("%s needs %s, which %s. Install %s.", t.Name(), name, why, installs[name])
	if Strict() {
		t.Fatalf("MISSING PREREQUISITE: %s It fails the test because %s is set (make test and .ci/run set it); a bare go test skips it.", msg, StrictEnv)
	}
	t.Skipf("SKIPPED, MISSING PREREQUISITE: %s make test and .ci/run fail here instead (they set %s=1).", msg, StrictEnv)
}

// compareVersions compares a and b as text, except that runs of digits compare by their value.
func compareVersions(a, b string) int {
	for a != "" && b != "" {
		da, db := leadingDigits(a), leadingDigits(b)
		if da == "" || db == "" {
			if c := cmp.Compare(a[0], b[0]); c != 0 {
				return c
			}
			a, b = a[1:], b[1:]
			continue
		}
		// Without leading zeros, the longer number is the larger.
		na, nb := strings.TrimLeft(da, "0"), strings.TrimLeft(db, "0")
		if c := cmp.Or(cmp.Compare(len(na), len(nb)), cmp.Compare(na, nb)); c != 0 {
			return c
		}
		a, b = a[len(da):], b[len(db):]
	}
	return cmp.Compare(len(a), len(b))
}

func leadingDigits(s string) string {
	i := 0
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return s[:i]
}

func known(t testing.TB, name string) {
	t.Helper()
	if _, ok := installs[name]; !ok {
		t.Fatalf("testenv: %q is no prerequisite this package knows how to install; add it to installs", name)
	}
}

// OptIn runs the rest of t only when the environment variable env is set: a long run that a
// Makefile target chooses (make soak sets BOXWATCH_SOAK=1), never a prerequisite, so it skips in
// strict mode too, saying which target runs it.
func OptIn(t testing.TB, env, target string) {
	t.Helper()
	if os.Getenv(env) == "" {
		t.Skipf("%s runs with %s (%s=1), not in make test", t.Name(), target, env)
	}
}
