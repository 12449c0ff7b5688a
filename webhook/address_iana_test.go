package webhook

import (
	"errors"
	"net/netip"
	"syscall"
	"testing"

	"code.dny.dev/ssrf"
)

// ianaRefused holds one address inside each entry of the IANA IPv4 and
// IPv6 special-purpose address registries that is not globally reachable
// (and the ranges docs/decisions.md, "Webhooks" names besides: NAT64, 6to4,
// Teredo, multicast), with the kind CheckAddr names.
var ianaRefused = []struct{ addr, what string }{
	// IPv4 special-purpose registry.
	{"0.0.0.0", "an unspecified"},         // 0.0.0.0/32 "This host on this network"
	{"0.1.2.3", "an unspecified"},         // 0.0.0.0/8 "This network"
	{"10.1.2.3", "a private"},             // 10.0.0.0/8
	{"100.64.0.1", "a carrier-grade NAT"}, // 100.64.0.0/10 Shared Address Space
	{"100.127.255.254", "a carrier-grade NAT"},
	{"127.0.0.1", "a loopback"},          // 127.0.0.0/8
	{"169.254.1.1", "a link-local"},      // 169.254.0.0/16
	{"172.16.0.1", "a private"},          // 172.16.0.0/12
	{"192.0.0.1", "a reserved"},          // 192.0.0.0/24 IETF Protocol Assignments
	{"192.0.0.3", "a reserved"},          // 192.0.0.0/29 IPv4 Service Continuity Prefix
	{"192.0.0.8", "a reserved"},          // 192.0.0.8/32 IPv4 dummy address
	{"192.0.0.170", "a reserved"},        // 192.0.0.170/32 NAT64/DNS64 Discovery
	{"192.0.0.171", "a reserved"},        // 192.0.0.171/32 NAT64/DNS64 Discovery
	{"192.0.2.1", "a documentation"},     // 192.0.2.0/24 TEST-NET-1
	{"192.31.196.1", "an AS112"},         // 192.31.196.0/24 AS112-v4
	{"192.52.193.1", "an AMT"},           // 192.52.193.0/24 AMT
	{"192.88.99.1", "a 6to4 relay"},      // 192.88.99.0/24 Deprecated (6to4 Relay Anycast)
	{"192.168.1.1", "a private"},         // 192.168.0.0/16
	{"192.175.48.1", "an AS112"},         // 192.175.48.0/24 Direct Delegation AS112 Service
	{"198.18.0.1", "a benchmarking"},     // 198.18.0.0/15
	{"198.19.255.254", "a benchmarking"}, // 198.18.0.0/15
	{"198.51.100.1", "a documentation"},  // 198.51.100.0/24 TEST-NET-2
	{"203.0.113.1", "a documentation"},   // 203.0.113.0/24 TEST-NET-3
	{"240.0.0.1", "a reserved"},          // 240.0.0.0/4 Reserved
	{"255.255.255.255", "a reserved"},    // 255.255.255.255/32 Limited Broadcast
	{"224.0.0.1", "a multicast"},         // 224.0.0.0/4 (multicast registry)
	{"239.255.255.250", "a multicast"},   // 224.0.0.0/4
	// IPv6 special-purpose registry.
	{"::1", "a loopback"},                  // ::1/128
	{"::", "an unspecified"},               // ::/128
	{"::ffff:10.0.0.1", "a private"},       // ::ffff:0:0/96 IPv4-mapped: by its IPv4 address
	{"::ffff:192.88.99.1", "a 6to4 relay"}, // ::ffff:0:0/96 IPv4-mapped
	{"64:ff9b::7f00:1", "a loopback"},      // 64:ff9b::/96 NAT64 of 127.0.0.1: by its IPv4 address
	{"64:ff9b::808:808", "a NAT64"},        // 64:ff9b::/96 NAT64 of 8.8.8.8: refused all the same
	{"64:ff9b:1::1", "a NAT64"},            // 64:ff9b:1::/48 Local-Use IPv4/IPv6 Translation
	{"64:ff9b:1:ffff::1", "a NAT64"},       // 64:ff9b:1::/48
	{"100::1", "a reserved"},               // 100::/64 Discard-Only Address Block
	{"100:0:0:1::1", "a reserved"},         // 100:0:0:1::/64 Dummy IPv6 Prefix
	{"2001::1", "a Teredo"},                // 2001::/32 TEREDO
	{"2001:0:4136:e378:8000:63bf:3fff:fdd2", "a Teredo"},
	{"2001:1::1", "a reserved"},             // 2001::/23 IETF Protocol Assignments (2001:1::1/128 PCP Anycast)
	{"2001:2::1", "a benchmarking"},         // 2001:2::/48 Benchmarking
	{"2001:3::1", "a reserved"},             // 2001:3::/32 AMT, within 2001::/23
	{"2001:4:112::1", "a reserved"},         // 2001:4:112::/48 AS112-v6, within 2001::/23
	{"2001:10::1", "an ORCHID"},             // 2001:10::/28 Deprecated (previously ORCHID)
	{"2001:20::1", "an ORCHID"},             // 2001:20::/28 ORCHIDv2
	{"2001:30::1", "a reserved"},            // 2001:30::/28 Drone Remote ID Protocol Entity Tags, within 2001::/23
	{"2001:1ff::1", "a reserved"},           // 2001::/23 end
	{"2001:db8::1", "a documentation"},      // 2001:db8::/32 Documentation
	{"2002:c000:201::1", "a documentation"}, // 2002::/16 6to4 of 192.0.2.1: by its IPv4 address
	{"2002:a00:1::1", "a private"},          // 2002::/16 6to4 of 10.0.0.1: by its IPv4 address
	{"2002:808:808::1", "a 6to4"},           // 2002::/16 6to4 of 8.8.8.8: refused all the same
	{"2620:4f:8000::1", "an AS112"},         // 2620:4f:8000::/48 Direct Delegation AS112 Service
	{"3fff::1", "a documentation"},          // 3fff::/20 Documentation
	{"3fff:fff::1", "a documentation"},      // 3fff::/20
	{"5f00::1", "a segment routing"},        // 5f00::/16 Segment Routing (SRv6) SIDs
	{"fc00::1", "a unique-local"},           // fc00::/7 Unique-Local
	{"fdff:ffff::1", "a unique-local"},      // fc00::/7
	{"fe80::1", "a link-local"},             // fe80::/10 Link-Local Unicast
	{"febf::1", "a link-local"},             // fe80::/10
	{"fec0::1", "a site-local"},             // fec0::/10 (deprecated site-local)
	{"ff02::1", "a multicast"},              // ff00::/8 (multicast registry)
	{"::7f00:1", "a reserved"},              // ::/96 IPv4-compatible (deprecated)
	{"1234::1", "a reserved"},               // outside 2000::/3: not global unicast
	{"e000::1", "a reserved"},               // outside 2000::/3
}

