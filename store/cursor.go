package store

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
)

// Cursor pages (docs/api.md, "Walking a list with links"; docs/decisions.md,
// "Lists and paging"): a page found by keyset from the last record of the page
// before it, rather than by OFFSET, so that its cost does not grow with depth.

// afterMarker stands, in a page query, for the condition that keeps only
// the records after a cursor page's key. It is valid SQL (true) as it is,
// so a numbered page runs the query unchanged.
const afterMarker = "/*after*/ true"

// keyset is how a list orders its records by id: column is the id column as
// the page query names it, desc when the list is newest first.
type keyset struct {
	column string
	desc   bool
}

// after is the condition of records after the key held in placeholder $n.
func (k keyset) after(n int) string {
	op := ">"
	if k.desc {
		op = "<"
	}
	return fmt.Sprintf("%s %s $%d", k.column, op, n)
}

// selectUserCursorPage fills rows with the users that pass where and follow
// page.After newest first (a seek on the users_created index, however deep),
// and answers page.Total without counting.
func selectUserCursorPage(ctx context.Context, tx *sqlx.Tx, rows *[]userRow, where string, page Page, args ...any) (int64, error) {
	n := len(args)
	q := fmt.Sprintf(`SELECT %s FROM users WHERE %s AND (created_at, id) < ($%d, $%d)
		ORDER BY created_at DESC, id DESC LIMIT $%d`, userColumns, where, n+1, n+2, n+3)
	if err := tx.SelectContext(ctx, rows, q, append(args[:n:n], page.After.CreatedAt, page.After.ID, page.Size)...); err != nil {
		return 0, fmt.Errorf("select users after a cursor: %w", err)
	}
	return page.Total, nil
}
