package handlers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"learngate/handlers/idempotency"
	"learngate/handlers/scimapi"
	"learngate/input"
	"learngate/store"
)

// scimKeyed sends a SCIM write of ct with Idempotency-Key keys (several
// headers when more than one).
func scimKeyed(ct catalogTenant, method, path, body string, keys ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Host = ct.host
	req.Header.Set("Authorization", "Bearer "+ct.key)
	req.Header.Set("Content-Type", "application/scim+json")
	req.Header[idempotency.KeyHeader] = keys
	w := httptest.NewRecorder()
	ct.h.public.ServeHTTP(w, req)
	return w
}

// TestSCIMIdempotencyRefusals: on /scim/v2 the Idempotency-Key's refusals
// (an invalid key 400, a key in use 409, a key reused with another request
// 422) keep their statuses and the echoed key but answer SCIM's error
// message as application/scim+json; a retry is replayed; the other tenant
// does not know the key and sees no user.
func TestSCIMIdempotencyRefusals(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	ann := `{"userName":"ann","name":{"givenName":"Ann","familyName":"Lee"},"emails":[{"value":"ann@example.com"}]}`
	bob := `{"userName":"bob","name":{"givenName":"Bob","familyName":"Lee"},"emails":[{"value":"bob@example.com"}]}`
	check := func(t *testing.T, w *httptest.ResponseRecorder, status int, body, key string) {
		t.Helper()
		assertKeyed(t, w, status, body, key, false)
		if got := w.Header().Get("Content-Type"); got != scimapi.ContentType {
			t.Fatalf("Content-Type = %q, want %s", got, scimapi.ContentType)
		}
	}
	for _, c := range []struct {
		name string
		keys []string
	}{
		{"empty", []string{""}},
		{"256 characters", []string{strings.Repeat("k", 256)}},
		{"not ASCII", []string{"clé"}},
		{"two headers", []string{"a", "b"}},
	} {
		t.Run("invalid key "+c.name, func(t *testing.T) {
			check(t, scimKeyed(e.acme, http.MethodPost, "/scim/v2/Users", ann, c.keys...), http.StatusBadRequest,
				scimErr("400", "", "invalid Idempotency-Key"), input.Quote(c.keys[0]))
		})
	}

	first := scimKeyed(e.acme, http.MethodPost, "/scim/v2/Users", ann, "scim-1")
	assertKeyed(t, first, http.StatusCreated, "", "scim-1", false)
	again := scimKeyed(e.acme, http.MethodPost, "/scim/v2/Users", ann, "scim-1")
	assertKeyed(t, again, http.StatusCreated, first.Body.String(), "scim-1", true)
	check(t, scimKeyed(e.acme, http.MethodPost, "/scim/v2/Users", bob, "scim-1"), http.StatusUnprocessableEntity,
		scimErr("422", "", "Idempotency-Key was used with a different request"), "scim-1")

	req := httptest.NewRequest(http.MethodPost, "/scim/v2/Users", nil)
	claim, err := store.ClaimIdempotencyKey(context.Background(), e.tenantHandle(t, "acme"), "busy",
		idempotency.Fingerprint(req, []byte(bob)))
	if err != nil || claim.Outcome != store.ClaimRun {
		t.Fatalf("claim: %v, %v", claim.Outcome, err)
	}
	check(t, scimKeyed(e.acme, http.MethodPost, "/scim/v2/Users", bob, "busy"), http.StatusConflict,
		scimErr("409", "", "a request with this Idempotency-Key is in progress"), "busy")

	// One user, ann; the other tenant runs the same key afresh.
	scimExpect(t, e.acme, http.MethodGet, "/scim/v2/Users?attributes=userName", "", http.StatusOK,
		scimListOf(1, `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"id":"1","userName":"ann"}`))
	e.assertSCIMIsolated(t, "1", "")
	assertKeyed(t, scimKeyed(e.other, http.MethodPost, "/scim/v2/Users", bob, "scim-1"), http.StatusCreated, "", "scim-1", false)
}
