package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"syscall"
	"time"
)

// NewClient returns the http.Client deliveries go through. It resolves host names with
// p.Resolver and dials only the addresses it got. Under the production policy it refuses plain
// http and checks every one of those addresses with the rules of CheckURL first, since DNS may have
// changed since registration; AllowPrivate lifts both rules. It never follows redirects (Deliver
// counts a 3xx as a failed attempt), ignores proxy settings from the environment and uses the
// default TLS configuration. p.Timeout bounds a whole attempt.
//
// Deliver expects a client from NewClient; share one per process so connections are reused.
func NewClient(p Policy) *http.Client {
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	d := &dialer{policy: p, net: net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}}
	if !p.AllowPrivate {
		// The dial already checks what it dials; Control checks again at the socket, so an address
		// that reaches the socket some other way is still refused.
		d.net.Control = controlAddress
	}
	transport := &http.Transport{
		Proxy:                  nil,
		DialContext:            d.dialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    timeout,
		MaxIdleConns:           512,
		MaxIdleConnsPerHost:    32,
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
		DisableCompression:     true,
	}
	var rt http.RoundTripper = transport
	if !p.AllowPrivate {
		rt = httpsOnly{transport}
	}
	return &http.Client{
		Transport:     rt,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// errPlainHTTP is a delivery to an http URL under the production policy.
var errPlainHTTP = errors.New("webhooks are delivered over https only")

// httpsOnly refuses every request that is not https before it reaches the network.
type httpsOnly struct{ *http.Transport }

func (t httpsOnly) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != "https" {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, errPlainHTTP
	}
	return t.Transport.RoundTrip(req)
}

type dialer struct {
	policy Policy
	net    net.Dialer
}

func (d *dialer) dialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, portText, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("bad port in %q", address)
	}
	ipNetwork := "ip"
	switch network {
	case "tcp4":
		ipNetwork = "ip4"
	case "tcp6":
		ipNetwork = "ip6"
	}
	addrs, err := d.policy.lookup(ctx, ipNetwork, host)
	if err != nil {
		return nil, err
	}
	if !d.policy.AllowPrivate {
		if err := checkAddrs(host, addrs); err != nil {
			return nil, err
		}
	}
	// Like net.Dialer, share the dial timeout among the addresses, so that one that never
	// answers (a black-holed IPv6 route, say) leaves time for the next.
	start := time.Now()
	var firstErr error
	for i, a := range addrs {
		remaining := d.net.Timeout - time.Since(start)
		if remaining <= 0 {
			break
		}
		nd := d.net
		nd.Timeout = max(remaining/time.Duration(len(addrs)-i), min(minDialTimeout, remaining))
		conn, err := nd.DialContext(ctx, network, netip.AddrPortFrom(a, uint16(port)).String())
		if err == nil {
			return conn, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, firstErr
}

// minDialTimeout is the least time an address gets when a host has several.
const minDialTimeout = 2 * time.Second

// controlAddress refuses to connect a socket to an address webhooks may not reach.
func controlAddress(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("unexpected dial address %q", address)
	}
	return checkAddrs(ap.Addr().String(), []netip.Addr{ap.Addr()})
}
