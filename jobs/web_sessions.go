package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"learngate/store"
)

// webSessionPurgeWorker deletes the learners' expired sessions (idle for 8
// hours or 7 days old) of every tenant, every store.WebSessionPurgeInterval
// (docs/decisions.md, "Sign-in"). An expired session is never found before
// the purge: this only keeps the shared table small.
type webSessionPurgeWorker struct {
	river.WorkerDefaults[store.WebSessionPurgeArgs]
	db     *store.DB
	now    func() time.Time
	logger *slog.Logger
}

// Work runs store.DeleteExpiredWebSessions once: the sessions of all
// tenants share one table, so there is no sweep over tenant schemas.
func (w *webSessionPurgeWorker) Work(ctx context.Context, _ *river.Job[store.WebSessionPurgeArgs]) error {
	n, err := w.db.DeleteExpiredWebSessions(ctx, w.now())
	if n > 0 {
		w.logger.DebugContext(ctx, "expired web sessions purged", "sessions", n)
	}
	return err
}
