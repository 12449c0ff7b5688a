package list

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate"
)

// Rank anchors (docs/decisions.md, "Deep pages and total_records"; tenant
// migrations 00013 and 00017): every AnchorSpacing rows of an unfiltered
// list, the key of the row with that many rows before it in ascending key
// order. The unfiltered count is the newest valid anchor's rank plus the
// rows from it on, and a deep page skips from the anchor at or below it, so
// neither grows with the list. A trigger on the list's table records in the
// dirty table the key of every row stored or removed below the newest
// anchor; an anchor at or above the smallest dirty key is wrong until the
// rank_anchors job (anchors_maintain.go) rebuilds it.

// AnchorSpacing is how many listed rows lie between two anchors: a deep
// page skips fewer index entries than this (plus the rows stored since the
// job last ran).
const AnchorSpacing = 1000

// Anchors names a list's two anchor tables: Table holds (rank, key) and
// Dirty the keys written below the newest anchor since the job's last run.
type Anchors struct {
	Table, Dirty string
}

// anchor is one anchor as a statement found it; ok is false for none.
type anchor struct {
	rank int64
	key  learngate.Key
	ok   bool
}

// anchorPair is what AnchorsStatement finds: the newest valid anchor and
// the valid one of the largest rank up to the page's.
type anchorPair struct {
	newest, page anchor
}

// AnchorsStatement finds, among the anchors of s that no dirty key has made
// wrong, the newest one and the one of the largest rank up to rank: two
// lateral reads on the anchors' rank index, or one when rank is
// math.MaxInt64 (the newest anchor is then the page's too). The count and the page then
// bound their scans with these keys as plain parameters, so PostgreSQL
// plans them for the few rows they read (with the bound inside the
// statement it planned a third of the table: a parallel scan, 45 ms at 1M
// enrolments).
func (s Spec) AnchorsStatement(rank int64) Statement {
	k := s.keyColumns()
	cols := func(alias, prefix string) string {
		out := make([]string, len(k))
		for i, c := range k {
			out[i] = alias + "." + c + " AS " + prefix + "_" + c
		}
		return strings.Join(out, ", ")
	}
	valid := fmt.Sprintf(`SELECT rank, %s FROM %s a WHERE NOT EXISTS (SELECT 1 FROM %s d WHERE %s <= %s)`,
		strings.Join(k, ", "), s.Anchors.Table, s.Anchors.Dirty, tuple(qualified("d", k)), tuple(qualified("a", k)))
	if rank == math.MaxInt64 { // the newest anchor is the page's: one read, planned faster
		sql := fmt.Sprintf(`SELECT coalesce(n.rank, 0) AS newest_rank, %[1]s, coalesce(n.rank, 0) AS page_rank, %[2]s
		FROM (VALUES (1)) one LEFT JOIN LATERAL (%[3]s ORDER BY rank DESC LIMIT 1) n ON true`,
			cols("n", "newest"), cols("n", "page"), valid)
		return Statement{SQL: sql}
	}
	sql := fmt.Sprintf(`SELECT coalesce(n.rank, 0) AS newest_rank, %[1]s, coalesce(p.rank, 0) AS page_rank, %[2]s
		FROM (VALUES (1)) one
		LEFT JOIN LATERAL (%[3]s ORDER BY rank DESC LIMIT 1) n ON true
		LEFT JOIN LATERAL (%[3]s AND rank <= $1 ORDER BY rank DESC LIMIT 1) p ON true`,
		cols("n", "newest"), cols("p", "page"), valid)
	return Statement{SQL: sql, Args: []any{rank}}
}

// lookUpAnchors runs AnchorsStatement.
func (s Spec) lookUpAnchors(ctx context.Context, tx *sqlx.Tx, rank int64) (anchorPair, error) {
	st := s.AnchorsStatement(rank)
	var p anchorPair
	var newestAt, pageAt sql.NullTime
	var newestID, pageID sql.NullInt64
	dest := []any{&p.newest.rank, &newestID, &p.page.rank, &pageID}
	if s.Order == Newest {
		dest = []any{&p.newest.rank, &newestAt, &newestID, &p.page.rank, &pageAt, &pageID}
	}
	if err := tx.QueryRowxContext(ctx, st.SQL, st.Args...).Scan(dest...); err != nil {
		return anchorPair{}, fmt.Errorf("%s rank anchors: %w", s.Name, err)
	}
	p.newest.key, p.newest.ok = learngate.Key{CreatedAt: timeOf(newestAt), ID: newestID.Int64}, newestID.Valid
	p.page.key, p.page.ok = learngate.Key{CreatedAt: timeOf(pageAt), ID: pageID.Int64}, pageID.Valid
	return p, nil
}

// timeOf is t's time, the zero time when t is NULL.
func timeOf(t sql.NullTime) time.Time {
	if !t.Valid {
		return time.Time{}
	}
	return t.Time
}

// CountSinceStatement counts the listed rows from anchor a's key on (all of
// them when there is no anchor): an index-only count of the rows stored
// since the newest anchor.
func (s Spec) CountSinceStatement(a learngate.Key, ok bool) Statement {
	q := &Query{}
	cond := "true"
	if s.Listed != "" {
		cond = s.Listed
	}
	if ok {
		cond += " AND " + tuple(s.keys()) + " >= " + tuple(q.keyArgs(s, a))
	}
	return Statement{SQL: `SELECT count(*) FROM ` + s.from() + ` WHERE ` + cond, Args: q.args}
}

// countSince is the unfiltered list's total from its newest valid anchor.
func (s Spec) countSince(ctx context.Context, tx *sqlx.Tx, newest anchor) (int64, error) {
	st := s.CountSinceStatement(newest.key, newest.ok)
	var n int64
	if err := tx.GetContext(ctx, &n, st.SQL, st.Args...); err != nil {
		return 0, fmt.Errorf("count %s: %w", s.Name, err)
	}
	return newest.rank + n, nil
}
