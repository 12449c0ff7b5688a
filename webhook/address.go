package webhook

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"syscall"

	"code.dny.dev/ssrf"

	"learngate"
	"learngate/input"
)

// MaxURLLength is the longest webhook URL accepted.
const MaxURLLength = 2048

// Policy decides where webhooks may be delivered. The zero value is the
// production policy: https only, and never to an address of an IANA
// special-purpose range that is not globally reachable (private, loopback,
// link-local, unique-local, carrier-grade NAT, documentation, NAT64, 6to4,
// Teredo, multicast, reserved and the rest: see refused).
type Policy struct {
	// AllowPrivate (LEARNGATE_WEBHOOK_ALLOW_PRIVATE) also allows http and
	// every address except the cloud metadata services; for tests and local
	// development.
	AllowPrivate bool
	// Resolver resolves target host names; nil is net.DefaultResolver.
	// Tests give one that answers from 127.0.0.1.
	Resolver *net.Resolver
}

// metadataAddrs are cloud metadata services: refused even with AllowPrivate,
// since no test or development setup needs to call them.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"), // AWS, GCP, Azure, OpenStack
	netip.MustParseAddr("fd00:ec2::254"),   // AWS over IPv6
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
	netip.MustParseAddr("192.0.0.192"),     // Oracle Cloud
}

// Which addresses are refused comes from code.dny.dev/ssrf, whose lists are
// generated from the IANA IPv4 and IPv6 special-purpose address registries:
// every IPv4 address in ssrf.IPv4DeniedPrefixes, and every IPv6 address
// outside the global unicast range ssrf.IPv6GlobalUnicast (2000::/3, so
// loopback, unique-local, link-local, multicast, NAT64 64:ff9b::/96 and
// 64:ff9b:1::/48, discard-only and the rest) or inside
// ssrf.IPv6DeniedPrefixes (2001::/23 with Teredo and ORCHID, documentation,
// 6to4, AS112). IPv4-mapped addresses are checked by their IPv4 address.
//
// extraV6Denied are special-purpose registry entries within 2000::/3 that
// are not globally reachable and that ssrf v0.3.0 does not list yet.
var extraV6Denied = []netip.Prefix{
	netip.MustParsePrefix("5f00::/16"), // Segment Routing (SRv6) SIDs, RFC 9602
}

// kindNames name the kind of a refused address for error messages: the
// longest prefix that holds it gives its name, "a reserved" when none does.
// They only name; which addresses are refused is decided above.
var kindNames = map[netip.Prefix]string{
	netip.MustParsePrefix("0.0.0.0/8"):         "an unspecified",
	netip.MustParsePrefix("10.0.0.0/8"):        "a private",
	netip.MustParsePrefix("100.64.0.0/10"):     "a carrier-grade NAT",
	netip.MustParsePrefix("127.0.0.0/8"):       "a loopback",
	netip.MustParsePrefix("169.254.0.0/16"):    "a link-local",
	netip.MustParsePrefix("172.16.0.0/12"):     "a private",
	netip.MustParsePrefix("192.0.2.0/24"):      "a documentation",
	netip.MustParsePrefix("192.31.196.0/24"):   "an AS112",
	netip.MustParsePrefix("192.52.193.0/24"):   "an AMT",
	netip.MustParsePrefix("192.88.99.0/24"):    "a 6to4 relay",
	netip.MustParsePrefix("192.168.0.0/16"):    "a private",
	netip.MustParsePrefix("192.175.48.0/24"):   "an AS112",
	netip.MustParsePrefix("198.18.0.0/15"):     "a benchmarking",
	netip.MustParsePrefix("198.51.100.0/24"):   "a documentation",
	netip.MustParsePrefix("203.0.113.0/24"):    "a documentation",
	netip.MustParsePrefix("224.0.0.0/4"):       "a multicast",
	netip.MustParsePrefix("::/128"):            "an unspecified",
	netip.MustParsePrefix("::1/128"):           "a loopback",
	netip.MustParsePrefix("64:ff9b::/96"):      "a NAT64",
	netip.MustParsePrefix("64:ff9b:1::/48"):    "a NAT64",
	netip.MustParsePrefix("2001::/32"):         "a Teredo",
	netip.MustParsePrefix("2001:2::/48"):       "a benchmarking",
	netip.MustParsePrefix("2001:10::/28"):      "an ORCHID",
	netip.MustParsePrefix("2001:20::/28"):      "an ORCHID",
	netip.MustParsePrefix("2001:db8::/32"):     "a documentation",
	netip.MustParsePrefix("2002::/16"):         "a 6to4",
	netip.MustParsePrefix("2620:4f:8000::/48"): "an AS112",
	netip.MustParsePrefix("3fff::/20"):         "a documentation",
	netip.MustParsePrefix("5f00::/16"):         "a segment routing",
	netip.MustParsePrefix("fc00::/7"):          "a unique-local",
	netip.MustParsePrefix("fe80::/10"):         "a link-local",
	netip.MustParsePrefix("fec0::/10"):         "a site-local",
	netip.MustParsePrefix("ff00::/8"):          "a multicast",
}

