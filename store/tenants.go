package store

import (
	"context"
	"strings"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"learngate"
)

// NewTenant is what the registry stores for a new tenant.
type NewTenant struct {
	Slug               string
	Name               string
	Timezone           string
	APIEnabled         bool
	RateLimitPerMinute int64
	Domains            []string
}

// TenantPatch lists the tenant fields an update may change; nil leaves a field as it is.
type TenantPatch struct {
	Name               *string
	Timezone           *string
	APIEnabled         *bool
	RateLimitPerMinute *int64
	Status             *string
}

const tenantColumns = `id, slug, name, timezone, status, api_enabled, rate_limit_per_minute, created_at, updated_at`

// CreateTenant inserts a tenant in the provisioning state with its domains
// and first API key, in one transaction. A taken slug or domain is a Conflict
// whose message says which.
func (db *DB) CreateTenant(ctx context.Context, in NewTenant, key NewAPIKey) (learngate.Tenant, learngate.APIKey, error) {
	var t learngate.Tenant
	var k learngate.APIKey
	err := db.inTx(ctx, func(tx *sqlx.Tx) error {
		const q = `INSERT INTO public.tenants (slug, name, timezone, api_enabled, rate_limit_per_minute)
			VALUES ($1, $2, $3, $4, $5) RETURNING ` + tenantColumns
		if err := tx.GetContext(ctx, &t, q, in.Slug, in.Name, in.Timezone, in.APIEnabled, in.RateLimitPerMinute); err != nil {
			return conflictMessage(err, "slug")
		}
		for _, d := range in.Domains {
			if err := insertDomain(ctx, tx, t.ID, d); err != nil {
				return err
			}
		}
		var err error
		k, err = insertAPIKey(ctx, tx, t.ID, key)
		return err
	})
	if err != nil {
		return learngate.Tenant{}, learngate.APIKey{}, err
	}
	t.Domains = append([]string{}, in.Domains...)
	t.Schema = SchemaName(t.ID)
	return t, k, nil
}

// SetTenantStatus sets a tenant's status (used to finish provisioning).
func (db *DB) SetTenantStatus(ctx context.Context, id int64, status string) error {
	_, err := db.pool.ExecContext(ctx, `UPDATE public.tenants SET status = $2, updated_at = now() WHERE id = $1`, id, status)
	return translate(err)
}

// DeleteTenant removes a tenant, its domains and keys (cascade) and drops
// its schema with all its data, in one transaction.
func (db *DB) DeleteTenant(ctx context.Context, id int64) error {
	return db.inTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM public.tenants WHERE id = $1`, id); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DROP SCHEMA IF EXISTS `+SchemaName(id)+` CASCADE`)
		return err
	})
}

// TenantBySlug returns the tenant with the given slug, provisioning or not.
func (db *DB) TenantBySlug(ctx context.Context, slug string) (learngate.Tenant, error) {
	return db.oneTenant(ctx, `SELECT `+tenantColumns+` FROM public.tenants WHERE slug = $1`, slug)
}

// TenantByDomain returns the tenant owning the custom domain.
func (db *DB) TenantByDomain(ctx context.Context, domain string) (learngate.Tenant, error) {
	return db.oneTenant(ctx, `SELECT `+prefixed("t.", tenantColumns)+`
		FROM public.tenants t JOIN public.tenant_domains d ON d.tenant_id = t.id WHERE d.domain = $1`, domain)
}

// TenantByID returns the tenant with the given id.
func (db *DB) TenantByID(ctx context.Context, id int64) (learngate.Tenant, error) {
	return db.oneTenant(ctx, `SELECT `+tenantColumns+` FROM public.tenants WHERE id = $1`, id)
}

func (db *DB) oneTenant(ctx context.Context, q string, arg any) (learngate.Tenant, error) {
	var t learngate.Tenant
	if err := db.pool.GetContext(ctx, &t, q, arg); err != nil {
		return learngate.Tenant{}, translate(err)
	}
	ts, err := db.withDomains(ctx, []learngate.Tenant{t})
	if err != nil {
		return learngate.Tenant{}, err
	}
	return ts[0], nil
}

// ListTenants returns every tenant that finished provisioning, by slug.
func (db *DB) ListTenants(ctx context.Context) ([]learngate.Tenant, error) {
	ts := []learngate.Tenant{}
	err := db.pool.SelectContext(ctx, &ts, `SELECT `+tenantColumns+` FROM public.tenants
		WHERE status <> 'provisioning' ORDER BY slug`)
	if err != nil {
		return nil, translate(err)
	}
	return db.withDomains(ctx, ts)
}

