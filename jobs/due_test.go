package jobs_test

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"learngate/jobs"
	"learngate/store"
)

// allDueKinds are the kinds of periodic work, each swept by one job.
var allDueKinds = []store.DueKind{store.DueActivation, store.DueRecertify, store.DueListRank,
	store.DueWebhooks, store.DueCertificatePurge, store.DueIdempotencyPurge}

// dueAt is the due time of tdb's work of kind in the ledger: NULL (nothing
// pending) is the zero time; no row at all fails with sql.ErrNoRows.
func dueAt(t *testing.T, db *store.DB, tdb *store.TenantDB, kind store.DueKind) (time.Time, error) {
	t.Helper()
	var at sql.NullTime
	err := db.Pool().Get(&at, `SELECT due_at FROM public.tenant_due_work
		WHERE tenant_id = substr($1, 8)::bigint AND kind = $2`, tdb.Schema(), string(kind))
	return at.Time, err
}

// backdateDue moves tdb's ledger row of kind to now, as the passing of
// time would: tests that backdate a tenant's rows (expiry) call it.
func backdateDue(t *testing.T, db *store.DB, tdb *store.TenantDB, kind store.DueKind) {
	t.Helper()
	if _, err := db.Pool().Exec(`UPDATE public.tenant_due_work SET due_at = now() - interval '1 second'
		WHERE tenant_id = substr($1, 8)::bigint AND kind = $2`, tdb.Schema(), string(kind)); err != nil {
		t.Fatal(err)
	}
}

// scheduledUser creates user name of tdb with a deactivation date on day.
func scheduledUser(t *testing.T, tdb *store.TenantDB, name string, day time.Time) store.User {
	t.Helper()
	in := userInput(name)
	in.DeactivateScheduledDate = &store.ScheduledDate{Day: day, Raw: day.Format("2006-01-02")}
	return createUser(t, tdb, in)
}

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
			if _, err := store.CreateWebhook(ctx, busy, store.WebhookInput{URL: ptr("https://hooks.example.com/"),
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
			if err != nil || pe.Status != store.StatusRecertify {
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

// cancelOnLog is a slog handler that cancels a context at the first
// record with message msg: a worker stopped in the middle of a sweep.
type cancelOnLog struct {
	slog.Handler
	msg    string
	cancel context.CancelFunc
}

func (h cancelOnLog) Enabled(context.Context, slog.Level) bool { return true }

func (h cancelOnLog) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.cancel()
	}
	return nil
}

// TestSweepStoppedMidwayLosesNothing stops the activation sweep (its
// context cancelled, as when River stops the worker) right after the
// first of three due tenants: the other two stay due in the ledger with
// their users untouched, and the next sweep does them both.
func TestSweepStoppedMidwayLosesNothing(t *testing.T) {
	db := newDB(t)
	now := time.Now().UTC()
	tomorrow := now.Truncate(24*time.Hour).AddDate(0, 0, 1)
	var tenants []*store.TenantDB
	for i := range 3 {
		_, tdb := newTenant(t, db, fmt.Sprintf("t%d", i), "T")
		scheduledUser(t, tdb, "ann", tomorrow)
		tenants = append(tenants, tdb)
	}
	sweepAt := tomorrow.Add(time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := slog.New(cancelOnLog{Handler: slog.DiscardHandler, msg: "scheduled activation applied", cancel: cancel})
	if err := jobs.SweepOnce(ctx, db, store.DueActivation, sweepAt, nil, logger); err == nil {
		t.Fatal("the stopped sweep reported no error")
	}
	active := func(tdb *store.TenantDB) bool {
		u, err := store.GetUser(context.Background(), tdb, "ann")
		if err != nil {
			t.Fatal(err)
		}
		return u.Active
	}
	if active(tenants[0]) {
		t.Error("first tenant: not swept")
	}
	for _, tdb := range tenants[1:] {
		if !active(tdb) {
			t.Errorf("%s: swept after the stop", tdb.Schema())
		}
		if at, err := dueAt(t, db, tdb, store.DueActivation); err != nil || at.IsZero() || at.After(sweepAt) {
			t.Errorf("%s: due %v, %v; want still due", tdb.Schema(), at, err)
		}
	}
	if err := jobs.SweepOnce(context.Background(), db, store.DueActivation, sweepAt, nil, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	for _, tdb := range tenants {
		if active(tdb) {
			t.Errorf("%s: not swept by the next run", tdb.Schema())
		}
		if at, err := dueAt(t, db, tdb, store.DueActivation); err != nil || !at.IsZero() {
			t.Errorf("%s: due %v, %v; want nothing pending", tdb.Schema(), at, err)
		}
	}
}
