package main

import (
	"testing"
)

// LEARNGATE_SSO_ALLOW_PRIVATE reaches the registry that validates sign-in
// configurations (the CLI's and the ops API's): a loopback http issuer is
// refused without it, naming it, and accepted with it.
func TestSSOAllowPrivateFromTheEnvironment(t *testing.T) {
	for _, c := range []struct{ name, allow string }{{name: "unset"}, {name: "true", allow: "true"}} {
		t.Run(c.name, func(t *testing.T) {
			migratedCLIEnv(t)
			if c.allow != "" {
				t.Setenv("LEARNGATE_SSO_ALLOW_PRIVATE", c.allow)
			}
			t.Setenv("ACME_OIDC_SECRET", "s3cret-value")
			mustRun(t, "migrate", "-q")
			mustRun(t, "tenant", "create", "acme")
			args := []string{"sso", "set", "acme", "--protocol", "oidc", "--issuer", "http://127.0.0.1:9999",
				"--client-id", "learngate-app", "--client-secret-env", "ACME_OIDC_SECRET"}
			if c.allow == "" {
				mustFail(t, "issuer must use https; plain http is allowed only for a loopback address, with LEARNGATE_SSO_ALLOW_PRIVATE=true", args...)
				return
			}
			mustRun(t, args...)
		})
	}
}
