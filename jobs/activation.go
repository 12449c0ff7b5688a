package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"learngate/store"
)

// activationTimeout bounds one sweep over every tenant.
const activationTimeout = 5 * time.Minute

// activationWorker applies due scheduled deactivations and reactivations in
// every active tenant that has one due (docs/decisions.md, "Scheduled deactivation and reactivation"), once a minute.
type activationWorker struct {
	river.WorkerDefaults[store.ScheduledActivationArgs]
	db     *store.DB
	now    func() time.Time
	logger *slog.Logger
}

// Timeout lets a sweep over many tenants run longer than River's default minute.
func (w *activationWorker) Timeout(*river.Job[store.ScheduledActivationArgs]) time.Duration {
	return activationTimeout
}

// Work runs store.ApplyScheduledActivation for each active tenant with a
// scheduled date due (see sweepDue).
func (w *activationWorker) Work(ctx context.Context, _ *river.Job[store.ScheduledActivationArgs]) error {
	now := w.now()
	return sweepDue(ctx, w.db, store.DueActivation, now, func(schema string, tdb *store.TenantDB) error {
		n, err := store.ApplyScheduledActivation(ctx, tdb, now)
		if err == nil && n > 0 {
			w.logger.InfoContext(ctx, "scheduled activation applied", "schema", schema, "users", n)
		}
		return err
	})
}
