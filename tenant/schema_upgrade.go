package tenant

import (
	"context"
	"time"

	"learngate"
)

// schemaUpgradeTimeout bounds how long a request waits while its tenant's
// schema is brought to this binary's last migration: long enough for a
// new (empty) tenant's migrations, short enough that a client retries
// rather than hangs when a `learngate migrate` holds the lock.
const schemaUpgradeTimeout = 15 * time.Second

// bringUp brings the schema of t, just looked up, to this binary's last
// tenant migration when the record says it is behind (DECISIONS section
// 21): during a rolling upgrade an older node creates tenants with its own
// older migrations, and this node must not use a schema feature such a
// tenant lacks. It runs on a cold lookup only (the cache then holds the
// tenant). A schema that cannot be brought up in time is Unavailable (503
// with Retry-After): the request is refused rather than served on a schema
// the node does not know.
func (r *Registry) bringUp(ctx context.Context, t learngate.Tenant) error {
	behind, err := r.lookups.TenantSchemaBehind(ctx, t.ID)
	if err != nil || !behind {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, schemaUpgradeTimeout)
	defer cancel()
	if err := r.db.MigrateTenant(ctx, t.Schema); err != nil {
		r.opts.Logger.Error("bring a tenant's schema to this version", "slug", t.Slug, "schema", t.Schema, "err", err)
		return learngate.Errorf(learngate.Unavailable, "organisation is being upgraded; try again shortly")
	}
	r.opts.Logger.Info("tenant schema brought to this version", "slug", t.Slug, "schema", t.Schema)
	return nil
}
