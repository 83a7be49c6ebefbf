package api

import (
	"strings"
	"testing"
)

func TestETagMatches(t *testing.T) {
	t.Parallel()
	const tag = `"abc"`
	tests := []struct {
		header string
		want   bool
	}{
		{`"abc"`, true}, {`W/"abc"`, true}, {`"x", "abc"`, true}, {` "x" ,W/"abc"`, true}, {"*", true},
		{"", false}, {`"abcd"`, false}, {`abc`, false}, {`"abc`, false}, {`"x",`, false}, {`W/`, false}, {`,,,`, false},
	}
	for _, tt := range tests {
		if got := etagMatches(tt.header, tag); got != tt.want {
			t.Errorf("etagMatches(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
}

func FuzzETagMatches(f *testing.F) {
	for _, s := range []string{`"abc"`, `W/"abc", "d"`, `*`, `"`, `W/"`, ` , ,"abc"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		// It must end without panicking, and match only a header that names the tag or *.
		if etagMatches(header, `"abc"`) && !strings.Contains(header, `"abc"`) && !strings.Contains(header, "*") {
			t.Errorf("%q matches without naming the tag", header)
		}
	})
}
