package jobs_test

import (
	"context"
	"testing"
	"time"

	"learngate/jobs"
	"learngate/store"
)

// TestIdempotencyPurgeRunsPeriodically starts the worker and waits for the
// idempotency_purge job to delete the expired keys of each active tenant,
// each in its own schema, and to keep the live ones.
func TestIdempotencyPurgeRunsPeriodically(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	_, acme := newTenant(t, db, "acme", "Acme")
	_, beta := newTenant(t, db, "beta", "Beta")
	for _, tdb := range []*store.TenantDB{acme, beta} {
		for _, key := range []string{"expired", "live"} {
			c, err := store.ClaimIdempotencyKey(ctx, tdb, key, []byte("fp"))
			if err != nil || c.Outcome != store.ClaimRun {
				t.Fatalf("claim %s: %v, %v", key, c.Outcome, err)
			}
			if err := store.CompleteIdempotentRequest(ctx, tdb.WithRequestTx(), c, store.StoredResponse{Status: 200, Body: []byte("{}")}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.Pool().Exec(`UPDATE ` + tdb.Schema() + `.idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = 'expired'`); err != nil {
			t.Fatal(err)
		}
		backdateDue(t, db, tdb, store.DueIdempotencyPurge)
	}
	keys := func(tdb *store.TenantDB) string {
		var names []string
		if err := db.Pool().Select(&names, `SELECT key FROM `+tdb.Schema()+`.idempotency_keys ORDER BY key`); err != nil {
			t.Fatal(err)
		}
		if len(names) != 1 {
			return ""
		}
		return names[0]
	}
	startWorker(t, jobs.Config{DB: db})
	waitFor(t, 20*time.Second, "both tenants' expired keys purged", func() bool {
		return keys(acme) == "live" && keys(beta) == "live"
	})
}
