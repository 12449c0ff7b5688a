package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/riverqueue/river"
)

// UserRankSpacing is how many users lie between two rank anchors: a deep
// page of GET /users skips fewer than this many index entries.
const UserRankSpacing = 1000

// userRankBatch bounds the users one transaction of MaintainUserRanks reads,
// and so how long it holds back user inserts (tens of milliseconds).
const userRankBatch = 100000

// userRankLockTimeout is how long MaintainUserRanks waits for the writers of
// users before it leaves a tenant for its next run: while it waits, every
// later user insert waits behind it.
const userRankLockTimeout = "200ms"

// KindUserRank maintains the rank anchors of the users list.
const KindUserRank = "user_rank"

// UserRankArgs are the arguments of the periodic user_rank job, which runs
// MaintainUserRanks in every served tenant.
type UserRankArgs struct{}

// Kind is the job kind of UserRankArgs.
func (UserRankArgs) Kind() string { return KindUserRank }

// InsertOpts keeps at most one run waiting: a missed minute is caught up by
// the next run, which extends the anchors over every user stored by then.
func (UserRankArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 3, UniqueOpts: river.UniqueOpts{ByPeriod: time.Minute}}
}

// rankAnchor is a row of user_rank_anchors: the key of the user with Rank
// users before it, oldest first.
type rankAnchor struct {
	Rank      int64     `db:"rank"`
	CreatedAt time.Time `db:"created_at"`
	ID        int64     `db:"id"`
}

// errRankBusy says a writer of users held the anchors' lock past its timeout.
var errRankBusy = errors.New("user ranks: users are being written")

// MaintainUserRanks brings the tenant's user rank anchors up to date: it
// drops the anchors that a user stored (or deleted) below them has made
// wrong, then adds one every UserRankSpacing users up to the newest. It
// returns how many anchors it added; when writers of users hold its lock
// past a short timeout it stops early without error (the next run goes on).
func MaintainUserRanks(ctx context.Context, tdb *TenantDB) (int64, error) {
	return maintainUserRanks(ctx, tdb, UserRankSpacing, userRankBatch)
}

func maintainUserRanks(ctx context.Context, tdb *TenantDB, spacing, batch int64) (int64, error) {
	var added int64
	for {
		var scanned, n int64
		err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
			var err error
			scanned, n, err = extendUserRanks(ctx, tx, spacing, batch)
			return err
		})
		if errors.Is(err, errRankBusy) {
			return added, nil
		}
		if err != nil {
			return added, fmt.Errorf("maintain user ranks of %s: %w", tdb.schema, err)
		}
		added += n
		if scanned < batch || n == 0 { // the end, or no progress (spacing > batch)
			return added, nil
		}
	}
}

// extendUserRanks is one transaction of maintainUserRanks: it reads at most
// batch users after the newest valid anchor and returns how many it read and
// how many anchors it added.
func extendUserRanks(ctx context.Context, tx *sqlx.Tx, spacing, batch int64) (int64, int64, error) {
	if _, err := tx.ExecContext(ctx, `SELECT set_config('lock_timeout', $1, true)`, userRankLockTimeout); err != nil {
		return 0, 0, err
	}
	// Waits for every transaction that has written users (the trigger holds
	// ROW EXCLUSIVE on user_rank_dirty) and holds back every later one.
	if _, err := tx.ExecContext(ctx, `LOCK TABLE user_rank_dirty IN SHARE ROW EXCLUSIVE MODE`); err != nil {
		var pqErr *pq.Error
		if errors.As(err, &pqErr) && pqErr.Code == "55P03" { // lock_not_available
			return 0, 0, errRankBusy
		}
		return 0, 0, err
	}
	_, err := tx.ExecContext(ctx, `
		WITH low AS (SELECT created_at, id FROM user_rank_dirty ORDER BY created_at, id LIMIT 1)
		DELETE FROM user_rank_anchors a USING low WHERE (a.created_at, a.id) >= (low.created_at, low.id);
		DELETE FROM user_rank_dirty`)
	if err != nil {
		return 0, 0, fmt.Errorf("drop dirty anchors: %w", err)
	}
	// Scan from the newest anchor (rank known), or from the oldest user.
	var from rankAnchor
	key := []any{nil, nil}
	after, first := "$1::timestamptz IS NULL AND $2::bigint IS NULL", int64(0)
	err = tx.GetContext(ctx, &from, `SELECT rank, created_at, id FROM user_rank_anchors ORDER BY rank DESC LIMIT 1`)
	switch {
	case err == nil:
		key = []any{from.CreatedAt, from.ID}
		after, first = "(created_at, id) >= ($1, $2)", from.Rank+1
	case !errors.Is(err, sql.ErrNoRows):
		return 0, 0, fmt.Errorf("newest anchor: %w", err)
	}
	var res struct {
		Scanned int64 `db:"scanned"`
		Added   int64 `db:"added"`
	}
	err = tx.GetContext(ctx, &res, `
		WITH scan AS (
			SELECT created_at, id, $3::bigint - 1 + row_number() OVER (ORDER BY created_at, id) AS rank
			FROM (SELECT created_at, id FROM users WHERE `+after+`
				ORDER BY created_at, id LIMIT $4) s),
		ins AS (
			INSERT INTO user_rank_anchors (rank, created_at, id)
			SELECT rank, created_at, id FROM scan WHERE rank % $5 = 0 AND rank >= $6
			RETURNING 1)
		SELECT (SELECT count(*) FROM scan) AS scanned, (SELECT count(*) FROM ins) AS added`,
		key[0], key[1], from.Rank, batch, spacing, first)
	if err != nil {
		return 0, 0, fmt.Errorf("add anchors: %w", err)
	}
	return res.Scanned, res.Added, nil
}

