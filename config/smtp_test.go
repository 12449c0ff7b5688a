package config_test

import (
	"net/mail"
	"strings"
	"testing"

	"learngate/config"
)

func TestParseSMTPURL(t *testing.T) {
	from := mail.Address{Address: "noreply@example.com"}
	tests := []struct {
		raw  string
		want config.SMTP
	}{
		{"smtp://mail.example.com?from=noreply@example.com",
			config.SMTP{Host: "mail.example.com", Port: "25", From: from}},
		{"smtp://apikey:p%40ss%3Aw0rd@smtp.example.com:587?from=noreply@example.com",
			config.SMTP{Host: "smtp.example.com", Port: "587", Username: "apikey", Password: "p@ss:w0rd", From: from}},
		{"smtps://u:pw@smtp.example.com?from=Learning%20Team%20%3Cnoreply@example.com%3E",
			config.SMTP{Host: "smtp.example.com", Port: "465", ImplicitTLS: true, Username: "u", Password: "pw",
				From: mail.Address{Name: "Learning Team", Address: "noreply@example.com"}}},
		{"smtp://[::1]:2525/?from=noreply@example.com",
			config.SMTP{Host: "::1", Port: "2525", From: from}},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			got, err := config.ParseSMTPURL(tt.raw)
			if err != nil {
				t.Fatalf("ParseSMTPURL: %v", err)
			}
			if got != tt.want {
				t.Fatalf("ParseSMTPURL = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseSMTPURLErrors(t *testing.T) {
	tests := []struct{ raw, want string }{
		{"mail.example.com", "must be smtp[s]://[user[:password]@]host[:port]?from=address"},
		{"smtp://?from=a@example.com", "must name a host: smtp[s]://[user[:password]@]host[:port]?from=address"},
		{"smtp://mail/inbox?from=a@example.com", "must have no path: smtp[s]://[user[:password]@]host[:port]?from=address"},
		{"smtp://:secret-pw@mail?from=a@example.com", "has a password but no user name"},
		{"smtp://mail?from=a@example.com&tls=off", `has an unknown parameter "tls" (only from)`},
		{"smtp://u:secret-pw@mail", "needs a valid sender address: ?from=noreply@example.com"},
		{"smtp://u:secret-pw@mail?from=not-an-address", "needs a valid sender address: ?from=noreply@example.com"},
		{"smtp://u:secret-pw@mail:99999999999999999999?from=a@example.com", "must be smtp[s]://[user[:password]@]host[:port]?from=address"},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			_, err := config.ParseSMTPURL(tt.raw)
			if err == nil {
				t.Fatal("ParseSMTPURL succeeded")
			}
			if err.Error() != tt.want {
				t.Fatalf("error = %q, want %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "secret-pw") {
				t.Fatalf("error %q shows the password", err)
			}
		})
	}
}

func TestConfigSMTP(t *testing.T) {
	cfg, err := config.Load([]string{"LEARNGATE_DATABASE_URL=postgres://localhost/x",
		"LEARNGATE_SMTP_URL=smtps://u:secret-pw@mail.example.com?from=noreply@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	s, ok := cfg.SMTP()
	if !ok || s.Addr() != "mail.example.com:465" || !s.ImplicitTLS || s.Password != "secret-pw" {
		t.Fatalf("SMTP() = %+v, %v", s, ok)
	}
	if got, want := s.String(), "smtps://u@mail.example.com:465?from=noreply%40example.com"; got != want {
		t.Errorf("String() = %q, want %q (no password)", got, want)
	}
	cfg.SMTPURL = ""
	if _, ok := cfg.SMTP(); ok {
		t.Error("SMTP() is set without LEARNGATE_SMTP_URL")
	}
}
