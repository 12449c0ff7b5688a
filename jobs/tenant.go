package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"learngate"
	"learngate/store"
)

// inactiveTenant is what a job of one tenant does when that tenant is not
// active (suspended or provisioning).
type inactiveTenant int

const (
	// cancelIfInactive cancels the job: it is not retried.
	cancelIfInactive inactiveTenant = iota
	// skipIfInactive ends the job without error: something else queues
	// the work again once the tenant is active.
	skipIfInactive
	// workIfInactive works the job whatever the tenant's status.
	workIfInactive
)

// jobTenant is the preamble of every job that works in one tenant: the
// job's schema names the tenant (a bad schema cancels the job); a tenant
// that is gone cancels it, after gone has run when it is not nil (an error
// of gone fails the attempt, which is retried); an inactive tenant is
// handled as inactive says; last comes the tenant's handle. When run is
// false the job ends at once with err.
func jobTenant(ctx context.Context, db *store.DB, schema string, inactive inactiveTenant,
	gone func(ctx context.Context, tenantID int64) error) (tn learngate.Tenant, tdb *store.TenantDB, run bool, err error) {
	tenantID, err := store.TenantIDOfSchema(schema)
	if err != nil {
		return tn, nil, false, river.JobCancel(err)
	}
	tn, err = db.TenantByID(ctx, tenantID)
	if learngate.IsCode(err, learngate.NotFound) {
		if gone != nil {
			if err := gone(ctx, tenantID); err != nil {
				return tn, nil, false, err
			}
		}
		return tn, nil, false, river.JobCancel(fmt.Errorf("tenant %d no longer exists", tenantID))
	}
	if err != nil {
		return tn, nil, false, fmt.Errorf("load tenant %d: %w", tenantID, err)
	}
	if tn.Status != learngate.TenantActive {
		switch inactive {
		case cancelIfInactive:
			return tn, nil, false, river.JobCancel(fmt.Errorf("tenant %s is %s", tn.Slug, tn.Status))
		case skipIfInactive:
			return tn, nil, false, nil
		}
	}
	tdb, err = db.Tenant(tn.Schema)
	if err != nil {
		return tn, nil, false, river.JobCancel(err)
	}
	return tn, tdb, true, nil
}

// sweepDue is the preamble of every job that sweeps the tenants for one
// kind of periodic work: it runs sweep for each tenant whose work of kind
// is due at now in the due-work ledger (store.DueTenants), and only those,
// so its cost follows the work that is due, not the number of tenants.
// After a tenant's sweep it reads when that tenant's work is next due
// (store.NextDue) and settles its ledger row (store.SettleDue, a
// compare-and-set: work marked meanwhile keeps the tenant due). A tenant
// that fails keeps its row due and does not stop the others; the error then
// joins every tenant's error, so the job fails and is retried. When ctx
// ends (the job is cancelled or the worker stops) the remaining tenants are
// left due for the next run.
func sweepDue(ctx context.Context, db *store.DB, kind store.DueKind, now time.Time,
	sweep func(schema string, tdb *store.TenantDB) error) error {
	due, err := db.DueTenants(ctx, kind, now)
	if err != nil {
		return err
	}
	var errs []error
	for i, d := range due {
		if err := ctx.Err(); err != nil {
			errs = append(errs, fmt.Errorf("%s sweep stopped with %d tenants left: %w", kind, len(due)-i, err))
			break
		}
		if err := sweepOne(ctx, db, kind, now, d, sweep); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// sweepOne is sweepDue for one due tenant: its sweep, then its ledger row.
func sweepOne(ctx context.Context, db *store.DB, kind store.DueKind, now time.Time, d store.DueTenant,
	sweep func(schema string, tdb *store.TenantDB) error) error {
	tdb, err := db.Tenant(d.Schema())
	if err != nil {
		return err
	}
	if err := sweep(d.Schema(), tdb); err != nil {
		return err
	}
	next, err := store.NextDue(ctx, tdb, kind, now)
	if err != nil {
		return err
	}
	_, err = db.SettleDue(ctx, kind, d, next)
	return err
}
