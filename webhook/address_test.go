package webhook_test

import (
	"net/netip"
	"testing"

	"learngate"
	"learngate/webhook"
)

func TestCheckAddr(t *testing.T) {
	strict, relaxed := webhook.Policy{}, webhook.Policy{AllowPrivate: true}
	for _, c := range []struct {
		addr string
		// want is the refusal without AllowPrivate, "" when allowed.
		want string
		// always is refused even with AllowPrivate.
		always bool
	}{
		{addr: "93.184.216.34"},
		{addr: "2606:2800:220:1:248:1893:25c8:1946"},
		{addr: "127.0.0.1", want: "address 127.0.0.1 is not allowed (loopback address)"},
		{addr: "127.8.9.10", want: "address 127.8.9.10 is not allowed (loopback address)"},
		{addr: "10.1.2.3", want: "address 10.1.2.3 is not allowed (private address)"},
		{addr: "172.31.255.1", want: "address 172.31.255.1 is not allowed (private address)"},
		{addr: "172.32.0.1"},
		{addr: "192.168.1.1", want: "address 192.168.1.1 is not allowed (private address)"},
		{addr: "100.64.0.1", want: "address 100.64.0.1 is not allowed (carrier-grade NAT address)"},
		{addr: "169.254.1.1", want: "address 169.254.1.1 is not allowed (link-local address)"},
		{addr: "0.0.0.0", want: "address 0.0.0.0 is not allowed (unspecified address)"},
		{addr: "224.0.0.1", want: "address 224.0.0.1 is not allowed (multicast address)"},
		{addr: "::1", want: "address ::1 is not allowed (loopback address)"},
		{addr: "::", want: "address :: is not allowed (unspecified address)"},
		{addr: "fe80::1", want: "address fe80::1 is not allowed (link-local address)"},
		{addr: "fd12:3456::1", want: "address fd12:3456::1 is not allowed (unique-local address)"},
		{addr: "::ffff:10.0.0.1", want: "address 10.0.0.1 is not allowed (private address)"},
		{addr: "64:ff9b::7f00:1", want: "address 64:ff9b::7f00:1 is not allowed (loopback address)"},
		{addr: "2002:a00:1::1", want: "address 2002:a00:1::1 is not allowed (private address)"},
		{addr: "169.254.169.254", want: "address 169.254.169.254 is not allowed (cloud metadata address)", always: true},
		{addr: "fd00:ec2::254", want: "address fd00:ec2::254 is not allowed (cloud metadata address)", always: true},
		{addr: "::ffff:169.254.169.254", want: "address 169.254.169.254 is not allowed (cloud metadata address)", always: true},
		{addr: "100.100.100.200", want: "address 100.100.100.200 is not allowed (cloud metadata address)", always: true},
	} {
		t.Run(c.addr, func(t *testing.T) {
			addr := netip.MustParseAddr(c.addr)
			err := strict.CheckAddr(addr)
			if got := errText(err); got != c.want {
				t.Errorf("strict: %q, want %q", got, c.want)
			}
			err = relaxed.CheckAddr(addr)
			if (err != nil) != c.always {
				t.Errorf("AllowPrivate: %v, want refused %v", err, c.always)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestCheckURL(t *testing.T) {
	strict, relaxed := webhook.Policy{}, webhook.Policy{AllowPrivate: true}
	long := "https://example.com/" + string(make([]byte, 2100))
	for _, c := range []struct {
		url          string
		strict       string // refusal without AllowPrivate, "" when accepted
		relaxedError string // refusal with AllowPrivate
	}{
		{url: "https://hooks.example.com/learngate?x=1"},
		{url: "HTTPS://Hooks.Example.com:8443/x"},
		{url: "https://93.184.216.34/x"},
		{url: "", strict: "url is required", relaxedError: "url is required"},
		{url: "   ", strict: "url is required", relaxedError: "url is required"},
		{url: long, strict: "url must be at most 2048 characters", relaxedError: "url must be at most 2048 characters"},
		{url: "hooks.example.com/x", strict: "url must be an absolute URL such as https://example.com/webhooks",
			relaxedError: "url must be an absolute URL such as https://example.com/webhooks"},
		{url: "https://", strict: "url must be an absolute URL such as https://example.com/webhooks",
			relaxedError: "url must be an absolute URL such as https://example.com/webhooks"},
		{url: "http://hooks.example.com/x", strict: "url must use https"},
		{url: "ftp://hooks.example.com/x", strict: "url must use https", relaxedError: "url must use https"},
		{url: "https://bob:pw@hooks.example.com/x", strict: "url must not contain a user name or password",
			relaxedError: "url must not contain a user name or password"},
		{url: "https://localhost/x", strict: "url must not point to localhost"},
		{url: "https://api.localhost./x", strict: "url must not point to localhost"},
		{url: "https://127.0.0.1:8443/x", strict: "url must not point to a loopback address (127.0.0.1)"},
		{url: "https://[::1]/x", strict: "url must not point to a loopback address (::1)"},
		{url: "https://10.0.0.5/x", strict: "url must not point to a private address (10.0.0.5)"},
		{url: "https://[fd00:ec2::254]/x", strict: "url must not point to a cloud metadata address (fd00:ec2::254)",
			relaxedError: "url must not point to a cloud metadata address (fd00:ec2::254)"},
		{url: "http://169.254.169.254/latest/meta-data", strict: "url must use https",
			relaxedError: "url must not point to a cloud metadata address (169.254.169.254)"},
	} {
		t.Run(c.url, func(t *testing.T) {
			for _, p := range []struct {
				policy webhook.Policy
				want   string
			}{{strict, c.strict}, {relaxed, c.relaxedError}} {
				_, err := p.policy.CheckURL(c.url)
				if err != nil && learngate.ErrorCode(err) != learngate.Invalid {
					t.Errorf("policy %+v: code %s, want invalid", p.policy, learngate.ErrorCode(err))
				}
				if got := learngateMessage(err); got != p.want {
					t.Errorf("policy %+v: %q, want %q", p.policy, got, p.want)
				}
			}
		})
	}
}

func learngateMessage(err error) string {
	if err == nil {
		return ""
	}
	return learngate.ErrorMessage(err)
}
