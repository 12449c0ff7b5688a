//go:build slow

package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// seedLeaderUsers adds n users user<g>@example.com; user g names
// User<g/10+1>@Example.COM (another case) as manager_email, so users 1 to
// n/10+1 are team leaders. Then it vacuums and analyzes users.
func seedLeaderUsers(tb testing.TB, tdb *TenantDB, n int) {
	tb.Helper()
	ctx := context.Background()
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `
			INSERT INTO users (user_name, first_name, last_name, email, timezone, manager_email)
			SELECT 'user' || g, 'F', 'L', 'user' || g || '@example.com', 'UTC', 'User' || (g / 10 + 1) || '@Example.COM'
			FROM generate_series(1, $1) g`, n)
		return err
	})
	if err != nil {
		tb.Fatalf("seed %d users: %v", n, err)
	}
	if _, err := tdb.db.pool.ExecContext(ctx, `VACUUM ANALYZE `+tdb.schema+`.users`); err != nil {
		tb.Fatalf("vacuum: %v", err)
	}
}

// leaderPage is the ids and emails of users first to first+99 as seeded by
// seedLeaderUsers (ids follow g in a fresh schema).
func leaderPage(first int) (pq.Int64Array, pq.StringArray) {
	ids := make(pq.Int64Array, 100)
	emails := make(pq.StringArray, 100)
	for i := range ids {
		ids[i] = int64(first + i)
		emails[i] = fmt.Sprintf("user%d@example.com", first+i)
	}
	return ids, emails
}

// teamLeaders runs query (teamLeadersSQL or an older form) for a page.
func teamLeaders(tb testing.TB, tdb *TenantDB, query string, ids pq.Int64Array, emails pq.StringArray) []int64 {
	tb.Helper()
	var leaders []int64
	err := tdb.ReadTx(context.Background(), func(tx *sqlx.Tx) error {
		return tx.Select(&leaders, query, ids, emails)
	})
	if err != nil {
		tb.Fatalf("team leaders: %v", err)
	}
	slices.Sort(leaders)
	return leaders
}

// TestTeamLeadersPlan checks team_leader of a page at 100 and at 10,000
// users: no lower() is evaluated per pair of users (the 100-user tenant is
// joined pair by pair, where lower() on both sides cost 18 ms), the big
// tenant probes the five stored lower-cased manager indexes without scanning
// users, and each tenant's leaders are its own (the big tenant names the
// small one's user12..user100 as managers; they stay no leaders there).
func TestTeamLeadersPlan(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 10,000 users")
	}
	big, _ := benchTenant(t)
	small := secondTenant(t, big, "small")
	seedLeaderUsers(t, small, 100)
	seedLeaderUsers(t, big, 10000)

	ids, emails := leaderPage(1)
	plan := explain(t, small, teamLeadersSQL, ids, emails)
	if strings.Contains(plan, "lower(") {
		t.Errorf("100 users: plan evaluates lower() per row:\n%s", plan)
	}
	var want []int64
	for g := int64(1); g <= 11; g++ {
		want = append(want, g)
	}
	if got := teamLeaders(t, small, teamLeadersSQL, ids, emails); !slices.Equal(got, want) {
		t.Errorf("100 users: leaders %v, want %v", got, want)
	}

	ids, emails = leaderPage(951)
	plan = explain(t, big, teamLeadersSQL, ids, emails)
	for _, index := range []string{"users_manager_email_lower", "users_manager_5_email_lower"} {
		if !strings.Contains(plan, index) {
			t.Errorf("10,000 users: plan does not use %s:\n%s", index, plan)
		}
	}
	if strings.Contains(plan, "Seq Scan on users") || strings.Contains(plan, "lower(") {
		t.Errorf("10,000 users: plan scans users or calls lower() per row:\n%s", plan)
	}
	want = nil
	for g := int64(951); g <= 1001; g++ {
		want = append(want, g)
	}
	if got := teamLeaders(t, big, teamLeadersSQL, ids, emails); !slices.Equal(got, want) {
		t.Errorf("10,000 users: leaders %v, want %v", got, want)
	}
}

// legacyTeamLeadersSQL is teamLeadersSQL before migration 00018: lower() on
// both sides, answered by expression indexes the benchmark creates for it.
const legacyTeamLeadersSQL = `SELECT p.id FROM unnest($1::bigint[], $2::text[]) AS p (id, email) WHERE EXISTS (
	SELECT 1 FROM users o WHERE o.id <> p.id AND (lower(o.manager_email) = lower(p.email)
		OR lower(o.manager_2_email) = lower(p.email) OR lower(o.manager_3_email) = lower(p.email)
		OR lower(o.manager_4_email) = lower(p.email) OR lower(o.manager_5_email) = lower(p.email)))`

// BenchmarkTeamLeaders reports the p50 (ms) of the team-leader query for a
// page of 100 users in tenants of 100, 1,000 and 100,000 users, before
// (lower() on both sides, expression indexes) and after (stored lower-cased
// manager columns). All three tenants share one database.
func BenchmarkTeamLeaders(b *testing.B) {
	ctx := context.Background()
	first, _ := benchTenant(b)
	for i, size := range []int{100, 1000, 100000} {
		tdb := first
		if i > 0 {
			tdb = secondTenant(b, first, fmt.Sprintf("size%d", size))
		}
		seedLeaderUsers(b, tdb, size)
		ids, emails := leaderPage(1)
		for _, v := range []struct{ name, query string }{{"after", teamLeadersSQL}, {"before", legacyTeamLeadersSQL}} {
			if v.name == "before" {
				for _, col := range []string{"manager_email", "manager_2_email", "manager_3_email", "manager_4_email", "manager_5_email"} {
					_, err := tdb.db.pool.ExecContext(ctx, fmt.Sprintf(`CREATE INDEX %s_legacy ON %s.users (lower(%s)) WHERE %s IS NOT NULL`,
						col, tdb.schema, col, col))
					if err != nil {
						b.Fatal(err)
					}
				}
				if _, err := tdb.db.pool.ExecContext(ctx, `ANALYZE `+tdb.schema+`.users`); err != nil {
					b.Fatal(err)
				}
			}
			b.Run(fmt.Sprintf("users-%d/%s", size, v.name), func(b *testing.B) {
				samples := make([]time.Duration, 0, b.N)
				for i := 0; i < b.N; i++ {
					t0 := time.Now()
					leaders := teamLeaders(b, tdb, v.query, ids, emails)
					samples = append(samples, time.Since(t0))
					if len(leaders) == 0 {
						b.Fatal("no team leaders")
					}
				}
				slices.Sort(samples)
				b.ReportMetric(float64(samples[len(samples)/2].Microseconds())/1000, "p50-ms")
			})
		}
	}
}
