package handlers

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"learngate/handlers/idempotency"
	"learngate/input"
	"learngate/store"
	"learngate/tenant"
	"learngate/webhook"
)

// keyed sends a write of ct with Idempotency-Key key (none when key is
// "-"), as JSON.
func keyed(ct catalogTenant, method, path, key, body string) *httptest.ResponseRecorder {
	headers := map[string]string{"Authorization": ct.key, "Content-Type": "application/json"}
	if key != "-" {
		headers[idempotency.KeyHeader] = key
	}
	return do(ct.h.public, request{method: method, host: ct.host, path: path, body: body, headers: headers})
}

// assertKeyed checks an answer given past the Idempotency-Key step: its
// status, exact body, the echoed key and whether it was replayed.
func assertKeyed(t *testing.T, w *httptest.ResponseRecorder, status int, body, key string, replayed bool) {
	t.Helper()
	assertResponse(t, w, status, body)
	if got := w.Header().Get(idempotency.KeyHeader); got != key {
		t.Errorf("Idempotency-Key = %q, want %q", got, key)
	}
	want := ""
	if replayed {
		want = "true"
	}
	if got := w.Header().Get(idempotency.ReplayedHeader); got != want {
		t.Errorf("Idempotent-Replayed = %q, want %q", got, want)
	}
}

// storedKeys returns how many idempotency keys tenant slug holds.
func (e *usersEnv) storedKeys(t *testing.T, slug string) int {
	t.Helper()
	tn, err := e.h.registry.Show(context.Background(), slug)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := e.h.db.Pool().Get(&n, `SELECT count(*) FROM `+tn.Schema+`.idempotency_keys`); err != nil {
		t.Fatal(err)
	}
	return n
}

// tenantHandle returns the database handle of tenant slug.
func (e *usersEnv) tenantHandle(t *testing.T, slug string) *store.TenantDB {
	t.Helper()
	tn, err := e.h.registry.Show(context.Background(), slug)
	if err != nil {
		t.Fatal(err)
	}
	tdb, err := e.h.db.Tenant(tn.Schema)
	if err != nil {
		t.Fatal(err)
	}
	return tdb
}

const (
	annBody     = `{"user_name":"ann","first_name":"Ann","last_name":"Lee","email":"ann@example.com"}`
	keyInvalid  = `{"error":"invalid Idempotency-Key"}`
	keyMismatch = `{"error":"Idempotency-Key was used with a different request"}`
	keyBusy     = `{"error":"a request with this Idempotency-Key is in progress"}`
)

// TestIdempotencyReplaysUserCreation: a retry of POST /papi/users with the
// key gets the first answer byte for byte, marked replayed, and creates
// nothing; it still counts against the rate limit. Without the key the
// same retry is a 422 clash.
func TestIdempotencyReplaysUserCreation(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	first := keyed(e.acme, http.MethodPost, "/papi/users", "create-ann-1", annBody)
	assertKeyed(t, first, http.StatusOK, "", "create-ann-1", false)
	e.clock.advance(5 * 60e9) // a retry five minutes later: created_at would differ if it ran
	again := keyed(e.acme, http.MethodPost, "/papi/users", "create-ann-1", annBody)
	assertKeyed(t, again, http.StatusOK, "", "create-ann-1", true)
	if again.Body.String() != first.Body.String() {
		t.Fatalf("replay body = %s, want %s", again.Body, first.Body)
	}
	if got, want := again.Header().Get("Content-Type"), first.Header().Get("Content-Type"); got != want {
		t.Fatalf("replay Content-Type = %q, want %q", got, want)
	}
	if a, b := headerInt(t, first, "X-RateLimit-Remaining"), headerInt(t, again, "X-RateLimit-Remaining"); b != a-1 {
		t.Fatalf("X-RateLimit-Remaining %d then %d: the replay must count", a, b)
	}
	e.assertUserCounts(t, [5]int{1, 0, 0, 0, 0})
	if w := keyed(e.acme, http.MethodPost, "/papi/users", "-", annBody); w.Code != http.StatusUnprocessableEntity {
		t.Fatalf("without a key the retry = %d %s, want 422", w.Code, w.Body)
	}
	e.assertIsolated(t, "ann")
}

