package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate"
)

// What every list shares: its page and its updated_after/updated_before
// filter (docs/api.md, "Lists and paging").

// Page selects one page of a list: page Number (1-based) of at most Size
// records. Callers give Number ≥ 1 and Size ≥ 1.
//
// With After set it is a cursor page (docs/api.md, "Walking a list with
// links"): the Size records that follow After in the list's order, found by
// keyset, so its cost does not grow with depth; Number is then only a label
// and no count runs: the list answers Total as its total.
type Page struct {
	Number int
	Size   int
	After  *learngate.Key
	Total  int64
}

// offset is the number of records before the page.
func (p Page) offset() int64 { return int64(p.Number-1) * int64(p.Size) }

// selectPage counts the rows of countQuery and fills dest with the page of
// pageQuery's rows, whose LIMIT and OFFSET are the two placeholders after
// args. A page past the end leaves dest as it is and costs no second query.
// A cursor page (page.After) runs pageQuery alone, with OFFSET 0 and its
// afterMarker replaced by the keyset condition of ks, and answers page.Total.
func selectPage(ctx context.Context, tx *sqlx.Tx, dest any, countQuery, pageQuery string, ks keyset, page Page, args ...any) (int64, error) {
	if page.After != nil {
		n := len(args)
		q := strings.Replace(pageQuery, afterMarker, ks.after(n+3), 1)
		// A cursor page seeks in id order even when a numbered page of the
		// same filter sorts its matches (idsOfMatches).
		q = strings.Replace(q, "ORDER BY "+ks.column+" + 0 ", "ORDER BY "+ks.column+" ", 1)
		if err := tx.SelectContext(ctx, dest, q, append(args[:n:n], page.Size, 0, page.After.ID)...); err != nil {
			return 0, fmt.Errorf("select cursor page: %w", err)
		}
		return page.Total, nil
	}
	var total int64
	if err := tx.GetContext(ctx, &total, countQuery, args...); err != nil {
		return 0, fmt.Errorf("count: %w", err)
	}
	if total <= page.offset() {
		return total, nil
	}
	if err := tx.SelectContext(ctx, dest, pageQuery, append(args, page.Size, page.offset())...); err != nil {
		return 0, fmt.Errorf("select page: %w", err)
	}
	return total, nil
}

// selectPageNearerEnd is selectPage for a list whose page can also be read
// from its far end: tailQuery takes the page's size and the number of rows
// after the page (its LIMIT and OFFSET, the two placeholders after args)
// and returns the page in list order ("": none, selectPage). A numbered page
// in the second half of the list is read that way, so the last page skips
// nothing.
func selectPageNearerEnd(ctx context.Context, tx *sqlx.Tx, dest any, countQuery, pageQuery, tailQuery string, ks keyset, page Page, args ...any) (int64, error) {
	if page.After != nil || tailQuery == "" {
		return selectPage(ctx, tx, dest, countQuery, pageQuery, ks, page, args...)
	}
	var total int64
	if err := tx.GetContext(ctx, &total, countQuery, args...); err != nil {
		return 0, fmt.Errorf("count: %w", err)
	}
	offset := page.offset()
	if total <= offset {
		return total, nil
	}
	q, limit, skip := pageQuery, int64(page.Size), offset
	if offset > total/2 {
		limit = min(int64(page.Size), total-offset)
		q, skip = tailQuery, total-offset-limit
	}
	if err := tx.SelectContext(ctx, dest, q, append(args, limit, skip)...); err != nil {
		return 0, fmt.Errorf("select page: %w", err)
	}
	return total, nil
}

// UpdatedFilter is the updated_after/updated_before part of every list's
// filter. Nil bounds filter nothing; both are exclusive.
type UpdatedFilter struct {
	UpdatedAfter, UpdatedBefore *time.Time
}

// where returns the condition on updated_at and its arguments.
func (f UpdatedFilter) where() (string, []any) {
	where := []string{"true"}
	var args []any
	if f.UpdatedAfter != nil {
		args = append(args, *f.UpdatedAfter)
		where = append(where, fmt.Sprintf("updated_at > $%d", len(args)))
	}
	if f.UpdatedBefore != nil {
		args = append(args, *f.UpdatedBefore)
		where = append(where, fmt.Sprintf("updated_at < $%d", len(args)))
	}
	return strings.Join(where, " AND "), args
}
