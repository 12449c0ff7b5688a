package list

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/riverqueue/river"

	"learngate"
)

// AnchorBatch bounds the rows one transaction of Maintain reads, and so how
// long it holds back the list's writers (tens of milliseconds).
const AnchorBatch = 100000

// anchorLockTimeout is how long Maintain waits for the writers of a list
// before it leaves the list for its next run: while it waits, every later
// write of the list waits behind it.
const anchorLockTimeout = "200ms"

// KindRankAnchors is the periodic job that keeps every list's rank anchors.
const KindRankAnchors = "rank_anchors"

// RankAnchorsArgs are the arguments of the periodic rank_anchors job, which
// runs MaintainListRanks (the store's) in every tenant whose lists changed.
type RankAnchorsArgs struct{}

// Kind is the job kind of RankAnchorsArgs.
func (RankAnchorsArgs) Kind() string { return KindRankAnchors }

// InsertOpts keeps at most one run waiting: a missed minute is caught up by
// the next run, which extends the anchors over every row stored by then.
func (RankAnchorsArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 3, UniqueOpts: river.UniqueOpts{ByPeriod: time.Minute}}
}

// KindUserRank is the job's name before the list engine, when it was named
// for the first list it kept. A node of the earlier release still schedules
// it during a rolling upgrade; the worker runs it as rank_anchors.
const KindUserRank = "user_rank"

// UserRankArgs are the arguments of a user_rank job (KindUserRank).
type UserRankArgs struct{}

// Kind is the job kind of UserRankArgs.
func (UserRankArgs) Kind() string { return KindUserRank }

// InsertOpts is RankAnchorsArgs'.
func (UserRankArgs) InsertOpts() river.InsertOpts { return RankAnchorsArgs{}.InsertOpts() }

// errAnchorsBusy says a writer of the list held the anchors' lock past its timeout.
var errAnchorsBusy = errors.New("rank anchors: the list is being written")

// Maintain brings the rank anchors of list s up to date: it drops the
// anchors that a row stored or removed below them has made wrong, then adds
// one every spacing listed rows up to the newest, in transactions (run by
// inTx, the tenant's) of at most batch rows. It returns how many anchors it
// added; when the list's writers hold its lock past a short timeout it
// stops early without error (the next run goes on).
func Maintain(ctx context.Context, inTx func(func(*sqlx.Tx) error) error, s Spec, spacing, batch int64) (int64, error) {
	var added int64
	for {
		var scanned, n int64
		err := inTx(func(tx *sqlx.Tx) error {
			var err error
			scanned, n, err = s.extendAnchors(ctx, tx, spacing, batch)
			return err
		})
		if errors.Is(err, errAnchorsBusy) {
			return added, nil
		}
		if err != nil {
			return added, fmt.Errorf("maintain %s rank anchors: %w", s.Name, err)
		}
		added += n
		if scanned < batch || n == 0 { // the end, or no progress (spacing > batch)
			return added, nil
		}
	}
}

// extendAnchors is one transaction of Maintain: it locks the dirty table
// (waiting for every transaction that has written the list, whose trigger
// holds ROW EXCLUSIVE on it, and holding back every later one), drops the
// anchors at or above the smallest dirty key, then reads at most batch
// listed rows from the newest anchor on and adds one anchor every spacing
// rows. It returns how many rows it read and how many anchors it added.
func (s Spec) extendAnchors(ctx context.Context, tx *sqlx.Tx, spacing, batch int64) (int64, int64, error) {
	if _, err := tx.ExecContext(ctx, `SELECT set_config('lock_timeout', $1, true)`, anchorLockTimeout); err != nil {
		return 0, 0, err
	}
	if _, err := tx.ExecContext(ctx, `LOCK TABLE `+s.Anchors.Dirty+` IN SHARE ROW EXCLUSIVE MODE`); err != nil {
		var pqErr *pq.Error
		if errors.As(err, &pqErr) && pqErr.Code == "55P03" { // lock_not_available
			return 0, 0, errAnchorsBusy
		}
		return 0, 0, err
	}
	k := s.keyColumns()
	keys := strings.Join(k, ", ")
	_, err := tx.ExecContext(ctx, fmt.Sprintf(`
		WITH low AS (SELECT %[1]s FROM %[3]s ORDER BY %[1]s LIMIT 1)
		DELETE FROM %[2]s a USING low WHERE %[4]s >= %[5]s;
		DELETE FROM %[3]s`, keys, s.Anchors.Table, s.Anchors.Dirty, tuple(qualified("a", k)), tuple(qualified("low", k))))
	if err != nil {
		return 0, 0, fmt.Errorf("drop dirty anchors: %w", err)
	}
	// Scan from the newest anchor (its row is still listed: a change at
	// its key would have dropped it), or from the first row.
	var from struct {
		Rank      int64     `db:"rank"`
		CreatedAt time.Time `db:"created_at"`
		ID        int64     `db:"id"`
	}
	b := &Query{}
	cond, first := "true", int64(0)
	if s.Listed != "" {
		cond = s.Listed
	}
	err = tx.GetContext(ctx, &from, `SELECT rank, `+keys+` FROM `+s.Anchors.Table+` ORDER BY rank DESC LIMIT 1`)
	switch {
	case err == nil:
		cond += " AND " + tuple(s.keys()) + " >= " + tuple(b.keyArgs(s, learngate.Key{CreatedAt: from.CreatedAt, ID: from.ID}))
		first = from.Rank + 1
	case !errors.Is(err, sql.ErrNoRows):
		return 0, 0, fmt.Errorf("newest anchor: %w", err)
	}
	var res struct {
		Scanned int64 `db:"scanned"`
		Added   int64 `db:"added"`
	}
	err = tx.GetContext(ctx, &res, fmt.Sprintf(`
		WITH scan AS (
			SELECT %[1]s, %[5]s::bigint - 1 + row_number() OVER (ORDER BY %[1]s) AS rank
			FROM (SELECT %[2]s FROM %[3]s WHERE %[4]s ORDER BY %[2]s LIMIT %[6]s) s),
		ins AS (
			INSERT INTO %[7]s (rank, %[1]s)
			SELECT rank, %[1]s FROM scan WHERE rank %% %[8]s = 0 AND rank >= %[9]s
			RETURNING 1)
		SELECT (SELECT count(*) FROM scan) AS scanned, (SELECT count(*) FROM ins) AS added`,
		keys, strings.Join(s.keys(), ", "), s.from(), cond, b.Arg(from.Rank), b.Arg(batch), s.Anchors.Table,
		b.Arg(spacing), b.Arg(first)), b.args...)
	if err != nil {
		return 0, 0, fmt.Errorf("add anchors: %w", err)
	}
	return res.Scanned, res.Added, nil
}
