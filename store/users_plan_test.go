//go:build slow

package store

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lib/pq"
)

// TestListUsersQueriesUseIndexes checks, with EXPLAIN on a tenant of
// 10,000 users, that a page of GET /users is read through the newest-first
// index and that team_leader is answered through the manager email indexes,
// not by scanning or sorting the users table.
func TestListUsersQueriesUseIndexes(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 10,000 users")
	}
	tdb, _ := benchTenant(t)
	seedUsers(t, tdb, 10000)
	ids := make(pq.Int64Array, 100)
	emails := make(pq.StringArray, 100)
	for i := range ids {
		ids[i] = int64(5000 + i)
		emails[i] = fmt.Sprintf("user%d@example.com", 5000+i)
	}
	tests := []struct {
		name, query string
		args        []any
		want        []string
	}{
		{"deep page, newest first",
			`SELECT ` + userColumns + ` FROM users WHERE true ORDER BY created_at DESC, id DESC LIMIT 100 OFFSET 4900`,
			nil, []string{"Index Scan using users_created"}},
		{"team leaders of a page", teamLeadersSQL, []any{ids, emails},
			[]string{"users_manager_email_lower", "users_manager_5_email_lower"}},
		{"custom values of a page", `SELECT user_id, field_id, value FROM user_custom_values WHERE user_id = ANY($1)`,
			[]any{ids}, []string{"user_custom_values_pkey"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := explain(t, tdb, tt.query, tt.args...)
			for _, want := range tt.want {
				if !strings.Contains(plan, want) {
					t.Errorf("plan does not use %s:\n%s", want, plan)
				}
			}
			if strings.Contains(plan, "Seq Scan on users") || strings.Contains(plan, "Sort") {
				t.Errorf("plan scans or sorts users:\n%s", plan)
			}
		})
	}
}
