package store

import (
	"context"
	"fmt"
	"learngate/store/list"
	"slices"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate"
)

// seedEnrolments gives tdb, set-based, users × topics current topic
// enrolments: users u1.. and topics "Topic n" (code TP-n, 30 minutes, skill
// 1, category 1), every third enrolment conquered with skill 2 given.
func seedEnrolments(tb testing.TB, tdb *TenantDB, users, topics int) {
	tb.Helper()
	err := tdb.Tx(context.Background(), func(tx *sqlx.Tx) error {
		_, err := tx.Exec(fmt.Sprintf(`
			INSERT INTO skills (name) VALUES ('Go'), ('SQL');
			INSERT INTO categories (name) VALUES ('CPD');
			INSERT INTO users (user_name, first_name, last_name, email, timezone)
				SELECT 'u' || g, 'First', 'Last', 'u' || g || '@example.com', 'UTC' FROM generate_series(1, %d) g;
			INSERT INTO topics (title, minutes, cpd_minutes, certify_days)
				SELECT 'Topic ' || g, 30, 10, 365 FROM generate_series(1, %d) g;
			INSERT INTO enrolment_codes (code, topic_id) SELECT 'TP-' || id, id FROM topics;
			INSERT INTO topic_skills (topic_id, skill_id) SELECT id, 1 FROM topics;
			INSERT INTO topic_categories (topic_id, category_id, minutes, points) SELECT id, 1, 60, 1.5 FROM topics;
			INSERT INTO topic_enrolments (user_id, topic_id, status, completed_topic_at, certified_date, enrolled_by)
				SELECT u.id, t.id,
					CASE WHEN (u.id + t.id) %% 3 = 0 THEN 'Conquered' ELSE 'Unexplored' END,
					CASE WHEN (u.id + t.id) %% 3 = 0 THEN now() END,
					CASE WHEN (u.id + t.id) %% 3 = 0 THEN now() + interval '365 days' END, 'api'
				FROM users u CROSS JOIN topics t ORDER BY u.id, t.id;
			INSERT INTO topic_enrolment_skills (enrolment_id, skill_id)
				SELECT id, 2 FROM topic_enrolments WHERE status = 'Conquered';
			ANALYZE`, users, topics))
		return err
	})
	if err != nil {
		tb.Fatalf("seed enrolments: %v", err)
	}
}

func TestTopicEnrolmentPageQueries(t *testing.T) {
	t.Parallel()
	tdb, queries := benchTenant(t)
	ctx := context.Background()
	seedEnrolments(t, tdb, 30, 10)
	// A page of 10 and a page of 100 cost the same statements: the scope,
	// the rank anchors, the count, the page, the skills and the categories.
	for _, size := range []int{10, 100} {
		start := queries()
		got, total, err := ListTopicEnrolments(ctx, tdb, list.EnrolmentFilter{}, list.Page{Number: 1, Size: size})
		if err != nil || len(got) != min(size, 300) || total != 300 {
			t.Fatalf("page of %d: %d enrolments of %d, %v", size, len(got), total, err)
		}
		if n := queries() - start; n != 6 {
			t.Errorf("page of %d: %d statements, want 6", size, n)
		}
		if got[0].Categories[0].Name != "CPD" || len(got[1].SkillsAttained) != 2 {
			t.Errorf("enrolment 1 categories %v, enrolment 2 skills %v", got[0].Categories, got[1].SkillsAttained)
		}
	}
	// With anchors, a deep page costs the same; a page filtered to one
	// topic or user runs no anchor look-up.
	if _, err := MaintainListRanks(ctx, tdb); err != nil {
		t.Fatal(err)
	}
	topic := int64(3)
	for _, c := range []struct {
		name string
		f    list.EnrolmentFilter
		page int
		want int64
	}{{"deep page", list.EnrolmentFilter{}, 28, 6}, {"one topic", list.EnrolmentFilter{TargetID: &topic}, 2, 5}} {
		start := queries()
		got, total, err := ListTopicEnrolments(ctx, tdb, c.f, list.Page{Number: c.page, Size: 10})
		if err != nil || len(got) != 10 {
			t.Fatalf("%s: %d enrolments of %d, %v", c.name, len(got), total, err)
		}
		if n := queries() - start; n != c.want {
			t.Errorf("%s: %d statements, want %d", c.name, n, c.want)
		}
	}
	start := queries()
	got, total, err := ListPathwayEnrolments(ctx, tdb, list.EnrolmentFilter{}, list.Page{Number: 1, Size: 100})
	if err != nil || len(got) != 0 || total != 0 {
		t.Fatalf("pathway enrolments: %d of %d, %v", len(got), total, err)
	}
	if n := queries() - start; n != 3 {
		t.Errorf("empty pathway page: %d statements, want 3 (scope, anchors, count)", n)
	}
}

