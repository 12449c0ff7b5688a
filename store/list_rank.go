package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Rank anchors of the lists ordered by id alone (docs/decisions.md, "Deep
// pages and total_records"; tenant migration 00017_list_ranks.sql): the
// topic enrolments, the pathway enrolments and the external knowledge
// records. The users list, ordered by (created_at, id), keeps its own
// (users_rank.go); MaintainListRanks maintains them all.

// ListRankSpacing is how many listed rows lie between two anchors of an
// id-ordered list: a deep page skips fewer index entries than this (plus
// the rows stored since the job last ran).
const ListRankSpacing = 1000

// rankedList is an id-ordered list that has rank anchors. Its names are
// constants of this package, never input.
type rankedList struct {
	// table holds the rows; listed is the condition (on table's columns,
	// unqualified) of the rows the unfiltered list shows.
	table, listed string
	// anchors and dirty are the list's tables of 00017_list_ranks.sql.
	anchors, dirty string
}

// The id-ordered lists with rank anchors.
var (
	topicEnrolmentRanks = rankedList{table: "topic_enrolments", listed: "removed_at IS NULL",
		anchors: "topic_enrolment_rank_anchors", dirty: "topic_enrolment_rank_dirty"}
	pathwayEnrolmentRanks = rankedList{table: "pathway_enrolments", listed: "removed_at IS NULL",
		anchors: "pathway_enrolment_rank_anchors", dirty: "pathway_enrolment_rank_dirty"}
	knowledgeRanks = rankedList{table: "external_knowledges", listed: "true",
		anchors: "knowledge_rank_anchors", dirty: "knowledge_rank_dirty"}
	rankedLists = []rankedList{topicEnrolmentRanks, pathwayEnrolmentRanks, knowledgeRanks}
)

// anchorsSQL finds, among the anchors no dirty id (a row written below
// it since the job's last run) has made wrong, the newest one and the one
// of largest rank up to $1 (a page's offset): their ranks and ids, 0 for
// none. The count and the page then bound their scans with these ids as
// plain parameters, so PostgreSQL plans them for the few rows they read
// (with the bound inside the statement it planned a third of the table:
// a parallel scan, 45 ms at 1M enrolments).
func (l rankedList) anchorsSQL() string {
	return fmt.Sprintf(`WITH low AS (SELECT coalesce(min(id), 9223372036854775807) AS id FROM %[2]s)
		SELECT coalesce(n.rank, 0) AS newest_rank, coalesce(n.id, 0) AS newest_id,
			coalesce(p.rank, 0) AS page_rank, coalesce(p.id, 0) AS page_id
		FROM low
		LEFT JOIN LATERAL (SELECT rank, id FROM %[1]s WHERE id < low.id ORDER BY rank DESC LIMIT 1) n ON true
		LEFT JOIN LATERAL (SELECT rank, id FROM %[1]s WHERE id < low.id AND rank <= $1 ORDER BY rank DESC LIMIT 1) p ON true`,
		l.anchors, l.dirty)
}

// countSQL counts the listed rows from id $1 on (an index-only count of
// the rows stored since the newest anchor, or all of them from id 0).
func (l rankedList) countSQL() string {
	return fmt.Sprintf(`SELECT count(*) FROM %s WHERE %s AND id >= $1`, l.table, l.listed)
}

// pageSQL is a numbered page of l: selectSQL selects the rows (callers'
// joins included, table alias alias) whose ids are the $1 listed rows
// after skipping $2 from id $3 on, in id order.
func (l rankedList) pageSQL(selectSQL, alias string) string {
	return fmt.Sprintf(`%s WHERE %s.id IN (SELECT id FROM %s WHERE %s AND id >= $3 ORDER BY id LIMIT $1 OFFSET $2) ORDER BY %s.id`,
		selectSQL, alias, l.table, l.listed, alias)
}

// rankAnchors is the row of anchorsSQL.
type rankAnchors struct {
	NewestRank int64 `db:"newest_rank"`
	NewestID   int64 `db:"newest_id"`
	PageRank   int64 `db:"page_rank"`
	PageID     int64 `db:"page_id"`
}

// selectRankedPage is selectPage for the unfiltered list l, from its
// anchors: total = rank of the newest valid anchor + the rows from it on;
// the page skips offset - rank rows from the valid anchor at or below its
// offset. Three statements (the anchors, the count, the page); it must
// run in one snapshot (SnapshotTx).
func selectRankedPage(ctx context.Context, tx *sqlx.Tx, dest any, l rankedList, selectSQL, alias string, page Page) (int64, error) {
	var a rankAnchors
	if err := tx.GetContext(ctx, &a, l.anchorsSQL(), page.offset()); err != nil {
		return 0, fmt.Errorf("%s rank anchors: %w", l.table, err)
	}
	var total int64
	if err := tx.GetContext(ctx, &total, l.countSQL(), a.NewestID); err != nil {
		return 0, fmt.Errorf("count %s: %w", l.table, err)
	}
	total += a.NewestRank
	if total <= page.offset() {
		return total, nil
	}
	if err := tx.SelectContext(ctx, dest, l.pageSQL(selectSQL, alias), page.Size, page.offset()-a.PageRank, a.PageID); err != nil {
		return 0, fmt.Errorf("select %s page: %w", l.table, err)
	}
	return total, nil
}

// MaintainListRanks brings every rank anchor of the tenant up to date: the
// users' (MaintainUserRanks) and those of the topic enrolment, pathway
// enrolment and external knowledge lists. It returns how many anchors it
// added. A list whose writers hold its lock past a short timeout is left
// for the next run, without error. A benchmark or import that bulk-loads
// rows calls it once afterwards, as the worker's user_rank job does every
// minute.
func MaintainListRanks(ctx context.Context, tdb *TenantDB) (int64, error) {
	added, err := MaintainUserRanks(ctx, tdb)
	if err != nil {
		return added, err
	}
	for _, l := range rankedLists {
		n, err := maintainListRanks(ctx, tdb, l, ListRankSpacing, userRankBatch)
		added += n
		if err != nil {
			return added, err
		}
	}
	return added, nil
}

// maintainListRanks is MaintainListRanks for one id-ordered list, in
// transactions of at most batch rows.
func maintainListRanks(ctx context.Context, tdb *TenantDB, l rankedList, spacing, batch int64) (int64, error) {
	var added int64
	for {
		var scanned, n int64
		err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
			var err error
			scanned, n, err = extendListRanks(ctx, tx, l, spacing, batch)
			return err
		})
		if errors.Is(err, errRankBusy) {
			return added, nil
		}
		if err != nil {
			return added, fmt.Errorf("maintain %s ranks of %s: %w", l.table, tdb.schema, err)
		}
		added += n
		if scanned < batch || n == 0 {
			return added, nil
		}
	}
}

