package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"learngate/store"
)

// tenantMoveTimeout bounds one move: the copy of a big tenant takes
// minutes; the schema keeps serving meanwhile.
const tenantMoveTimeout = 6 * time.Hour

// tenantMoveWorker moves a tenant's schema to another worker of a Citus
// cluster (store.MoveSchema), as POST /ops/v1/tenants/{slug}/move asked.
type tenantMoveWorker struct {
	river.WorkerDefaults[store.TenantMoveArgs]
	db     *store.DB
	logger *slog.Logger
}

// Timeout lets a move run longer than River's default minute.
func (w *tenantMoveWorker) Timeout(*river.Job[store.TenantMoveArgs]) time.Duration {
	return tenantMoveTimeout
}

// Work moves the schema; a target that is no longer a worker node, or a
// failed move, fails the job (one attempt: the operator sees the error).
func (w *tenantMoveWorker) Work(ctx context.Context, job *river.Job[store.TenantMoveArgs]) error {
	to, err := w.db.ParseNode(ctx, job.Args.To)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := w.db.MoveSchema(ctx, job.Args.Schema, to); err != nil {
		return fmt.Errorf("move %s from %s to %s: %w", job.Args.Schema, job.Args.From, job.Args.To, err)
	}
	w.logger.InfoContext(ctx, "tenant moved", "schema", job.Args.Schema, "from", job.Args.From, "to", job.Args.To,
		"took", time.Since(start).Round(time.Millisecond))
	return nil
}
