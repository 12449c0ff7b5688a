package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// What every list shares: its page and its updated_after/updated_before
// filter (docs/api.md, "Lists and paging").

// Page selects one page of a list: page Number (1-based) of at most Size
// records. Callers give Number ≥ 1 and Size ≥ 1.
type Page struct {
	Number int
	Size   int
}

// offset is the number of records before the page.
func (p Page) offset() int64 { return int64(p.Number-1) * int64(p.Size) }

// selectPage counts the rows of countQuery and fills dest with the page of
// pageQuery's rows, whose LIMIT and OFFSET are the two placeholders after
// args. A page past the end leaves dest as it is and costs no second query.
func selectPage(ctx context.Context, tx *sqlx.Tx, dest any, countQuery, pageQuery string, page Page, args ...any) (int64, error) {
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
