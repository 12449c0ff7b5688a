package config

import (
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
)

// SMTP is the mail server of LEARNGATE_SMTP_URL, parsed:
//
//	smtp://[user[:password]@]host[:port]?from=noreply@example.com
//	smtps://[user[:password]@]host[:port]?from=...
//
// smtp:// connects in plain text (port 25 by default) and upgrades with
// STARTTLS whenever the server offers it; smtps:// speaks TLS from the first
// byte (port 465 by default). User and password (URL-escaped) authenticate
// with PLAIN, which net/smtp only sends over TLS or to a loopback server.
// from is the sender address, required.
type SMTP struct {
	// Host and Port of the server; Addr joins them.
	Host, Port string
	// ImplicitTLS is true for smtps://.
	ImplicitTLS bool
	// Username and Password authenticate; empty: no authentication.
	Username, Password string
	// From is the envelope and header sender.
	From mail.Address
}

// Addr returns host:port.
func (s SMTP) Addr() string { return net.JoinHostPort(s.Host, s.Port) }

// String is the URL without the password, for logs.
func (s SMTP) String() string {
	scheme := "smtp"
	if s.ImplicitTLS {
		scheme = "smtps"
	}
	u := url.URL{Scheme: scheme, Host: s.Addr(), RawQuery: url.Values{"from": {s.From.Address}}.Encode()}
	if s.Username != "" {
		u.User = url.User(s.Username)
	}
	return u.String()
}

// SMTP returns the parsed LEARNGATE_SMTP_URL, and false when none is set
// (invitations are then written to the log). Load has validated it.
func (c Config) SMTP() (SMTP, bool) {
	if c.SMTPURL == "" {
		return SMTP{}, false
	}
	s, err := ParseSMTPURL(c.SMTPURL)
	return s, err == nil
}

// ParseSMTPURL parses the form of LEARNGATE_SMTP_URL documented on SMTP. Its
// error is one line that never repeats the password.
func ParseSMTPURL(raw string) (SMTP, error) {
	const form = "smtp[s]://[user[:password]@]host[:port]?from=address"
	u, err := url.Parse(raw)
	if err != nil {
		return SMTP{}, fmt.Errorf("must be %s", form)
	}
	var s SMTP
	switch u.Scheme {
	case "smtp":
		s.Port = "25"
	case "smtps":
		s.Port, s.ImplicitTLS = "465", true
	default:
		return SMTP{}, fmt.Errorf("must be %s", form)
	}
	if s.Host = u.Hostname(); s.Host == "" {
		return SMTP{}, fmt.Errorf("must name a host: %s", form)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return SMTP{}, fmt.Errorf("must be %s", form)
		}
		s.Port = p
	}
	if (u.Path != "" && u.Path != "/") || u.Fragment != "" || u.Opaque != "" {
		return SMTP{}, fmt.Errorf("must have no path: %s", form)
	}
	if u.User != nil {
		s.Username = u.User.Username()
		s.Password, _ = u.User.Password()
		if s.Username == "" {
			return SMTP{}, errors.New("has a password but no user name")
		}
	}
	q := u.Query()
	for key := range q {
		if key != "from" {
			return SMTP{}, fmt.Errorf("has an unknown parameter %q (only from)", key)
		}
	}
	from, err := mail.ParseAddress(q.Get("from"))
	if err != nil || strings.ContainsAny(from.Address, "\r\n") {
		return SMTP{}, fmt.Errorf("needs a valid sender address: ?from=noreply@example.com")
	}
	s.From = *from
	return s, nil
}
