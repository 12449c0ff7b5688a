package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"learngate/store"
)

// idempotencyPurgeWorker deletes the expired Idempotency-Key rows (24
// hours after their first use) of every active or suspended tenant that has some, every
// store.IdempotencyPurgeInterval (docs/decisions.md, "Idempotency-Key").
// An expired key is already free before the purge: this only keeps the
// tables small.
type idempotencyPurgeWorker struct {
	river.WorkerDefaults[store.IdempotencyPurgeArgs]
	db     *store.DB
	logger *slog.Logger
}

// Timeout lets a purge over many tenants run longer than River's default minute.
func (w *idempotencyPurgeWorker) Timeout(*river.Job[store.IdempotencyPurgeArgs]) time.Duration {
	return activationTimeout
}

// Work runs store.PurgeIdempotencyKeys for each active or suspended tenant
// with a key expired (see sweepDue): a suspended tenant's keys expire too.
func (w *idempotencyPurgeWorker) Work(ctx context.Context, _ *river.Job[store.IdempotencyPurgeArgs]) error {
	return sweepDue(ctx, w.db, store.DueIdempotencyPurge, time.Now(), func(schema string, tdb *store.TenantDB) error {
		n, err := store.PurgeIdempotencyKeys(ctx, tdb)
		if n > 0 {
			w.logger.DebugContext(ctx, "expired idempotency keys purged", "schema", schema, "keys", n)
		}
		return err
	})
}