// globallyReachable are addresses that webhooks may reach.
var globallyReachable = []string{
	"8.8.8.8", "1.1.1.1", "93.184.216.34", "172.32.0.1", "192.0.3.1", "198.20.0.1", "100.128.0.1", "223.255.255.1",
	"2606:4700::1111", "2001:4860:4860::8888", "2a00:1450:4001::1", "2001:200::1", "3fff:1000::1", "2003::1",
	"::ffff:8.8.8.8",
}

func TestCheckAddrRefusesEverySpecialPurposeRange(t *testing.T) {
	strict := Policy{}
	for _, c := range ianaRefused {
		t.Run(c.addr, func(t *testing.T) {
			addr := netip.MustParseAddr(c.addr)
			var addrErr *AddressError
			if err := strict.CheckAddr(addr); !errors.As(err, &addrErr) || addrErr.What != c.what {
				t.Fatalf("CheckAddr(%s) = %v, want refused as %q", c.addr, err, c.what)
			}
			if err := (Policy{AllowPrivate: true}).CheckAddr(addr); err != nil {
				t.Fatalf("AllowPrivate: CheckAddr(%s) = %v, want allowed", c.addr, err)
			}
		})
	}
	for _, a := range globallyReachable {
		if err := strict.CheckAddr(netip.MustParseAddr(a)); err != nil {
			t.Errorf("CheckAddr(%s) = %v, want allowed", a, err)
		}
	}
}

// The library's lists are the source: the first and last address of each
// of its refused prefixes is refused.
func TestCheckAddrRefusesTheLibrarysPrefixes(t *testing.T) {
	prefixes := append(append([]netip.Prefix{}, ssrf.IPv4DeniedPrefixes...), ssrf.IPv6DeniedPrefixes...)
	prefixes = append(prefixes, ssrf.IPv6NAT64Prefix)
	for _, p := range prefixes {
		first, last := p.Masked().Addr(), lastAddr(p)
		for _, a := range []netip.Addr{first, last} {
			if err := (Policy{}).CheckAddr(a); err == nil {
				t.Errorf("%s (in %s) is allowed", a, p)
			}
		}
	}
	// Everything outside 2000::/3 is refused, at both ends.
	for _, a := range []string{"1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "4000::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe"} {
		if err := (Policy{}).CheckAddr(netip.MustParseAddr(a)); err == nil {
			t.Errorf("%s is allowed", a)
		}
	}
}

func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

// The sender's dialer Control sees the address about to be connected to,
// after name resolution: it refuses the same ranges.
func TestDialControlRefusesEverySpecialPurposeRange(t *testing.T) {
	for _, c := range ianaRefused {
		addr := netip.MustParseAddr(c.addr)
		network := "tcp4"
		if addr.Is6() {
			network = "tcp6"
		}
		err := Policy{}.dialControl(network, netip.AddrPortFrom(addr, 443).String(), nil)
		var addrErr *AddressError
		if !errors.As(err, &addrErr) || addrErr.What != c.what {
			t.Errorf("dialControl(%s) = %v, want refused as %q", c.addr, err, c.what)
		}
		if err := (Policy{AllowPrivate: true}).dialControl(network, netip.AddrPortFrom(addr, 443).String(), nil); err != nil {
			t.Errorf("AllowPrivate: dialControl(%s) = %v", c.addr, err)
		}
	}
	for _, a := range globallyReachable {
		if err := (Policy{}).dialControl("tcp", netip.AddrPortFrom(netip.MustParseAddr(a), 8443).String(), nil); err != nil {
			t.Errorf("dialControl(%s) = %v, want allowed", a, err)
		}
	}
	// The metadata services stay refused with AllowPrivate.
	for _, a := range []string{"169.254.169.254:80", "[fd00:ec2::254]:80", "[::ffff:169.254.169.254]:80"} {
		if err := (Policy{AllowPrivate: true}).dialControl("tcp", a, syscall.RawConn(nil)); err == nil {
			t.Errorf("AllowPrivate: dialControl(%s) allowed", a)
		}
	}
}
