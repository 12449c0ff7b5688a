// Package jobstest holds test helpers for the background worker: a minimal
// SMTP server on the loopback interface that records what it accepts.
package jobstest

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"fmt"
	"math/big"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// ReceivedMail is one message an SMTPServer accepted.
type ReceivedMail struct {
	From string
	To   []string
	Data string // the DATA section, dot-unstuffed, CRLF line ends
	// TLS is true when the message came over TLS (smtps or STARTTLS).
	TLS bool
}

// SMTPServer is a minimal SMTP server on 127.0.0.1 for tests: it speaks
// enough of RFC 5321 for net/smtp's client (EHLO, AUTH PLAIN, MAIL, RCPT,
// DATA, RSET, NOOP, QUIT) and records what it accepts.
type SMTPServer struct {
	t  testing.TB
	ln net.Listener

	mu sync.Mutex
	// failRcpt answers RCPT TO with this reply while > 0 replies remain.
	failRcpt      string
	failRcptTimes int
	// user and password, when set, are required through AUTH PLAIN.
	user, password string
	mails          []ReceivedMail
	conversations  int
	arrived        chan struct{}
	// tls, when set, is the server side of smtps (implicit) or STARTTLS.
	tls         *tls.Config
	implicitTLS bool
}

// StartSMTPServer listens on a free loopback port until the test ends.
func StartSMTPServer(t testing.TB) *SMTPServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	s := &SMTPServer{t: t, ln: ln, arrived: make(chan struct{}, 100)}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() { defer wg.Done(); s.serve(conn) }()
		}
	}()
	return s
}

// StartSMTPServerTLS is StartSMTPServer speaking TLS: from the first byte
// when implicit (smtps), else after STARTTLS, which it then offers. Its
// certificate, for 127.0.0.1, is signed by the returned pool's only root.
func StartSMTPServerTLS(t testing.TB, implicit bool) (*SMTPServer, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test smtp"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	s := StartSMTPServer(t)
	s.mu.Lock()
	s.tls = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	s.implicitTLS = implicit
	s.mu.Unlock()
	return s, pool
}

// Port returns the port the server listens on.
func (s *SMTPServer) Port() string {
	_, port, _ := net.SplitHostPort(s.ln.Addr().String())
	return port
}

// URL is the server's LEARNGATE_SMTP_URL with sender from.
func (s *SMTPServer) URL(from string) string {
	return "smtp://127.0.0.1:" + s.Port() + "?from=" + from
}

// FailRcpt makes the next n RCPT TO commands fail with reply.
func (s *SMTPServer) FailRcpt(reply string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failRcpt, s.failRcptTimes = reply, n
}

// RequireAuth makes the server demand AUTH PLAIN with user and password.
func (s *SMTPServer) RequireAuth(user, password string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.user, s.password = user, password
}

// Mails returns the messages accepted so far.
func (s *SMTPServer) Mails() []ReceivedMail {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ReceivedMail(nil), s.mails...)
}

// Conversations returns how many connections reached MAIL FROM.
func (s *SMTPServer) Conversations() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conversations
}

// WaitMails waits until n messages arrived, failing the test after timeout.
func (s *SMTPServer) WaitMails(n int, timeout time.Duration) []ReceivedMail {
	s.t.Helper()
	deadline := time.After(timeout)
	for {
		if mails := s.Mails(); len(mails) >= n {
			return mails
		}
		select {
		case <-s.arrived:
		case <-deadline:
			s.t.Fatalf("%d mails arrived within %s, want %d", len(s.Mails()), timeout, n)
		}
	}
}

func (s *SMTPServer) serve(conn net.Conn) {
	defer func() { conn.Close() }()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	s.mu.Lock()
	tlsConfig, implicit := s.tls, s.implicitTLS
	s.mu.Unlock()
	secure := false
	if tlsConfig != nil && implicit {
		conn, secure = tls.Server(conn, tlsConfig), true
	}
	r := bufio.NewReader(conn)
	reply := func(format string, args ...any) { fmt.Fprintf(conn, format+"\r\n", args...) }
	reply("220 test.local ESMTP ready")
	var cur ReceivedMail
	authed := false
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		verb, arg, _ := strings.Cut(line, " ")
		s.mu.Lock()
		needAuth := s.user != ""
		s.mu.Unlock()
		switch strings.ToUpper(verb) {
		case "EHLO", "HELO":
			lines := []string{"test.local", "8BITMIME"}
			if tlsConfig != nil && !secure {
				lines = append(lines, "STARTTLS")
			}
			if needAuth {
				lines = append(lines, "AUTH PLAIN")
			}
			for i, l := range lines {
				sep := "-"
				if i == len(lines)-1 {
					sep = " "
				}
				reply("250%s%s", sep, l)
			}
		case "STARTTLS":
			if tlsConfig == nil || secure {
				reply("502 5.5.1 STARTTLS not available")
				continue
			}
			reply("220 2.0.0 Ready to start TLS")
			conn, secure = tls.Server(conn, tlsConfig), true
			r = bufio.NewReader(conn)
			authed = false
		case "AUTH":
			mech, resp, _ := strings.Cut(arg, " ")
			raw, _ := base64.StdEncoding.DecodeString(resp)
			parts := strings.Split(string(raw), "\x00")
			s.mu.Lock()
			ok := strings.EqualFold(mech, "PLAIN") && len(parts) == 3 && parts[1] == s.user && parts[2] == s.password
			s.mu.Unlock()
			if ok {
				authed = true
				reply("235 2.7.0 Authentication successful")
			} else {
				reply("535 5.7.8 Authentication credentials invalid")
			}
		case "MAIL":
			if needAuth && !authed {
				reply("530 5.7.0 Authentication required")
				continue
			}
			s.mu.Lock()
			s.conversations++
			s.mu.Unlock()
			cur = ReceivedMail{From: angle(arg), TLS: secure}
			reply("250 2.1.0 OK")
		case "RCPT":
			s.mu.Lock()
			fail := ""
			if s.failRcptTimes > 0 {
				s.failRcptTimes--
				fail = s.failRcpt
			}
			s.mu.Unlock()
			if fail != "" {
				reply("%s", fail)
				continue
			}
			cur.To = append(cur.To, angle(arg))
			reply("250 2.1.5 OK")
		case "DATA":
			reply("354 End data with <CR><LF>.<CR><LF>")
			var data strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				data.WriteString(strings.TrimPrefix(l, "."))
			}
			cur.Data = data.String()
			s.mu.Lock()
			s.mails = append(s.mails, cur)
			s.mu.Unlock()
			s.arrived <- struct{}{}
			reply("250 2.0.0 queued")
		case "RSET", "NOOP":
			reply("250 OK")
		case "QUIT":
			reply("221 2.0.0 Bye")
			return
		default:
			reply("502 5.5.2 Command not recognized")
		}
	}
}

// angle returns the address between < and > of a MAIL or RCPT argument.
func angle(arg string) string {
	_, rest, _ := strings.Cut(arg, "<")
	addr, _, _ := strings.Cut(rest, ">")
	return addr
}
