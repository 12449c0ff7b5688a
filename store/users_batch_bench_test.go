package store

import (
	"context"
	"fmt"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// BenchmarkBatchSaveUsers100Baseline is the floor BenchmarkBatchSaveUsers100
// is measured against (docs/performance.md: within 1.5 times its time): the same 100
// new users with two groups, one role and three custom values, written by
// the fewest set-based statements that do the work, with no checks: look
// up which user names exist, the catalog ids and custom fields, then one
// INSERT of the users and one per kind of link.
func BenchmarkBatchSaveUsers100Baseline(b *testing.B) {
	tdb, queries := benchTenant(b)
	ctx := context.Background()
	b.ResetTimer()
	start := queries()
	for i := 0; i < b.N; i++ {
		names := make(pq.StringArray, 100)
		emails := make(pq.StringArray, 100)
		for j := range names {
			names[j] = fmt.Sprintf("u%d-%d", i, j)
			emails[j] = names[j] + "@example.com"
		}
		err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
			var taken []string
			if err := tx.SelectContext(ctx, &taken, `SELECT user_name FROM users WHERE user_name = ANY($1)`, names); err != nil {
				return err
			}
			var catalog []struct {
				Kind string `db:"kind"`
				ID   int64  `db:"id"`
			}
			if err := tx.SelectContext(ctx, &catalog, `SELECT 'role' AS kind, id FROM roles WHERE lower(name) = 'trainer'
				UNION ALL SELECT 'group', id FROM groups WHERE lower(name) IN ('sales', 'berlin')`); err != nil {
				return err
			}
			var fields []customFieldRow
			if err := tx.SelectContext(ctx, &fields, `SELECT `+customFieldColumns+` FROM custom_fields ORDER BY id`); err != nil {
				return err
			}
			var role int64
			var groups pq.Int64Array
			for _, c := range catalog {
				if c.Kind == "role" {
					role = c.ID
				} else {
					groups = append(groups, c.ID)
				}
			}
			var ids pq.Int64Array
			if err := tx.SelectContext(ctx, &ids, `INSERT INTO users (user_name, first_name, last_name, email, timezone, created_at, updated_at)
				SELECT n, 'First', 'Last', e, 'UTC', now(), now() FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS t(n, e, o)
				ORDER BY o RETURNING id`, names, emails); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO user_roles (user_id, position, role_id) SELECT u, 1, $2 FROM unnest($1::bigint[]) u`,
				ids, role); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO user_groups (user_id, group_id)
				SELECT u, g FROM unnest($1::bigint[]) u CROSS JOIN unnest($2::bigint[]) g`, ids, groups); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO user_custom_values (user_id, field_id, value)
				SELECT u, f, v FROM unnest($1::bigint[]) u CROSS JOIN unnest($2::bigint[], $3::text[]) AS c(f, v)`,
				ids, pq.Int64Array{fields[0].ID, fields[1].ID, fields[2].ID}, pq.StringArray{"Auckland", "42", "Go;SQL"})
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(queries()-start)/float64(b.N), "queries/op")
}
