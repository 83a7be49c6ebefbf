package webhook

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch"
)

// MaxURLLength is the longest webhook URL CheckURL accepts, in bytes.
const MaxURLLength = 2048

// urlPointer is where the URL sits in a webhook request body.
const urlPointer = "/data/attributes/url"

// Resolver looks up the IP addresses of a host name; network is "ip", "ip4" or "ip6".
// *net.Resolver satisfies it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Policy says which URLs webhooks may be registered with, which addresses deliveries may reach
// and how long they may take. The zero value is the production policy.
type Policy struct {
	// AllowPrivate lifts the https rule and every address rule, for development and tests
	// (serve --webhook-allow-private).
	AllowPrivate bool
	// Resolver looks host names up, at registration and at every dial; nil means net.DefaultResolver.
	Resolver Resolver
	// Timeout bounds one delivery attempt through NewClient's client, from dialling to reading
	// the response; zero or less means DefaultTimeout. CheckURL ignores it.
	Timeout time.Duration
}

// CheckURL reports whether raw may be registered as a webhook URL under p: an absolute https URL
// (http too with AllowPrivate) with a host, without user name, password or fragment, whose host is
// a public IP address or a name all of whose addresses are public. Names are resolved with
// p.Resolver; AllowPrivate skips the lookup.
//
// A URL that breaks a rule yields a *boxwatch.Error of KindInvalid whose message can be shown to the
// user, pointing at /data/attributes/url. When ctx ends during the lookup, CheckURL returns ctx.Err().
func CheckURL(ctx context.Context, raw string, p Policy) error {
	u, err := parseURL(raw, p)
	if err != nil {
		return err
	}
	if p.AllowPrivate {
		return nil
	}
	host := u.Hostname()
	addrs, err := p.lookup(ctx, "ip", host)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return invalidURL("The URL's host name %s could not be resolved; check it, or try again once its DNS records are published.", host)
	}
	if err := checkAddrs(host, addrs); err != nil {
		return invalidURL("The URL's host %v; use a host with public internet addresses only.", err)
	}
	return nil
}

// parseURL checks everything about raw that needs no lookup.
func parseURL(raw string, p Policy) (*url.URL, error) {
	switch {
	case strings.TrimSpace(raw) == "":
		return nil, boxwatch.Invalid(urlPointer, boxwatch.CodeBlank, "The URL must not be blank.")
	case len(raw) > MaxURLLength:
		return nil, boxwatch.Invalid(urlPointer, boxwatch.CodeTooLong, "The URL must be at most %d characters long.", MaxURLLength)
	case strings.TrimSpace(raw) != raw:
		return nil, invalidURL("The URL must not begin or end with spaces.")
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() {
		return nil, invalidURL("The URL must be an absolute URL such as https://example.com/webhooks.")
	}
	switch {
	case u.Scheme == "http" && p.AllowPrivate, u.Scheme == "https":
	case p.AllowPrivate:
		return nil, invalidURL("The URL must use http or https.")
	default:
		return nil, invalidURL("The URL must use https.")
	}
	switch {
	case u.Opaque != "" || u.Hostname() == "":
		return nil, invalidURL("The URL must include a host name, as in https://example.com/webhooks.")
	case u.User != nil:
		return nil, invalidURL("The URL must not contain a user name or password; send credentials in a custom header instead.")
	case strings.Contains(raw, "#"):
		return nil, invalidURL("The URL must not contain a fragment (a part after #).")
	}
	if port := u.Port(); port != "" || strings.HasSuffix(u.Host, ":") {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return nil, invalidURL("The URL's port must be a number from 1 to 65535.")
		}
	}
	host := u.Hostname()
	if addr, literal := parseHostAddr(host); literal {
		if addr.Zone() != "" {
			return nil, invalidURL("The URL's host must not be a scoped IPv6 address.")
		}
	} else if looksNumeric(host) {
		return nil, invalidURL("The URL's host %s is neither a host name nor an IP address in standard notation.", host)
	}
	return u, nil
}

// parseHostAddr parses host as an IP address literal.
func parseHostAddr(host string) (netip.Addr, bool) {
	addr, err := netip.ParseAddr(host)
	return addr, err == nil
}

// looksNumeric reports whether host's last label is a number (no top-level domain is), the mark
// of the shorthand and octal or hex IPv4 spellings some resolvers accept, such as 127.1 or
// 0x7f000001.
func looksNumeric(host string) bool {
	host = strings.TrimSuffix(host, ".")
	last := host[strings.LastIndexByte(host, '.')+1:]
	if strings.HasPrefix(strings.ToLower(last), "0x") {
		return true
	}
	return last != "" && strings.Trim(last, "0123456789") == ""
}

func invalidURL(format string, args ...any) error {
	return boxwatch.Invalid(urlPointer, boxwatch.CodeInvalid, format, args...)
}

// lookup returns host's addresses: host itself when it is an IP literal, or what the resolver says.
func (p Policy) lookup(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if addr, literal := parseHostAddr(host); literal {
		return []netip.Addr{addr}, nil
	}
	r := p.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	addrs, err := r.LookupNetIP(ctx, network, host)
	if err == nil && len(addrs) == 0 {
		err = &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
	}
	return addrs, err
}

// blockedError is a dial refused because the host has an address webhooks may not reach.
type blockedError struct {
	host string
	what string
}

func (e *blockedError) Error() string {
	if _, literal := parseHostAddr(e.host); literal {
		return fmt.Sprintf("%s is %s, which webhooks may not reach", e.host, e.what)
	}
	return fmt.Sprintf("%s resolves to %s, which webhooks may not reach", e.host, e.what)
}

// checkAddrs returns a *blockedError for the first address of host that webhooks may not reach.
func checkAddrs(host string, addrs []netip.Addr) error {
	for _, a := range addrs {
		if what := blockedReason(a); what != "" {
			return &blockedError{host: host, what: what}
		}
	}
	return nil
}