// TestIdempotencyKeyMismatch: the key with another body, path, method or
// query string answers 422 and runs nothing.
func TestIdempotencyKeyMismatch(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	assertKeyed(t, keyed(e.acme, http.MethodPost, "/papi/users", "k-1", annBody), http.StatusOK, "", "k-1", false)
	bob := `{"user_name":"bob","first_name":"Bob","last_name":"Lee","email":"bob@example.com"}`
	for _, c := range []struct{ name, method, path, body string }{
		{"another body", http.MethodPost, "/papi/users", bob},
		{"the same body spaced", http.MethodPost, "/papi/users", annBody + " "},
		{"a query string", http.MethodPost, "/papi/users?x=1", annBody},
		{"another route", http.MethodPost, "/papi/users/batch_save", `{"people":[` + bob + `]}`},
		{"another method", http.MethodPut, "/papi/users/ann", `{"last_name":"Other"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			assertKeyed(t, keyed(e.acme, c.method, c.path, "k-1", c.body), http.StatusUnprocessableEntity, keyMismatch, "k-1", false)
		})
	}
	e.assertUserCounts(t, [5]int{1, 0, 0, 0, 0})
	e.acme.call(t, http.MethodGet, "/papi/users/ann", "", http.StatusOK, "")
	if got := e.acmeRowCounts(t, "users"); got[0] != 1 {
		t.Fatalf("users = %d", got[0])
	}
	// The API key in the query string is not part of the request.
	w := do(e.h.public, request{method: http.MethodPost, host: e.acme.host, path: "/papi/users?api_key=" + e.acme.key, body: annBody,
		headers: map[string]string{"Content-Type": "application/json", idempotency.KeyHeader: "k-1"}})
	assertKeyed(t, w, http.StatusOK, "", "k-1", true)
}

// TestIdempotencyInvalidKey: a key that is empty, too long, not printable
// ASCII or sent twice answers 400 in every route's shape alike, echoed,
// and nothing runs; 255 characters with spaces are fine.
func TestIdempotencyInvalidKey(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	for _, c := range []struct {
		name string
		keys []string
	}{
		{"empty", []string{""}},
		{"256 characters", []string{strings.Repeat("k", 256)}},
		{"not ASCII", []string{"clé"}},
		{"a control character", []string{"a\tb"}},
		{"two headers", []string{"a", "b"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, path := range []string{"/papi/users", "/papi/topic_assignments", "/papi/roles"} {
				req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(annBody))
				req.Host = e.acme.host
				req.Header.Set("Authorization", e.acme.key)
				req.Header.Set("Content-Type", "application/json")
				req.Header[idempotency.KeyHeader] = c.keys
				w := httptest.NewRecorder()
				e.h.public.ServeHTTP(w, req)
				assertKeyed(t, w, http.StatusBadRequest, keyInvalid, input.Quote(c.keys[0]), false) // cut at 100 characters
			}
		})
	}
	e.assertUserCounts(t, [5]int{0, 0, 0, 0, 0})
	long := strings.Repeat("k", 254) + " "
	long = "a " + long[2:]
	assertKeyed(t, keyed(e.acme, http.MethodPost, "/papi/users", long, annBody), http.StatusOK, "", long, false)
}

// TestIdempotencyCheckOrder: tenant (404), API key (401), rate limit (429)
// and Content-Type (406) come before the Idempotency-Key, and do not echo it.
func TestIdempotencyCheckOrder(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	limit := int64(1)
	_, slowKey, err := e.h.registry.Create(context.Background(), tenant.NewTenantInput{Slug: "slow", RateLimitPerMinute: &limit})
	if err != nil {
		t.Fatal(err)
	}
	slow := catalogTenant{h: e.h, host: "slow.learngate.localhost", key: slowKey}
	slow.call(t, http.MethodGet, "/papi/ping", "", http.StatusOK, "")
	bad := map[string]string{"Authorization": e.acme.key, "Content-Type": "application/json", idempotency.KeyHeader: ""}
	with := func(k, v string) map[string]string {
		h := map[string]string{}
		for hk, hv := range bad {
			h[hk] = hv
		}
		h[k] = v
		return h
	}
	for _, c := range []struct {
		name    string
		host    string
		headers map[string]string
		status  int
		body    string
	}{
		{"unknown host", "nobody.learngate.localhost", bad, http.StatusNotFound, `{"error":"unknown organisation"}`},
		{"wrong key", e.acme.host, with("Authorization", "lg_wrong"), http.StatusUnauthorized, `{"error":"unauthorized"}`},
		{"rate limit", slow.host, with("Authorization", slow.key), http.StatusTooManyRequests, ""},
		{"content type", e.acme.host, with("Content-Type", "text/plain"), http.StatusNotAcceptable, `{"error":"Content-Type must be application/json"}`},
		{"the key", e.acme.host, bad, http.StatusBadRequest, keyInvalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := do(e.h.public, request{method: http.MethodPost, host: c.host, path: "/papi/users", body: annBody, headers: c.headers})
			assertResponse(t, w, c.status, c.body)
			_, echoed := w.Header()[idempotency.KeyHeader]
			if echoed != (c.status == http.StatusBadRequest) {
				t.Fatalf("Idempotency-Key echoed: %v", echoed)
			}
		})
	}
}

// TestIdempotencyInProgressAndTakeOver: while a request holds the key the
// same request answers 409 and another 422; once its lease is over (its
// node died) the request takes the key over and runs.
func TestIdempotencyInProgressAndTakeOver(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	req := httptest.NewRequest(http.MethodPost, "/papi/users", nil)
	claim, err := store.ClaimIdempotencyKey(context.Background(), e.tenantHandle(t, "acme"), "busy",
		idempotency.Fingerprint(req, []byte(annBody)))
	if err != nil || claim.Outcome != store.ClaimRun {
		t.Fatalf("claim: %v, %v", claim.Outcome, err)
	}
	assertKeyed(t, keyed(e.acme, http.MethodPost, "/papi/users", "busy", annBody), http.StatusConflict, keyBusy, "busy", false)
	assertKeyed(t, keyed(e.acme, http.MethodPost, "/papi/users", "busy", `{}`), http.StatusUnprocessableEntity, keyMismatch, "busy", false)
	e.assertUserCounts(t, [5]int{0, 0, 0, 0, 0})

	if _, err := e.h.db.Pool().Exec(`UPDATE ` + e.tenantHandle(t, "acme").Schema() +
		`.idempotency_keys SET locked_until = now() - interval '1 second'`); err != nil {
		t.Fatal(err)
	}
	first := keyed(e.acme, http.MethodPost, "/papi/users", "busy", annBody)
	assertKeyed(t, first, http.StatusOK, "", "busy", false)
	again := keyed(e.acme, http.MethodPost, "/papi/users", "busy", annBody)
	assertKeyed(t, again, http.StatusOK, first.Body.String(), "busy", true)
	// The first holder cannot store an answer any more: its claim was taken over.
	err = store.CompleteIdempotentRequest(context.Background(), e.tenantHandle(t, "acme").WithRequestTx(), claim,
		store.StoredResponse{Status: 200, Body: []byte("{}")})
	if err == nil {
		t.Fatal("the first holder stored its answer after the take-over")
	}
	e.assertUserCounts(t, [5]int{1, 0, 0, 0, 0})
}

// TestIdempotencyFailureRunsAgain: a request that fails (422, 400) stores
// nothing; its retry with the same key runs again.
func TestIdempotencyFailureRunsAgain(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	e.acme.call(t, http.MethodPost, "/papi/users", `{"user_name":"zed","first_name":"Z","last_name":"Z","email":"ann@example.com"}`, http.StatusOK, "")
	clash := keyed(e.acme, http.MethodPost, "/papi/users", "retry-me", annBody)
	if clash.Code != http.StatusUnprocessableEntity || clash.Header().Get(idempotency.KeyHeader) != "retry-me" {
		t.Fatalf("clash = %d %v %s, want 422 with the key echoed", clash.Code, clash.Header(), clash.Body)
	}
	if n := e.storedKeys(t, "acme"); n != 0 {
		t.Fatalf("%d keys stored after a failure", n)
	}
	bad := keyed(e.acme, http.MethodPost, "/papi/users/batch_save", "bad-batch", `{"people":[]}`)
	if bad.Code != http.StatusBadRequest || bad.Header().Get(idempotency.ReplayedHeader) != "" {
		t.Fatalf("empty batch = %d %s", bad.Code, bad.Body)
	}
	e.acme.call(t, http.MethodPut, "/papi/users/zed", `{"email":"zed@example.com"}`, http.StatusOK, "")
	assertKeyed(t, keyed(e.acme, http.MethodPost, "/papi/users", "retry-me", annBody), http.StatusOK, "", "retry-me", false)
	e.assertUserCounts(t, [5]int{2, 0, 0, 0, 0})
	if n := e.storedKeys(t, "acme"); n != 1 {
		t.Fatalf("%d keys stored, want 1", n)
	}
}

// TestIdempotencyConcurrentRequests: identical requests at once create one
// user; every other answer is 409 or the replay of that creation.
func TestIdempotencyConcurrentRequests(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	const n = 6
	answers := make([]*httptest.ResponseRecorder, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			answers[i] = keyed(e.acme, http.MethodPost, "/papi/users", "same", annBody)
		}()
	}
	close(start)
	wg.Wait()
	var created *httptest.ResponseRecorder
	for _, w := range answers {
		if w.Code == http.StatusOK && w.Header().Get(idempotency.ReplayedHeader) == "" {
			if created != nil {
				t.Fatalf("two creations: %s and %s", created.Body, w.Body)
			}
			created = w
		}
	}
	if created == nil {
		t.Fatal("no request created the user")
	}
	for _, w := range answers {
		switch {
		case w == created:
		case w.Code == http.StatusConflict:
			assertKeyed(t, w, http.StatusConflict, keyBusy, "same", false)
		default:
			assertKeyed(t, w, http.StatusOK, created.Body.String(), "same", true)
		}
	}
	e.assertUserCounts(t, [5]int{1, 0, 0, 0, 0})
}

// TestIdempotencyReplayAfterRestart: keys live in PostgreSQL, so a new
// node over the same database replays them.
func TestIdempotencyReplayAfterRestart(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	first := keyed(e.acme, http.MethodPost, "/papi/users", "before-restart", annBody)
	assertKeyed(t, first, http.StatusOK, "", "before-restart", false)
	node := newHarness(t, harnessOptions{DB: e.h.db, DBURL: e.h.dbURL})
	acme := catalogTenant{h: node, host: e.acme.host, key: e.acme.key}
	assertKeyed(t, keyed(acme, http.MethodPost, "/papi/users", "before-restart", annBody),
		http.StatusOK, first.Body.String(), "before-restart", true)
	e.assertUserCounts(t, [5]int{1, 0, 0, 0, 0})
}

// TestIdempotencyPerTenant: two tenants may use the same key; each runs
// its own request, and neither gets the other's answer.
func TestIdempotencyPerTenant(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	assertKeyed(t, keyed(e.acme, http.MethodPost, "/papi/users", "shared", annBody), http.StatusOK, "", "shared", false)
	e.other.call(t, http.MethodGet, "/papi/users/ann", "", http.StatusNotFound, `"not found"`)
	w := keyed(e.other, http.MethodPost, "/papi/users", "shared", annBody)
	assertKeyed(t, w, http.StatusOK, "", "shared", false)
	e.other.call(t, http.MethodGet, "/papi/users/ann", "", http.StatusOK, w.Body.String())
	// Another request under acme's key in other is other's first use: it runs.
	bob := `{"user_name":"bob","first_name":"Bob","last_name":"Lee","email":"bob@example.com"}`
	assertKeyed(t, keyed(e.other, http.MethodPost, "/papi/users", "acme-only", bob), http.StatusOK, "", "acme-only", false)
	assertKeyed(t, keyed(e.acme, http.MethodPost, "/papi/users", "acme-only", annBody), http.StatusUnprocessableEntity, "", "acme-only", false)
	e.assertUserCounts(t, [5]int{1, 0, 0, 0, 0})
	if a, o := e.storedKeys(t, "acme"), e.storedKeys(t, "other"); a != 1 || o != 2 {
		t.Fatalf("keys stored: acme %d, other %d; want 1 and 2", a, o)
	}
}

// TestIdempotencyBatchReplayQueuesNothing: the replay of a batch_save that
// invited users and recorded webhook events queues no second invitation,
// records no second event and queues no job.
func TestIdempotencyBatchReplayQueuesNothing(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	e.h.server.Papi.WebhookPolicy = webhook.Policy{AllowPrivate: true}
	e.acme.call(t, http.MethodPost, "/papi/webhooks", `{"url":"http://127.0.0.1:9/hook","events":["*"]}`, http.StatusCreated, "")
	var people []string
	for i := range 3 {
		people = append(people, fmt.Sprintf(`{"user_name":"u%d","first_name":"U","last_name":"L","email":"u%d@example.com"}`, i, i))
	}
	batch := `{"send_invitations":"new","people":[` + strings.Join(people, ",") + `]}`
	counts := func() string {
		t.Helper()
		events := e.acmeRowCounts(t, "webhook_events", "users")
		var jobs int
		if err := e.h.db.Pool().Get(&jobs, `SELECT count(*) FROM public.river_job`); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("events %d, users %d, jobs %d, invitations %s", events[0], events[1], jobs, e.queuedInvitations(t))
	}
	first := keyed(e.acme, http.MethodPost, "/papi/users/batch_save", "batch-1", batch)
	assertKeyed(t, first, http.StatusOK, `{"created":3,"updated":0,"unchanged":0,"enrolled":0,"invitations_sent":3,"invitations_failed":0,"errors":0,"error_list":[]}`, "batch-1", false)
	after := counts()
	if !strings.HasPrefix(after, "events 3, users 3,") || !strings.HasSuffix(after, "invitations acme/u0,acme/u1,acme/u2") {
		t.Fatalf("after the batch: %s", after)
	}
	for range 2 {
		assertKeyed(t, keyed(e.acme, http.MethodPost, "/papi/users/batch_save", "batch-1", batch), http.StatusOK, first.Body.String(), "batch-1", true)
	}
	if got := counts(); got != after {
		t.Fatalf("after the replays: %s, want %s", got, after)
	}
}

// TestIdempotencyIgnoredOnGetAndDelete: GET and DELETE neither check nor
// echo the header, and a request without it stores nothing.
func TestIdempotencyIgnoredOnGetAndDelete(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	e.acme.call(t, http.MethodPost, "/papi/roles", `{"name":"Manager"}`, http.StatusCreated, `{"id":1,"name":"Manager"}`)
	for _, c := range []struct {
		method, path string
		status       int
	}{
		{http.MethodGet, "/papi/roles", http.StatusOK},
		{http.MethodGet, "/papi/roles", http.StatusOK},
		{http.MethodDelete, "/papi/roles/1", http.StatusNoContent},
		{http.MethodDelete, "/papi/roles/1", http.StatusNotFound},
	} {
		w := do(e.h.public, request{method: c.method, host: e.acme.host, path: c.path,
			headers: map[string]string{"Authorization": e.acme.key, idempotency.KeyHeader: ""}})
		if w.Code != c.status {
			t.Fatalf("%s %s = %d %s, want %d", c.method, c.path, w.Code, w.Body, c.status)
		}
		if _, ok := w.Header()[idempotency.KeyHeader]; ok {
			t.Fatalf("%s %s echoed the key", c.method, c.path)
		}
	}
	assertKeyed(t, keyed(e.acme, http.MethodPost, "/papi/roles", "-", `{"name":"Manager"}`), http.StatusCreated, `{"id":2,"name":"Manager"}`, "", false)
	if n := e.storedKeys(t, "acme"); n != 0 {
		t.Fatalf("%d keys stored", n)
	}
}

// TestIdempotencyExpiredKeyRunsAgain: a key past its 24 hours is a new key.
func TestIdempotencyExpiredKeyRunsAgain(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	assertKeyed(t, keyed(e.acme, http.MethodPost, "/papi/roles", "day-old", `{"name":"Manager"}`), http.StatusCreated, `{"id":1,"name":"Manager"}`, "day-old", false)
	if _, err := e.h.db.Pool().Exec(`UPDATE ` + e.tenantHandle(t, "acme").Schema() +
		`.idempotency_keys SET expires_at = now() - interval '1 second'`); err != nil {
		t.Fatal(err)
	}
	assertKeyed(t, keyed(e.acme, http.MethodPost, "/papi/roles", "day-old", `{"name":"Manager"}`), http.StatusUnprocessableEntity, "", "day-old", false)
	assertKeyed(t, keyed(e.acme, http.MethodPost, "/papi/roles", "day-old", `{"name":"Trainer"}`), http.StatusCreated, `{"id":3,"name":"Trainer"}`, "day-old", false)
}