// activeOnlyWhere is userFilterSQL's condition for the active filter alone.
const activeOnlyWhere = "true AND active = $1"

// validAnchorSQL finds the anchor of the largest rank up to $1 that no
// dirty key (a user written below it since the job's last run) has made
// wrong. The benchmark's baseline
// (bench/baseline) keeps a copy.
const validAnchorSQL = `SELECT rank, created_at, id FROM user_rank_anchors a
	WHERE rank <= $1 AND NOT EXISTS (
		SELECT 1 FROM user_rank_dirty d WHERE (d.created_at, d.id) <= (a.created_at, a.id))
	ORDER BY rank DESC LIMIT 1`

// validAnchor returns the anchor of validAnchorSQL; ok is false when there is none.
func validAnchor(ctx context.Context, tx *sqlx.Tx, maxRank int64) (rankAnchor, bool, error) {
	var a rankAnchor
	err := tx.GetContext(ctx, &a, validAnchorSQL, maxRank)
	if errors.Is(err, sql.ErrNoRows) {
		return rankAnchor{}, false, nil
	}
	if err != nil {
		return rankAnchor{}, false, fmt.Errorf("rank anchor: %w", err)
	}
	return a, true, nil
}

// countUsersSinceAnchorSQL counts the users from the anchor ($1, $2) on, to
// add to the anchor's rank; countUsersSQL counts them all, while there is no
// anchor. The benchmark's baseline
// (bench/baseline) keeps a copy.
const (
	countUsersSinceAnchorSQL = `SELECT count(*) FROM users WHERE (created_at, id) >= ($1, $2)`
	countUsersSQL            = `SELECT count(*) FROM users`
)

// selectUserPage fills rows with the page of the users that pass where
// (newest first) and returns how many pass it. It must run in one snapshot
// (SnapshotTx). The unfiltered list counts from the newest valid anchor and
// seeks a deep page from the anchor below it; a filtered one counts (active
// alone from the anchors too) and reads the page from whichever end of the
// list is nearer (a sole x- filter counts and pages its values: userQuery.values).
// With sortMatches (a filter on updated_at alone) the page
// is the matches' ids sorted (sortedMatchesPageSQL), whichever end it is read from.
func selectUserPage(ctx context.Context, tx *sqlx.Tx, rows *[]userRow, uq userQuery, page Page) (int64, error) {
	where, args := uq.where, uq.args
	if page.After != nil {
		return selectUserCursorPage(ctx, tx, rows, where, page, args...)
	}
	ranked := where == "true"
	// active=true alone: all users (anchored) minus the inactive ones,
	// counted on the partial index users_inactive.
	activeOnly := where == activeOnlyWhere && len(args) == 1 && args[0] == true
	var total int64
	if ranked || activeOnly {
		newest, ok, err := validAnchor(ctx, tx, math.MaxInt64)
		if err != nil {
			return 0, err
		}
		if ok {
			err = tx.GetContext(ctx, &total, countUsersSinceAnchorSQL, newest.CreatedAt, newest.ID)
			total += newest.Rank
		} else {
			err = tx.GetContext(ctx, &total, countUsersSQL)
		}
		if err != nil {
			return 0, fmt.Errorf("count users: %w", err)
		}
		if activeOnly {
			var inactive int64
			if err := tx.GetContext(ctx, &inactive, `SELECT count(*) FROM users WHERE NOT active`); err != nil {
				return 0, fmt.Errorf("count inactive users: %w", err)
			}
			total -= inactive
		}
	} else {
		count := `SELECT count(*) FROM users WHERE ` + where
		if uq.custom != nil {
			count = `SELECT count(*) FROM user_custom_values v WHERE ` + uq.custom.values
		}
		if err := tx.GetContext(ctx, &total, count, args...); err != nil {
			return 0, fmt.Errorf("count users: %w", err)
		}
	}
	offset := page.offset()
	if offset >= total {
		return total, nil
	}
	size := min(int64(page.Size), total-offset)
	low := total - offset - size // oldest-first rank of the page's oldest user
	n := len(args)
	// Reading newest first skips offset rows; oldest first skips low rows,
	// or fewer from an anchor.
	skip, from := low, ""
	if ranked && offset >= UserRankSpacing {
		a, ok, err := validAnchor(ctx, tx, low)
		if err != nil {
			return 0, err
		}
		if ok {
			skip = low - a.Rank
			from = fmt.Sprintf(" AND (created_at, id) >= ($%d, $%d)", n+3, n+4)
			args = append(args[:n:n], a.CreatedAt, a.ID)
		}
	}
	if offset <= skip {
		q := fmt.Sprintf(`SELECT %s FROM users WHERE %s
			ORDER BY created_at DESC, id DESC LIMIT $%d OFFSET $%d`, userColumns, where, n+1, n+2)
		q = filteredUserPageSQL(q, uq, "created_at DESC, id DESC")
		err := tx.SelectContext(ctx, rows, q, append(args[:n:n], size, offset)...)
		if err != nil {
			return 0, fmt.Errorf("select users: %w", err)
		}
		return total, nil
	}
	q := fmt.Sprintf(`SELECT %s FROM users WHERE %s%s ORDER BY created_at, id LIMIT $%d OFFSET $%d`,
		userColumns, where, from, n+1, n+2)
	q = filteredUserPageSQL(q, uq, "created_at, id")
	all := append([]any{}, args[:n]...)
	all = append(all, size, skip)
	all = append(all, args[n:]...)
	if err := tx.SelectContext(ctx, rows, q, all...); err != nil {
		return 0, fmt.Errorf("select users oldest first: %w", err)
	}
	slices.Reverse(*rows)
	return total, nil
}

