package store

import (
	"context"
	"fmt"
	"learngate/store/list"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

// BenchmarkListsScale reports the p50 latency (ms) of the store calls of
// GET /topic_assignments, /pathway_assignments and /external_knowledges at
// 100 a page, unfiltered (page 1, the middle page, the last page) and with
// each filter, over LEARNGATE_BENCH_ENROLMENTS topic enrolments (default
// 100,000: users of 100 topics each), a tenth as many pathway enrolments
// and a third as many knowledge records, after one MaintainListRanks, as
// the worker runs it. updated_at is spread one second per row, so
// updated_after of the newest 1% and of the newer half are real filters.
func BenchmarkListsScale(b *testing.B) {
	size := 100000
	if s := os.Getenv("LEARNGATE_BENCH_ENROLMENTS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1000 {
			b.Fatalf("LEARNGATE_BENCH_ENROLMENTS: bad size %q", s)
		}
		size = n
	}
	ctx := context.Background()
	tdb, _ := benchTenant(b)
	users := size / 100
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	start := time.Now()
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, fmt.Sprintf(`
			INSERT INTO topics (title) SELECT 'Topic ' || g FROM generate_series(1, 100) g;
			INSERT INTO pathways (title) SELECT 'Pathway ' || g FROM generate_series(1, 10) g;
			INSERT INTO users (user_name, first_name, last_name, email, timezone)
			SELECT 'user' || g, 'F', 'L', 'user' || g || '@example.com', 'UTC' FROM generate_series(1, %[1]d) g;
			INSERT INTO topic_enrolments (user_id, topic_id, enrolled_by, updated_at)
			SELECT u.id, t.id, 'api', timestamptz '%[2]s' + ((u.id - 1) * 100 + t.id) * interval '1 second'
			FROM users u CROSS JOIN topics t ORDER BY u.id, t.id;
			INSERT INTO pathway_enrolments (user_id, pathway_id, updated_at)
			SELECT u.id, p.id, timestamptz '%[2]s' + ((u.id - 1) * 10 + p.id) * interval '1 second'
			FROM users u CROSS JOIN pathways p ORDER BY u.id, p.id;
			INSERT INTO external_knowledges (user_id, knowledge_type, title, date_obtained, updated_at)
			SELECT u.id, 1, 'Course ' || g, date '2026-01-01', timestamptz '%[2]s' + ((u.id - 1) * 33 + g) * interval '1 second'
			FROM users u CROSS JOIN generate_series(1, 33) g ORDER BY u.id, g`, users, base.Format(time.RFC3339)))
		return err
	})
	if err != nil {
		b.Fatalf("seed: %v", err)
	}
	for _, table := range []string{"users", "topic_enrolments", "pathway_enrolments", "external_knowledges"} {
		if _, err := tdb.db.pool.ExecContext(ctx, `VACUUM ANALYZE `+tdb.schema+`.`+table); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("%d topic enrolments, %d pathway enrolments, %d records seeded in %v", size, users*10, users*33,
		time.Since(start).Round(time.Millisecond))
	start = time.Now()
	added, err := MaintainListRanks(ctx, tdb)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("MaintainListRanks added %d anchors in %v", added, time.Since(start).Round(time.Millisecond))

	one, name, topic := int64(users/2), fmt.Sprintf("user%d", users/2), int64(50)
	recent := base.Add(time.Duration(size*99/100) * time.Second)
	half := base.Add(time.Duration(size/2) * time.Second)
	recentRecords := base.Add(time.Duration(users*33*99/100) * time.Second)
	type call func(page list.Page) (int, int64, error)
	topics := func(f list.EnrolmentFilter) call {
		return func(page list.Page) (int, int64, error) {
			rows, total, err := ListTopicEnrolments(ctx, tdb, f, page)
			return len(rows), total, err
		}
	}
	pathways := func(f list.EnrolmentFilter) call {
		return func(page list.Page) (int, int64, error) {
			rows, total, err := ListPathwayEnrolments(ctx, tdb, f, page)
			return len(rows), total, err
		}
	}
	records := func(f list.KnowledgeFilter) call {
		return func(page list.Page) (int, int64, error) {
			rows, total, err := ListExternalKnowledges(ctx, tdb, f, page)
			return len(rows), total, err
		}
	}
	pathwayID := int64(5)
	cases := []struct {
		name  string
		list  call
		total int64
	}{
		{"topic", topics(list.EnrolmentFilter{}), int64(users * 100)},
		{"topic-topic_id", topics(list.EnrolmentFilter{TargetID: &topic}), int64(users)},
		{"topic-topic_ids-one", topics(list.EnrolmentFilter{TargetIDs: []int64{topic}}), int64(users)},
		{"topic-user_id", topics(list.EnrolmentFilter{UserID: &one}), 100},
		{"topic-user_name", topics(list.EnrolmentFilter{UserName: &name}), 100},
		{"topic-updated_after-1pct", topics(list.EnrolmentFilter{UpdatedFilter: list.UpdatedFilter{UpdatedAfter: &recent}}), int64(size / 100)},
		{"topic-updated_after-half", topics(list.EnrolmentFilter{UpdatedFilter: list.UpdatedFilter{UpdatedAfter: &half}}), int64(size / 2)},
		{"pathway", pathways(list.EnrolmentFilter{}), int64(users * 10)},
		{"pathway-pathway_id", pathways(list.EnrolmentFilter{TargetID: &pathwayID}), int64(users)},
		{"pathway-user_id", pathways(list.EnrolmentFilter{UserID: &one}), 10},
		{"knowledge", records(list.KnowledgeFilter{}), int64(users * 33)},
		{"knowledge-user_name", records(list.KnowledgeFilter{UserName: name}), 33},
		{"knowledge-updated_after-1pct", records(list.KnowledgeFilter{UpdatedFilter: list.UpdatedFilter{UpdatedAfter: &recentRecords}}), int64(users * 33 / 100)},
	}
	for _, c := range cases {
		last := 1
		for _, pc := range []struct {
			name   string
			number func(total int64) int
		}{
			{"page-1", func(int64) int { return 1 }},
			{"middle", func(total int64) int { return int(total/200) + 1 }},
			{"last", func(total int64) int { return int((total + 99) / 100) }},
		} {
			b.Run(fmt.Sprintf("%d/%s/%s", size, c.name, pc.name), func(b *testing.B) {
				_, total, err := c.list(list.Page{Number: 1, Size: 1})
				if err != nil || (c.total >= 0 && total != c.total) {
					b.Fatalf("total %d, want %d: %v", total, c.total, err)
				}
				last = max(pc.number(total), 1)
				samples := make([]time.Duration, 0, b.N)
				for i := 0; i < b.N; i++ {
					t0 := time.Now()
					n, _, err := c.list(list.Page{Number: last, Size: 100})
					samples = append(samples, time.Since(t0))
					if err != nil || (total > 0 && n == 0) {
						b.Fatalf("page %d: %d rows, %v", last, n, err)
					}
				}
				slices.Sort(samples)
				b.ReportMetric(float64(samples[len(samples)/2].Microseconds())/1000, "p50-ms")
			})
		}
	}
}

