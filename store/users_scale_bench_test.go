package store

import (
	"context"
	"fmt"
	"learngate/store/list"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate"
)

// scaleSizes are the tenant sizes of BenchmarkUsersScale:
// LEARNGATE_BENCH_USERS (comma-separated), by default 1k and 100k; the
// 1M-user tenant takes a minute or two to build, so it is asked for.
func scaleSizes(b *testing.B) []int {
	spec := os.Getenv("LEARNGATE_BENCH_USERS")
	if spec == "" {
		return []int{1000, 100000}
	}
	var sizes []int
	for _, s := range strings.Split(spec, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			b.Fatalf("LEARNGATE_BENCH_USERS: bad size %q", s)
		}
		sizes = append(sizes, n)
	}
	return sizes
}

// seedScaleUsers adds n users to the tenant set-based, one second apart
// and about 350 bytes a row, every tenth inactive, then vacuums and
// analyzes the table as autovacuum would.
func seedScaleUsers(b testing.TB, tdb *TenantDB, n int) {
	b.Helper()
	ctx := context.Background()
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `
			INSERT INTO users (user_name, first_name, last_name, email, timezone, manager_email, mentor_email,
				lms_learner_id, lms_reference, active, created_at, updated_at)
			SELECT 'user' || g, 'First name ' || g, 'Last name ' || g, 'user' || g || '@example.com', 'Europe/Berlin',
				'manager' || (g / 10) || '@example.com', 'mentor' || (g / 100) || '@example.com',
				'lms-learner-' || g, 'lms-reference-' || g, g % 10 <> 0,
				timestamptz '2020-01-01' + g * interval '1 second', timestamptz '2020-01-01' + g * interval '1 second'
			FROM generate_series(1, $1) g`, n)
		return err
	})
	if err != nil {
		b.Fatalf("seed %d users: %v", n, err)
	}
	if _, err := tdb.db.pool.ExecContext(ctx, `VACUUM ANALYZE `+tdb.schema+`.users`); err != nil {
		b.Fatalf("vacuum: %v", err)
	}
}

// legacyListUsers is ListUsers as it was before the rank anchors: count(*)
// and LIMIT/OFFSET newest first.
func legacyListUsers(ctx context.Context, tdb *TenantDB, page list.Page) ([]learngate.User, int64, error) {
	var users []learngate.User
	var total int64
	err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		var rows []userRow
		if err := tx.GetContext(ctx, &total, `SELECT count(*) FROM users`); err != nil {
			return err
		}
		err := tx.SelectContext(ctx, &rows, `SELECT `+userColumns+` FROM users ORDER BY created_at DESC, id DESC LIMIT $1 OFFSET $2`,
			page.Size, pageOffset(page))
		if err != nil {
			return err
		}
		users, err = loadUsers(ctx, tx, rows)
		return err
	})
	return users, total, err
}

// BenchmarkUsersScale reports the p50 latency (ms) of GET /users' store
// call at 100 a page, for page 1, page 500, the last page and a page past
// the end (total_records alone), before (count + OFFSET) and after (rank
// anchors), unfiltered and with active=true, for each size of scaleSizes.
// The tenant shares its database with a second tenant of 1,000 users.
func BenchmarkUsersScale(b *testing.B) {
	ctx := context.Background()
	for _, size := range scaleSizes(b) {
		tdb, _ := benchTenant(b)
		other := secondTenant(b, tdb, "other")
		seedScaleUsers(b, other, 1000)
		start := time.Now()
		seedScaleUsers(b, tdb, size)
		b.Logf("%d users seeded in %v", size, time.Since(start).Round(time.Millisecond))
		start = time.Now()
		added, err := MaintainUserRanks(ctx, tdb)
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("%d users: first MaintainUserRanks added %d anchors in %v", size, added, time.Since(start).Round(time.Millisecond))
		if _, err := tdb.db.pool.ExecContext(ctx, `VACUUM ANALYZE `+tdb.schema+`.user_rank_anchors`); err != nil {
			b.Fatal(err)
		}
		last := (size + 99) / 100
		yes := true
		lists := []struct {
			name string
			list func(list.Page) ([]learngate.User, int64, error)
		}{
			{"before", func(p list.Page) ([]learngate.User, int64, error) { return legacyListUsers(ctx, tdb, p) }},
			{"after", func(p list.Page) ([]learngate.User, int64, error) { return ListUsers(ctx, tdb, list.UserFilter{}, p) }},
			{"active", func(p list.Page) ([]learngate.User, int64, error) {
				return ListUsers(ctx, tdb, list.UserFilter{Active: &yes}, p)
			}},
		}
		for _, l := range lists {
			for _, pc := range []struct {
				name   string
				number int
			}{{"page-1", 1}, {"page-500", 500}, {"last-page", last}, {"total", last + 1}} {
				b.Run(fmt.Sprintf("users-%d/%s/%s", size, l.name, pc.name), func(b *testing.B) {
					samples := make([]time.Duration, 0, b.N)
					for i := 0; i < b.N; i++ {
						t0 := time.Now()
						users, total, err := l.list(list.Page{Number: pc.number, Size: 100})
						samples = append(samples, time.Since(t0))
						if err != nil || total == 0 || (pc.number == 1 && len(users) != 100) {
							b.Fatalf("page %d: %d users of %d, %v", pc.number, len(users), total, err)
						}
					}
					slices.Sort(samples)
					b.ReportMetric(float64(samples[len(samples)/2].Microseconds())/1000, "p50-ms")
				})
			}
		}
	}
}
