package store

import (
	"context"
	"fmt"
	"learngate/store/list"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate"
)

// seedCursorEnrolments gives tdb users users (created a second apart, in pairs
// at the same instant) each enrolled in topics topics.
func seedCursorEnrolments(tb testing.TB, tdb *TenantDB, users, topics int) {
	tb.Helper()
	ctx := context.Background()
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `
			INSERT INTO topics (title) SELECT 'Topic ' || g FROM generate_series(1, `+strconv.Itoa(topics)+`) g;
			INSERT INTO users (user_name, first_name, last_name, email, timezone, created_at, updated_at)
			SELECT 'user' || g, 'F', 'L', 'user' || g || '@example.com', 'UTC',
				timestamptz '2025-01-01' + (g / 2) * interval '1 second', now()
			FROM generate_series(1, `+strconv.Itoa(users)+`) g;
			INSERT INTO topic_enrolments (user_id, topic_id, enrolled_by)
			SELECT u.id, t.id, 'api' FROM users u CROSS JOIN topics t ORDER BY u.id, t.id`)
		return err
	})
	if err != nil {
		tb.Fatalf("seed: %v", err)
	}
	if _, err := tdb.db.pool.ExecContext(ctx, `ANALYZE `+tdb.schema+`.topic_enrolments, `+tdb.schema+`.users`); err != nil {
		tb.Fatal(err)
	}
}

// TestCursorPagesCountNothing walks the topic enrolments and the users by
// cursor pages: each page holds the rows of the same page by number, and
// costs a fixed number of statements, fewer than a numbered page (no
// count; for topic enrolments no rank anchors either), at any depth.
func TestCursorPagesCountNothing(t *testing.T) {
	t.Parallel()
	tdb, queries := benchTenant(t)
	ctx := context.Background()
	seedCursorEnrolments(t, tdb, 40, 5) // 200 enrolments, 40 users

	statements := func(fn func() error) int64 {
		t.Helper()
		start := queries()
		if err := fn(); err != nil {
			t.Fatal(err)
		}
		return queries() - start
	}
	var after *learngate.Key
	for number := 1; number <= 20; number++ {
		var byNumber, byCursor []learngate.TopicEnrolment
		var total, cursorTotal int64
		numbered := statements(func() (err error) {
			byNumber, total, err = ListTopicEnrolments(ctx, tdb, list.EnrolmentFilter{}, list.Page{Number: number, Size: 10})
			return err
		})
		if numbered != 6 || total != 200 || len(byNumber) != 10 {
			t.Fatalf("page %d by number: %d statements, %d rows of %d", number, numbered, len(byNumber), total)
		}
		if number == 1 {
			after = &learngate.Key{ID: byNumber[9].ID}
			continue
		}
		cursor := statements(func() (err error) {
			byCursor, cursorTotal, err = ListTopicEnrolments(ctx, tdb, list.EnrolmentFilter{}, list.Page{Number: number, Size: 10, After: after, Total: 200})
			return err
		})
		if cursor != 4 || cursorTotal != 200 || !reflect.DeepEqual(byCursor, byNumber) {
			t.Fatalf("page %d by cursor: %d statements (want 4), total %d, rows equal: %v", number, cursor, cursorTotal,
				reflect.DeepEqual(byCursor, byNumber))
		}
		after = &learngate.Key{ID: byCursor[9].ID}
	}

	// Users, newest first; created_at ties broken by id.
	after = nil
	for number := 1; number <= 4; number++ {
		byNumber, total, err := ListUsers(ctx, tdb, list.UserFilter{}, list.Page{Number: number, Size: 10})
		if err != nil || total != 40 || len(byNumber) != 10 {
			t.Fatalf("users page %d: %d of %d, %v", number, len(byNumber), total, err)
		}
		if after != nil {
			var byCursor []learngate.User
			var cursorTotal int64
			cursor := statements(func() (err error) {
				byCursor, cursorTotal, err = ListUsers(ctx, tdb, list.UserFilter{}, list.Page{Number: number, Size: 10, After: after, Total: 40})
				return err
			})
			if cursor != 5 || cursorTotal != 40 || !reflect.DeepEqual(byCursor, byNumber) {
				t.Fatalf("users page %d by cursor: %d statements (want 5), total %d", number, cursor, cursorTotal)
			}
		}
		last := byNumber[9]
		after = &learngate.Key{CreatedAt: last.CreatedAt, ID: last.ID}
	}
}

// BenchmarkEnrolmentCursorDepth reports the p50 latency (ms) of a page of
// 100 topic enrolments read by OFFSET (with its count, as a numbered page)
// and by cursor (keyset, no count) at pages 1, 100, 1000 and the last of
// 200,000 enrolments (2,000 users of 100 topics), ANALYZEd before measuring.
func BenchmarkEnrolmentCursorDepth(b *testing.B) {
	const users, topics, size = 2000, 100, 100
	ctx := context.Background()
	tdb, _ := benchTenant(b)
	start := time.Now()
	seedCursorEnrolments(b, tdb, users, topics)
	b.Logf("%d enrolments seeded in %v", users*topics, time.Since(start).Round(time.Millisecond))
	total := int64(users * topics)
	for _, number := range []int{2, 100, 1000, users * topics / size} {
		var key int64
		err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
			return tx.GetContext(ctx, &key, `SELECT id FROM topic_enrolments ORDER BY id OFFSET $1 LIMIT 1`, (number-1)*size-1)
		})
		if err != nil {
			b.Fatal(err)
		}
		for _, mode := range []string{"offset", "cursor"} {
			page := list.Page{Number: number, Size: size}
			if mode == "cursor" {
				page.After, page.Total = &learngate.Key{ID: key}, total
			}
			b.Run(fmt.Sprintf("page-%d/%s", number, mode), func(b *testing.B) {
				samples := make([]time.Duration, 0, b.N)
				for i := 0; i < b.N; i++ {
					t0 := time.Now()
					rows, n, err := ListTopicEnrolments(ctx, tdb, list.EnrolmentFilter{}, page)
					samples = append(samples, time.Since(t0))
					if err != nil || n != total || len(rows) != size || rows[0].ID != key+1 {
						b.Fatalf("page %d by %s: %d rows of %d, %v", number, mode, len(rows), n, err)
					}
				}
				slices.Sort(samples)
				b.ReportMetric(float64(samples[len(samples)/2].Microseconds())/1000, "p50-ms")
			})
		}
	}
}
