package web

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"learngate/tenant"
)

// fakeOP is a minimal OpenID provider whose answers a test shapes: the
// discovery document (its Cache-Control, a failure, a wait), and the
// claims of the ID tokens its token endpoint issues. The authorization
// step is skipped: the code a test delivers to the callback is the nonce
// that /sso/start sent (fakeOP.signIn), which the token endpoint signs
// into the ID token.
type fakeOP struct {
	srv    *httptest.Server
	issuer string
	key    *rsa.PrivateKey

	discoveryHits, keyHits, tokenHits atomic.Int64
	// failDiscovery makes discovery answer 500.
	failDiscovery atomic.Bool

	mu           sync.Mutex
	cacheControl string         // of the discovery document
	claims       map[string]any // added to (or replacing) the ID token's claims
	hold         chan struct{}  // when set, discovery waits for it to close
}

// startFakeOP runs a fake provider on 127.0.0.1.
func startFakeOP(t *testing.T) *fakeOP {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	op := &fakeOP{key: key}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", op.discovery)
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, _ *http.Request) {
		op.keyHits.Add(1)
		op.mu.Lock()
		pub := &op.key.PublicKey
		op.mu.Unlock()
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: pub, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}})
	})
	mux.HandleFunc("POST /token", op.token)
	mux.HandleFunc("GET /userinfo", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"sub":"u1"}`))
	})
	op.srv = httptest.NewServer(mux)
	t.Cleanup(op.srv.Close)
	op.issuer = op.srv.URL
	return op
}

func (op *fakeOP) discovery(w http.ResponseWriter, _ *http.Request) {
	op.discoveryHits.Add(1)
	op.mu.Lock()
	hold, cc := op.hold, op.cacheControl
	op.mu.Unlock()
	if hold != nil {
		<-hold
	}
	if op.failDiscovery.Load() {
		http.Error(w, "down", http.StatusInternalServerError)
		return
	}
	if cc != "" {
		w.Header().Set("Cache-Control", cc)
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"issuer": op.issuer, "authorization_endpoint": op.issuer + "/authorize",
		"token_endpoint": op.issuer + "/token", "jwks_uri": op.issuer + "/jwks", "userinfo_endpoint": op.issuer + "/userinfo",
		"end_session_endpoint": op.issuer + "/end_session", "id_token_signing_alg_values_supported": []string{"RS256"}})
}

// token issues an ID token for alice@example.test whose nonce is the code.
func (op *fakeOP) token(w http.ResponseWriter, r *http.Request) {
	op.tokenHits.Add(1)
	clientID, _, _ := r.BasicAuth()
	claims := map[string]any{"iss": op.issuer, "sub": "u1", "aud": clientID, "exp": time.Now().Add(time.Hour).Unix(),
		"iat": time.Now().Unix(), "nonce": r.PostFormValue("code"), "email": "alice@example.test", "preferred_username": "alice"}
	op.mu.Lock()
	key := op.key
	for k, v := range op.claims {
		if v == nil {
			delete(claims, k)
		} else {
			claims[k] = v
		}
	}
	op.mu.Unlock()
	payload, _ := json.Marshal(claims)
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: "k1"}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	jws, _ := signer.Sign(payload)
	raw, _ := jws.CompactSerialize()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "at", "token_type": "Bearer", "expires_in": 60, "id_token": raw})
}

// rotate signs the next tokens with a new key, published in place of the old.
func (op *fakeOP) rotate(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	op.mu.Lock()
	defer op.mu.Unlock()
	op.key = key
}

// set replaces the claims added to the next ID tokens (nil value: removed).
func (op *fakeOP) set(claims map[string]any) {
	op.mu.Lock()
	defer op.mu.Unlock()
	op.claims = claims
}

// configureFakeSSO sets slug's OIDC client on op through the registry.
func (h *harness) configureFakeSSO(t *testing.T, issuer, slug string) {
	t.Helper()
	secret, jit := slug+"-secret", false
	if _, err := h.registry.SetSSO(context.Background(), slug, tenant.SSOInput{Protocol: "oidc", Issuer: issuer,
		ClientID: slug + "-client", ClientSecret: &secret, JIT: &jit}); err != nil {
		t.Fatal(err)
	}
}

// signIn starts a sign-in on host and delivers the callback with the
// start's state and nonce (as code), and returns the callback's answer.
func (op *fakeOP) signIn(t *testing.T, b *browser, host string) *httptest.ResponseRecorder {
	t.Helper()
	u, err := url.Parse(b.start(host, "/learn"))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	return b.do(http.MethodGet, host, "/sso/oidc/callback?code="+url.QueryEscape(q.Get("nonce"))+"&state="+url.QueryEscape(q.Get("state")), nil)
}

// testClock is a settable clock.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
