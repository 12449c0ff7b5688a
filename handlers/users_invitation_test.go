package handlers

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// queuedInvitations lists the queued send_invitation jobs as
// "<tenant slug>/<user_name>", oldest first.
func (e *usersEnv) queuedInvitations(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	var got []string
	for _, slug := range []string{"acme", "other"} {
		tn, err := e.h.registry.Show(ctx, slug)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		err = e.h.db.Pool().Select(&names, `SELECT u.user_name FROM public.river_job j
			JOIN `+tn.Schema+`.users u ON u.id = (j.args->>'user_id')::bigint
			WHERE j.kind = 'send_invitation' AND j.args->>'schema' = $1 ORDER BY j.id`, tn.Schema)
		if err != nil {
			t.Fatalf("queued invitations: %v", err)
		}
		for _, n := range names {
			got = append(got, slug+"/"+n)
		}
	}
	var total int
	if err := e.h.db.Pool().Get(&total, `SELECT count(*) FROM public.river_job WHERE kind = 'send_invitation'`); err != nil {
		t.Fatal(err)
	}
	if total != len(got) {
		t.Fatalf("%d invitation jobs, %d of them for a user of acme or other", total, len(got))
	}
	return strings.Join(got, ",")
}

func TestUserSendInvitation(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	assertQueued := func(t *testing.T, want string) {
		t.Helper()
		if got := e.queuedInvitations(t); got != want {
			t.Fatalf("invitations queued for %q, want %q", got, want)
		}
	}
	post := func(t *testing.T, body string, status int) {
		t.Helper()
		w := e.h.papi(http.MethodPost, e.acme.host, "/papi/users", e.acme.key, body)
		if w.Code != status {
			t.Fatalf("POST /papi/users %s: status %d (%s), want %d", body, w.Code, w.Body, status)
		}
	}

	post(t, `{"user_name":"ann","first_name":"Ann","last_name":"Lee","email":"ann@example.com","send_invitation":"Yes"}`, http.StatusOK)
	assertQueued(t, "acme/ann")

	// Not asked, asked with false, or an inactive user: nothing queued, saved all the same.
	post(t, `{"user_name":"bob","first_name":"Bob","last_name":"Lee","email":"bob@example.com"}`, http.StatusOK)
	post(t, `{"user_name":"cy","first_name":"Cy","last_name":"Lee","email":"cy@example.com","send_invitation":false}`, http.StatusOK)
	post(t, `{"user_name":"dee","first_name":"Dee","last_name":"Lee","email":"dee@example.com","active":false,"send_invitation":true}`, http.StatusOK)
	assertQueued(t, "acme/ann")

	// A request that fails queues nothing.
	post(t, `{"user_name":"eve","first_name":"Eve","last_name":"Lee","email":"ANN@example.com","send_invitation":true}`, http.StatusUnprocessableEntity)
	e.acme.call(t, http.MethodPost, "/papi/users",
		`{"user_name":"eve","first_name":"Eve","last_name":"Lee","email":"eve@example.com","send_invitation":"sure"}`,
		http.StatusBadRequest, `"Bad request: Illegal value 'sure' for 'send_invitation'"`)
	e.acme.call(t, http.MethodGet, "/papi/users/eve", "", http.StatusNotFound, `"not found"`)
	assertQueued(t, "acme/ann")

	// PUT invites an existing user, even with nothing else to change.
	e.acme.call(t, http.MethodPut, "/papi/users/BOB", `{"send_invitation":1}`, http.StatusOK, "")
	assertQueued(t, "acme/ann,acme/bob")
	// Reactivating and inviting in one request works; inviting an inactive user queues nothing.
	e.acme.call(t, http.MethodPut, "/papi/users/cy", `{"active":false,"send_invitation":true}`, http.StatusOK, "")
	e.acme.call(t, http.MethodPut, "/papi/users/dee", `{"active":true,"send_invitation":true}`, http.StatusOK, "")
	assertQueued(t, "acme/ann,acme/bob,acme/dee")

	// The other tenant cannot invite acme's users.
	e.other.call(t, http.MethodPut, "/papi/users/cy", `{"send_invitation":true}`, http.StatusNotFound, `"not found"`)
	e.assertIsolated(t, "ann")
	assertQueued(t, "acme/ann,acme/bob,acme/dee")
}
