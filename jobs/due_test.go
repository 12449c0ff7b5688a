package jobs_test

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"learngate"
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
func scheduledUser(t *testing.T, tdb *store.TenantDB, name string, day time.Time) learngate.User {
	t.Helper()
	in := userInput(name)
	in.DeactivateScheduledDate = &learngate.ScheduledDate{Day: day, Raw: day.Format("2006-01-02")}
	return createUser(t, tdb, in)
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
	t.Parallel()
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
