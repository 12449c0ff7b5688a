package jobs

import (
	"testing"

	"learngate"
)

// TestSignInURL: an invitation names the tenant's /login page, with the
// public port only when it is not the scheme's default.
func TestSignInURL(t *testing.T) {
	t.Parallel()
	acme := learngate.Tenant{Slug: "acme"}
	own := learngate.Tenant{Slug: "other", Domains: []string{"learn.other.test"}}
	for _, tc := range []struct {
		name   string
		links  Links
		tenant learngate.Tenant
		want   string
	}{
		{"https default", Links{Scheme: "https", BaseDomain: "learn.example.com"}, acme, "https://acme.learn.example.com/login"},
		{"https 443 left out", Links{Scheme: "https", BaseDomain: "learn.example.com", Port: 443}, acme, "https://acme.learn.example.com/login"},
		{"http 80 left out", Links{Scheme: "http", BaseDomain: "learngate.localhost", Port: 80}, acme, "http://acme.learngate.localhost/login"},
		{"make run's port", Links{Scheme: "http", BaseDomain: "learngate.localhost", Port: 8080}, acme, "http://acme.learngate.localhost:8080/login"},
		{"proxy on 8443", Links{Scheme: "https", BaseDomain: "learn.example.com", Port: 8443}, own, "https://learn.other.test:8443/login"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.links.SignInURL(tc.tenant); got != tc.want {
				t.Fatalf("SignInURL = %q, want %q", got, tc.want)
			}
		})
	}
}
