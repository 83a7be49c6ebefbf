package webhook_test

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/boxwatch/boxwatch"
)

// resolver answers lookups from a table; names not in it do not exist. Set may change an answer
// while tests run, as DNS may between registration and delivery.
type resolver struct {
	mu    sync.Mutex
	names map[string][]string
}

func newResolver(names map[string][]string) *resolver { return &resolver{names: names} }

func (r *resolver) Set(name string, addrs ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.names[name] = addrs
}

func (r *resolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	texts, ok := r.names[strings.TrimSuffix(host, ".")]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	var addrs []netip.Addr
	for _, s := range texts {
		a := netip.MustParseAddr(s)
		if network == "ip" || (network == "ip4") == a.Unmap().Is4() {
			addrs = append(addrs, a)
		}
	}
	return addrs, nil
}

// blockedAddresses holds addresses of every range webhooks may not reach, named by range.
var blockedAddresses = []struct{ name, addr string }{
	{"ThisNetwork", "0.0.0.0"}, {"ThisNetworkLast", "0.255.255.255"},
	{"Private10", "10.0.0.1"}, {"Private10Last", "10.255.255.255"},
	{"SharedCGNAT", "100.64.0.1"}, {"SharedCGNATLast", "100.127.255.254"},
	{"Loopback", "127.0.0.1"}, {"LoopbackOther", "127.255.255.254"},
	{"LinkLocal", "169.254.0.1"}, {"CloudMetadata", "169.254.169.254"},
	{"Private172", "172.16.0.1"}, {"Private172Last", "172.31.255.254"},
	{"IETFProtocol", "192.0.0.8"}, {"IETFProtocolNAT64Discovery", "192.0.0.170"},
	{"DocumentationNet1", "192.0.2.1"},
	{"AS112", "192.31.196.1"},
	{"AMT", "192.52.193.1"},
	{"SixToFourRelay", "192.88.99.1"},
	{"Private192", "192.168.1.1"},
	{"AS112Delegation", "192.175.48.1"},
	{"Benchmarking", "198.18.0.1"}, {"BenchmarkingLast", "198.19.255.254"},
	{"DocumentationNet2", "198.51.100.7"},
	{"DocumentationNet3", "203.0.113.9"},
	{"Multicast", "224.0.0.1"}, {"MulticastSSDP", "239.255.255.250"},
	{"Reserved", "240.0.0.1"}, {"ReservedHigh", "254.1.2.3"},
	{"Broadcast", "255.255.255.255"},

	{"Unspecified6", "::"},
	{"Loopback6", "::1"},
	{"IPv4Compatible", "::7f00:1"},
	{"IPv4Translated", "::ffff:0:a00:1"},
	{"NAT64", "64:ff9b::7f00:1"}, {"NAT64OfPublic", "64:ff9b::808:808"},
	{"NAT64Local", "64:ff9b:1::1"},
	{"DiscardOnly", "100::1"},
	{"DummyPrefix", "100:0:0:1::1"},
	{"Teredo", "2001::1"}, {"TeredoClient", "2001:0:4136:e378:8000:63bf:3fff:fdd2"},
	{"IETFProtocol6", "2001:1::1"},
	{"Benchmarking6", "2001:2::1"},
	{"ORCHIDv2", "2001:20::1"},
	{"Documentation6", "2001:db8::1"},
	{"SixToFour", "2002:7f00:1::1"}, {"SixToFourOfPublic", "2002:808:808::1"},
	{"Documentation3fff", "3fff::1"},
	{"SRv6", "5f00::1"},
	{"UniqueLocal", "fc00::1"}, {"UniqueLocalFD", "fd12:3456::1"},
	{"LinkLocal6", "fe80::1"},
	{"SiteLocal", "fec0::1"},
	{"Multicast6", "ff02::1"}, {"Multicast6Global", "ff0e::1"},
	{"Unallocated6", "4000::1"}, {"Unallocated6Low", "1234::1"}, {"Unallocated6High", "8000::1"},
}

// allBlockedAddresses adds the IPv4-mapped IPv6 form of every blocked IPv4 address.
func allBlockedAddresses() []struct{ name, addr string } {
	all := append([]struct{ name, addr string }(nil), blockedAddresses...)
	for _, b := range blockedAddresses {
		if a := netip.MustParseAddr(b.addr); a.Is4() {
			all = append(all, struct{ name, addr string }{"Mapped" + b.name, "::ffff:" + b.addr})
		}
	}
	return all
}

var publicAddresses = []string{
	"8.8.8.8", "1.1.1.1", "100.63.255.255", "100.128.0.1", "172.15.255.255", "172.32.0.1", "192.0.1.1",
	"192.169.0.1", "198.17.255.255", "198.20.0.1", "223.255.255.255", "::ffff:8.8.8.8",
	"2606:4700:4700::1111", "2001:4860:4860::8888", "2a00:1450:4001::1", "2001:200::1",
}

// hostPort writes addr as a URL host.
func hostPort(addr string) string {
	if strings.Contains(addr, ":") {
		return "[" + addr + "]"
	}
	return addr
}

// wantInvalidURL fails unless err is a KindInvalid *boxwatch.Error about the URL with a message
// written as a sentence.
func wantInvalidURL(t *testing.T, err error, code string) *boxwatch.Error {
	t.Helper()
	e := boxwatch.AsError(err)
	if e == nil {
		t.Fatalf("error = %v, want a *boxwatch.Error", err)
	}
	if e.Kind != boxwatch.KindInvalid || e.Pointer != "/data/attributes/url" || (code != "" && e.Code != code) {
		t.Fatalf("error = %#v, want KindInvalid at /data/attributes/url with code %q", e, code)
	}
	if m := e.Message; m == "" || m[0] < 'A' || m[0] > 'Z' || !strings.HasSuffix(m, ".") {
		t.Fatalf("message %q is not a sentence", m)
	}
	return e
}
