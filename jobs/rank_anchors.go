package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"learngate/store"
	"learngate/store/list"
)

// rankAnchorsTimeout bounds one run over every tenant; a first run over a
// large tenant reads all its rows (about a second per million).
const rankAnchorsTimeout = 10 * time.Minute

// rankAnchorsWorker runs store.MaintainListRanks (the rank anchors of the
// users, topic enrolment, pathway enrolment and external knowledge lists:
// store/list/anchors.go) once a minute in every active tenant whose lists
// changed (see sweepDue), so that these lists count and seek from an anchor
// at most a minute of new rows behind the newest (docs/decisions.md, "Deep
// pages and total_records").
type rankAnchorsWorker struct {
	river.WorkerDefaults[list.RankAnchorsArgs]
	db     *store.DB
	logger *slog.Logger
}

// Timeout lets a run over many tenants take longer than River's default minute.
func (w *rankAnchorsWorker) Timeout(*river.Job[list.RankAnchorsArgs]) time.Duration {
	return rankAnchorsTimeout
}

// Work maintains each active tenant with list rank work due; one failing
// tenant does not stop the others, and the job then fails with every
// tenant's error.
func (w *rankAnchorsWorker) Work(ctx context.Context, _ *river.Job[list.RankAnchorsArgs]) error {
	return sweepDue(ctx, w.db, store.DueListRank, time.Now(), func(schema string, tdb *store.TenantDB) error {
		added, err := store.MaintainListRanks(ctx, tdb)
		if added > 0 {
			w.logger.DebugContext(ctx, "list rank anchors", "schema", schema, "added", added)
		}
		return err
	})
}

// userRankWorker works the job under its earlier name (list.KindUserRank),
// which nodes of an earlier release schedule during a rolling upgrade: the
// same work as rank_anchors.
type userRankWorker struct {
	river.WorkerDefaults[list.UserRankArgs]
	anchors *rankAnchorsWorker
}

// Timeout is rank_anchors'.
func (w *userRankWorker) Timeout(*river.Job[list.UserRankArgs]) time.Duration {
	return rankAnchorsTimeout
}

// Work runs rank_anchors' work.
func (w *userRankWorker) Work(ctx context.Context, _ *river.Job[list.UserRankArgs]) error {
	return w.anchors.Work(ctx, nil)
}
