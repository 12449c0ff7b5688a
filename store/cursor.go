package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// Cursor pages (docs/api.md, "Walking a list with links"; docs/decisions.md,
// "Lists and paging"): a page found by keyset from the last record of the page
// before it, rather than by OFFSET, so that its cost does not grow with depth.

// Key is a record's position in its list's order: its id, and for users
// (ordered by created_at, then id) its created_at too.
type Key struct {
	CreatedAt time.Time
	ID        int64
}

// Keyed is a list record that knows its position in its list.
type Keyed interface {
	// ListKey is the record's position in its list's order.
	ListKey() Key
}

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

// ListKey is the enrolment's position in its list (id ascending).
func (e TopicEnrolment) ListKey() Key { return Key{ID: e.ID} }

// ListKey is the enrolment's position in its list (id ascending).
func (e PathwayEnrolment) ListKey() Key { return Key{ID: e.ID} }

// ListKey is the record's position in its list (id ascending).
func (k ExternalKnowledge) ListKey() Key { return Key{ID: k.ID} }

// ListKey is the entry's position in its catalog (id ascending).
func (c CatalogItem) ListKey() Key { return Key{ID: c.ID} }

// ListKey is the field's position in its list (id ascending).
func (f CustomField) ListKey() Key { return Key{ID: f.ID} }

// ListKey is the topic's position in its list (id ascending).
func (t Topic) ListKey() Key { return Key{ID: t.ID} }

// ListKey is the pathway's position in its list (id ascending).
func (p Pathway) ListKey() Key { return Key{ID: p.ID} }

// ListKey is the endpoint's position in its list (id ascending).
func (w Webhook) ListKey() Key { return Key{ID: w.ID} }

// ListKey is the delivery's position in its list (id descending).
func (d Delivery) ListKey() Key { return Key{ID: d.ID} }

// ListKey is the user's position in the users list (created_at, then id,
// descending).
func (u User) ListKey() Key { return Key{CreatedAt: u.CreatedAt, ID: u.ID} }

// selectUserCursorPage fills rows with the users that pass where and follow
// page.After newest first (a seek on the users_created index, however deep),
// and answers page.Total without counting.
func selectUserCursorPage(ctx context.Context, tx *sqlx.Tx, rows *[]userRow, where string, page Page, args ...any) (int64, error) {
	n := len(args)
	q := fmt.Sprintf(`SELECT %s FROM users WHERE %s AND (created_at, id) < ($%d, $%d)
		ORDER BY created_at DESC, id DESC LIMIT $%d`, UserColumns, where, n+1, n+2, n+3)
	if err := tx.SelectContext(ctx, rows, q, append(args[:n:n], page.After.CreatedAt, page.After.ID, page.Size)...); err != nil {
		return 0, fmt.Errorf("select users after a cursor: %w", err)
	}
	return page.Total, nil
}