// IPv6 ranges whose addresses carry an IPv4 address at a fixed offset: a
// refused IPv4 address inside is named by its own kind.
var (
	nat64Prefix = ssrf.IPv6NAT64Prefix               // 64:ff9b::/96, last 4 bytes
	sixToFour   = netip.MustParsePrefix("2002::/16") // bytes 2 to 5
)

// AddressError is a refused delivery address.
type AddressError struct {
	Addr netip.Addr
	// What names the kind of address, e.g. "a loopback".
	What string
}

// Error says which address was refused and why.
func (e *AddressError) Error() string {
	return fmt.Sprintf("address %s is not allowed (%s address)", e.Addr, strings.TrimPrefix(strings.TrimPrefix(e.What, "a "), "an "))
}

// CheckAddr returns an *AddressError when the policy forbids delivering to addr.
func (p Policy) CheckAddr(addr netip.Addr) error {
	addr = addr.Unmap().WithZone("")
	for _, m := range metadataAddrs {
		if addr == m {
			return &AddressError{Addr: addr, What: "a cloud metadata"}
		}
	}
	if p.AllowPrivate || !refused(addr) {
		return nil
	}
	if v4, ok := embeddedIPv4(addr); ok {
		if err := p.CheckAddr(v4); err != nil {
			return &AddressError{Addr: addr, What: err.(*AddressError).What}
		}
	}
	return &AddressError{Addr: addr, What: kindOf(addr)}
}

// refused reports whether addr (unmapped) is in a special-purpose range
// that is not globally reachable.
func refused(addr netip.Addr) bool {
	if addr.Is4() {
		return slices.ContainsFunc(ssrf.IPv4DeniedPrefixes, func(p netip.Prefix) bool { return p.Contains(addr) })
	}
	if !ssrf.IPv6GlobalUnicast.Contains(addr) {
		return true
	}
	in := func(p netip.Prefix) bool { return p.Contains(addr) }
	return slices.ContainsFunc(ssrf.IPv6DeniedPrefixes, in) || slices.ContainsFunc(extraV6Denied, in)
}

// kindOf names the kind of the refused address addr.
func kindOf(addr netip.Addr) string {
	what, bits := "a reserved", -1
	for p, name := range kindNames {
		if p.Bits() > bits && p.Contains(addr) {
			what, bits = name, p.Bits()
		}
	}
	return what
}

// embeddedIPv4 returns the IPv4 address that a NAT64 or 6to4 address routes to.
func embeddedIPv4(addr netip.Addr) (netip.Addr, bool) {
	if !addr.Is6() {
		return netip.Addr{}, false
	}
	b := addr.As16()
	switch {
	case nat64Prefix.Contains(addr):
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), true
	case sixToFour.Contains(addr):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), true
	}
	return netip.Addr{}, false
}

