package jobs

import (
	"context"
	"crypto/rand"
	"errors"
	"testing"

	"github.com/riverqueue/river/rivertype"

	"learngate"
	"learngate/store"
	"learngate/store/storetest"
)

// TestJobTenant covers the preamble of every per-tenant job: a bad schema,
// a gone tenant (with and without clean-up, and a failing clean-up), each
// policy for an inactive tenant, and the handle of an active one, which is
// the job's own tenant and not another.
func TestJobTenant(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := storetest.NewDB(t)
	acme := preambleTenant(t, db, "acme", learngate.TenantActive)
	other := preambleTenant(t, db, "other", learngate.TenantActive)
	paused := preambleTenant(t, db, "paused", learngate.TenantSuspended)
	goneSchema := store.SchemaName(other.ID + 1000)

	isCancel := func(err error) bool {
		var c *rivertype.JobCancelError
		return errors.As(err, &c)
	}
	var cleaned []int64
	clean := func(_ context.Context, id int64) error { cleaned = append(cleaned, id); return nil }
	errStore := errors.New("store down")
	failClean := func(context.Context, int64) error { return errStore }

	for _, tc := range []struct {
		name     string
		schema   string
		inactive inactiveTenant
		gone     func(context.Context, int64) error
		run      bool
		cancel   bool
		err      error
	}{
		{name: "bad schema", schema: "public", cancel: true},
		{name: "gone", schema: goneSchema, cancel: true},
		{name: "gone, cleaned", schema: goneSchema, gone: clean, cancel: true},
		{name: "gone, clean-up fails", schema: goneSchema, gone: failClean, err: errStore},
		{name: "suspended, cancel", schema: paused.Schema, inactive: cancelIfInactive, cancel: true},
		{name: "suspended, skip", schema: paused.Schema, inactive: skipIfInactive},
		{name: "suspended, work", schema: paused.Schema, inactive: workIfInactive, run: true},
		{name: "active", schema: acme.Schema, inactive: cancelIfInactive, gone: clean, run: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tn, tdb, run, err := jobTenant(ctx, db, tc.schema, tc.inactive, tc.gone)
			if run != tc.run {
				t.Fatalf("run = %v (err %v), want %v", run, err, tc.run)
			}
			if got := isCancel(err); got != tc.cancel {
				t.Errorf("cancelled = %v (err %v), want %v", got, err, tc.cancel)
			}
			if tc.err != nil && !errors.Is(err, tc.err) {
				t.Errorf("err = %v, want %v", err, tc.err)
			}
			if !tc.cancel && tc.err == nil && err != nil {
				t.Errorf("err = %v, want none", err)
			}
			if run && (tdb == nil || tdb.Schema() != tc.schema || tn.Schema != tc.schema) {
				t.Errorf("tenant %q with handle %v, want schema %s", tn.Schema, tdb, tc.schema)
			}
			if !run && tdb != nil {
				t.Errorf("a job that does not run got a handle of %s", tdb.Schema())
			}
		})
	}
	if len(cleaned) != 1 || cleaned[0] != other.ID+1000 {
		t.Errorf("gone called for %v, want once for the gone tenant %d", cleaned, other.ID+1000)
	}
}

// preambleTenant stores and migrates a tenant with the given status.
func preambleTenant(t *testing.T, db *store.DB, slug string, status string) learngate.Tenant {
	t.Helper()
	ctx := context.Background()
	h := make([]byte, 32)
	_, _ = rand.Read(h)
	tn, _, err := db.CreateTenant(ctx, store.NewTenant{Slug: slug, Name: slug, Timezone: "UTC", APIEnabled: true,
		RateLimitPerMinute: 300}, store.NewAPIKey{Hash: h, Prefix: "lg_test"})
	if err != nil {
		t.Fatalf("create tenant %s: %v", slug, err)
	}
	if err := db.MigrateTenant(ctx, tn.Schema); err != nil {
		t.Fatalf("migrate tenant %s: %v", slug, err)
	}
	if err := db.SetTenantStatus(ctx, tn.ID, status); err != nil {
		t.Fatalf("set status of %s: %v", slug, err)
	}
	tn.Status = status
	return tn
}
