package tenant

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"strings"

	"learngate"
)

// Resolve returns the tenant that host (a Host header value) names: a
// <slug>.<base domain> or a custom domain. Port, case and a trailing dot are
// ignored. Unknown hosts and tenants still provisioning are NotFound. A warm
// lookup is served from memory.
func (r *Registry) Resolve(ctx context.Context, host string) (learngate.Tenant, error) {
	h := NormalizeHost(host)
	if e, ok := r.cache.host(h); ok {
		return hostResult(e)
	}
	epoch := r.cache.currentEpoch()
	t, err := r.lookupHost(ctx, h)
	found := err == nil && t.Status != learngate.TenantProvisioning
	if err != nil && !learngate.IsCode(err, learngate.NotFound) {
		return learngate.Tenant{}, err
	}
	e := hostEntry{tenant: t, found: found}
	r.cache.putHost(epoch, h, e)
	return hostResult(e)
}

func hostResult(e hostEntry) (learngate.Tenant, error) {
	if !e.found {
		return learngate.Tenant{}, learngate.Errorf(learngate.NotFound, "unknown organisation")
	}
	return e.tenant, nil
}

// lookupHost reads the tenant that h names from the database.
func (r *Registry) lookupHost(ctx context.Context, h string) (learngate.Tenant, error) {
	underBase := false
	for _, base := range r.opts.BaseDomains {
		if slug, ok := strings.CutSuffix(h, "."+base); ok {
			// One base domain may sit under another (eu.example.com under
			// example.com): only a valid slug settles which one h is under.
			if ValidateSlug(slug) == nil {
				return r.hosts.TenantBySlug(ctx, slug)
			}
			underBase = true
		}
	}
	if underBase || h == "" || !strings.Contains(h, ".") {
		return learngate.Tenant{}, learngate.Errorf(learngate.NotFound, "unknown organisation")
	}
	// Only a well-formed domain can be a custom domain (they are stored
	// through normalizeDomain): anything else, a NUL byte or invalid UTF-8
	// included, is not sent to the database (docs/reliability.md, B12).
	if d, err := normalizeDomain(h, nil); err != nil || d != h {
		return learngate.Tenant{}, learngate.Errorf(learngate.NotFound, "unknown organisation")
	}
	return r.hosts.TenantByDomain(ctx, h)
}

// Authenticate checks keyText against t's active keys and reports whether
// the request may proceed. Every cause of refusal (missing, wrong, revoked,
// another tenant's key, API disabled, tenant suspended) is the same
// Unauthorized error. The stored hash is compared in constant time.
func (r *Registry) Authenticate(ctx context.Context, t learngate.Tenant, keyText string) error {
	refused := learngate.Errorf(learngate.Unauthorized, "unauthorized")
	if keyText == "" {
		return refused
	}
	hash := sha256.Sum256([]byte(keyText))
	rec, ok := r.cache.key(hash)
	if !ok {
		epoch := r.cache.currentEpoch()
		var err error
		rec, err = r.db.APIKeyByHash(ctx, hash[:])
		if learngate.IsCode(err, learngate.NotFound) {
			return refused
		}
		if err != nil {
			return err
		}
		r.cache.putKey(epoch, hash, rec)
	}
	match := subtle.ConstantTimeCompare(rec.Hash, hash[:]) == 1
	if !match || rec.TenantID != t.ID || rec.RevokedAt != nil ||
		t.Status != learngate.TenantActive || !t.APIEnabled {
		return refused
	}
	r.usage.used(rec.ID)
	return nil
}

// KeyCached reports whether keyText is in this node's key cache, so that
// Authenticate will answer it without a database lookup.
func (r *Registry) KeyCached(keyText string) bool {
	if keyText == "" {
		return false
	}
	_, ok := r.cache.key(sha256.Sum256([]byte(keyText)))
	return ok
}

// TLSAllowed reports whether a certificate may be issued for domain: a
// custom domain of an active tenant, or <slug>.<base domain> of one.
func (r *Registry) TLSAllowed(ctx context.Context, domain string) (bool, error) {
	t, err := r.Resolve(ctx, domain)
	if learngate.IsCode(err, learngate.NotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return t.Status == learngate.TenantActive, nil
}
