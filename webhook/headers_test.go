package webhook_test

import (
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch/webhook"
)

func TestCheckHeader(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, header, value string
		problem             string // part of the problem; "" when accepted
	}{
		{"OK", "x-secret-sauce", "sriracha", ""},
		{"OKAuthorization", "Authorization", "Token abc", ""},
		{"OKEmptyValue", "X-Empty", "", ""},
		{"OKNonASCIIValueWithTab", "X-Name", "Müller\tand co", ""},
		{"OKLongest", strings.Repeat("x", 128), strings.Repeat("v", 4096), ""},
		{"ErrBlankName", "", "b", "blank"},
		{"ErrLongName", strings.Repeat("x", 129), "a", "128"},
		{"ErrNameWithSpace", "X Secret", "a", "letters, digits"},
		{"ErrNameWithColon", "X-Secret:", "a", "letters, digits"},
		{"ErrNameWithLineBreak", "X-A\r\nX-B", "a", "letters, digits"},
		{"ErrReservedSignature", "x-t49-webhook-signature", "a", "X-T49-Webhook-Signature header is set by boxwatch"},
		{"ErrReservedStandardID", "webhook-id", "a", "Webhook-Id header"},
		{"ErrReservedStandardTimestamp", "Webhook-Timestamp", "1", "Webhook-Timestamp header"},
		{"ErrReservedStandardSignature", "WEBHOOK-SIGNATURE", "v1,x", "Webhook-Signature header"},
		{"ErrReservedContentType", "CONTENT-TYPE", "text/plain", "Content-Type header"},
		{"ErrReservedUserAgent", "user-agent", "x", "User-Agent header"},
		{"ErrReservedHost", "Host", "example.com", "Host header"},
		{"ErrReservedContentLength", "Content-Length", "3", "Content-Length header"},
		{"ErrLongValue", "X-A", strings.Repeat("v", 4097), "4096"},
		{"ErrValueWithLineBreak", "X-A", "a\r\nX-Injected: b", "line breaks"},
		{"ErrValueWithNUL", "X-A", "a\x00b", "control characters"},
		{"ErrValueWithSurroundingSpace", "X-A", " a", "spaces"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			problem := webhook.CheckHeader(tt.header, tt.value)
			if tt.problem == "" {
				if problem != "" {
					t.Fatalf("CheckHeader = %q, want none", problem)
				}
				return
			}
			if !strings.Contains(problem, tt.problem) || !strings.HasSuffix(problem, ".") {
				t.Fatalf("CheckHeader = %q, want a sentence mentioning %q", problem, tt.problem)
			}
			if !webhook.Reserved(tt.header) && strings.Contains(tt.problem, "header is set") {
				t.Fatalf("Reserved(%q) = false", tt.header)
			}
		})
	}
}
