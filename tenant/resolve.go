package tenant

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"strings"

	"learngate"
	"learngate/store"
)

// Resolve returns the tenant that host (a Host header value) names: a
// <slug>.<base domain> or a custom domain. Port, case and a trailing dot are
// ignored. Unknown hosts and tenants still provisioning are NotFound. A warm
// lookup is served from memory; a cold one also brings the tenant's schema
// to this binary's version when it is behind (bringUp).
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
	if found {
		if err := r.bringUp(ctx, t); err != nil {
			return learngate.Tenant{}, err
		}
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
				return r.lookups.TenantBySlug(ctx, slug)
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
	return r.lookups.TenantByDomain(ctx, h)
}

// Authenticate checks keyText against t's active keys and reports whether
// the request may proceed. Every cause of refusal (missing, wrong, revoked,
// another tenant's key, API disabled, tenant suspended) is the same
// Unauthorized error. The tenant's active key hashes are held in memory
// (one database read per tenant until the next registry change), so a
// wrong key costs no database lookup however many are sent; each stored
// hash is compared in constant time.
func (r *Registry) Authenticate(ctx context.Context, t learngate.Tenant, keyText string) error {
	refused := learngate.Errorf(learngate.Unauthorized, "unauthorized")
	if keyText == "" {
		return refused
	}
	keys, err := r.activeKeys(ctx, t.ID)
	if err != nil {
		return err
	}
	hash := sha256.Sum256([]byte(keyText))
	found := int64(0)
	for _, k := range keys {
		if subtle.ConstantTimeCompare(k.Hash, hash[:]) == 1 {
			found = k.ID
		}
	}
	if found == 0 || t.Status != learngate.TenantActive || !t.APIEnabled {
		return refused
	}
	r.usage.used(found)
	return nil
}

// activeKeys returns the tenant's active keys, from the cache when it can.
func (r *Registry) activeKeys(ctx context.Context, tenantID int64) ([]store.KeyRecord, error) {
	if keys, ok := r.cache.tenantKeys(tenantID); ok {
		return keys, nil
	}
	epoch := r.cache.currentEpoch()
	keys, err := r.lookups.ActiveAPIKeys(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	r.cache.putTenantKeys(epoch, tenantID, keys)
	return keys, nil
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
