package tenant

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"learngate"
	"learngate/blob"
	"learngate/store"
)

// invalidationChannel is the Redis channel on which a node announces a
// registry change so that every node drops its cache at once.
const invalidationChannel = "learngate:registry:changed"

// addedMessage is the invalidation a tenant's creation announces: only
// unknown hosts are stale. Any other message drops the whole cache (a
// node of an earlier version drops it on this one too).
const addedMessage = "added"

// Options configures a Registry.
type Options struct {
	// BaseDomains are the service's domains; <slug>.<base domain> names a tenant.
	BaseDomains []string
	// Redis, when set, carries cache invalidations between nodes.
	Redis redis.UniversalClient
	// Logger receives warnings; default slog.Default().
	Logger *slog.Logger
	// PollInterval is how often the registry generation is checked; default 500 ms.
	PollInterval time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Blobs is where the tenants' files (certificates) are kept; Delete
	// removes a tenant's. Nil: the tenants keep no files.
	Blobs blob.Store
	// SSOAllowPrivate (LEARNGATE_SSO_ALLOW_PRIVATE) lets identity
	// providers on private or loopback addresses through (IdPGuard).
	SSOAllowPrivate bool
}

// Registry onboards, changes and offboards tenants, resolves hosts to
// tenants and checks API keys. Lookups are cached in memory; every change
// made anywhere invalidates every node's cache within PollInterval (at once
// where Redis is configured).
type Registry struct {
	db      *store.DB
	lookups lookupStore
	opts    Options
	cache   *cache
	usage   *usageTracker
	idp     *IdPGuard
}

// lookupStore reads what the request path looks up, the tenant a host
// names and a tenant's active keys: the database (tests count the lookups
// through it).
type lookupStore interface {
	TenantBySlug(ctx context.Context, slug string) (learngate.Tenant, error)
	TenantByDomain(ctx context.Context, domain string) (learngate.Tenant, error)
	ActiveAPIKeys(ctx context.Context, tenantID int64) ([]store.KeyRecord, error)
	// TenantSchemaBehind says whether a tenant's schema is behind this
	// binary's migrations (bringUp).
	TenantSchemaBehind(ctx context.Context, tenantID int64) (bool, error)
}

// NewRegistry returns a registry over db.
func NewRegistry(db *store.DB, opts Options) *Registry {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = 500 * time.Millisecond
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Registry{db: db, lookups: db, opts: opts, cache: newCache(maxCacheEntries, opts.Now), usage: newUsageTracker(opts.Now),
		idp: NewIdPGuard(IdPGuardOptions{AllowPrivate: opts.SSOAllowPrivate})}
}

// IdPGuard returns the guard of every call to identity providers
// (Options.SSOAllowPrivate): the handlers call providers through it too.
func (r *Registry) IdPGuard() *IdPGuard { return r.idp }

// NewTenantInput is what ops give to onboard a tenant.
type NewTenantInput struct {
	Slug               string
	Name               string
	Timezone           string
	APIEnabled         *bool
	RateLimitPerMinute *int64
	CustomDomains      []string
}

// Create onboards a tenant: validates the input, stores it with its domains
// and first API key, creates its schema at the current version (one
// script, store.CreateTenantSchema), and marks it active.
// It returns the tenant and the key's text, which is never shown again.
func (r *Registry) Create(ctx context.Context, in NewTenantInput) (learngate.Tenant, string, error) {
	nt, err := r.newTenant(in)
	if err != nil {
		return learngate.Tenant{}, "", err
	}
	keyText, key, err := GenerateKey()
	if err != nil {
		return learngate.Tenant{}, "", err
	}
	t, _, err := r.db.CreateTenant(ctx, nt, key)
	if err != nil {
		return learngate.Tenant{}, "", err
	}
	if err := r.db.CreateTenantSchema(ctx, t.Schema); err != nil {
		if cleanupErr := r.db.DeleteTenant(context.WithoutCancel(ctx), t.ID); cleanupErr != nil {
			r.opts.Logger.Error("remove half-created tenant", "slug", t.Slug, "err", cleanupErr)
		}
		return learngate.Tenant{}, "", fmt.Errorf("provision tenant %s: %w", t.Slug, err)
	}
	if err := r.db.SetTenantStatus(ctx, t.ID, learngate.TenantActive); err != nil {
		return learngate.Tenant{}, "", err
	}
	r.announce(ctx, addedMessage)
	t, err = r.db.TenantByID(ctx, t.ID)
	if err != nil {
		return learngate.Tenant{}, "", err
	}
	return t, keyText, nil
}

