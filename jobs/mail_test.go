package jobs_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net/mail"
	"strings"
	"testing"
	"time"

	"learngate/config"
	"learngate/jobs"
	"learngate/jobs/jobstest"
)

func TestSMTPMailerTLS(t *testing.T) {
	t.Parallel()
	msg := jobs.Message{To: mail.Address{Name: "Ann\r\nBcc: evil@example.com", Address: "ann@example.com"},
		Subject: "Hi\r\nBcc: evil@example.com", Body: "Hello\n.\nbye\n"}
	for _, implicit := range []bool{true, false} {
		name := map[bool]string{true: "smtps", false: "starttls"}[implicit]
		t.Run(name, func(t *testing.T) {
			srv, roots := jobstest.StartSMTPServerTLS(t, implicit)
			srv.RequireAuth("mailer", "pw")
			m := &jobs.SMTPMailer{
				Server: config.SMTP{Host: "127.0.0.1", Port: srv.Port(), ImplicitTLS: implicit,
					Username: "mailer", Password: "pw", From: mail.Address{Address: "noreply@learngate.test"}},
				TLS: &tls.Config{RootCAs: roots},
			}
			if err := m.Send(context.Background(), msg); err != nil {
				t.Fatalf("Send: %v", err)
			}
			got := srv.WaitMails(1, 5*time.Second)[0]
			if !got.TLS || got.To[0] != "ann@example.com" {
				t.Fatalf("mail over TLS %v to %v", got.TLS, got.To)
			}
			// Header injection through the name or subject is encoded away.
			if strings.Contains(got.Data, "\r\nBcc:") {
				t.Fatalf("a Bcc header was injected:\n%s", got.Data)
			}
			p := parseMail(t, got)
			if p.Subject != "Hi\r\nBcc: evil@example.com" || p.Body != "Hello\n.\nbye\n" {
				t.Fatalf("subject %q, body %q", p.Subject, p.Body)
			}
		})
	}
	t.Run("untrusted certificate", func(t *testing.T) {
		srv, _ := jobstest.StartSMTPServerTLS(t, true)
		m := &jobs.SMTPMailer{Server: config.SMTP{Host: "127.0.0.1", Port: srv.Port(), ImplicitTLS: true,
			From: mail.Address{Address: "noreply@learngate.test"}}}
		err := m.Send(context.Background(), msg)
		if err == nil || errors.Is(err, jobs.ErrRejected) {
			t.Fatalf("Send to a server with an unknown certificate = %v, want a retryable error", err)
		}
		if len(srv.Mails()) != 0 {
			t.Fatal("mail delivered despite the certificate")
		}
	})
	t.Run("server down", func(t *testing.T) {
		m := &jobs.SMTPMailer{Server: config.SMTP{Host: "127.0.0.1", Port: "1", From: mail.Address{Address: "a@b.test"}}}
		if err := m.Send(context.Background(), msg); err == nil || errors.Is(err, jobs.ErrRejected) {
			t.Fatalf("Send to a closed port = %v, want a retryable error", err)
		}
	})
}
