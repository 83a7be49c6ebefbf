package webhook_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/webhook"
)

func TestCheckURL(t *testing.T) {
	t.Parallel()
	dns := newResolver(map[string][]string{
		"hooks.example.com": {"93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"},
		"localhost":         {"127.0.0.1", "::1"},
		"mixed.example.com": {"93.184.215.14", "10.1.2.3"},
		"meta.example.com":  {"169.254.169.254"},
		"empty.example.com": {},
	})
	p := webhook.Policy{Resolver: dns}
	for _, tt := range []struct {
		name, url string
		code      string // "" when the URL is accepted
		message   string // part of the message, when checked
	}{
		{"OK", "https://hooks.example.com/boxwatch", "", ""},
		{"OKPortAndQuery", "https://hooks.example.com:8443/in?token=abc", "", ""},
		{"OKTrailingDot", "https://hooks.example.com./in", "", ""},
		{"OKIPv4Literal", "https://8.8.8.8/hook", "", ""},
		{"OKIPv6Literal", "https://[2606:4700:4700::1111]:443/hook", "", ""},
		{"ErrBlank", "", boxwatch.CodeBlank, "blank"},
		{"ErrBlankSpaces", "   ", boxwatch.CodeBlank, "blank"},
		{"ErrTooLong", "https://hooks.example.com/" + strings.Repeat("a", 2048), boxwatch.CodeTooLong, "2048"},
		{"ErrSurroundingSpaces", " https://hooks.example.com/", boxwatch.CodeInvalid, "spaces"},
		{"ErrRelative", "/webhooks", boxwatch.CodeInvalid, "absolute"},
		{"ErrNoScheme", "hooks.example.com/in", boxwatch.CodeInvalid, "absolute"},
		{"ErrHTTP", "http://hooks.example.com/in", boxwatch.CodeInvalid, "https"},
		{"ErrFTP", "ftp://hooks.example.com/in", boxwatch.CodeInvalid, "https"},
		{"ErrJavascript", "javascript:alert(1)", boxwatch.CodeInvalid, "https"},
		{"ErrOpaque", "https:hooks.example.com", boxwatch.CodeInvalid, "host name"},
		{"ErrNoHost", "https:///in", boxwatch.CodeInvalid, "host name"},
		{"ErrPortOnly", "https://:443/in", boxwatch.CodeInvalid, "host name"},
		{"ErrUserAndPassword", "https://user:pw@hooks.example.com/in", boxwatch.CodeInvalid, "password"},
		{"ErrUser", "https://user@hooks.example.com/in", boxwatch.CodeInvalid, "user name"},
		{"ErrFragment", "https://hooks.example.com/in#top", boxwatch.CodeInvalid, "fragment"},
		{"ErrEmptyFragment", "https://hooks.example.com/in#", boxwatch.CodeInvalid, "fragment"},
		{"ErrPortZero", "https://hooks.example.com:0/in", boxwatch.CodeInvalid, "port"},
		{"ErrPortTooBig", "https://hooks.example.com:65536/in", boxwatch.CodeInvalid, "port"},
		{"ErrPortEmpty", "https://hooks.example.com:/in", boxwatch.CodeInvalid, "port"},
		{"ErrDecimalIPv4", "https://2130706433/in", boxwatch.CodeInvalid, "standard notation"},
		{"ErrShortIPv4", "https://127.1/in", boxwatch.CodeInvalid, "standard notation"},
		{"ErrHexIPv4", "https://0x7f000001/in", boxwatch.CodeInvalid, "standard notation"},
		{"ErrOctalIPv4", "https://0177.0.0.1/in", boxwatch.CodeInvalid, "standard notation"},
		{"ErrScopedIPv6", "https://[fe80::1%25eth0]/in", boxwatch.CodeInvalid, "scoped"},
		{"ErrUnresolvable", "https://nxdomain.example.com/in", boxwatch.CodeInvalid, "could not be resolved"},
		{"ErrNoAddresses", "https://empty.example.com/in", boxwatch.CodeInvalid, "could not be resolved"},
		{"ErrLoopbackName", "https://localhost/in", boxwatch.CodeInvalid, "loopback"},
		{"ErrOneAddressPrivate", "https://mixed.example.com/in", boxwatch.CodeInvalid, "private-use"},
		{"ErrMetadataName", "https://meta.example.com/latest", boxwatch.CodeInvalid, "link-local"},
		{"ErrMetadataLiteral", "https://169.254.169.254/latest", boxwatch.CodeInvalid, "link-local"},
		{"ErrMappedLoopbackLiteral", "https://[::ffff:127.0.0.1]/in", boxwatch.CodeInvalid, "loopback"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := webhook.CheckURL(context.Background(), tt.url, p)
			if tt.code == "" {
				if err != nil {
					t.Fatalf("CheckURL(%q) = %v, want nil", tt.url, err)
				}
				return
			}
			e := wantInvalidURL(t, err, tt.code)
			if !strings.Contains(e.Message, tt.message) {
				t.Errorf("message %q does not mention %q", e.Message, tt.message)
			}
		})
	}
}

