package handlers

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"learngate/handlers/idempotency"
	"learngate/secrets"
)

// storedBodies returns the stored answers of tenant slug's idempotency
// keys, as the table holds them, by key.
func (e *usersEnv) storedBodies(t *testing.T, slug string) map[string][]byte {
	t.Helper()
	var rows []struct {
		Key  string `db:"key"`
		Body []byte `db:"body"`
	}
	if err := e.h.db.Pool().Select(&rows, `SELECT key, coalesce(body, '') AS body FROM `+
		e.tenantHandle(t, slug).Schema()+`.idempotency_keys`); err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, r := range rows {
		out[r.Key] = r.Body
	}
	return out
}

// TestIdempotencySealsStoredAnswers (issue 27, finding 6): the answers of
// POST /papi/webhooks and rotate_secret sent with an Idempotency-Key are
// stored sealed with the secrets keyring, so no whsec_ secret is readable
// in idempotency_keys; the replays answer the same bodies byte for byte,
// and another tenant using the same keys gets none of them.
func TestIdempotencySealsStoredAnswers(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	hook := `{"url":"https://hooks.example.com/learngate","events":["*"]}`
	created := keyed(e.acme, http.MethodPost, "/papi/webhooks", "hook-1", hook)
	assertKeyed(t, created, http.StatusCreated, "", "hook-1", false)
	rotated := keyed(e.acme, http.MethodPost, "/papi/webhooks/1/rotate_secret", "rotate-1", "")
	assertKeyed(t, rotated, http.StatusOK, "", "rotate-1", false)
	for _, w := range []*httptest.ResponseRecorder{created, rotated} {
		if !strings.Contains(w.Body.String(), `"whsec_`) {
			t.Fatalf("the answer shows no secret: %s", w.Body)
		}
	}

	stored := e.storedBodies(t, "acme")
	if len(stored) != 2 {
		t.Fatalf("%d stored answers, want 2", len(stored))
	}
	for key, body := range stored {
		if bytes.Contains(body, []byte("whsec_")) || !secrets.IsEncrypted(string(body)) {
			t.Errorf("key %s: stored answer is not sealed: %.80s", key, body)
		}
	}

	assertKeyed(t, keyed(e.acme, http.MethodPost, "/papi/webhooks", "hook-1", hook),
		http.StatusCreated, created.Body.String(), "hook-1", true)
	assertKeyed(t, keyed(e.acme, http.MethodPost, "/papi/webhooks/1/rotate_secret", "rotate-1", ""),
		http.StatusOK, rotated.Body.String(), "rotate-1", true)

	// other's first use of the same keys runs its own requests.
	theirs := keyed(e.other, http.MethodPost, "/papi/webhooks", "hook-1", hook)
	assertKeyed(t, theirs, http.StatusCreated, "", "hook-1", false)
	if theirs.Body.String() == created.Body.String() {
		t.Fatal("other replayed acme's answer")
	}
	assertKeyed(t, keyed(e.other, http.MethodPost, "/papi/webhooks/2/rotate_secret", "rotate-1", ""),
		http.StatusNotFound, `{"error":"not found"}`, "rotate-1", false)
}

// TestIdempotencyReplaysClearAnswers: an answer stored in clear by a
// version before sealing (during the 24 hours after the upgrade) is still
// replayed byte for byte.
func TestIdempotencyReplaysClearAnswers(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	answer, role := `{"id":7,"name":"Manager"}`, `{"name":"Manager"}`
	req := httptest.NewRequest(http.MethodPost, "/papi/roles", nil)
	if _, err := e.h.db.Pool().Exec(`INSERT INTO `+e.tenantHandle(t, "acme").Schema()+`.idempotency_keys
		(key, fingerprint, state, claim, status, content_type, body, locked_until, expires_at)
		VALUES ('old', $1, 'done', '\x00', 201, 'application/json; charset=utf-8', $2, now(), now() + interval '1 hour')`,
		idempotency.Fingerprint(req, []byte(role)), []byte(answer)); err != nil {
		t.Fatal(err)
	}
	assertKeyed(t, keyed(e.acme, http.MethodPost, "/papi/roles", "old", role), http.StatusCreated, answer, "old", true)
	// Nothing ran: the first role acme creates is 1. The same key in other is other's own.
	assertKeyed(t, keyed(e.acme, http.MethodPost, "/papi/roles", "-", `{"name":"Trainer"}`), http.StatusCreated, `{"id":1,"name":"Trainer"}`, "", false)
	assertKeyed(t, keyed(e.other, http.MethodPost, "/papi/roles", "old", role), http.StatusCreated, `{"id":1,"name":"Manager"}`, "old", false)
}

// TestIdempotencyLongKeyQuoted (issue 27, finding 7): a 100,000-character
// Idempotency-Key is refused with 400, and neither the echoed header nor
// the body quotes more than its first 100 characters, on /papi and on
// /scim/v2 alike.
func TestIdempotencyLongKeyQuoted(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	key := strings.Repeat("k", 100_000)
	quoted := strings.Repeat("k", 100) + "…"
	for _, c := range []struct{ path, body, want string }{
		{"/papi/users", annBody, keyInvalid},
		{"/scim/v2/Users", `{}`, scimErr("400", "", "invalid Idempotency-Key")},
	} {
		t.Run(c.path, func(t *testing.T) {
			w := keyed(e.acme, http.MethodPost, c.path, key, c.body)
			assertKeyed(t, w, http.StatusBadRequest, c.want, quoted, false)
			if n := len(w.Header().Get(idempotency.KeyHeader)) + w.Body.Len(); n > 400 {
				t.Fatalf("the refusal is %d bytes long", n)
			}
		})
	}
	e.assertUserCounts(t, [5]int{0, 0, 0, 0, 0})
}
