package webhook

import (
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name, value string
		wait        time.Duration
		ok          bool
	}{
		{"Seconds", "120", 2 * time.Minute, true},
		{"SecondsWithSpaces", " 5 ", 5 * time.Second, true},
		{"Zero", "0", 0, true},
		{"SecondsCapped", "86400", MaxRetryAfter, true},
		{"SecondsOverflowCapped", "184467440737095516160", MaxRetryAfter, true},
		{"Date", now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{"DateRFC850", now.Add(time.Hour).Format(time.RFC850), time.Hour, true},
		{"DatePast", now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{"DateCapped", now.Add(30 * 24 * time.Hour).Format(http.TimeFormat), MaxRetryAfter, true},
		{"ErrEmpty", "", 0, false},
		{"ErrNegative", "-5", 0, false},
		{"ErrFraction", "1.5", 0, false},
		{"ErrWords", "in a minute", 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wait, ok := parseRetryAfter(tt.value, now)
			if wait != tt.wait || ok != tt.ok {
				t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tt.value, wait, ok, tt.wait, tt.ok)
			}
		})
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, s := range []string{
		"0", "120", "21600", "21601", "99999999999999999999999", "-1", "1e3", "0x10", " 7 ", "",
		now.Format(http.TimeFormat), now.Add(time.Hour).Format(time.RFC850), now.Format(time.ANSIC),
		"Sun, 06 Nov 1994 08:49:37 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", "Mon, 32 Foo 2026 99:99:99 GMT",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		wait, ok := parseRetryAfter(v, now)
		if wait < 0 || wait > MaxRetryAfter || (!ok && wait != 0) {
			t.Fatalf("parseRetryAfter(%q) = %v, %v", v, wait, ok)
		}
		trimmed := strings.TrimSpace(v)
		if n, err := strconv.ParseUint(trimmed, 10, 64); err == nil && trimmed[0] != '+' {
			if want := min(time.Duration(min(n, 1<<32))*time.Second, MaxRetryAfter); !ok || wait != want {
				t.Fatalf("parseRetryAfter(%q) = %v, %v; want %v", v, wait, ok, want)
			}
		}
	})
}

func TestControlAddressRefusesBlockedAddresses(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		address string
		ok      bool
	}{
		{"8.8.8.8:443", true},
		{"[2606:4700:4700::1111]:443", true},
		{"127.0.0.1:443", false},
		{"[::ffff:169.254.169.254]:80", false},
		{"[fe80::1%eth0]:443", false},
		{"not an address", false},
	} {
		if err := controlAddress("tcp", tt.address, nil); (err == nil) != tt.ok {
			t.Errorf("controlAddress(%q) = %v, want ok %v", tt.address, err, tt.ok)
		}
	}
}

func TestBlockedReasonOfPublicAddressesIsEmpty(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"8.8.8.8", "::ffff:1.1.1.1", "2001:4860:4860::8888", "3fff:1000::1"} {
		if why := blockedReason(netip.MustParseAddr(s)); why != "" {
			t.Errorf("%s is %s, want public", s, why)
		}
	}
}

func TestNewClientTransport(t *testing.T) {
	t.Parallel()
	for _, allowPrivate := range []bool{false, true} {
		c := NewClient(Policy{AllowPrivate: allowPrivate})
		wrapped, isWrapped := c.Transport.(httpsOnly)
		tr, _ := c.Transport.(*http.Transport)
		if isWrapped {
			tr = wrapped.Transport
		}
		if tr == nil || isWrapped == allowPrivate {
			t.Fatalf("AllowPrivate %v: transport %T, want the https-only wrapper exactly without AllowPrivate", allowPrivate, c.Transport)
		}
		if tr.Proxy != nil || tr.TLSClientConfig != nil {
			t.Errorf("AllowPrivate %v: a proxy or a TLS configuration is set", allowPrivate)
		}
		if c.Timeout != DefaultTimeout {
			t.Errorf("AllowPrivate %v: Timeout = %v, want %v", allowPrivate, c.Timeout, DefaultTimeout)
		}
		if err := c.CheckRedirect(nil, nil); err != http.ErrUseLastResponse {
			t.Errorf("AllowPrivate %v: CheckRedirect = %v, want http.ErrUseLastResponse", allowPrivate, err)
		}
	}
}
