package handlers

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"
)

// benchEnrolTenant is a bench tenant (see benchUsersTenant) seeded,
// set-based, with users × topics topic enrolments: topics "Topic n" with
// code TP-n, skill Go and category CPD, every third enrolment conquered.
func benchEnrolTenant(b *testing.B, users, topics int) catalogTenant {
	b.Helper()
	ct := benchUsersTenant(b)
	tn, err := ct.h.registry.Show(context.Background(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	tdb, err := ct.h.db.Tenant(tn.Schema)
	if err != nil {
		b.Fatal(err)
	}
	err = tdb.Tx(context.Background(), func(tx *sqlx.Tx) error {
		_, err := tx.Exec(fmt.Sprintf(`
			INSERT INTO skills (name) VALUES ('Go'), ('SQL');
			INSERT INTO categories (name) VALUES ('CPD');
			INSERT INTO users (user_name, first_name, last_name, email, timezone)
				SELECT 'user' || g, 'First', 'Last', 'user' || g || '@example.com', 'UTC' FROM generate_series(1, %d) g;
			INSERT INTO topics (title, minutes, cpd_minutes, certify_days)
				SELECT 'Topic ' || g, 30, 10, 365 FROM generate_series(1, %d) g;
			INSERT INTO enrolment_codes (code, topic_id) SELECT 'TP-' || id, id FROM topics;
			INSERT INTO topic_skills (topic_id, skill_id) SELECT id, 1 FROM topics;
			INSERT INTO topic_categories (topic_id, category_id, minutes, points) SELECT id, 1, 60, 1.5 FROM topics;
			INSERT INTO topic_enrolments (user_id, topic_id, status, completed_topic_at, enrolled_by)
				SELECT u.id, t.id, CASE WHEN (u.id + t.id) %% 3 = 0 THEN 'Conquered' ELSE 'Unexplored' END,
					CASE WHEN (u.id + t.id) %% 3 = 0 THEN now() END, 'api'
				FROM users u CROSS JOIN topics t ORDER BY u.id, t.id;
			ANALYZE`, users, topics))
		return err
	})
	if err != nil {
		b.Fatalf("seed enrolments: %v", err)
	}
	return ct
}

// BenchmarkListTopicAssignmentsHTTP reads GET /papi/topic_assignments?per_page=100
// (page 1 and page 500) on a tenant of 100,000 topic enrolments through the
// whole router.
func BenchmarkListTopicAssignmentsHTTP(b *testing.B) {
	ct := benchEnrolTenant(b, 1000, 100)
	for _, page := range []int{1, 500} {
		b.Run(fmt.Sprintf("page-%d", page), func(b *testing.B) {
			timeRequests(b, ct, func(int) (string, string, string) {
				return http.MethodGet, fmt.Sprintf("/papi/topic_assignments?per_page=100&page=%d", page), ""
			})
		})
	}
}

// BenchmarkBatchSaveUsersWithCodesHTTP posts batches of 100 new users, each
// with three enrolment codes (enrol, COMPLETE with a date and a skill, enrol
// with a due date), through the whole router.
func BenchmarkBatchSaveUsersWithCodesHTTP(b *testing.B) {
	ct := benchEnrolTenant(b, 0, 10)
	timeRequests(b, ct, func(i int) (string, string, string) {
		people := make([]string, 100)
		for j := range people {
			people[j] = fmt.Sprintf(`{"user_name":"u%d-%d","first_name":"F","last_name":"L","email":"u%d-%d@example.com",`+
				`"enrolment_code_1":"TP-1","enrolment_code_2":"TP-2 COMPLETE","enrolment_code_2_conquered_date":"20/05/2025",`+
				`"enrolment_code_2_skill_attained":"SQL","enrolment_code_3":"TP-3","enrolment_code_3_due_date":"2026-05-20"}`,
				i, j, i, j)
		}
		return http.MethodPost, "/papi/users/batch_save", `{"people":[` + strings.Join(people, ",") + `]}`
	})
}