// filteredUserPageSQL is the page query of a filtered users list in order
// (LIMIT and OFFSET the two placeholders after the n arguments of where):
// plain as it is, unless one of the forms below reads fewer rows.
func filteredUserPageSQL(plain string, uq userQuery, order string) string {
	switch {
	case uq.where == activeOnlyWhere:
		return activeUserPageSQL(order)
	case uq.sortMatches:
		return sortedMatchesPageSQL(uq.where, order, len(uq.args))
	case uq.custom != nil:
		return valuesPageSQL(*uq.custom, order, len(uq.args))
	}
	return plain
}

// valuesPageSQL is the page of a users list filtered by one x- field alone
// (c): the page's user ids are read from the values in list order (their
// user_created_at and user_id, migration 00021), then only those users.
// Exact values (c.set) are read per value on user_custom_values_value in
// that order, at most offset+size entries each, and merged; a part of a
// text or list on the trigram index sorts the keys of the values found.
// Joining users to order the matches read a row per match: the middle
// page of 83,000 matches took 325 ms.
func valuesPageSQL(c customFilter, order string, n int) string {
	vorder := strings.NewReplacer("created_at", "v.user_created_at", "id", "v.user_id").Replace(order)
	if c.set == "" {
		return fmt.Sprintf(`SELECT %s FROM users WHERE id IN (SELECT v.user_id FROM user_custom_values v WHERE %s
		ORDER BY %s LIMIT $%d OFFSET $%d) ORDER BY %s`, userColumns, c.values, vorder, n+1, n+2, order)
	}
	morder := strings.ReplaceAll(vorder, "v.", "m.")
	return fmt.Sprintf(`SELECT %s FROM users WHERE id IN (SELECT m.user_id FROM unnest(%s::text[]) AS w (value)
		CROSS JOIN LATERAL (SELECT v.user_created_at, v.user_id FROM user_custom_values v
			WHERE v.field_id = %s AND v.value = w.value AND %s ORDER BY %s LIMIT $%d::bigint + $%d::bigint) m
		ORDER BY %s LIMIT $%d OFFSET $%d) ORDER BY %s`,
		userColumns, c.set, c.field, shortValue("v.value"), vorder, n+1, n+2, morder, n+1, n+2, order)
}

// activeUserPageSQL is the page of the users list filtered by active alone
// ($1), in order: the ids first (LIMIT $2 OFFSET $3), then their rows. A
// deep page of active=false thus skips index entries of users_inactive,
// not whole rows (page 500 of 100,000 inactive users: 81 ms when the
// skipped rows were fetched, 13 ms). Other filters keep the plain page:
// for those that read every value of a custom field (x-<text>, x-<list>)
// this form took about twice as long for the middle page at 1M users (one
// run on a loaded machine).
func activeUserPageSQL(order string) string {
	return fmt.Sprintf(`SELECT %s FROM users WHERE id IN (SELECT id FROM users WHERE %s ORDER BY %s LIMIT $2 OFFSET $3) ORDER BY %s`,
		userColumns, activeOnlyWhere, order, order)
}

// sortedMatchesPageSQL is the page of a users list filtered by updated_at
// alone: the matches' keys are read first from users_updated, which holds
// created_at and id (migration 00020), index-only, and sorted; only the
// page's rows are then read. In created_at order PostgreSQL would walk
// users_created and test each row's updated_at, which for the far end of a
// recent 1% of 1M users read 990,000 rows (275 ms). The count reads the
// same index entries, so the sort costs the same order of work.
func sortedMatchesPageSQL(where, order string, n int) string {
	return fmt.Sprintf(`WITH matches AS MATERIALIZED (SELECT created_at, id FROM users WHERE %s)
		SELECT %s FROM users WHERE id IN (SELECT id FROM matches ORDER BY %s LIMIT $%d OFFSET $%d) ORDER BY %s`,
		where, userColumns, order, n+1, n+2, order)
}
