package tenant

import (
	"net"
	"regexp"
	"strings"
	"time"

	"learngate"
	"learngate/input"
)

var (
	slugPattern   = regexp.MustCompile(`^[a-z][a-z0-9-]{1,61}[a-z0-9]$`)
	labelPattern  = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)
	reservedSlugs = map[string]bool{"www": true, "api": true, "ops": true, "admin": true, "static": true}
)

// Limits on what ops may set.
const (
	// DefaultRateLimit is a new tenant's requests per minute unless ops say otherwise.
	DefaultRateLimit = 300
	// MaxRateLimit is the largest per-tenant limit ops may set.
	MaxRateLimit  = 1_000_000
	maxNameLength = 200
)

// ValidateSlug checks a slug against docs/decisions.md, "Gateway".
func ValidateSlug(slug string) error {
	if !slugPattern.MatchString(slug) {
		return learngate.Errorf(learngate.Invalid, "invalid slug %q: 3 to 63 lower-case letters, digits or hyphens, starting with a letter", input.Quote(slug))
	}
	if reservedSlugs[slug] {
		return learngate.Errorf(learngate.Invalid, "slug %q is reserved", input.Quote(slug))
	}
	return nil
}

func validateName(name string) error {
	if strings.TrimSpace(name) == "" || len(name) > maxNameLength {
		return learngate.Errorf(learngate.Invalid, "name must be 1 to %d characters", maxNameLength)
	}
	return nil
}

func validateTimezone(tz string) error {
	if tz == "" || tz == "Local" {
		return learngate.Errorf(learngate.Invalid, "invalid timezone %q", input.Quote(tz))
	}
	if _, err := time.LoadLocation(tz); err != nil {
		return learngate.Errorf(learngate.Invalid, "invalid timezone %q", input.Quote(tz))
	}
	return nil
}

func validateRateLimit(n int64) error {
	if n < 1 || n > MaxRateLimit {
		return learngate.Errorf(learngate.Invalid, "rate_limit_per_minute must be between 1 and %d", MaxRateLimit)
	}
	return nil
}

func validateStatus(s string) error {
	if s != learngate.TenantActive && s != learngate.TenantSuspended {
		return learngate.Errorf(learngate.Invalid, "status must be active or suspended")
	}
	return nil
}

// NormalizeHost lower-cases a Host header value and strips its port and
// trailing dot.
func NormalizeHost(host string) string {
	host = strings.TrimSpace(host)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

// normalizeDomain checks a custom domain and returns its canonical form. A
// domain under one of the service's base domains is refused: those names
// belong to tenant slugs.
func normalizeDomain(domain string, baseDomains []string) (string, error) {
	d := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(domain)), ".")
	bad := learngate.Errorf(learngate.Invalid, "invalid domain %q", input.Quote(domain))
	if len(d) == 0 || len(d) > 253 || !strings.Contains(d, ".") || net.ParseIP(d) != nil {
		return "", bad
	}
	for _, label := range strings.Split(d, ".") {
		if !labelPattern.MatchString(label) {
			return "", bad
		}
	}
	for _, base := range baseDomains {
		if d == base || strings.HasSuffix(d, "."+base) {
			return "", learngate.Errorf(learngate.Invalid, "domain %q is under the service's base domain %s", input.Quote(domain), base)
		}
	}
	return d, nil
}
