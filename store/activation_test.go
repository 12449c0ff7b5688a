package store_test

import (
	"context"
	"testing"
	"time"

	"learngate"
	"learngate/store"
	"learngate/store/storetest"
)

// activationState is what the scheduled activation may change of a user.
type activationState struct {
	Active                 bool
	Deactivate, Reactivate string // RFC 3339 in UTC, "" when unset
	UpdatedAt              time.Time
}

func activationOf(t *testing.T, tdb *store.TenantDB, userName string) activationState {
	t.Helper()
	u, err := store.GetUser(context.Background(), tdb, userName)
	if err != nil {
		t.Fatalf("get %s: %v", userName, err)
	}
	format := func(d *time.Time) string {
		if d == nil {
			return ""
		}
		return d.UTC().Format(time.RFC3339)
	}
	return activationState{u.Active, format(u.DeactivateScheduledDate), format(u.ReactivateScheduledDate), u.UpdatedAt.UTC()}
}

// scheduled is a ScheduledDate input for day (yyyy-mm-dd).
func scheduled(t *testing.T, day string) *learngate.ScheduledDate {
	t.Helper()
	d, err := time.Parse("2006-01-02", day)
	if err != nil {
		t.Fatal(err)
	}
	return &learngate.ScheduledDate{Day: d, Raw: day}
}

func TestApplyScheduledActivation(t *testing.T) {
	t.Parallel()
	db, _ := storetest.NewDB(t)
	ctx := context.Background()
	acme := userTenantDB(t, db, "acme")
	other := userTenantDB(t, db, "other")
	t0 := time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)

	create := func(tdb *store.TenantDB, name string, active bool, deactivate, reactivate string) {
		t.Helper()
		in := newUser(name)
		in.Active = ptr(active)
		if deactivate != "" {
			in.DeactivateScheduledDate = scheduled(t, deactivate)
		}
		if reactivate != "" {
			in.ReactivateScheduledDate = scheduled(t, reactivate)
		}
		if _, err := store.CreateUser(ctx, tdb, in, t0); err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
	}
	create(acme, "ann", true, "2025-06-03", "")            // deactivated on the 3rd
	create(acme, "bob", false, "", "2025-06-03")           // reactivated on the 3rd
	create(acme, "carl", true, "2025-06-03", "2025-06-06") // away from the 3rd to the 6th
	create(acme, "dan", false, "2025-06-05", "2025-06-03") // back on the 3rd, leaves on the 5th
	create(acme, "eve", true, "", "")                      // nothing scheduled
	create(other, "ann", true, "2025-06-03", "")           // same date, other tenant

	apply := func(tdb *store.TenantDB, at time.Time, want int) {
		t.Helper()
		n, err := store.ApplyScheduledActivation(ctx, tdb, at)
		if err != nil {
			t.Fatalf("apply at %s: %v", at, err)
		}
		if n != want {
			t.Fatalf("apply at %s changed %d users, want %d", at, n, want)
		}
	}
	check := func(tdb *store.TenantDB, name string, want activationState) {
		t.Helper()
		if got := activationOf(t, tdb, name); got != want {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
	day := func(d int) string { return time.Date(2025, 6, d, 0, 0, 0, 0, time.UTC).Format(time.RFC3339) }

	// Before midnight of the 3rd nothing is due.
	apply(acme, time.Date(2025, 6, 2, 23, 59, 59, 0, time.UTC), 0)
	check(acme, "ann", activationState{true, day(3), "", t0})

	t3 := time.Date(2025, 6, 3, 0, 0, 30, 0, time.UTC)
	apply(acme, t3, 4)
	check(acme, "ann", activationState{false, "", "", t3})
	check(acme, "bob", activationState{true, "", "", t3})
	check(acme, "carl", activationState{false, "", day(6), t3})
	check(acme, "dan", activationState{true, day(5), "", t3})
	check(acme, "eve", activationState{true, "", "", t0})
	// The other tenant's user, due at the same time, is untouched.
	check(other, "ann", activationState{true, day(3), "", t0})

	// A second run at the same time changes nobody.
	apply(acme, t3, 0)

	t6 := time.Date(2025, 6, 6, 0, 1, 0, 0, time.UTC)
	apply(acme, t6, 2)
	check(acme, "carl", activationState{true, "", "", t6})
	check(acme, "dan", activationState{false, "", "", t6})
	check(acme, "ann", activationState{false, "", "", t3})
	check(acme, "eve", activationState{true, "", "", t0})
	check(other, "ann", activationState{true, day(3), "", t0})

	apply(other, t6, 1)
	check(other, "ann", activationState{false, "", "", t6})
}

func TestApplyScheduledActivationBothDue(t *testing.T) {
	t.Parallel()
	db, _ := storetest.NewDB(t)
	ctx := context.Background()
	acme := userTenantDB(t, db, "acme")
	t0 := time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name                   string
		active                 bool
		deactivate, reactivate string
		want                   bool
	}{
		{"left-later", true, "2025-06-04", "2025-06-03", false},
		{"back-later", false, "2025-06-03", "2025-06-04", true},
		{"same-day", true, "2025-06-03", "2025-06-03", true},
	} {
		in := newUser(tt.name)
		in.Active = ptr(tt.active)
		in.DeactivateScheduledDate = scheduled(t, tt.deactivate)
		in.ReactivateScheduledDate = scheduled(t, tt.reactivate)
		if _, err := store.CreateUser(ctx, acme, in, t0); err != nil {
			t.Fatalf("create %s: %v", tt.name, err)
		}
		defer func() {
			got := activationOf(t, acme, tt.name)
			if got.Active != tt.want || got.Deactivate != "" || got.Reactivate != "" {
				t.Errorf("%s after both dates: %+v, want active %v and no dates", tt.name, got, tt.want)
			}
		}()
	}
	if n, err := store.ApplyScheduledActivation(ctx, acme, time.Date(2025, 6, 10, 0, 0, 0, 0, time.UTC)); err != nil || n != 3 {
		t.Fatalf("apply = %d, %v; want 3", n, err)
	}
}

