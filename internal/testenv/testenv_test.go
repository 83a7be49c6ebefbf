package testenv_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch/internal/testenv"
)

// probeEnv, set in a child process of TestNeed, names the program the child asks Need for.
const probeEnv = "BOXWATCH_TESTENV_PROBE"

// TestNeed runs this test binary again as a child that asks Need for one program, with PATH
// holding only a folder of its own (empty, or with a stand-in for the program), and checks what
// go test reports: a missing program skips the child, or fails it with StrictEnv set, naming what
// to install; a program it does not know fails it either way; a present one passes.
func TestNeed(t *testing.T) {
	if name := os.Getenv(probeEnv); name != "" {
		fmt.Println("found", testenv.Need(t, name))
		return
	}
	for _, name := range []string{"pg_ctl", "npm", "node"} {
		t.Run(name, func(t *testing.T) {
			t.Run("MissingStrict", func(t *testing.T) {
				out, err := probe(t, name, true, t.TempDir())
				wantExit(t, err, 1, out)
				wantLines(t, out, "--- FAIL: TestNeed", "MISSING PREREQUISITE: TestNeed needs "+name+", which is not on PATH.", "scripts/testtools.sh", testenv.StrictEnv)
			})
			t.Run("MissingSkips", func(t *testing.T) {
				out, err := probe(t, name, false, t.TempDir())
				wantExit(t, err, 0, out)
				wantLines(t, out, "--- SKIP: TestNeed", "SKIPPED, MISSING PREREQUISITE: TestNeed needs "+name+", which is not on PATH.", "scripts/testtools.sh")
			})
			t.Run("Present", func(t *testing.T) {
				dir := t.TempDir()
				if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
					t.Fatal(err)
				}
				out, err := probe(t, name, true, dir)
				wantExit(t, err, 0, out)
				wantLines(t, out, "--- PASS: TestNeed", "found "+filepath.Join(dir, name))
			})
		})
	}
	t.Run("Unknown", func(t *testing.T) {
		for _, strict := range []bool{false, true} {
			out, err := probe(t, "gcc", strict, t.TempDir())
			wantExit(t, err, 1, out)
			wantLines(t, out, "--- FAIL: TestNeed", `testenv: "gcc" is no prerequisite this package knows`)
		}
	})
}

// A program missing from PATH is found in the folders given, in their order, and a pattern's
// matches are tried highest version first.
func TestNeedLooksInFolders(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	versions := t.TempDir()
	first, second := t.TempDir(), t.TempDir()
	for _, dir := range []string{first, second, versions + "/9.6/bin", versions + "/15/bin", versions + "/10/bin"} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "initdb"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		dirs []string
		want string
	}{
		{[]string{t.TempDir(), second, first}, second},
		{[]string{versions + "/*/bin", first}, versions + "/15/bin"},
		{[]string{versions + "/1*/bin"}, versions + "/15/bin"},
		{[]string{versions + "/9*/bin", first}, versions + "/9.6/bin"},
	} {
		if got := testenv.Need(t, "initdb", tc.dirs...); got != filepath.Join(tc.want, "initdb") {
			t.Errorf("Need(%v) = %s, want the one in %s", tc.dirs, got, tc.want)
		}
	}
}

// probe runs TestNeed in a child asking for name, with path as its whole PATH.
func probe(t *testing.T, name string, strict bool, path string) (string, error) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^TestNeed$", "-test.v", "-test.count=1")
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, testenv.StrictEnv+"=")
	})
	// The race detector waits a second before a passing binary exits, unless told not to.
	cmd.Env = append(cmd.Env, "PATH="+path, probeEnv+"="+name, "GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0")
	if strict {
		cmd.Env = append(cmd.Env, testenv.StrictEnv+"=1")
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func wantExit(t *testing.T, err error, code int, out string) {
	t.Helper()
	got := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		got = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if got != code {
		t.Fatalf("the child exited %d, want %d:\n%s", got, code, out)
	}
}

func wantLines(t *testing.T, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("the child's output lacks %q:\n%s", w, out)
		}
	}
}
