package webhook_test

import (
	"testing"

	"learngate"
	"learngate/webhook"
)

// TestCheckURLHostForms (issue 27, finding 7): a host that is an IPv4
// address written in any form but a.b.c.d (one number, hexadecimal,
// octal, fewer than four parts), which browsers, curl and the C resolver
// all read as an address, is refused at registration even with
// AllowPrivate; so is a cloud metadata service's name. Real names that
// merely hold digits pass.
func TestCheckURLHostForms(t *testing.T) {
	const numeric = "url must not write an IP address in a form other than a.b.c.d ("
	const metadata = "url must not point to a cloud metadata service ("
	for _, c := range []struct {
		url  string
		want string // the refusal under both policies, "" when accepted
	}{
		{"https://2130706433/", numeric + "2130706433)"},
		{"https://0x7f000001/x", numeric + "0x7f000001)"},
		{"https://0X7F000001/x", numeric + "0x7f000001)"},
		{"https://127.1/x", numeric + "127.1)"},
		{"https://127.0.1/x", numeric + "127.0.1)"},
		{"https://0177.0.0.1/x", numeric + "0177.0.0.1)"},
		{"https://0x7f.0.0.1/x", numeric + "0x7f.0.0.1)"},
		{"https://127.000.000.001/x", numeric + "127.000.000.001)"},
		{"https://017700000001/x", numeric + "017700000001)"},
		{"https://0/x", numeric + "0)"},
		{"https://0x/x", numeric + "0x)"},
		{"https://1.2.3.4.5/x", numeric + "1.2.3.4.5)"},
		{"https://2130706433./x", numeric + "2130706433)"},
		{"https://3627730752:8443/x", numeric + "3627730752)"}, // 216.58.214.0, public: still not this form
		{"https://hooks.example.com.2130706433/x", numeric + "hooks.example.com.2130706433)"},
		{"https://metadata.google.internal/computeMetadata/v1/", metadata + "metadata.google.internal)"},
		{"https://METADATA.google.internal./x", metadata + "metadata.google.internal)"},
		{"https://metadata.goog/x", metadata + "metadata.goog)"},
		{"https://metadata/x", metadata + "metadata)"},
		{"https://instance-data/latest/meta-data/", metadata + "instance-data)"},
		{"https://instance-data.ec2.internal/x", metadata + "instance-data.ec2.internal)"},
		{"https://metadata.tencentyun.com/x", metadata + "metadata.tencentyun.com)"},
		{"https://metadata.platformequinix.com/x", metadata + "metadata.platformequinix.com)"},
		{"https://metadata.packet.net/x", metadata + "metadata.packet.net)"},
		{"https://a.metadata.google.internal/x", metadata + "a.metadata.google.internal)"},
		// Names with digits, and addresses written a.b.c.d, are judged as before.
		{"https://123.example.com/x", ""},
		{"https://hooks-2130706433.example.com/x", ""},
		{"https://0x7f000001.example.com/x", ""},
		{"https://metadata.example.com/x", ""},
		{"https://my-metadata/x", ""},
		{"https://93.184.216.34/x", ""},
		{"https://[2606:2800:220:1:248:1893:25c8:1946]/x", ""},
	} {
		t.Run(c.url, func(t *testing.T) {
			for _, p := range []webhook.Policy{{}, {AllowPrivate: true}} {
				_, err := p.CheckURL(c.url)
				if err != nil && learngate.ErrorCode(err) != learngate.Invalid {
					t.Errorf("AllowPrivate %v: code %s, want invalid", p.AllowPrivate, learngate.ErrorCode(err))
				}
				if got := learngateMessage(err); got != c.want {
					t.Errorf("AllowPrivate %v: %q, want %q", p.AllowPrivate, got, c.want)
				}
			}
		})
	}
}
