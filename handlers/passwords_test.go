//go:build slow

package handlers

import (
	"net/http"
	"testing"

	"golang.org/x/crypto/bcrypt"
)

// TestBatchSaveUsersPasswords saves a batch with passwords through the
// API: the new and the updated users get verifiable bcrypt hashes, a bad
// password is that row's error, "" removes a password, and the other
// tenant sees none of it.
func TestBatchSaveUsersPasswords(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	e.acme.call(t, http.MethodPost, "/papi/users",
		`{"user_name":"bob","first_name":"Bob","last_name":"Brown","email":"bob@example.com","password":"First123x"}`,
		http.StatusOK, "")
	e.acme.call(t, http.MethodPost, "/papi/users",
		`{"user_name":"cat","first_name":"Cat","last_name":"Cole","email":"cat@example.com","password":"Catpass12"}`,
		http.StatusOK, "")
	body := `{"people":[
		{"user_name":"ann","first_name":"Ann","last_name":"Lee","email":"ann@example.com","password":"Secret123"},
		{"user_name":"bob","password":"Second456y"},
		{"user_name":"cat","password":""},
		{"user_name":"dan","first_name":"Dan","last_name":"Dye","email":"dan@example.com","password":"weak"}
	]}`
	e.acme.call(t, http.MethodPost, "/papi/users/batch_save", body, http.StatusOK, batchResult(2, 2, 0, 0, 0, 0,
		rowError("dan", "dan@example.com",
			"Invalid password: it must be 8 to 72 characters with at least one digit, one upper case and one lower case letter"),
	))
	for user, password := range map[string]string{"ann": "Secret123", "bob": "Second456y"} {
		hash := e.passwordHash(t, user)
		if hash == nil || bcrypt.CompareHashAndPassword([]byte(*hash), []byte(password)) != nil {
			t.Fatalf("password_hash of %s = %v, want the bcrypt hash of %q", user, hash, password)
		}
	}
	if hash := e.passwordHash(t, "cat"); hash != nil {
		t.Fatalf("password_hash of cat = %q, want NULL (removed)", *hash)
	}
	e.assertIsolated(t, "ann")
	e.assertIsolated(t, "bob")
}
