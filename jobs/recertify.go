package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"learngate/store"
)

// recertifyWorker moves conquered pathway enrolments whose certification
// has run out, and may be renewed, to status recertify (docs/decisions.md,
// "Enrolments") in every active tenant where one is due, once a minute.
type recertifyWorker struct {
	river.WorkerDefaults[store.RecertifyArgs]
	db     *store.DB
	now    func() time.Time
	logger *slog.Logger
}

// Timeout lets a sweep over many tenants run longer than River's default minute.
func (w *recertifyWorker) Timeout(*river.Job[store.RecertifyArgs]) time.Duration {
	return activationTimeout
}

// Work runs store.ApplyRecertification for each active tenant with a
// certification run out (one UPDATE each; see sweepDue).
func (w *recertifyWorker) Work(ctx context.Context, _ *river.Job[store.RecertifyArgs]) error {
	now := w.now()
	return sweepDue(ctx, w.db, store.DueRecertify, now, func(schema string, tdb *store.TenantDB) error {
		n, err := store.ApplyRecertification(ctx, tdb, now)
		if err == nil && n > 0 {
			w.logger.InfoContext(ctx, "pathway enrolments due for recertification", "schema", schema, "enrolments", n)
		}
		return err
	})
}
