package tenant

import (
	"strings"
	"testing"

	"learngate"
)

func TestNormalizeHost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"plain", "acme.learngate.localhost", "acme.learngate.localhost"},
		{"port", "acme.learngate.localhost:8080", "acme.learngate.localhost"},
		{"upper case", "ACME.LearnGate.Localhost", "acme.learngate.localhost"},
		{"trailing dot", "acme.learngate.localhost.", "acme.learngate.localhost"},
		{"trailing dot and port", "Acme.Learngate.Localhost.:443", "acme.learngate.localhost"},
		{"empty port", "acme.example.com:", "acme.example.com"},
		{"surrounding spaces", "  learn.acme.com:80 ", "learn.acme.com"},
		{"IPv4 with port", "127.0.0.1:8080", "127.0.0.1"},
		{"IPv6 with port", "[::1]:8080", "::1"},
		{"IPv6 upper case with port", "[2001:DB8::1]:443", "2001:db8::1"},
		{"bare name", "localhost", "localhost"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NormalizeHost(tt.in); got != tt.want {
				t.Fatalf("NormalizeHost(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestValidateSlug(t *testing.T) {
	t.Parallel()
	tests := []struct {
		slug string
		ok   bool
	}{
		{"abc", true},
		{"acme-corp", true},
		{"a1-2b", true},
		{"a" + strings.Repeat("b", 62), true}, // 63 characters
		{"ab", false},
		{"a" + strings.Repeat("b", 63), false}, // 64 characters
		{"Acme", false},
		{"1acme", false},
		{"acme-", false},
		{"-acme", false},
		{"ac me", false},
		{"www", false},
		{"api", false},
		{"ops", false},
		{"admin", false},
		{"static", false},
	}
	for _, tt := range tests {
		t.Run(tt.slug, func(t *testing.T) {
			err := ValidateSlug(tt.slug)
			if tt.ok && err != nil {
				t.Fatalf("ValidateSlug: %v", err)
			}
			if !tt.ok && !learngate.IsCode(err, learngate.Invalid) {
				t.Fatalf("ValidateSlug err = %v, want Invalid", err)
			}
		})
	}
}

// TestValidationQuotesAtMost100Characters: an ops message quotes a bad
// value cut to 100 characters, however long the value was.
func TestValidationQuotesAtMost100Characters(t *testing.T) {
	t.Parallel()
	long := "x" + strings.Repeat("é", 10_000)
	for name, err := range map[string]error{
		"slug":     ValidateSlug(long),
		"timezone": validateTimezone(long),
		"domain":   func() error { _, err := normalizeDomain(long+".example", nil); return err }(),
	} {
		if err == nil {
			t.Fatalf("%s: no error", name)
		}
		want := `"x` + strings.Repeat("é", 99) + `…"`
		if msg := err.Error(); !strings.Contains(msg, want) || len([]rune(msg)) > 200 {
			t.Errorf("%s: message of %d characters, want the value cut to 100: %.150s", name, len([]rune(msg)), msg)
		}
	}
}
