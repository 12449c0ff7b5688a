package webhooktest

import (
	"context"
	"encoding/binary"
	"net"
	"testing"
)

// NXDomainResolver returns a resolver for webhook.Policy.Resolver that asks
// a DNS server on 127.0.0.1, started for tb, which answers every query "no
// such name" (NXDOMAIN). The resolver believes it asks the nameservers of
// /etc/resolv.conf, as in production, so its errors name them; no query
// leaves the machine.
func NXDomainResolver(tb testing.TB) *net.Resolver {
	tb.Helper()
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("listen dns: %v", err)
	}
	tb.Cleanup(func() { pc.Close() })
	go serveNXDomain(pc)
	local := pc.LocalAddr().String()
	return &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "udp4", local)
		},
	}
}

// serveNXDomain answers each DNS query on pc with its question and
// RCODE 3 (NXDOMAIN), until pc is closed.
func serveNXDomain(pc net.PacketConn) {
	buf := make([]byte, 1500)
	for {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			return
		}
		if n < 12 {
			continue
		}
		q := buf[:n]
		resp := make([]byte, 0, n)
		resp = append(resp, q[0], q[1]) // id
		// QR, the query's opcode and RD; RA; RCODE 3.
		resp = append(resp, 0x80|(q[2]&0x79), 0x80|3)
		resp = binary.BigEndian.AppendUint16(resp, binary.BigEndian.Uint16(q[4:6])) // QDCOUNT as asked
		resp = append(resp, 0, 0, 0, 0, 0, 0)                                       // no answers, authority, additional
		resp = append(resp, questions(q)...)
		_, _ = pc.WriteTo(resp, from)
	}
}

// questions returns the question section of query q: everything after the
// header up to the additional records (an EDNS OPT record is dropped).
func questions(q []byte) []byte {
	i, count := 12, int(binary.BigEndian.Uint16(q[4:6]))
	for range count {
		for i < len(q) && q[i] != 0 {
			i += int(q[i]) + 1
		}
		i += 1 + 4 // the root label, QTYPE and QCLASS
	}
	return q[12:min(i, len(q))]
}
