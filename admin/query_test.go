package admin

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseQuery(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		want      query
		err       bool
	}{
		{"Default", "", query{limit: defaultLimit}, false},
		{"Both", "limit=5&kind=lookup", query{limit: 5, kind: "lookup"}, false},
		{"MaxLimit", "limit=500", query{limit: 500}, false},
		{"ErrLimitZero", "limit=0", query{}, true},
		{"ErrLimitTooHigh", "limit=501", query{}, true},
		{"ErrLimitNotNumber", "limit=ten", query{}, true},
		{"ErrRepeated", "kind=a&kind=b", query{}, true},
		{"ErrKindMarkup", "kind=%3Cb%3E", query{}, true},
		{"ErrKindEmpty", "kind=", query{}, true},
		{"ErrUnknown", "page=2", query{}, true},
		{"ErrMalformed", "limit=%zz", query{}, true},
		{"ErrTooLong", "kind=" + strings.Repeat("a", 2000), query{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseQuery(tc.raw)
			if (err != nil) != tc.err || (err == nil && got != tc.want) {
				t.Errorf("parseQuery(%q) = %+v, %v; want %+v, error %v", tc.raw, got, err, tc.want, tc.err)
			}
		})
	}
}

// FuzzParseQuery: whatever the query string, a query accepted is within bounds, and a refusal's
// message quotes nothing of it.
func FuzzParseQuery(f *testing.F) {
	for _, seed := range []string{"", "limit=5", "kind=lookup&limit=500", "limit=%00", "kind=%FF", "a=1&a=2", "%", ";", "limit=1e3"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := parseQuery(raw)
		if err != nil {
			msg := err.Error()
			if !utf8.ValidString(msg) || strings.ContainsAny(msg, "<>\x00") {
				t.Fatalf("refusal %q is not plain", msg)
			}
			return
		}
		if q.limit < 1 || q.limit > maxLimit || (q.kind != "" && !validKind(q.kind)) {
			t.Fatalf("parseQuery(%q) accepted %+v", raw, q)
		}
	})
}

func TestCut(t *testing.T) {
	if got := cut("héllo\xff", 3); got != "hél…" {
		t.Errorf("cut = %q", got)
	}
	if got := cut("ok", 3); got != "ok" {
		t.Errorf("cut = %q", got)
	}
}

func TestRedactURL(t *testing.T) {
	for raw, want := range map[string]string{
		"https://hooks.example.com/boxwatch":                 "https://hooks.example.com/boxwatch",
		"https://user:pass@hooks.example.com/x?token=secret": "https://hooks.example.com/x?…",
		"http://[::1]:8080/a#frag":                           "http://[::1]:8080/a",
	} {
		if got := redactURL(raw); got != want {
			t.Errorf("redactURL(%q) = %q, want %q", raw, got, want)
		}
	}
}
