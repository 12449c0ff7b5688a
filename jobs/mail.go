package jobs

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"strings"
	"time"

	"learngate/config"
)

// Message is an email to one person, in plain text.
type Message struct {
	To      mail.Address
	Subject string
	Body    string
}

// Mailer delivers messages.
type Mailer interface {
	// Send delivers msg. An error wrapping ErrRejected is permanent (the
	// server refused the recipient); other errors are worth retrying.
	Send(ctx context.Context, msg Message) error
	// String describes the mailer for the log, without secrets.
	String() string
}

// ErrRejected marks a delivery the server refused for good (a 5xx answer to
// the recipient or the message): retrying would not help.
var ErrRejected = errors.New("rejected by the mail server")

// sendTimeout bounds one SMTP conversation when ctx has no earlier deadline.
const sendTimeout = 30 * time.Second

// SMTPMailer sends over SMTP with the standard library's net/smtp client.
type SMTPMailer struct {
	Server config.SMTP
	// TLS is the TLS configuration of smtps:// and STARTTLS; nil verifies
	// the server's certificate for Server.Host against the system roots.
	TLS *tls.Config
}

// String names the server without its password.
func (m *SMTPMailer) String() string { return m.Server.String() }

// Send delivers msg: connect (TLS from the start for smtps://), EHLO,
// STARTTLS when offered, AUTH PLAIN when a user is configured, MAIL, RCPT,
// DATA, QUIT.
func (m *SMTPMailer) Send(ctx context.Context, msg Message) error {
	if strings.ContainsAny(msg.To.Address, "\r\n<>") {
		return fmt.Errorf("recipient %q: %w", msg.To.Address, ErrRejected)
	}
	data, err := m.format(msg, time.Now())
	if err != nil {
		return err
	}
	deadline := time.Now().Add(sendTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	dialer := &net.Dialer{Deadline: deadline}
	tlsConfig := m.tlsConfig()
	var conn net.Conn
	if m.Server.ImplicitTLS {
		conn, err = (&tls.Dialer{NetDialer: dialer, Config: tlsConfig}).DialContext(ctx, "tcp", m.Server.Addr())
	} else {
		conn, err = dialer.DialContext(ctx, "tcp", m.Server.Addr())
	}
	if err != nil {
		return fmt.Errorf("connect to %s: %w", m.Server.Addr(), err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(deadline); err != nil {
		return err
	}
	// Cancelling ctx (a hard stop) breaks off the conversation.
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()

	c, err := smtp.NewClient(conn, m.Server.Host)
	if err != nil {
		return fmt.Errorf("smtp greeting from %s: %w", m.Server.Addr(), err)
	}
	defer c.Close()
	if err := c.Hello(helloName(m.Server.From.Address)); err != nil {
		return fmt.Errorf("smtp EHLO: %w", err)
	}
	if ok, _ := c.Extension("STARTTLS"); ok && !m.Server.ImplicitTLS {
		if err := c.StartTLS(tlsConfig); err != nil {
			return fmt.Errorf("smtp STARTTLS: %w", err)
		}
	}
	if m.Server.Username != "" {
		if err := c.Auth(smtp.PlainAuth("", m.Server.Username, m.Server.Password, m.Server.Host)); err != nil {
			return fmt.Errorf("smtp AUTH: %w", err)
		}
	}
	if err := c.Mail(m.Server.From.Address); err != nil {
		return fmt.Errorf("smtp MAIL FROM: %w", classify(err))
	}
	if err := c.Rcpt(msg.To.Address); err != nil {
		return fmt.Errorf("smtp RCPT TO: %w", classify(err))
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("smtp DATA: %w", classify(err))
	}
	if _, err := w.Write(data); err != nil {
		return fmt.Errorf("smtp DATA: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("smtp end of DATA: %w", classify(err))
	}
	// The message is accepted; a failing QUIT does not undo that.
	_ = c.Quit()
	return nil
}

func (m *SMTPMailer) tlsConfig() *tls.Config {
	if m.TLS != nil {
		c := m.TLS.Clone()
		if c.ServerName == "" {
			c.ServerName = m.Server.Host
		}
		return c
	}
	return &tls.Config{ServerName: m.Server.Host, MinVersion: tls.VersionTLS12}
}

// classify marks a permanent (5xx) SMTP answer with ErrRejected.
func classify(err error) error {
	var te *textproto.Error
	if errors.As(err, &te) && te.Code >= 500 && te.Code < 600 {
		return fmt.Errorf("%w: %w", ErrRejected, err)
	}
	return err
}

// helloName is the name learngate gives itself in EHLO: the sender's domain.
func helloName(from string) string {
	if _, domain, ok := strings.Cut(from, "@"); ok && domain != "" {
		return domain
	}
	return "localhost"
}

// format renders msg as an RFC 5322 message in UTF-8, quoted-printable.
func (m *SMTPMailer) format(msg Message, now time.Time) ([]byte, error) {
	id := make([]byte, 12)
	_, _ = rand.Read(id)
	var b bytes.Buffer
	header := func(k, v string) { fmt.Fprintf(&b, "%s: %s\r\n", k, v) }
	header("From", m.Server.From.String())
	header("To", msg.To.String())
	header("Subject", mime.QEncoding.Encode("utf-8", msg.Subject))
	header("Date", now.Format(time.RFC1123Z))
	header("Message-ID", "<"+hex.EncodeToString(id)+"@"+helloName(m.Server.From.Address)+">")
	header("MIME-Version", "1.0")
	header("Content-Type", `text/plain; charset="utf-8"`)
	header("Content-Transfer-Encoding", "quoted-printable")
	b.WriteString("\r\n")
	qp := quotedprintable.NewWriter(&b)
	if _, err := qp.Write([]byte(msg.Body)); err != nil { // line ends become CRLF
		return nil, err
	}
	if err := qp.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// LogMailer writes messages to the log instead of sending them: the mailer
// when LEARNGATE_SMTP_URL is not set. Messages carry no secret.
type LogMailer struct {
	Logger *slog.Logger
}

// String says that mail goes to the log.
func (LogMailer) String() string { return "log (LEARNGATE_SMTP_URL not set)" }

// Send logs msg.
func (l LogMailer) Send(ctx context.Context, msg Message) error {
	l.Logger.InfoContext(ctx, "email not sent: no SMTP server configured (LEARNGATE_SMTP_URL)",
		"to", msg.To.Address, "subject", msg.Subject, "body", msg.Body)
	return nil
}

// MailerFor returns the mailer of cfg: SMTP when LEARNGATE_SMTP_URL is set,
// the log otherwise.
func MailerFor(cfg config.Config, logger *slog.Logger) Mailer {
	if server, ok := cfg.SMTP(); ok {
		return &SMTPMailer{Server: server}
	}
	return LogMailer{Logger: logger}
}