// extendListRanks is one transaction of maintainListRanks: after the lock
// (see extendUserRanks) it drops the anchors at or above the smallest dirty
// id, then reads at most batch listed rows from the newest anchor on and
// adds one anchor every spacing rows. It returns how many rows it read and
// how many anchors it added.
func extendListRanks(ctx context.Context, tx *sqlx.Tx, l rankedList, spacing, batch int64) (int64, int64, error) {
	if _, err := tx.ExecContext(ctx, `SELECT set_config('lock_timeout', $1, true)`, userRankLockTimeout); err != nil {
		return 0, 0, err
	}
	if _, err := tx.ExecContext(ctx, `LOCK TABLE `+l.dirty+` IN SHARE ROW EXCLUSIVE MODE`); err != nil {
		var pqErr *pq.Error
		if errors.As(err, &pqErr) && pqErr.Code == "55P03" { // lock_not_available
			return 0, 0, errRankBusy
		}
		return 0, 0, err
	}
	_, err := tx.ExecContext(ctx, fmt.Sprintf(`
		DELETE FROM %[1]s WHERE id >= (SELECT min(id) FROM %[2]s);
		DELETE FROM %[2]s`, l.anchors, l.dirty))
	if err != nil {
		return 0, 0, fmt.Errorf("drop dirty anchors: %w", err)
	}
	// Scan from the newest anchor (its row is still listed: a change at
	// its id would have dropped it), or from the smallest id.
	var from struct {
		Rank int64 `db:"rank"`
		ID   int64 `db:"id"`
	}
	first := int64(0)
	err = tx.GetContext(ctx, &from, `SELECT rank, id FROM `+l.anchors+` ORDER BY rank DESC LIMIT 1`)
	switch {
	case err == nil:
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
			SELECT id, $2::bigint - 1 + row_number() OVER (ORDER BY id) AS rank
			FROM (SELECT id FROM %s WHERE %s AND id >= $1 ORDER BY id LIMIT $3) s),
		ins AS (
			INSERT INTO %s (rank, id)
			SELECT rank, id FROM scan WHERE rank %% $4 = 0 AND rank >= $5
			RETURNING 1)
		SELECT (SELECT count(*) FROM scan) AS scanned, (SELECT count(*) FROM ins) AS added`,
		l.table, l.listed, l.anchors),
		from.ID, from.Rank, batch, spacing, first)
	if err != nil {
		return 0, 0, fmt.Errorf("add anchors: %w", err)
	}
	return res.Scanned, res.Added, nil
}
