package webhook

import "net/netip"

// blockedRange is a block of addresses webhooks may not reach, with how to name it to a user.
type blockedRange struct {
	prefix netip.Prefix
	what   string
}

// blockedRanges are the IANA special-purpose blocks (RFC 6890 and its successors) and the other
// blocks that are not ordinary public unicast, most specific first so the first match names the
// address best. IPv4-mapped IPv6 addresses are unmapped before the lookup, and IPv6 outside
// 2000::/3, the only block allocated for global unicast, is refused as well.
var blockedRanges = []blockedRange{
	{netip.MustParsePrefix("0.0.0.0/8"), `a "this network" address`},
	{netip.MustParsePrefix("10.0.0.0/8"), "a private-use address"},
	{netip.MustParsePrefix("100.64.0.0/10"), "a shared (carrier-grade NAT) address"},
	{netip.MustParsePrefix("127.0.0.0/8"), "a loopback address"},
	{netip.MustParsePrefix("169.254.0.0/16"), "a link-local address (the block of cloud metadata services)"},
	{netip.MustParsePrefix("172.16.0.0/12"), "a private-use address"},
	{netip.MustParsePrefix("192.0.0.0/24"), "an IETF protocol assignment"},
	{netip.MustParsePrefix("192.0.2.0/24"), "a documentation address"},
	{netip.MustParsePrefix("192.31.196.0/24"), "an AS112 DNS service address"},
	{netip.MustParsePrefix("192.52.193.0/24"), "an AMT relay address"},
	{netip.MustParsePrefix("192.88.99.0/24"), "a 6to4 relay address"},
	{netip.MustParsePrefix("192.168.0.0/16"), "a private-use address"},
	{netip.MustParsePrefix("192.175.48.0/24"), "an AS112 DNS service address"},
	{netip.MustParsePrefix("198.18.0.0/15"), "a benchmarking address"},
	{netip.MustParsePrefix("198.51.100.0/24"), "a documentation address"},
	{netip.MustParsePrefix("203.0.113.0/24"), "a documentation address"},
	{netip.MustParsePrefix("224.0.0.0/4"), "a multicast address"},
	{netip.MustParsePrefix("255.255.255.255/32"), "the broadcast address"},
	{netip.MustParsePrefix("240.0.0.0/4"), "a reserved address"},

	{netip.MustParsePrefix("::/128"), "the unspecified address"},
	{netip.MustParsePrefix("::1/128"), "a loopback address"},
	{netip.MustParsePrefix("::/8"), "a reserved IPv6 address (IPv4-compatible or translated)"},
	{netip.MustParsePrefix("64:ff9b::/96"), "a NAT64 address"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "a NAT64 address"},
	{netip.MustParsePrefix("100::/64"), "a discard-only address"},
	{netip.MustParsePrefix("100:0:0:1::/64"), "a dummy IPv6 prefix"},
	{netip.MustParsePrefix("2001::/32"), "a Teredo tunnel address"},
	{netip.MustParsePrefix("2001:2::/48"), "a benchmarking address"},
	{netip.MustParsePrefix("2001:db8::/32"), "a documentation address"},
	{netip.MustParsePrefix("2001::/23"), "an IETF protocol assignment"},
	{netip.MustParsePrefix("2002::/16"), "a 6to4 tunnel address"},
	{netip.MustParsePrefix("3fff::/20"), "a documentation address"},
	{netip.MustParsePrefix("5f00::/16"), "an SRv6 segment identifier"},
	{netip.MustParsePrefix("fc00::/7"), "a unique local (private) address"},
	{netip.MustParsePrefix("fe80::/10"), "a link-local address"},
	{netip.MustParsePrefix("fec0::/10"), "a site-local address"},
	{netip.MustParsePrefix("ff00::/8"), "a multicast address"},
}

var globalUnicastV6 = netip.MustParsePrefix("2000::/3")

// blockedReason says what kind of address addr is when webhooks may not reach it ("a loopback
// address"), and returns "" for a public address.
func blockedReason(addr netip.Addr) string {
	if !addr.IsValid() {
		return "not an IP address"
	}
	if addr.Zone() != "" {
		return "a scoped IPv6 address"
	}
	addr = addr.Unmap()
	for _, r := range blockedRanges {
		if r.prefix.Contains(addr) {
			return r.what
		}
	}
	if addr.Is6() && !globalUnicastV6.Contains(addr) {
		return "an unallocated IPv6 address"
	}
	return ""
}
