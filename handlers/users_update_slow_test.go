//go:build slow

package handlers

import (
	"net/http"
	"testing"

	"golang.org/x/crypto/bcrypt"
)

func TestUpdateUserPassword(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	e.acme.call(t, http.MethodPost, "/papi/users", jsonBody(t, with(carl, map[string]any{"password": "Secret123"})), http.StatusOK, "")
	checkPassword := func(t *testing.T, password string) {
		t.Helper()
		hash := e.passwordHash(t, "carl")
		switch {
		case password == "" && hash != nil:
			t.Fatalf("password_hash = %q, want NULL", *hash)
		case password != "" && (hash == nil || bcrypt.CompareHashAndPassword([]byte(*hash), []byte(password)) != nil):
			t.Fatalf("password_hash = %v, want the hash of %q", hash, password)
		}
	}
	checkPassword(t, "Secret123")

	steps := []struct {
		name     string
		body     string
		status   int
		want     string
		password string
	}{
		{"new password", `{"password":"N3wSecret"}`, 200, "", "N3wSecret"},
		{"external login removes the password", `{"login":"external"}`, 200, "", ""},
		{"no password for an external user", `{"password":"Secret123"}`, 400,
			`"Bad request: a password is not allowed with login 'external'"`, ""},
		{"back to internal with a password", `{"login":"internal","password":"Secret123"}`, 200, "", "Secret123"},
		{"empty password removes it", `{"password":""}`, 200, "", ""},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			e.acme.call(t, http.MethodPut, "/papi/users/carl", step.body, step.status, step.want)
			checkPassword(t, step.password)
		})
	}
	e.other.call(t, http.MethodPut, "/papi/users/carl", `{"password":"Other123x"}`, http.StatusNotFound, `"not found"`)
	e.assertIsolated(t, "carl")
}