// BenchmarkListTopicEnrolments100 reads pages of 100 of a tenant's 100,000
// topic enrolments (1,000 users × 100 topics) and reports the statements
// one page costs (the scope's set_config included).
func BenchmarkListTopicEnrolments100(b *testing.B) {
	tdb, queries := benchTenant(b)
	ctx := context.Background()
	seedEnrolments(b, tdb, 1000, 100)
	for _, pageNumber := range []int{1, 500} {
		b.Run(fmt.Sprintf("page-%d", pageNumber), func(b *testing.B) {
			start := queries()
			for i := 0; i < b.N; i++ {
				got, total, err := ListTopicEnrolments(ctx, tdb, list.EnrolmentFilter{}, list.Page{Number: pageNumber, Size: 100})
				if err != nil || len(got) != 100 || total != 100000 {
					b.Fatalf("list: %d enrolments of %d, %v", len(got), total, err)
				}
			}
			b.ReportMetric(float64(queries()-start)/float64(b.N), "queries/op")
		})
	}
}

// threeCodeRows are n new users prefix0.. each with three enrolment codes
// of topics outside any pathway: enrol, COMPLETE with a date and a skill,
// and enrol with a due date.
func threeCodeRows(prefix string, n int) []learngate.BatchRow {
	day := time.Date(2025, 5, 20, 0, 0, 0, 0, time.UTC)
	rows := make([]learngate.BatchRow, n)
	for j := range rows {
		name := fmt.Sprintf("%s%d", prefix, j)
		in := learngate.UserInput{
			UserName: strp(name), FirstName: strp("First"), LastName: strp("Last"), Email: strp(name + "@example.com"),
			Timezone: strp("UTC"),
		}
		rows[j] = learngate.BatchRow{UserName: name, New: learngate.ParsedUser{In: in}, Update: learngate.ParsedUser{In: in},
			Enrolments: []learngate.EnrolmentRequest{
				{N: 1, Raw: "TP-1", Code: "TP-1"},
				{N: 2, Raw: "TP-2 COMPLETE", Code: "TP-2", Action: learngate.ActionComplete,
					ConqueredDate: &learngate.EnrolmentDate{Day: day, Raw: "2025-05-20"}, Skills: []string{"SQL"}},
				{N: 3, Raw: "TP-3", Code: "TP-3", DueDate: &learngate.EnrolmentDate{Day: day.AddDate(1, 0, 0), Raw: "2026-05-20"}},
			}}
	}
	return rows
}

// BenchmarkBatchSaveUsers100With3Codes saves, in turns, a batch of 100 new
// users each with three enrolment codes and the same batch without codes,
// the floor (docs/performance.md: within 1.5 times its time): codes of
// topics outside any pathway (threeCodeRows), and a topic outside, a topic
// of a pathway and that pathway as the load test sends
// (threeMixedCodeRows). Taking turns keeps the two under the same load on
// a shared machine. It reports both p50s, their ratio and the statements of
// the batch with codes.
func BenchmarkBatchSaveUsers100With3Codes(b *testing.B) {
	tdb, queries := benchTenant(b)
	ctx := context.Background()
	// 1,000 users with 10 enrolments each, analysed: with autovacuum off
	// (as here), tables analysed empty keep plans made for empty tables,
	// such as a foreign-key check scanning all users.
	seedEnrolments(b, tdb, 1000, 10)
	if err := tdb.Tx(ctx, func(tx *sqlx.Tx) error { _, err := tx.ExecContext(ctx, mixedCodesPathways); return err }); err != nil {
		b.Fatal(err)
	}
	batches := 0 // the benchmark runs more than once: every batch has users of its own
	b.Run("topics", func(b *testing.B) { benchCodes(b, tdb, queries, threeCodeRows, &batches) })
	b.Run("pathways", func(b *testing.B) { benchCodes(b, tdb, queries, threeMixedCodeRows, &batches) })
}

// benchCodes is BenchmarkBatchSaveUsers100With3Codes with the codes of
// codeRows.
func benchCodes(b *testing.B, tdb *TenantDB, queries func() int64, codeRows func(string, int) []learngate.BatchRow, batches *int) {
	ctx := context.Background()
	now := time.Now()
	save := func(codes bool) (time.Duration, int64) {
		*batches++
		rows := codeRows(fmt.Sprintf("b%d-", *batches), 100)
		enrolled := 300
		if !codes {
			enrolled = 0
			for j := range rows {
				rows[j].Enrolments = nil
			}
		}
		start := queries()
		t0 := time.Now()
		res, err := BatchSaveUsers(ctx, tdb, rows, InviteNone, now)
		took := time.Since(t0)
		if err != nil || res.Created != 100 || res.Enrolled != enrolled || res.Errors != 0 {
			b.Fatalf("batch: %+v, %v", res, err)
		}
		return took, queries() - start
	}
	var plain, coded []time.Duration
	var statements int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		took, _ := save(false)
		plain = append(plain, took)
		took, statements = save(true)
		coded = append(coded, took)
	}
	slices.Sort(plain)
	slices.Sort(coded)
	p50, c50 := plain[len(plain)/2], coded[len(coded)/2]
	b.ReportMetric(float64(p50.Microseconds())/1000, "no-codes-p50-ms")
	b.ReportMetric(float64(c50.Microseconds())/1000, "3-codes-p50-ms")
	b.ReportMetric(float64(c50)/float64(p50), "ratio")
	b.ReportMetric(float64(statements), "3-codes-queries")
}
