package jobs

import (
	"context"
	"errors"
	"fmt"

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

// sweepTenants is the preamble of every job that sweeps all tenants: it
// runs sweep for each tenant that schemas lists (db.ActiveTenantSchemas,
// or db.ServedTenantSchemas for work that suspended tenants need too). A
// tenant that fails does not stop the others; the error then joins every
// tenant's error, so the job fails and is retried.
func sweepTenants(ctx context.Context, db *store.DB, schemas func(context.Context) ([]string, error),
	sweep func(schema string, tdb *store.TenantDB) error) error {
	list, err := schemas(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, schema := range list {
		tdb, err := db.Tenant(schema)
		if err == nil {
			err = sweep(schema, tdb)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
