package web

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	jose "github.com/go-jose/go-jose/v4"
	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/sync/singleflight"

	"learngate/tenant"
)

// Identity providers' discovery documents and key sets (docs/decisions.md,
// "Calls to identity providers"): fetched through the tenant package's
// IdPGuard, one fetch at a time per URL (others wait for it), kept for the
// answer's Cache-Control max-age (1 hour when absent, at least 5 minutes),
// and a failed fetch remembered for 30 s, during which sign-ins through
// that provider answer the "sign-in service unavailable" page at once. A
// fetch ends when the learner who started it leaves; whoever waited for it
// then starts their own.

// Provider cache bounds.
const (
	providerDefaultMaxAge = time.Hour
	providerMinMaxAge     = 5 * time.Minute
	providerMaxMaxAge     = 24 * time.Hour
	providerFailureTTL    = 30 * time.Second
	// providerCacheEntries bounds the cache (least recently used leave
	// first): two entries per issuer in use.
	providerCacheEntries = 2048
	// keyRefreshEvery is how often at most a token signed by an unknown key
	// fetches the key set again before its max-age (key rotation).
	keyRefreshEvery = time.Minute
)

// errFetchAbandoned is a fetch whose learner left before it ended: not
// remembered, and whoever waited for it fetches again.
var errFetchAbandoned = errors.New("identity provider fetch abandoned: its request ended")

// providerDownError is a failed or remembered failed fetch: sign-ins
// through the provider answer "unavailable" until Until.
type providerDownError struct {
	err   error
	until time.Time
	// remembered is a failure answered from the cache, already logged
	// when its fetch failed.
	remembered bool
}

func (e *providerDownError) Error() string { return "identity provider unavailable: " + e.err.Error() }
func (e *providerDownError) Unwrap() error { return e.err }

// discovered is what learngate uses of an issuer's discovery document.
type discovered struct {
	Issuer        string   `json:"issuer"`
	AuthURL       string   `json:"authorization_endpoint"`
	TokenURL      string   `json:"token_endpoint"`
	UserInfoURL   string   `json:"userinfo_endpoint"`
	JWKSURL       string   `json:"jwks_uri"`
	EndSessionURL string   `json:"end_session_endpoint"`
	Algorithms    []string `json:"id_token_signing_alg_values_supported"`
}

// providerEntry is a cached fetch: its value, or the failure remembered.
type providerEntry struct {
	value   any // *discovered or []crypto.PublicKey
	err     error
	fetched time.Time
	expires time.Time
}

// providerCache holds the identity providers' documents of this process.
type providerCache struct {
	guard   *tenant.IdPGuard
	now     func() time.Time
	flights singleflight.Group
	entries *lru.Cache[string, providerEntry]
}

// newProviderCache returns an empty cache fetching through guard.
func newProviderCache(guard *tenant.IdPGuard, now func() time.Time) *providerCache {
	entries, _ := lru.New[string, providerEntry](providerCacheEntries) // never fails for a positive size
	if now == nil {
		now = time.Now
	}
	return &providerCache{guard: guard, now: now, entries: entries}
}

// discovery returns issuer's discovery document.
func (c *providerCache) discovery(ctx context.Context, issuer string) (*discovered, error) {
	v, err := c.get(ctx, "discovery "+issuer, false, func(ctx context.Context) (any, time.Duration, error) {
		return c.fetchDiscovery(ctx, issuer)
	})
	if err != nil {
		return nil, err
	}
	return v.(*discovered), nil
}

// keys returns the public keys of the key set at jwksURL; refresh fetches
// them again unless they were fetched less than keyRefreshEvery ago.
func (c *providerCache) keys(ctx context.Context, jwksURL string, refresh bool) ([]crypto.PublicKey, error) {
	v, err := c.get(ctx, "keys "+jwksURL, refresh, func(ctx context.Context) (any, time.Duration, error) {
		return c.fetchKeys(ctx, jwksURL)
	})
	if err != nil {
		return nil, err
	}
	return v.([]crypto.PublicKey), nil
}

// get returns key's cached value or remembered failure, else fetches it:
// one fetch per key at a time, which the others wait for (each as long as
// its own request lasts).
func (c *providerCache) get(ctx context.Context, key string, refresh bool,
	fetch func(context.Context) (any, time.Duration, error)) (any, error) {
	if e, ok := c.entries.Get(key); ok && c.now().Before(e.expires) {
		switch {
		case e.err != nil:
			return nil, &providerDownError{err: e.err, until: e.expires, remembered: true}
		case !refresh || c.now().Sub(e.fetched) < keyRefreshEvery:
			return e.value, nil
		}
	}
	for {
		ch := c.flights.DoChan(key, func() (any, error) {
			fctx, cancel := context.WithTimeout(ctx, tenant.IdPTimeout)
			defer cancel()
			v, maxAge, err := fetch(fctx)
			if err != nil && ctx.Err() != nil {
				return nil, errFetchAbandoned
			}
			now := c.now()
			if old, ok := c.entries.Peek(key); err != nil && ok && old.err == nil && now.Before(old.expires) {
				return old.value, nil // a refresh failed: the keys still valid stay
			}
			if err != nil {
				c.entries.Add(key, providerEntry{err: err, fetched: now, expires: now.Add(providerFailureTTL)})
				return nil, &providerDownError{err: err, until: now.Add(providerFailureTTL)}
			}
			c.entries.Add(key, providerEntry{value: v, fetched: now, expires: now.Add(maxAge)})
			return v, nil
		})
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case r := <-ch:
			if errors.Is(r.Err, errFetchAbandoned) && ctx.Err() == nil {
				continue // its learner left: fetch for this one
			}
			return r.Val, r.Err
		}
	}
}

