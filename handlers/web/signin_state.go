package web

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"learngate/tenant"
)

// Anonymous sign-in pages keep no state on the server (DECISIONS section
// 19, docs/decisions.md "Stateless sign-in pages"): what a sign-in needs
// between its steps travels with the browser.
//   - The anonymous form's CSRF token is a double submit: a random cookie
//     (anonCSRFCookie, __Host- under https so that no sibling host can set
//     it) and, in the form, an HMAC of that cookie bound to the host.
//   - A started sign-in (the OIDC state, nonce, PKCE verifier and next page;
//     the SAML request id) is sealed (AES-256-GCM) into a short-lived cookie
//     bound to the host and to the cookie's name, so it is neither readable
//     nor replayable on another tenant's host or for the other protocol.
// A server-side session row is written only when a sign-in succeeds.

// flowTTL is how long a started sign-in may take.
const flowTTL = 10 * time.Minute

// Cookie names of the stateless sign-in state.
const (
	anonCSRFCookie = "lg_csrf"
	oidcFlowCookie = "lg_oidc_flow"
)

// stateKeys are the keys of the stateless sign-in state, derived from the
// server's signing key (LEARNGATE_SIGNING_KEY), so that every node reads
// what another wrote.
type stateKeys struct {
	csrf []byte
	aead cipher.AEAD
}

// newStateKeys derives the CSRF and sealing keys from key.
func newStateKeys(key []byte) (stateKeys, error) {
	derive := func(label string) []byte {
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte("learngate sign-in state: " + label))
		return mac.Sum(nil)
	}
	block, err := aes.NewCipher(derive("seal"))
	if err != nil {
		return stateKeys{}, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return stateKeys{}, err
	}
	return stateKeys{csrf: derive("csrf"), aead: aead}, nil
}

// requestHost is the request's host as the state is bound to it.
func requestHost(c *gin.Context) string {
	return tenant.NormalizeHost(c.Request.Host)
}

// cookieName is name, with the __Host- prefix under https.
func (s *Pages) cookieName(name string) string {
	if s.deps.PublicScheme == "https" {
		return "__Host-" + name
	}
	return name
}

// anonCSRFToken returns the anonymous form's CSRF token, setting its
// random cookie when the browser has none.
func (s *Pages) anonCSRFToken(c *gin.Context) string {
	name := s.cookieName(anonCSRFCookie)
	value := ""
	if ck, err := c.Request.Cookie(name); err == nil && len(ck.Value) == 43 {
		value = ck.Value
	} else {
		value = randomToken()
		http.SetCookie(c.Writer, &http.Cookie{Name: name, Value: value, Path: "/", HttpOnly: true,
			SameSite: http.SameSiteLaxMode, Secure: s.deps.PublicScheme == "https"})
	}
	return s.anonCSRFFor(c, value)
}

// anonCSRFFor is the form token of cookie value on the request's host.
func (s *Pages) anonCSRFFor(c *gin.Context, value string) string {
	mac := hmac.New(sha256.New, s.signIn.keys.csrf)
	mac.Write([]byte(requestHost(c)))
	mac.Write([]byte{0})
	mac.Write([]byte(value))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// validAnonCSRF reports whether the form's csrf field is the token of the
// browser's CSRF cookie on this host.
func (s *Pages) validAnonCSRF(c *gin.Context) bool {
	ck, err := c.Request.Cookie(s.cookieName(anonCSRFCookie))
	if err != nil || ck.Value == "" {
		return false
	}
	want := s.anonCSRFFor(c, ck.Value)
	return subtle.ConstantTimeCompare([]byte(c.PostForm("csrf")), []byte(want)) == 1
}

// sealedFlow is what a flow cookie holds: the host it was made on, when it
// expires, and the flow's data.
type sealedFlow struct {
	Host    string          `json:"h"`
	Expires int64           `json:"e"`
	Data    json.RawMessage `json:"d"`
}

// errFlow is any flow cookie that is missing, forged, expired or not of
// this host.
var errFlow = errors.New("sign-in state missing, expired or not of this host")

// sealFlow returns data sealed for the cookie name on the request's host,
// valid for flowTTL.
func (s *Pages) sealFlow(c *gin.Context, name string, data any) (string, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return "", err
	}
	plain, err := json.Marshal(sealedFlow{Host: requestHost(c), Expires: s.gate.Now().Add(flowTTL).Unix(), Data: raw})
	if err != nil {
		return "", err
	}
	aead := s.signIn.keys.aead
	nonce := make([]byte, aead.NonceSize())
	_, _ = rand.Read(nonce) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(aead.Seal(nonce, nonce, plain, []byte(name))), nil
}

// openFlow reads the flow sealed in value for the cookie name into data;
// errFlow unless it was sealed by a node of this deployment for this
// cookie on this host and has not expired.
func (s *Pages) openFlow(c *gin.Context, name, value string, data any) error {
	sealed, err := base64.RawURLEncoding.DecodeString(value)
	aead := s.signIn.keys.aead
	if err != nil || len(sealed) < aead.NonceSize()+aead.Overhead() || len(sealed) > 4096 {
		return errFlow
	}
	plain, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], []byte(name))
	if err != nil {
		return errFlow
	}
	var f sealedFlow
	if json.Unmarshal(plain, &f) != nil || f.Host != requestHost(c) || s.gate.Now().Unix() >= f.Expires {
		return errFlow
	}
	if json.Unmarshal(f.Data, data) != nil {
		return errFlow
	}
	return nil
}

// setFlowCookie sets the flow cookie name on path to value for flowTTL, or
// removes it when value is "". crossSite makes it SameSite=None under
// https, for a provider's cross-site POST (SAML).
func (s *Pages) setFlowCookie(c *gin.Context, name, path, value string, crossSite bool) {
	ck := &http.Cookie{Name: name, Value: value, Path: path, MaxAge: int(flowTTL / time.Second), HttpOnly: true,
		SameSite: http.SameSiteLaxMode}
	if s.deps.PublicScheme == "https" {
		ck.Secure = true
		if crossSite {
			ck.SameSite = http.SameSiteNoneMode
		}
	}
	if value == "" {
		ck.MaxAge = -1
	}
	http.SetCookie(c.Writer, ck)
}
