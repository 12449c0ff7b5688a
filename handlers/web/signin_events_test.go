package web

import (
	"context"
	"encoding/json"
	"learngate"
	"net/http"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate/store"
	"learngate/tenant"
	"learngate/webhook/webhooktest"
)

// signInTenants are two tenants with API keys whose learners sign in with
// OIDC at idp or with a password: acme (acme.learngate.localhost) and
// other (other.learngate.localhost).
func signInTenants(t *testing.T, h *harness, idp *testIdP) (acme, other catalogTenant) {
	t.Helper()
	users := &usersEnv{h: h}
	acme, other = users.tenant(t, "acme", "UTC"), users.tenant(t, "other", "UTC")
	on := true
	for _, slug := range []string{"acme", "other"} {
		secret := slug + "-secret"
		if _, err := h.registry.SetSSO(context.Background(), slug, tenant.SSOInput{Protocol: "oidc", Issuer: idp.issuer,
			ClientID: slug + "-client", ClientSecret: &secret, PasswordLogin: &on}); err != nil {
			t.Fatal(err)
		}
	}
	return acme, other
}

// TestSignInRecordsUserSignedIn: every successful sign-in (password, OIDC)
// sends one user.signed_in event whose data is the user as GET
// /papi/users/{user_name} shows it afterwards; a refused sign-in sends
// none, and another tenant's endpoint gets nothing.
func TestSignInRecordsUserSignedIn(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	idp := startIdP(t, "acme", "other")
	acme, other := signInTenants(t, h, idp)
	seedPasswordUser(t, h, "acme", "alice", "Correct9horse", true)
	seedPasswordUser(t, h, "acme", "bob", "Correct9horse", false)
	seedPasswordUser(t, h, "other", "alice", "Correct9horse", true)
	runWebhookWorker(t, h, nil)
	rc := webhooktest.NewReceiver(t, nil)
	secret := register(t, acme, `{"url":"`+rc.URL("/acme")+`","events":["user.signed_in"]}`)
	otherRC := webhooktest.NewReceiver(t, nil)
	register(t, other, `{"url":"`+otherRC.URL("/other")+`","events":["*"]}`)
	app := h.pagesRouter(t)
	acmeHost, otherHost := acme.host, other.host

	// Refused: a wrong password, an inactive user, a forged form.
	b := newBrowser(t, app)
	wantStatus(t, b.passwordPost(acmeHost, "alice", "wrong"), http.StatusUnauthorized, "The user name or password is wrong.")
	wantStatus(t, b.passwordPost(acmeHost, "bob", "Correct9horse"), http.StatusForbidden, "Your account is not active.")
	wantStatus(t, b.do(http.MethodPost, acmeHost, "/login", map[string][]string{"csrf": {"forged"}, "user_name": {"alice"},
		"password": {"Correct9horse"}}), http.StatusForbidden, "This form has expired")

	wantStatus(t, b.passwordPost(acmeHost, "alice", "Correct9horse"), http.StatusSeeOther, "/learn")
	first := rc.Wait(t, 1, 20*time.Second)[0]
	assertEvent(t, first, secret, store.EventUserSignedIn, acme.get(t, "/papi/users/alice"))
	if at := acme.getJSON(t, "/papi/users/alice", http.StatusOK)["current_sign_in_at"]; at == nil {
		t.Fatal("current_sign_in_at not set")
	}

	// OIDC: the same event, with the new current_sign_in_at.
	c := newBrowser(t, app)
	wantStatus(t, c.signIn(acmeHost, "alice@example.test"), http.StatusSeeOther, "/learn")
	second := rc.Wait(t, 2, 20*time.Second)[1]
	assertEvent(t, second, secret, store.EventUserSignedIn, acme.get(t, "/papi/users/alice"))
	if first.ID() == second.ID() {
		t.Fatalf("two sign-ins, one event id %s", first.ID())
	}

	// Refusals after the sign-ins add nothing; the other tenant's endpoint,
	// subscribed to every event, got none of acme's.
	wantStatus(t, newBrowser(t, app).passwordPost(acmeHost, "alice", "wrong"), http.StatusUnauthorized, "wrong")
	time.Sleep(500 * time.Millisecond)
	if n := len(rc.Requests()); n != 2 {
		t.Fatalf("acme's endpoint got %d events, want 2", n)
	}
	if n := len(otherRC.Requests()); n != 0 {
		t.Fatalf("other's endpoint got %d events of acme's sign-ins", n)
	}
	// other's own sign-in reaches other's endpoint only.
	wantStatus(t, newBrowser(t, app).passwordPost(otherHost, "alice", "Correct9horse"), http.StatusSeeOther, "/learn")
	got := otherRC.Wait(t, 1, 20*time.Second)[0]
	if got.Field(t, "type") != store.EventUserSignedIn || got.Field(t, "organisation") != "other" {
		t.Fatalf("other's event %s", got.Body)
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(rc.Requests()); n != 2 {
		t.Fatalf("acme's endpoint got %d events after other's sign-in, want 2", n)
	}
}

// TestSignInEventNeedsASubscriber: with no endpoint subscribed to
// user.signed_in, a sign-in records no event and no delivery.
func TestSignInEventNeedsASubscriber(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	idp := startIdP(t, "acme", "other")
	acme, _ := signInTenants(t, h, idp)
	h.papiDeps.WebhookPolicy.AllowPrivate = true
	rc := webhooktest.NewReceiver(t, nil)
	register(t, acme, `{"url":"`+rc.URL("/acme")+`","events":["user.updated"]}`)
	seedPasswordUser(t, h, "acme", "alice", "Correct9horse", true)
	wantStatus(t, newBrowser(t, h.pagesRouter(t)).passwordPost(acme.host, "alice", "Correct9horse"), http.StatusSeeOther, "/learn")
	var events int
	if err := tenantHandle(t, h, "acme").ReadTx(context.Background(), func(tx *sqlx.Tx) error {
		return tx.Get(&events, `SELECT count(*) FROM webhook_events`)
	}); err != nil || events != 0 {
		t.Fatalf("%d events recorded for a sign-in nobody subscribes to (%v)", events, err)
	}
}

// TestSAMLSignInRecordsUserSignedIn: a SAML sign-in records one
// user.signed_in event with the user as the API shows it; the refused
// sign-in of an inactive user records none.
func TestSAMLSignInRecordsUserSignedIn(t *testing.T) {
	t.Parallel()
	h, idp, b := samlFixture(t, harnessOptions{})
	tdb := tenantHandle(t, h, "samla")
	url := "https://hooks.example.com/samla"
	if _, err := store.CreateWebhook(context.Background(), tdb, learngate.WebhookInput{URL: &url, Events: []string{store.EventUserSignedIn}},
		h.papiDeps.WebhookPolicy, time.Now()); err != nil {
		t.Fatal(err)
	}
	refused, reqID := b.samlStart(samlHost)
	wantStatus(t, b.samlPost(samlHost, reqID, idp.respond(refused, "bob@example.test", nil)), http.StatusForbidden, "not active")
	redirect, reqID := b.samlStart(samlHost)
	wantStatus(t, b.samlPost(samlHost, reqID, idp.respond(redirect, "alice@example.test", nil)), http.StatusSeeOther, "/learn")

	var events []struct {
		Type string `db:"type"`
		Data string `db:"data"`
	}
	if err := tdb.ReadTx(context.Background(), func(tx *sqlx.Tx) error {
		return tx.Select(&events, `SELECT type, data::text AS data FROM webhook_events ORDER BY id`)
	}); err != nil {
		t.Fatal(err)
	}
	alice, err := store.GetUser(context.Background(), tdb, "alice")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(alice)
	if len(events) != 1 || events[0].Type != store.EventUserSignedIn || events[0].Data != string(want) {
		t.Fatalf("events %+v, want one user.signed_in with %s", events, want)
	}
}
