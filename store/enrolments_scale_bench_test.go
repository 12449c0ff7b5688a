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

// BenchmarkTopicAssignmentsScale reports the p50 latency (ms) of GET
// /topic_assignments' store call at 100 a page for page 1, page 500, the
// last page and a page past the end, over LEARNGATE_BENCH_ENROLMENTS
// current enrolments (default 100,000; users of 100 topics each), before
// the rank job has run: the fallback of count + OFFSET (BenchmarkListsScale
// measures the lists with their anchors).
func BenchmarkTopicAssignmentsScale(b *testing.B) {
	size := 100000
	if s := os.Getenv("LEARNGATE_BENCH_ENROLMENTS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 100 {
			b.Fatalf("LEARNGATE_BENCH_ENROLMENTS: bad size %q", s)
		}
		size = n
	}
	ctx := context.Background()
	tdb, _ := benchTenant(b)
	start := time.Now()
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `
			INSERT INTO topics (title) SELECT 'Topic ' || g FROM generate_series(1, 100) g;
			INSERT INTO users (user_name, first_name, last_name, email, timezone, created_at, updated_at)
			SELECT 'user' || g, 'F', 'L', 'user' || g || '@example.com', 'UTC', now(), now()
			FROM generate_series(1, `+strconv.Itoa(size/100)+`) g;
			INSERT INTO topic_enrolments (user_id, topic_id, enrolled_by)
			SELECT u.id, t.id, 'api' FROM users u CROSS JOIN topics t ORDER BY u.id, t.id`)
		return err
	})
	if err != nil {
		b.Fatalf("seed: %v", err)
	}
	if _, err := tdb.db.pool.ExecContext(ctx, `VACUUM ANALYZE `+tdb.schema+`.topic_enrolments`); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d enrolments seeded in %v", size, time.Since(start).Round(time.Millisecond))
	last := (size + 99) / 100
	for _, pc := range []struct {
		name   string
		number int
	}{{"page-1", 1}, {"page-500", 500}, {"last-page", last}, {"total", last + 1}} {
		b.Run(fmt.Sprintf("enrolments-%d/%s", size, pc.name), func(b *testing.B) {
			samples := make([]time.Duration, 0, b.N)
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				rows, total, err := ListTopicEnrolments(ctx, tdb, list.EnrolmentFilter{}, list.Page{Number: pc.number, Size: 100})
				samples = append(samples, time.Since(t0))
				if err != nil || total != int64(size) || (pc.number == 1 && len(rows) != 100) {
					b.Fatalf("page %d: %d rows of %d, %v", pc.number, len(rows), total, err)
				}
			}
			slices.Sort(samples)
			b.ReportMetric(float64(samples[len(samples)/2].Microseconds())/1000, "p50-ms")
		})
	}
}