// dialControl is the net.Dialer Control of deliveries: it runs after name
// resolution, on the address about to be connected to, so a name that
// resolves (or re-resolves, DNS rebinding) to a refused address is never
// reached.
func (p Policy) dialControl(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("unexpected dial address %q", address)
	}
	return p.CheckAddr(addr)
}

// CheckURL validates a webhook URL at registration and returns it parsed:
// an absolute http(s) URL of at most MaxURLLength characters with a host
// and no user information; https unless AllowPrivate; not localhost and
// not a refused IP address; never (whatever AllowPrivate) a cloud
// metadata service's name, nor an IPv4 address written in another form
// than a.b.c.d (endsInNumber). Host names are not resolved here (DNS may change
// before a delivery): the sender checks every address it connects to.
// Errors are Invalid with a message naming the problem.
func (p Policy) CheckURL(raw string) (*url.URL, error) {
	invalid := func(format string, args ...any) (*url.URL, error) {
		return nil, learngate.Errorf(learngate.Invalid, format, args...)
	}
	if strings.TrimSpace(raw) == "" {
		return invalid("url is required")
	}
	if len(raw) > MaxURLLength {
		return invalid("url must be at most %d characters", MaxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Hostname() == "" {
		return invalid("url must be an absolute URL such as https://example.com/webhooks")
	}
	switch scheme := strings.ToLower(u.Scheme); {
	case scheme == "https":
	case scheme == "http" && p.AllowPrivate:
	case scheme == "http":
		return invalid("url must use https")
	default:
		return invalid("url must use https")
	}
	if u.User != nil {
		return invalid("url must not contain a user name or password")
	}
	host := strings.TrimRight(strings.ToLower(u.Hostname()), ".")
	if isMetadataName(host) {
		return invalid("url must not point to a cloud metadata service (%s)", input.Quote(host))
	}
	if !p.AllowPrivate && (host == "localhost" || strings.HasSuffix(host, ".localhost")) {
		return invalid("url must not point to localhost")
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		if endsInNumber(host) {
			return invalid("url must not write an IP address in a form other than a.b.c.d (%s)", input.Quote(host))
		}
		return u, nil
	}
	if err := p.CheckAddr(addr); err != nil {
		return invalid("url must not point to %s address (%s)", err.(*AddressError).What, addr.Unmap().WithZone(""))
	}
	return u, nil
}

// metadataNames are the host names of cloud metadata services (docs/decisions.md,
// "Webhook hosts"), refused at registration even with AllowPrivate, as
// their addresses are (metadataAddrs), with every name under them. The
// one-label names are those the clouds' resolvers complete (GCP's
// "metadata", AWS's "instance-data").
var metadataNames = []string{
	"metadata.google.internal",     // Google Cloud
	"metadata.goog",                // Google Cloud
	"metadata",                     // Google Cloud, short name
	"instance-data",                // AWS, short name
	"instance-data.ec2.internal",   // AWS
	"metadata.tencentyun.com",      // Tencent Cloud
	"metadata.platformequinix.com", // Equinix Metal
	"metadata.packet.net",          // Equinix Metal, former name
}

// isMetadataName reports whether host (lower case, no trailing dot) is a
// cloud metadata service's name or a name under one.
func isMetadataName(host string) bool {
	for _, name := range metadataNames {
		if host == name || strings.HasSuffix(host, "."+name) {
			return true
		}
	}
	return false
}

// endsInNumber reports whether host's last label is a number (decimal
// digits, or 0x and hexadecimal digits): the WHATWG URL standard's
// "ends in a number", which makes browsers read the whole host as an IPv4
// address in one of its old forms (2130706433, 0x7f000001, 127.1,
// 0177.0.0.1), as inet_aton does for curl and the C resolver. No top-level
// domain is a number, so no real name is refused; a host that is such an
// address but not written a.b.c.d is never legitimate.
func endsInNumber(host string) bool {
	last := host[strings.LastIndexByte(host, '.')+1:]
	if last == "" {
		return false
	}
	digits, hex := last, false
	if strings.HasPrefix(last, "0x") {
		digits, hex = last[2:], true
	}
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if !(c >= '0' && c <= '9') && !(hex && c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