// withDomains fills Schema and Domains of ts with one query.
func (db *DB) withDomains(ctx context.Context, ts []learngate.Tenant) ([]learngate.Tenant, error) {
	ids := make([]int64, len(ts))
	index := make(map[int64]int, len(ts))
	for i := range ts {
		ids[i] = ts[i].ID
		index[ts[i].ID] = i
		ts[i].Schema = SchemaName(ts[i].ID)
		ts[i].Domains = []string{}
	}
	var rows []struct {
		TenantID int64  `db:"tenant_id"`
		Domain   string `db:"domain"`
	}
	err := db.pool.SelectContext(ctx, &rows, `SELECT tenant_id, domain FROM public.tenant_domains
		WHERE tenant_id = ANY($1) ORDER BY domain`, pq.Array(ids))
	if err != nil {
		return nil, translate(err)
	}
	for _, r := range rows {
		i := index[r.TenantID]
		ts[i].Domains = append(ts[i].Domains, r.Domain)
	}
	return ts, nil
}

// UpdateTenant applies patch to the tenant with the given slug and returns it.
func (db *DB) UpdateTenant(ctx context.Context, slug string, p TenantPatch) (learngate.Tenant, error) {
	const q = `UPDATE public.tenants SET
			name = coalesce($2, name),
			timezone = coalesce($3, timezone),
			api_enabled = coalesce($4, api_enabled),
			rate_limit_per_minute = coalesce($5, rate_limit_per_minute),
			status = coalesce($6, status),
			updated_at = now()
		WHERE slug = $1 AND status <> 'provisioning'
		RETURNING ` + tenantColumns
	var t learngate.Tenant
	if err := db.pool.GetContext(ctx, &t, q, slug, p.Name, p.Timezone, p.APIEnabled, p.RateLimitPerMinute, p.Status); err != nil {
		return learngate.Tenant{}, translate(err)
	}
	ts, err := db.withDomains(ctx, []learngate.Tenant{t})
	if err != nil {
		return learngate.Tenant{}, err
	}
	return ts[0], nil
}

// AddDomain attaches a custom domain to a tenant. A domain in use is a Conflict.
func (db *DB) AddDomain(ctx context.Context, tenantID int64, domain string) error {
	return db.inTx(ctx, func(tx *sqlx.Tx) error { return insertDomain(ctx, tx, tenantID, domain) })
}

func insertDomain(ctx context.Context, tx *sqlx.Tx, tenantID int64, domain string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO public.tenant_domains (domain, tenant_id) VALUES ($1, $2)`, domain, tenantID)
	return conflictMessage(err, "domain")
}

// RemoveDomain detaches a custom domain; NotFound when the tenant does not have it.
func (db *DB) RemoveDomain(ctx context.Context, tenantID int64, domain string) error {
	res, err := db.pool.ExecContext(ctx, `DELETE FROM public.tenant_domains WHERE tenant_id = $1 AND domain = $2`, tenantID, domain)
	if err != nil {
		return translate(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return learngate.Errorf(learngate.NotFound, "domain %s not found", domain)
	}
	return nil
}

// RegistryVersion is where the registry's changes stand: Generation moves
// on every change that may make a node's cached tenants, domains, keys or
// sign-in settings stale, Additions on a tenant's creation (its rows while
// provisioning and its activation), which can only make an unknown host
// known.
type RegistryVersion struct {
	Generation int64 `db:"generation"`
	Additions  int64 `db:"additions"`
}

// RegistryVersion returns the counters that registry changes bump.
func (db *DB) RegistryVersion(ctx context.Context) (RegistryVersion, error) {
	var v RegistryVersion
	err := db.pool.GetContext(ctx, &v, `SELECT generation, additions FROM public.registry_generation WHERE id = 1`)
	return v, translate(err)
}

// conflictMessage turns a unique violation into a Conflict naming what was taken.
func conflictMessage(err error, what string) error {
	err = translate(err)
	if learngate.IsCode(err, learngate.Conflict) {
		return &learngate.Error{Code: learngate.Conflict, Message: what + " already taken", Err: err}
	}
	return err
}

// prefixed qualifies each column of a comma list with p.
func prefixed(p, columns string) string {
	parts := strings.Split(columns, ", ")
	for i := range parts {
		parts[i] = p + parts[i]
	}
	return strings.Join(parts, ", ")
}
