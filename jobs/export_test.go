package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"learngate/blob"
	"learngate/store"
)

// SweepOnce runs, once, the periodic job that sweeps the tenants for the
// due work of kind, as River would, with now as its clock where the job
// has one; blobs is the certificate purge's file store.
func SweepOnce(ctx context.Context, db *store.DB, kind store.DueKind, now time.Time, blobs blob.Store, logger *slog.Logger) error {
	clock := func() time.Time { return now }
	switch kind {
	case store.DueActivation:
		return (&activationWorker{db: db, now: clock, logger: logger}).Work(ctx, nil)
	case store.DueRecertify:
		return (&recertifyWorker{db: db, now: clock, logger: logger}).Work(ctx, nil)
	case store.DueListRank:
		return (&rankAnchorsWorker{db: db, logger: logger}).Work(ctx, nil)
	case store.DueWebhooks:
		return (&webhookMaintenanceWorker{db: db, logger: logger}).Work(ctx, nil)
	case store.DueCertificatePurge:
		return (&certificatePurgeWorker{db: db, blobs: blobs, now: clock, logger: logger}).Work(ctx, nil)
	case store.DueIdempotencyPurge:
		return (&idempotencyPurgeWorker{db: db, logger: logger}).Work(ctx, nil)
	}
	return fmt.Errorf("no sweep of %q", kind)
}
