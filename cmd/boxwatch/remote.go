package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/boxwatch/boxwatch/client"
)

// Exit codes of the client commands, beyond 0 (done), 1 (the call failed) and 2 (bad usage).
const (
	exitTrackingFailed = 3 // track: the tracking request failed; the reason is printed
	exitNeedsCarrier   = 4 // track: the carrier or number type needs a choice and stdin is no terminal
)

// exitError ends the program with its own exit code.
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

// remote is what every client command shares: where the service is, the key, and the output form.
type remote struct {
	flags        flagSet
	url, key     string
	json         bool
	stdin        io.Reader
	stdout       io.Writer
	stderr       io.Writer
	pollInterval time.Duration
	getenv       func(string) string
	answers      *bufio.Reader // stdin, once a question was asked
}

// newRemote makes a client command's flag set with --url, --key and --json.
func newRemote(name string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) *remote {
	r := &remote{flags: flagSet{flag.NewFlagSet(name, flag.ContinueOnError), stderr}, getenv: getenv,
		stdin: stdin, stdout: stdout, stderr: stderr, pollInterval: time.Second}
	r.flags.SetOutput(io.Discard)
	r.flags.StringVar(&r.url, "url", client.DefaultURL, "the boxwatch service (env BOXWATCH_URL)")
	r.flags.StringVar(&r.key, "key", "", "API key (env BOXWATCH_KEY)")
	r.flags.BoolVar(&r.json, "json", false, "print JSON for scripts instead of tables")
	return r
}

// parse reads the flags and checks the positional arguments' count against want.
func (r *remote) parse(args []string, usage string, want func(n int) bool) ([]string, error) {
	pos, err := parseFlags(r.flags, args, r.getenv)
	if err != nil {
		return nil, err
	}
	if !want(len(pos)) {
		return nil, usagef("usage: boxwatch %s", usage)
	}
	for _, p := range pos {
		if strings.TrimSpace(p) == "" {
			return nil, usagef("empty argument (usage: boxwatch %s)", usage)
		}
	}
	return pos, nil
}

func exactly(n int) func(int) bool { return func(got int) bool { return got == n } }

// client builds the API client; a key is required since every /v2 endpoint needs one.
func (r *remote) client() (*client.Client, error) {
	if r.key == "" {
		return nil, usagef("no API key: pass --key or set BOXWATCH_KEY (make run prints one)")
	}
	c, err := client.New(r.url, r.key)
	if err != nil {
		return nil, usagef("--url: %v", strings.TrimPrefix(err.Error(), "client: "))
	}
	return c, nil
}

// printJSON writes v indented, for scripts.
func (r *remote) printJSON(v any) error {
	enc := json.NewEncoder(r.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// table writes aligned columns; call flush when done.
func table(w io.Writer, header ...string) *tabwriter.Writer {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	return tw
}

// row writes one table row; control characters from the server are made visible, so a hostile
// value cannot move the cursor or break the columns.
func row(tw io.Writer, cells ...string) {
	for i, c := range cells {
		cells[i] = printable(c)
	}
	fmt.Fprintln(tw, strings.Join(cells, "\t"))
}

// printable escapes control characters (terminal escapes, tabs, newlines) in text from the server.
func printable(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, c := range s {
		if isControl(c) {
			fmt.Fprintf(&b, "\\x%02x", c)
		} else {
			b.WriteRune(c)
		}
	}
	return b.String()
}

func isControl(c rune) bool { return c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) }

func str(p *string) string {
	if p == nil || *p == "" {
		return "-"
	}
	return *p
}

func when(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04Z")
}

// terminal reports whether f is an interactive terminal. Tests stand in for one with a value
// that has an IsTerminal method.
func terminal(f any) bool {
	switch v := f.(type) {
	case interface{ IsTerminal() bool }:
		return v.IsTerminal()
	case *os.File:
		return isatty.IsTerminal(v.Fd())
	}
	return false
}

// apiError turns a failed call into one line that says what went wrong and what to do.
func apiError(err error) error {
	var e *client.Error
	if !errors.As(err, &e) {
		return fmt.Errorf("%v (is boxwatch running there? start it with 'make run' or set --url)", err)
	}
	switch e.StatusCode {
	case 401:
		return fmt.Errorf("the service refused the API key (401): check --key or BOXWATCH_KEY")
	case 429:
		return fmt.Errorf("rate limited (429): %s", e.Detail())
	}
	msg := err.Error()
	if e.RequestID != "" && e.StatusCode >= 500 {
		msg += " (request id " + e.RequestID + ")"
	}
	return errors.New(msg)
}