func (r *Registry) newTenant(in NewTenantInput) (store.NewTenant, error) {
	nt := store.NewTenant{Slug: in.Slug, Name: in.Name, Timezone: in.Timezone, APIEnabled: true, RateLimitPerMinute: DefaultRateLimit}
	if err := ValidateSlug(in.Slug); err != nil {
		return nt, err
	}
	if nt.Name == "" {
		nt.Name = in.Slug
	}
	if nt.Timezone == "" {
		nt.Timezone = "UTC"
	}
	if in.APIEnabled != nil {
		nt.APIEnabled = *in.APIEnabled
	}
	if in.RateLimitPerMinute != nil {
		nt.RateLimitPerMinute = *in.RateLimitPerMinute
	}
	if err := firstError(validateName(nt.Name), validateTimezone(nt.Timezone), validateRateLimit(nt.RateLimitPerMinute)); err != nil {
		return nt, err
	}
	seen := map[string]bool{}
	for _, d := range in.CustomDomains {
		domain, err := normalizeDomain(d, r.opts.BaseDomains)
		if err != nil {
			return nt, err
		}
		if seen[domain] {
			return nt, learngate.Errorf(learngate.Invalid, "domain %q is listed twice", d)
		}
		seen[domain] = true
		nt.Domains = append(nt.Domains, domain)
	}
	return nt, nil
}

// List returns every tenant.
func (r *Registry) List(ctx context.Context) ([]learngate.Tenant, error) {
	return r.db.ListTenants(ctx)
}

// Show returns the tenant with the given slug; provisioning tenants are not found.
func (r *Registry) Show(ctx context.Context, slug string) (learngate.Tenant, error) {
	t, err := r.db.TenantBySlug(ctx, slug)
	if err == nil && t.Status == learngate.TenantProvisioning {
		err = learngate.Errorf(learngate.NotFound, "tenant %s not found", slug)
	}
	if learngate.IsCode(err, learngate.NotFound) {
		return learngate.Tenant{}, learngate.Errorf(learngate.NotFound, "tenant %s not found", slug)
	}
	return t, err
}

// TenantPatch is what ops may change on a tenant; nil fields stay as they are.
type TenantPatch = store.TenantPatch

// Update changes a tenant. The change reaches every node within a second.
func (r *Registry) Update(ctx context.Context, slug string, p TenantPatch) (learngate.Tenant, error) {
	var errs []error
	if p.Name != nil {
		errs = append(errs, validateName(*p.Name))
	}
	if p.Timezone != nil {
		errs = append(errs, validateTimezone(*p.Timezone))
	}
	if p.RateLimitPerMinute != nil {
		errs = append(errs, validateRateLimit(*p.RateLimitPerMinute))
	}
	if p.Status != nil {
		errs = append(errs, validateStatus(*p.Status))
	}
	if err := firstError(errs...); err != nil {
		return learngate.Tenant{}, err
	}
	if _, err := r.Show(ctx, slug); err != nil {
		return learngate.Tenant{}, err
	}
	t, err := r.db.UpdateTenant(ctx, slug, p)
	if err != nil {
		return learngate.Tenant{}, err
	}
	r.changed(ctx)
	return t, nil
}

