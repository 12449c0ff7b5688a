//go:build slow

package jobs_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"learngate"
	"learngate/jobs"
	"learngate/store"
)

// TestSweepsSkipIdleTenants runs every sweep once over one tenant with
// work of every kind due and 3, then 12, idle tenants, one of them with
// work due next year only. The idle tenants' schemas are dropped after
// they are set up: a sweep that visited one would fail on it (as every
// sweep did when it went over all tenants), so the tenant statements of
// a sweep cannot grow with the idle tenants. The busy tenant's due work is
// done, and a second tenant's data is untouched by it.
func TestSweepsSkipIdleTenants(t *testing.T) {
	for _, idle := range []int{3, 12} {
		t.Run(fmt.Sprintf("%d idle", idle), func(t *testing.T) {
			db := newDB(t)
			ctx := context.Background()
			_, busy := newTenant(t, db, "busy", "Busy")
			_, other := newTenant(t, db, "other", "Other")
			now := time.Now().UTC()
			tomorrow := now.Truncate(24*time.Hour).AddDate(0, 0, 1)
			// activation (a date due by the sweep's clock) and list ranks (a user created)
			scheduledUser(t, busy, "ann", tomorrow)
			scheduledUser(t, other, "ann", tomorrow.AddDate(1, 0, 0))
			// recertify: certified 10 days from 20 days ago
			expired := conquerPathway(t, busy, "ann", "PW-RE", true, now.Truncate(24*time.Hour).AddDate(0, 0, -20))
			// webhooks: an event with a pending delivery
			if _, err := store.CreateWebhook(ctx, busy, learngate.WebhookInput{URL: ptr("https://hooks.example.com/"),
				Events: []string{"user.created"}}, allowPrivate, now); err != nil {
				t.Fatal(err)
			}
			createUser(t, busy, userInput("bob"))
			// idempotency: an expired key
			c, err := store.ClaimIdempotencyKey(ctx, busy, "expired", []byte("fp"))
			if err != nil || c.Outcome != store.ClaimRun {
				t.Fatalf("claim: %v, %v", c.Outcome, err)
			}
			if _, err := db.Pool().Exec(`UPDATE ` + busy.Schema() + `.idempotency_keys SET expires_at = now() - interval '1 second'`); err != nil {
				t.Fatal(err)
			}
			backdateDue(t, db, busy, store.DueIdempotencyPurge)
			for i := range idle {
				_, tdb := newTenant(t, db, fmt.Sprintf("idle%d", i), "Idle")
				if i == 0 {
					scheduledUser(t, tdb, "later", tomorrow.AddDate(1, 0, 0))
					if _, err := db.Pool().Exec(`UPDATE public.tenant_due_work SET due_at = $2
						WHERE tenant_id = substr($1, 8)::bigint`, tdb.Schema(), tomorrow.AddDate(1, 0, 0)); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := db.Pool().Exec(`DROP SCHEMA ` + tdb.Schema() + ` CASCADE`); err != nil {
					t.Fatal(err)
				}
			}
			// The other tenant's work is due next year only.
			if _, err := db.Pool().Exec(`UPDATE public.tenant_due_work SET due_at = $2
				WHERE tenant_id = substr($1, 8)::bigint`, other.Schema(), tomorrow.AddDate(1, 0, 0)); err != nil {
				t.Fatal(err)
			}

			sweepAt := tomorrow.Add(time.Hour)
			for _, kind := range allDueKinds {
				due, err := db.DueTenants(ctx, kind, sweepAt)
				if err != nil {
					t.Fatal(err)
				}
				for _, d := range due {
					if d.Schema() != busy.Schema() {
						t.Errorf("%s: tenant %s listed as due", kind, d.Schema())
					}
				}
				if err := jobs.SweepOnce(ctx, db, kind, sweepAt, localBlobs(t), slog.New(slog.DiscardHandler)); err != nil {
					t.Fatalf("sweep %s: %v", kind, err)
				}
			}

			got, err := store.GetUser(ctx, busy, "ann")
			if err != nil || got.Active {
				t.Errorf("busy ann: active %v, %v; want deactivated", got.Active, err)
			}
			if got, err := store.GetUser(ctx, other, "ann"); err != nil || !got.Active {
				t.Errorf("other tenant's ann: active %v, %v; want untouched", got.Active, err)
			}
			pe, err := store.GetPathwayEnrolment(ctx, busy, expired)
			if err != nil || pe.Status != learngate.StatusRecertify {
				t.Errorf("pathway enrolment: %q, %v; want recertify", pe.Status, err)
			}
			var keys int
			if err := db.Pool().Get(&keys, `SELECT count(*) FROM `+busy.Schema()+`.idempotency_keys`); err != nil || keys != 0 {
				t.Errorf("idempotency keys left: %d, %v", keys, err)
			}
			// Settled: nothing pending, except the delivery that no drainer sent.
			for _, kind := range []store.DueKind{store.DueActivation, store.DueRecertify, store.DueListRank, store.DueIdempotencyPurge} {
				if at, err := dueAt(t, db, busy, kind); err != nil || !at.IsZero() {
					t.Errorf("%s after the sweep: due %v, %v; want nothing pending", kind, at, err)
				}
			}
			if at, err := dueAt(t, db, busy, store.DueWebhooks); err != nil || at.IsZero() || at.After(now.Add(time.Minute)) {
				t.Errorf("webhooks after the sweep: due %v, %v; want due while the delivery is pending", at, err)
			}
		})
	}
}