// fetch GETs u through the guard and returns its body and how long to
// keep it.
func (c *providerCache) fetch(ctx context.Context, u string) ([]byte, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.guard.Client().Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("GET %s answered %d", u, resp.StatusCode)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, 0, err
	}
	return body, cacheMaxAge(resp.Header.Get("Cache-Control")), nil
}

// cacheMaxAge is how long an answer with this Cache-Control is kept: its
// max-age within [5 minutes, 24 hours], 1 hour without one.
func cacheMaxAge(cc string) time.Duration {
	for _, d := range strings.Split(cc, ",") {
		name, value, _ := strings.Cut(strings.TrimSpace(d), "=")
		if strings.EqualFold(name, "max-age") {
			secs, err := strconv.ParseInt(strings.Trim(value, `"`), 10, 64)
			if err != nil || secs < 0 {
				break
			}
			return min(max(time.Duration(min(secs, 1<<31))*time.Second, providerMinMaxAge), providerMaxMaxAge)
		}
	}
	return providerDefaultMaxAge
}

// fetchDiscovery fetches and checks issuer's discovery document: issued
// by issuer itself, and every endpoint learngate calls (token, key set,
// userinfo) allowed by the guard, so that no secret is ever sent to an
// address the guard refuses.
func (c *providerCache) fetchDiscovery(ctx context.Context, issuer string) (any, time.Duration, error) {
	body, maxAge, err := c.fetch(ctx, strings.TrimSuffix(issuer, "/")+"/.well-known/openid-configuration")
	if err != nil {
		return nil, 0, err
	}
	var d discovered
	if err := json.Unmarshal(body, &d); err != nil {
		return nil, 0, errors.New("discovery document is not JSON")
	}
	if d.Issuer != issuer {
		return nil, 0, fmt.Errorf("discovery document names issuer %q, not %q", d.Issuer, issuer)
	}
	for name, u := range map[string]string{"token_endpoint": d.TokenURL, "jwks_uri": d.JWKSURL} {
		if u == "" {
			return nil, 0, fmt.Errorf("discovery document has no %s", name)
		}
	}
	for name, u := range map[string]string{"token_endpoint": d.TokenURL, "jwks_uri": d.JWKSURL, "userinfo_endpoint": d.UserInfoURL} {
		if err := c.guard.CheckURL(name, u); u != "" && err != nil {
			return nil, 0, err
		}
	}
	for name, u := range map[string]*string{"authorization_endpoint": &d.AuthURL, "end_session_endpoint": &d.EndSessionURL} {
		if p, err := url.Parse(*u); *u != "" && (err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "") {
			if name == "authorization_endpoint" {
				return nil, 0, errors.New("discovery document has no valid authorization_endpoint")
			}
			*u = "" // no RP-initiated logout through an unusable URL
		}
	}
	if d.AuthURL == "" {
		return nil, 0, errors.New("discovery document has no authorization_endpoint")
	}
	algs := d.Algorithms[:0:0]
	for _, a := range d.Algorithms {
		if supportedSigningAlgs[a] {
			algs = append(algs, a)
		}
	}
	d.Algorithms = algs
	return &d, maxAge, nil
}

// supportedSigningAlgs are the ID token algorithms go-oidc verifies.
var supportedSigningAlgs = map[string]bool{oidc.RS256: true, oidc.RS384: true, oidc.RS512: true, oidc.ES256: true,
	oidc.ES384: true, oidc.ES512: true, oidc.PS256: true, oidc.PS384: true, oidc.PS512: true, oidc.EdDSA: true}

// fetchKeys fetches a key set and keeps its signing public keys (RSA,
// EC, Ed25519); other keys are skipped, as RFC 7517 asks.
func (c *providerCache) fetchKeys(ctx context.Context, jwksURL string) (any, time.Duration, error) {
	body, maxAge, err := c.fetch(ctx, jwksURL)
	if err != nil {
		return nil, 0, err
	}
	var raw struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, 0, errors.New("key set is not JSON")
	}
	var keys []crypto.PublicKey
	for _, k := range raw.Keys {
		var jwk jose.JSONWebKey
		if json.Unmarshal(k, &jwk) != nil || jwk.Use == "enc" {
			continue
		}
		switch key := jwk.Key.(type) {
		case *rsa.PublicKey, *ecdsa.PublicKey, ed25519.PublicKey:
			keys = append(keys, key)
		}
	}
	if len(keys) == 0 {
		return nil, 0, errors.New("key set has no signing key")
	}
	return keys, maxAge, nil
}

// cachedKeySet verifies ID token signatures with the cached keys of
// jwksURL, fetching them once more (at most every keyRefreshEvery) when
// none verifies: the provider may have rotated its keys.
type cachedKeySet struct {
	cache   *providerCache
	jwksURL string
}

// VerifySignature returns the payload of jwt when one of the keys signed it.
func (k cachedKeySet) VerifySignature(ctx context.Context, jwt string) ([]byte, error) {
	keys, err := k.cache.keys(ctx, k.jwksURL, false)
	if err != nil {
		return nil, err
	}
	payload, err := (&oidc.StaticKeySet{PublicKeys: keys}).VerifySignature(ctx, jwt)
	if err == nil {
		return payload, nil
	}
	if keys, err = k.cache.keys(ctx, k.jwksURL, true); err != nil {
		return nil, err
	}
	return (&oidc.StaticKeySet{PublicKeys: keys}).VerifySignature(ctx, jwt)
}