// Delete offboards a tenant: its files (certificates, see Options.Blobs)
// are removed, then its schema with all its data, its domains and its keys
// in one transaction, then its files again, in case a worker stored one
// meanwhile. Files that cannot be removed stop it before the data goes,
// so it can be run again.
func (r *Registry) Delete(ctx context.Context, slug string) error {
	t, err := r.Show(ctx, slug)
	if err != nil {
		return err
	}
	if err := r.deleteFiles(ctx, t); err != nil {
		return err
	}
	if err := r.db.DeleteTenant(ctx, t.ID); err != nil {
		return err
	}
	r.changed(ctx)
	return r.deleteFiles(ctx, t)
}

// deleteFiles removes every file of t from Options.Blobs.
func (r *Registry) deleteFiles(ctx context.Context, t learngate.Tenant) error {
	if r.opts.Blobs == nil {
		return nil
	}
	if err := r.opts.Blobs.DeletePrefix(ctx, store.TenantBlobPrefix(t.ID)); err != nil {
		return fmt.Errorf("remove the files of tenant %s: %w", t.Slug, err)
	}
	return nil
}

// AddDomain attaches a custom domain to a tenant and returns the tenant.
func (r *Registry) AddDomain(ctx context.Context, slug, domain string) (learngate.Tenant, error) {
	t, err := r.Show(ctx, slug)
	if err != nil {
		return learngate.Tenant{}, err
	}
	d, err := normalizeDomain(domain, r.opts.BaseDomains)
	if err != nil {
		return learngate.Tenant{}, err
	}
	if err := r.db.AddDomain(ctx, t.ID, d); err != nil {
		return learngate.Tenant{}, err
	}
	r.changed(ctx)
	return r.Show(ctx, slug)
}

// RemoveDomain detaches a custom domain from a tenant.
func (r *Registry) RemoveDomain(ctx context.Context, slug, domain string) error {
	t, err := r.Show(ctx, slug)
	if err != nil {
		return err
	}
	if err := r.db.RemoveDomain(ctx, t.ID, NormalizeHost(domain)); err != nil {
		return err
	}
	r.changed(ctx)
	return nil
}

// CreateKey makes a new API key for a tenant; the text is shown only now.
func (r *Registry) CreateKey(ctx context.Context, slug string) (learngate.APIKey, string, error) {
	t, err := r.Show(ctx, slug)
	if err != nil {
		return learngate.APIKey{}, "", err
	}
	text, key, err := GenerateKey()
	if err != nil {
		return learngate.APIKey{}, "", err
	}
	k, err := r.db.CreateAPIKey(ctx, t.ID, key)
	if err != nil {
		return learngate.APIKey{}, "", err
	}
	r.changed(ctx)
	return k, text, nil
}

// ListKeys returns a tenant's keys (never their text).
func (r *Registry) ListKeys(ctx context.Context, slug string) ([]learngate.APIKey, error) {
	t, err := r.Show(ctx, slug)
	if err != nil {
		return nil, err
	}
	return r.db.ListAPIKeys(ctx, t.ID)
}

// RevokeKey revokes a tenant's key; it stops working on every node within a second.
func (r *Registry) RevokeKey(ctx context.Context, slug string, keyID int64) error {
	t, err := r.Show(ctx, slug)
	if err != nil {
		return err
	}
	if err := r.db.RevokeAPIKey(ctx, t.ID, keyID); err != nil {
		return err
	}
	r.changed(ctx)
	return nil
}

// changed drops this node's cache and tells the other nodes to drop theirs.
func (r *Registry) changed(ctx context.Context) { r.announce(ctx, "1") }

// announce applies a registry change to this node's cache and publishes
// message for the other nodes: addedMessage after a creation, which only
// makes unknown hosts stale, anything else for every other change.
func (r *Registry) announce(ctx context.Context, message string) {
	if message == addedMessage {
		r.cache.forgetUnknown()
	} else {
		r.cache.invalidate()
	}
	if r.opts.Redis == nil {
		return
	}
	if err := r.opts.Redis.Publish(context.WithoutCancel(ctx), invalidationChannel, message).Err(); err != nil {
		r.opts.Logger.Warn("publish registry invalidation; other nodes catch up by polling", "err", err)
	}
}

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
