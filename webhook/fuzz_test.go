package webhook_test

import (
	"context"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/webhook"
)

func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{
		"https://hooks.example.com/in", "https://hooks.example.com:8443/in?x=1", "http://hooks.example.com/",
		"https://user:pw@hooks.example.com/", "https://hooks.example.com/#x", "https://[::ffff:127.0.0.1]/",
		"https://[fe80::1%25en0]/", "https://2130706433/", "https://0x7f.1/", "https://private.example.com/",
		"https://hooks.example.com:0/", "https:hooks.example.com", "https:///x", "javascript:alert(1)", "",
		" https://hooks.example.com", "https://hooks.example.com\x00/", "https://%68ooks.example.com/",
		"https://[2606:4700::1111]/", "https://169.254.169.254/latest/meta-data", "HTTPS://HOOKS.EXAMPLE.COM/",
	} {
		f.Add(s)
	}
	// Every name resolves to a public address except those that mention "private".
	dns := resolverFunc(func(host string) []string {
		if strings.Contains(host, "private") {
			return []string{"10.0.0.1"}
		}
		return []string{"8.8.8.8"}
	})
	f.Fuzz(func(t *testing.T, raw string) {
		err := webhook.CheckURL(context.Background(), raw, webhook.Policy{Resolver: dns})
		errPrivate := webhook.CheckURL(context.Background(), raw, webhook.Policy{AllowPrivate: true})
		for _, err := range []error{err, errPrivate} {
			if err != nil {
				if e := boxwatch.AsError(err); e == nil || e.Kind != boxwatch.KindInvalid || e.Pointer != "/data/attributes/url" || e.Message == "" {
					t.Fatalf("CheckURL(%q) = %#v, want an invalid-URL error", raw, err)
				}
			}
		}
		if err == nil && errPrivate != nil {
			t.Fatalf("CheckURL(%q) accepts under the production policy but not with AllowPrivate: %v", raw, errPrivate)
		}
		if err != nil {
			return
		}
		u, perr := url.Parse(raw)
		if perr != nil || u.Scheme != "https" || u.User != nil || u.Hostname() == "" || strings.Contains(raw, "#") ||
			strings.Contains(u.Hostname(), "private") || len(raw) > webhook.MaxURLLength {
			t.Fatalf("CheckURL accepted %q", raw)
		}
	})
}

// resolverFunc answers every lookup with the addresses answer gives for the host.
type resolverFunc func(host string) []string

func (f resolverFunc) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	var addrs []netip.Addr
	for _, s := range f(host) {
		addrs = append(addrs, netip.MustParseAddr(s))
	}
	return addrs, nil
}
