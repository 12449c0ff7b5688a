package store

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

// BenchmarkUserFiltersScale reports the p50 latency (ms) of GET /users'
// store call at 100 a page with each filter, for page 1, the middle page
// and the last page, over the first size of scaleSizes
// (LEARNGATE_BENCH_USERS; default 1k, then 100k is ignored: one tenant).
// Every user has a value of four custom fields (text, number, date, list);
// updated_at follows created_at one second apart (seedScaleUsers).
func BenchmarkUserFiltersScale(b *testing.B) {
	ctx := context.Background()
	size := scaleSizes(b)[len(scaleSizes(b))-1]
	tdb, _ := benchTenant(b)
	seedScaleUsers(b, tdb, size)
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `
		INSERT INTO custom_fields (name, field_type, options) VALUES ('team', 'string', '{}'), ('level', 'number', '{}'),
			('since', 'date', '{}'), ('site', 'list', '{Berlin,Paris,Rome}');
		INSERT INTO user_custom_values (user_id, field_id, value)
			SELECT u.id, f.id, CASE f.field_type WHEN 'string' THEN 'team ' || (u.id % 1000)
				WHEN 'number' THEN (u.id % 1000)::text
				WHEN 'date' THEN to_char(date '2020-01-01' + (u.id % 1000)::int, 'YYYY-MM-DD')
				ELSE (ARRAY['Berlin', 'Paris', 'Rome'])[1 + u.id % 3] END
			FROM users u CROSS JOIN custom_fields f`)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := tdb.db.pool.ExecContext(ctx, `VACUUM ANALYZE `+tdb.schema+`.user_custom_values`); err != nil {
		b.Fatal(err)
	}
	if _, err := MaintainUserRanks(ctx, tdb); err != nil {
		b.Fatal(err)
	}
	base := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	recent, half := base.Add(time.Duration(size*99/100)*time.Second), base.Add(time.Duration(size/2)*time.Second)
	yes, no := true, false
	filters := []struct {
		name string
		f    UserFilter
	}{
		{"updated_after-1pct", UserFilter{UpdatedFilter: UpdatedFilter{UpdatedAfter: &recent}}},
		{"updated_after-half", UserFilter{UpdatedFilter: UpdatedFilter{UpdatedAfter: &half}}},
		{"active-true", UserFilter{Active: &yes}},
		{"active-false", UserFilter{Active: &no}},
		{"email", UserFilter{Email: fmt.Sprintf("user%d@example.com", size/2)}},
		{"x-text-0.1pct", UserFilter{CustomFields: map[string]string{"team": "team 500"}}},
		{"x-number-0.1pct", UserFilter{CustomFields: map[string]string{"level": "500"}}},
		{"x-date-0.1pct", UserFilter{CustomFields: map[string]string{"since": "2021-05-15"}}},
		{"x-list-third", UserFilter{CustomFields: map[string]string{"site": "Paris"}}},
	}
	for _, f := range filters {
		_, total, err := ListUsers(ctx, tdb, f.f, Page{Number: 1, Size: 1})
		if err != nil || total == 0 {
			b.Fatalf("%s: total %d, %v", f.name, total, err)
		}
		for _, pc := range []struct {
			name   string
			number int
		}{{"page-1", 1}, {"middle", int(total/200) + 1}, {"last", int((total + 99) / 100)}} {
			b.Run(fmt.Sprintf("users-%d/%s/%s", size, f.name, pc.name), func(b *testing.B) {
				samples := make([]time.Duration, 0, b.N)
				for i := 0; i < b.N; i++ {
					t0 := time.Now()
					users, _, err := ListUsers(ctx, tdb, f.f, Page{Number: pc.number, Size: 100})
					samples = append(samples, time.Since(t0))
					if err != nil || len(users) == 0 {
						b.Fatalf("page %d: %d users, %v", pc.number, len(users), err)
					}
				}
				slices.Sort(samples)
				b.ReportMetric(float64(samples[len(samples)/2].Microseconds())/1000, "p50-ms")
			})
		}
	}
}