// BenchmarkUserFiltersScale reports the p50 latency (ms) of GET /users'
// store call at 100 a page with each filter, for page 1, the middle page
// and the last page, in one tenant of the last size of scaleSizes
// (LEARNGATE_BENCH_USERS; default 100,000). Every user has a value of four
// custom fields (text, number, date, list), each value shared by a
// thousandth of the users (a third for the list); updated_at follows
// created_at one second apart (seedScaleUsers).
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
		f    list.UserFilter
	}{
		{"updated_after-1pct", list.UserFilter{UpdatedFilter: list.UpdatedFilter{UpdatedAfter: &recent}}},
		{"updated_after-half", list.UserFilter{UpdatedFilter: list.UpdatedFilter{UpdatedAfter: &half}}},
		{"active-true", list.UserFilter{Active: &yes}},
		{"active-false", list.UserFilter{Active: &no}},
		{"email", list.UserFilter{Email: fmt.Sprintf("user%d@example.com", size/2)}},
		{"x-text-0.1pct", list.UserFilter{CustomFields: map[string]string{"team": "team 500"}}},
		{"x-number-0.1pct", list.UserFilter{CustomFields: map[string]string{"level": "500"}}},
		{"x-date-0.1pct", list.UserFilter{CustomFields: map[string]string{"since": "2021-05-15"}}},
		{"x-list-third", list.UserFilter{CustomFields: map[string]string{"site": "Paris"}}},
	}
	for _, f := range filters {
		_, total, err := ListUsers(ctx, tdb, f.f, list.Page{Number: 1, Size: 1})
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
					users, _, err := ListUsers(ctx, tdb, f.f, list.Page{Number: pc.number, Size: 100})
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
