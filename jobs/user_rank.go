package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"learngate/store"
)

// userRankTimeout bounds one run over every tenant; a first run over a
// large tenant reads all its users (about a second per million).
const userRankTimeout = 10 * time.Minute

// userRankWorker runs store.MaintainListRanks (the users' anchors and
// those of the topic enrolment, pathway enrolment and external knowledge
// lists) once a minute in every active tenant whose lists changed (see
// sweepDue), so that these lists count
// and seek from an anchor at most a minute of new rows behind the newest
// (docs/decisions.md, "Deep pages and total_records").
type userRankWorker struct {
	river.WorkerDefaults[store.UserRankArgs]
	db     *store.DB
	logger *slog.Logger
}

// Timeout lets a run over many tenants take longer than River's default minute.
func (w *userRankWorker) Timeout(*river.Job[store.UserRankArgs]) time.Duration {
	return userRankTimeout
}

// Work maintains each active tenant with list rank work due; one failing tenant does not stop the
// others, and the job then fails with every tenant's error.
func (w *userRankWorker) Work(ctx context.Context, _ *river.Job[store.UserRankArgs]) error {
	return sweepDue(ctx, w.db, store.DueListRank, time.Now(), func(schema string, tdb *store.TenantDB) error {
		added, err := store.MaintainListRanks(ctx, tdb)
		if added > 0 {
			w.logger.DebugContext(ctx, "list rank anchors", "schema", schema, "added", added)
		}
		return err
	})
}
