package store

import (
	"context"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"
)

// explain returns PostgreSQL's plan of query, one line per node.
func explain(t *testing.T, tdb *TenantDB, query string, args ...any) string {
	t.Helper()
	var lines []string
	err := tdb.ReadTx(context.Background(), func(tx *sqlx.Tx) error {
		return tx.Select(&lines, `EXPLAIN (COSTS OFF) `+query, args...)
	})
	if err != nil {
		t.Fatalf("explain: %v", err)
	}
	return strings.Join(lines, "\n")
}
