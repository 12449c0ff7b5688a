package store_test

import (
	"context"
	"testing"
	"time"

	"learngate"
	"learngate/store"
	"learngate/store/storetest"
)

// saveScheduled creates user name of tdb with a deactivation date on day.
func saveScheduled(t *testing.T, tdb *store.TenantDB, name string, day time.Time) {
	t.Helper()
	in := newUser(name)
	in.DeactivateScheduledDate = &learngate.ScheduledDate{Day: day, Raw: day.Format("2006-01-02")}
	if _, err := store.CreateUser(context.Background(), tdb, in, time.Now()); err != nil {
		t.Fatal(err)
	}
}

// TestSettleDueLosesNoWorkMarkedMeanwhile: a sweep lists a tenant, work is
// marked in that tenant before the sweep settles (a user saved with a
// scheduled date), so the compare-and-set writes nothing and the tenant
// stays due; settled without a race, its row holds the next due time. A
// second tenant's row is never touched.
func TestSettleDueLosesNoWorkMarkedMeanwhile(t *testing.T) {
	t.Parallel()
	db, _ := storetest.NewDB(t)
	ctx := context.Background()
	acme := catalogTenantDB(t, db, "acme")
	beta := catalogTenantDB(t, db, "beta")
	day := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 1)
	for _, tdb := range []*store.TenantDB{acme, beta} {
		saveScheduled(t, tdb, "ann", day)
	}
	at := day.Add(time.Hour)
	due, err := db.DueTenants(ctx, store.DueActivation, at)
	if err != nil || len(due) != 2 {
		t.Fatalf("due tenants: %v, %v", due, err)
	}
	// Meanwhile, acme gets a user with a later date.
	saveScheduled(t, acme, "bob", day.AddDate(0, 0, 5))
	if _, err := store.ApplyScheduledActivation(ctx, acme, at); err != nil {
		t.Fatal(err)
	}
	next, err := store.NextDue(ctx, acme, store.DueActivation, at)
	if err != nil || next == nil || !next.Equal(day.AddDate(0, 0, 5)) {
		t.Fatalf("next due: %v, %v", next, err)
	}
	if wrote, err := db.SettleDue(ctx, store.DueActivation, due[0], next); err != nil || wrote {
		t.Fatalf("settle over a newer mark: wrote %v, %v; want no write", wrote, err)
	}
	if again, _ := db.DueTenants(ctx, store.DueActivation, at); len(again) != 2 || again[0].ID != due[0].ID {
		t.Fatalf("after the failed settle: %v; want acme still due", again)
	}
	// The next sweep settles acme at bob's date; beta is settled with nothing pending.
	again, _ := db.DueTenants(ctx, store.DueActivation, at)
	if wrote, err := db.SettleDue(ctx, store.DueActivation, again[0], next); err != nil || !wrote {
		t.Fatalf("settle: wrote %v, %v", wrote, err)
	}
	if wrote, err := db.SettleDue(ctx, store.DueActivation, again[1], nil); err != nil || !wrote {
		t.Fatalf("settle beta: wrote %v, %v", wrote, err)
	}
	if left, _ := db.DueTenants(ctx, store.DueActivation, at); len(left) != 0 {
		t.Fatalf("still due: %v", left)
	}
	if later, _ := db.DueTenants(ctx, store.DueActivation, day.AddDate(0, 0, 6)); len(later) != 1 || later[0].Schema() != acme.Schema() {
		t.Fatalf("due at bob's date: %v; want acme alone", later)
	}
}