func TestApplyScheduledActivationUsesTheUsersTimezone(t *testing.T) {
	t.Parallel()
	db, _ := storetest.NewDB(t)
	ctx := context.Background()
	acme := userTenantDB(t, db, "acme")
	in := newUser("kiwi")
	in.Timezone = ptr("Pacific/Auckland") // UTC+12 in June
	in.DeactivateScheduledDate = scheduled(t, "2025-06-03")
	if _, err := store.CreateUser(ctx, acme, in, time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	if n, err := store.ApplyScheduledActivation(ctx, acme, time.Date(2025, 6, 2, 11, 59, 0, 0, time.UTC)); err != nil || n != 0 {
		t.Fatalf("apply before Auckland midnight = %d, %v; want 0", n, err)
	}
	if n, err := store.ApplyScheduledActivation(ctx, acme, time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC)); err != nil || n != 1 {
		t.Fatalf("apply at Auckland midnight = %d, %v; want 1", n, err)
	}
	if got := activationOf(t, acme, "kiwi"); got.Active {
		t.Fatalf("kiwi is still active: %+v", got)
	}
}

func TestActiveTenantSchemas(t *testing.T) {
	t.Parallel()
	db, _ := storetest.NewDB(t)
	ctx := context.Background()
	acme, _, _ := createTenant(t, db, "acme")
	paused, _, _ := createTenant(t, db, "paused")
	if err := db.SetTenantStatus(ctx, paused.ID, learngate.TenantSuspended); err != nil {
		t.Fatal(err)
	}
	got, err := db.ActiveTenantSchemas(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != acme.Schema {
		t.Fatalf("ActiveTenantSchemas = %v, want [%s]", got, acme.Schema)
	}
	if id, err := store.TenantIDOfSchema(acme.Schema); err != nil || id != acme.ID {
		t.Fatalf("TenantIDOfSchema(%s) = %d, %v; want %d", acme.Schema, id, err, acme.ID)
	}
	for _, bad := range []string{"public", "tenant_", "tenant_1x", "tenant_99999999999999999999"} {
		if _, err := store.TenantIDOfSchema(bad); err == nil {
			t.Errorf("TenantIDOfSchema(%q) succeeded", bad)
		}
	}
}
