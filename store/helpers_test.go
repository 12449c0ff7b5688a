package store_test

import (
	"context"
	"crypto/rand"
	"testing"

	"learngate"
	"learngate/store"
)

// newKey returns a stored key form with a random hash.
func newKey() store.NewAPIKey {
	h := make([]byte, 32)
	_, _ = rand.Read(h) // never fails (crypto/rand)
	return store.NewAPIKey{Hash: h, Prefix: "lg_test"}
}

// createTenant stores a tenant with its domains and one key, creates its
// schema and marks it active, as the registry does.
func createTenant(tb testing.TB, db *store.DB, slug string, domains ...string) (learngate.Tenant, learngate.APIKey, store.NewAPIKey) {
	tb.Helper()
	ctx := context.Background()
	key := newKey()
	tn, k, err := db.CreateTenant(ctx, store.NewTenant{
		Slug: slug, Name: slug, Timezone: "UTC", APIEnabled: true, RateLimitPerMinute: 300, Domains: domains,
	}, key)
	if err != nil {
		tb.Fatalf("create tenant %s: %v", slug, err)
	}
	if err := db.CreateTenantSchema(ctx, tn.Schema); err != nil {
		tb.Fatalf("create schema of tenant %s: %v", slug, err)
	}
	if err := db.SetTenantStatus(ctx, tn.ID, learngate.TenantActive); err != nil {
		tb.Fatalf("activate tenant %s: %v", slug, err)
	}
	tn.Status = learngate.TenantActive
	return tn, k, key
}

// schemaExists reports whether the schema is in the database.
func schemaExists(tb testing.TB, db *store.DB, schema string) bool {
	tb.Helper()
	var ok bool
	err := db.Pool().Get(&ok, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, schema)
	if err != nil {
		tb.Fatalf("look up schema %s: %v", schema, err)
	}
	return ok
}

// tableNames returns the base tables of a schema, sorted.
func tableNames(tb testing.TB, db *store.DB, schema string) []string {
	tb.Helper()
	names := []string{}
	err := db.Pool().Select(&names, `SELECT table_name FROM information_schema.tables
		WHERE table_schema = $1 AND table_type = 'BASE TABLE' ORDER BY table_name`, schema)
	if err != nil {
		tb.Fatalf("list tables of %s: %v", schema, err)
	}
	return names
}

// count runs a SELECT count(*) query.
func count(tb testing.TB, db *store.DB, q string, args ...any) int {
	tb.Helper()
	var n int
	if err := db.Pool().Get(&n, q, args...); err != nil {
		tb.Fatalf("count %q: %v", q, err)
	}
	return n
}
