package datagen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"learngate/store"
	"learngate/tenant"
)

// Tenant is a generated tenant and how to reach it.
type Tenant struct {
	TenantSpec
	Schema string
	// Key is an API key of the tenant. The dataset is a benchmark's, so it
	// is kept in clear in the marker table to be reused by later runs.
	Key string
}

// ErrOtherSpec is returned by Ensure when the database holds a dataset of
// another spec (or a half-built one): drop the database and run again.
var ErrOtherSpec = errors.New("the database holds another (or an unfinished) benchmark dataset")

// markerSQL creates the marker tables, in the shared (public) schema next
// to learngate's registry tables. bench_dataset has one row once the
// dataset is complete; bench_tenants one row per tenant as it is filled.
const markerSQL = `CREATE TABLE IF NOT EXISTS bench_dataset (spec text NOT NULL, finished_at timestamptz NOT NULL);
CREATE TABLE IF NOT EXISTS bench_tenants (slug text PRIMARY KEY, schema_name text NOT NULL, api_key text NOT NULL,
	spec text NOT NULL)`

// RateLimit is the per-minute limit of generated tenants: the highest
// allowed, so that the benchmark measures the limiter without being throttled.
const RateLimit = tenant.MaxRateLimit

// Ensure makes db (migrated) hold spec's dataset and returns its tenants
// in spec order. A dataset already complete with the same spec is reused
// as it is; an empty database is filled, tenant by tenant (progress goes to
// log); anything else is ErrOtherSpec.
func Ensure(ctx context.Context, db *store.DB, reg *tenant.Registry, spec Spec, log io.Writer) ([]Tenant, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	pool := db.Pool()
	if _, err := pool.ExecContext(ctx, markerSQL); err != nil {
		return nil, fmt.Errorf("marker tables: %w", err)
	}
	var specs []string
	if err := pool.SelectContext(ctx, &specs, `SELECT spec FROM bench_dataset`); err != nil {
		return nil, fmt.Errorf("read marker: %w", err)
	}
	switch {
	case len(specs) == 1 && specs[0] == spec.Key():
		fmt.Fprintf(log, "datagen: reusing the dataset already in the database (%d tenants)\n", len(spec.Tenants))
		return loadTenants(ctx, db, spec)
	case len(specs) > 0:
		return nil, ErrOtherSpec
	}
	var n int
	if err := pool.GetContext(ctx, &n, `SELECT count(*) FROM tenants`); err != nil {
		return nil, fmt.Errorf("count tenants: %w", err)
	}
	if n > 0 {
		return nil, ErrOtherSpec
	}
	out := make([]Tenant, 0, len(spec.Tenants))
	for i, ts := range spec.Tenants {
		start := time.Now()
		t, err := Create(ctx, db, reg, ts)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(log, "datagen: %d/%d %s: %d users, %d topic enrolments, %d pathway enrolments, %d records in %s\n",
			i+1, len(spec.Tenants), ts.Slug, ts.Users, ts.TopicEnrolments, ts.PathwayEnrolments, ts.Knowledge,
			time.Since(start).Round(time.Millisecond))
		out = append(out, t)
	}
	if _, err := pool.ExecContext(ctx, `INSERT INTO bench_dataset (spec, finished_at) VALUES ($1, now())`, spec.Key()); err != nil {
		return nil, fmt.Errorf("write marker: %w", err)
	}
	return out, nil
}

// Create onboards one tenant through the registry (its schema migrated as
// production migrates it, its limit RateLimit), fills it and records it in
// bench_tenants (creating the marker tables when missing).
func Create(ctx context.Context, db *store.DB, reg *tenant.Registry, ts TenantSpec) (Tenant, error) {
	pool := db.Pool()
	if _, err := pool.ExecContext(ctx, markerSQL); err != nil {
		return Tenant{}, fmt.Errorf("marker tables: %w", err)
	}
	limit := int64(RateLimit)
	enabled := true
	lt, key, err := reg.Create(ctx, tenant.NewTenantInput{Slug: ts.Slug, Name: ts.Slug, Timezone: "UTC",
		APIEnabled: &enabled, RateLimitPerMinute: &limit})
	if err != nil {
		return Tenant{}, fmt.Errorf("create tenant %s: %w", ts.Slug, err)
	}
	if err := fillTenant(ctx, pool, lt.Schema, ts); err != nil {
		return Tenant{}, err
	}
	t := Tenant{TenantSpec: ts, Schema: lt.Schema, Key: key}
	specJSON := Spec{Tenants: []TenantSpec{ts}}.Key()
	if _, err := pool.ExecContext(ctx, `INSERT INTO bench_tenants (slug, schema_name, api_key, spec) VALUES ($1, $2, $3, $4)`,
		ts.Slug, lt.Schema, key, specJSON); err != nil {
		return Tenant{}, fmt.Errorf("record tenant %s: %w", ts.Slug, err)
	}
	return t, nil
}

// loadTenants reads the tenants of a complete dataset of spec.
func loadTenants(ctx context.Context, db *store.DB, spec Spec) ([]Tenant, error) {
	var rows []struct {
		Slug   string `db:"slug"`
		Schema string `db:"schema_name"`
		Key    string `db:"api_key"`
	}
	if err := db.Pool().SelectContext(ctx, &rows, `SELECT slug, schema_name, api_key FROM bench_tenants`); err != nil {
		return nil, fmt.Errorf("read bench tenants: %w", err)
	}
	bySlug := map[string]Tenant{}
	for _, r := range rows {
		bySlug[r.Slug] = Tenant{Schema: r.Schema, Key: r.Key}
	}
	out := make([]Tenant, 0, len(spec.Tenants))
	for _, ts := range spec.Tenants {
		t, ok := bySlug[ts.Slug]
		if !ok {
			return nil, ErrOtherSpec
		}
		t.TenantSpec = ts
		out = append(out, t)
	}
	return out, nil
}

// Find returns the tenant called slug among ts.
func Find(ts []Tenant, slug string) (Tenant, bool) {
	for _, t := range ts {
		if t.Slug == slug {
			return t, true
		}
	}
	return Tenant{}, false
}
