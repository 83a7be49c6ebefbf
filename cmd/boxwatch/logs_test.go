package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// duplicateKey returns the first key that appears twice in one object of a JSON document, or "".
func duplicateKey(line string) (string, error) {
	dec := json.NewDecoder(strings.NewReader(line))
	var walk func() (string, error)
	walk = func() (string, error) {
		tok, err := dec.Token()
		if err != nil {
			return "", err
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return "", err
				}
				key := fmt.Sprint(k)
				if seen[key] {
					return key, nil
				}
				seen[key] = true
				if dup, err := walk(); dup != "" || err != nil {
					return dup, err
				}
			}
			_, err = dec.Token()
			return "", err
		case json.Delim('['):
			for dec.More() {
				if dup, err := walk(); dup != "" || err != nil {
					return dup, err
				}
			}
			_, err = dec.Token()
			return "", err
		}
		return "", nil
	}
	return walk()
}

// checkLogLines fails the test for a log line of p that is not JSON or repeats a key, and for
// River's routine reports logged above debug level.
func checkLogLines(t *testing.T, p *process) {
	t.Helper()
	p.mu.Lock()
	lines := append([]string(nil), p.log...)
	p.mu.Unlock()
	for _, line := range lines {
		dup, err := duplicateKey(line)
		if err != nil {
			t.Errorf("log line is not JSON (%v): %s", err, line)
			continue
		}
		if dup != "" {
			t.Errorf("log line repeats %q: %s", dup, line)
		}
		var l struct{ Level, Msg string }
		json.Unmarshal([]byte(line), &l)
		if l.Level != "DEBUG" && (strings.HasSuffix(l.Msg, "Producer job counts") || strings.HasSuffix(l.Msg, "Ran successfully") && !strings.HasPrefix(l.Msg, "JobRescuer")) {
			t.Errorf("a routine River report at %s: %s", l.Level, line)
		}
	}
}

func TestDuplicateKey(t *testing.T) {
	for line, want := range map[string]string{
		`{"a":1,"b":{"c":2}}`:                  "",
		`{"component":"x","component":"y"}`:    "component",
		`{"a":[{"b":1,"b":2}]}`:                "b",
		`{"a":{"b":1},"c":{"b":2},"d":"b"}`:    "",
		`{"msg":"{\"a\":1,\"a\":2}","a":true}`: "",
	} {
		if got, err := duplicateKey(line); got != want || err != nil {
			t.Errorf("duplicateKey(%s) = %q, %v; want %q", line, got, err, want)
		}
	}
}