func TestCheckURLRefusesEveryBlockedRange(t *testing.T) {
	t.Parallel()
	dns := newResolver(map[string][]string{})
	p := webhook.Policy{Resolver: dns}
	for _, b := range allBlockedAddresses() {
		t.Run(b.name, func(t *testing.T) {
			e := wantInvalidURL(t, webhook.CheckURL(context.Background(), "https://"+hostPort(b.addr)+"/in", p), boxwatch.CodeInvalid)
			if !strings.Contains(e.Message, "may not reach") {
				t.Errorf("literal: message %q does not say why", e.Message)
			}
			// A name whose other address is public is refused all the same.
			dns.Set("hook.example.com", "8.8.8.8", b.addr)
			e = wantInvalidURL(t, webhook.CheckURL(context.Background(), "https://hook.example.com/in", p), boxwatch.CodeInvalid)
			if !strings.Contains(e.Message, "hook.example.com resolves to") {
				t.Errorf("name: message %q does not say why", e.Message)
			}
		})
	}
}

func TestCheckURLAcceptsPublicAddresses(t *testing.T) {
	t.Parallel()
	dns := newResolver(map[string][]string{"hook.example.com": publicAddresses})
	p := webhook.Policy{Resolver: dns}
	if err := webhook.CheckURL(context.Background(), "https://hook.example.com/in", p); err != nil {
		t.Errorf("name with public addresses: %v", err)
	}
	for _, a := range publicAddresses {
		if err := webhook.CheckURL(context.Background(), "https://"+hostPort(a)+"/in", p); err != nil {
			t.Errorf("%s: %v", a, err)
		}
	}
}

func TestCheckURLAllowPrivate(t *testing.T) {
	t.Parallel()
	// No resolver answers: with AllowPrivate the host is not looked up at all.
	p := webhook.Policy{AllowPrivate: true, Resolver: newResolver(map[string][]string{})}
	for _, tt := range []struct{ name, url, code string }{
		{"OKHTTPLoopback", "http://127.0.0.1:8080/hook", ""},
		{"OKLocalhost", "http://localhost/hook", ""},
		{"OKPrivateHTTPS", "https://10.0.0.1/hook", ""},
		{"OKMetadata", "http://169.254.169.254/", ""},
		{"ErrFTP", "ftp://127.0.0.1/hook", boxwatch.CodeInvalid},
		{"ErrUserinfo", "http://u:p@127.0.0.1/hook", boxwatch.CodeInvalid},
		{"ErrFragment", "http://127.0.0.1/hook#x", boxwatch.CodeInvalid},
		{"ErrBlank", "", boxwatch.CodeBlank},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := webhook.CheckURL(context.Background(), tt.url, p)
			if tt.code == "" {
				if err != nil {
					t.Fatalf("CheckURL(%q) = %v, want nil", tt.url, err)
				}
				return
			}
			wantInvalidURL(t, err, tt.code)
		})
	}
}

func TestCheckURLReturnsContextError(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := webhook.CheckURL(ctx, "https://hooks.example.com/", webhook.Policy{Resolver: newResolver(map[string][]string{})})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("CheckURL with a cancelled context = %v, want context.Canceled", err)
	}
}
