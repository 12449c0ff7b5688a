package store

import (
	"context"
	"database/sql"

	"github.com/jmoiron/sqlx"
)

// LoadAllUsersCountingQueries loads every user of tdb the way the API does
// and reports how many users it loaded and how many queries loadUsers ran.
func LoadAllUsersCountingQueries(ctx context.Context, tdb *TenantDB) (users, queries int, err error) {
	err = tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		var rows []userRow
		if err := tx.SelectContext(ctx, &rows, `SELECT `+userColumns+` FROM users ORDER BY id`); err != nil {
			return err
		}
		q := &countingQueryer{tx: tx}
		loaded, err := loadUsers(ctx, q, rows)
		users, queries = len(loaded), q.n
		return err
	})
	return users, queries, err
}

// countingQueryer counts the queries run through it.
type countingQueryer struct {
	tx *sqlx.Tx
	n  int
}

func (c *countingQueryer) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	c.n++
	return c.tx.QueryContext(ctx, query, args...)
}

func (c *countingQueryer) QueryxContext(ctx context.Context, query string, args ...any) (*sqlx.Rows, error) {
	c.n++
	return c.tx.QueryxContext(ctx, query, args...)
}

func (c *countingQueryer) QueryRowxContext(ctx context.Context, query string, args ...any) *sqlx.Row {
	c.n++
	return c.tx.QueryRowxContext(ctx, query, args...)
}
