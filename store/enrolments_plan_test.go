//go:build slow

package store

import (
	"strings"
	"testing"

	"learngate/store/list"
)

// TestEnrolmentListsUseIndexes checks, with EXPLAIN on a tenant of 30,000
// topic enrolments, that GET /topic_assignments walks to a deep page on
// the partial index of current enrolments alone (an index-only scan; only
// the page's rows are joined and sorted), and reads a page and count
// filtered by user or topic through that filter's index, never by
// scanning the enrolments.
func TestEnrolmentListsUseIndexes(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 30,000 enrolments")
	}
	tdb, _ := benchTenant(t)
	seedEnrolments(t, tdb, 300, 100)
	userName, topicID := "u150", int64(40)
	pageOf := func(f list.EnrolmentFilter) (string, []any) {
		st := list.TopicEnrolments.PageStatement(topicEnrolmentSelect, f.Query(list.TopicEnrolments),
			list.Window{Size: 100, Skip: 20000})
		return st.SQL, st.Args
	}
	countOf := func(f list.EnrolmentFilter) (string, []any) {
		st := list.TopicEnrolments.CountStatement(f.Query(list.TopicEnrolments))
		return st.SQL, st.Args
	}
	tests := []struct {
		name   string
		query  func(list.EnrolmentFilter) (string, []any)
		filter list.EnrolmentFilter
		want   string
		sorts  bool
	}{
		{"deep page", pageOf, list.EnrolmentFilter{}, "Index Only Scan using topic_enrolments_listed", true},
		{"one user's page", pageOf, list.EnrolmentFilter{UserName: &userName}, "topic_enrolments_user", true},
		{"one user's count", countOf, list.EnrolmentFilter{UserName: &userName}, "topic_enrolments_user", true},
		{"one topic's page", pageOf, list.EnrolmentFilter{TargetID: &topicID}, "topic_enrolments_topic", true},
		{"one topic's count", countOf, list.EnrolmentFilter{TargetID: &topicID}, "topic_enrolments_topic", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, args := tt.query(tt.filter)
			plan := explain(t, tdb, q, args...)
			if !strings.Contains(plan, tt.want) {
				t.Errorf("plan does not use %s:\n%s", tt.want, plan)
			}
			// A page may sort its own rows; the whole table is never sorted or scanned.
			if strings.Contains(plan, "Seq Scan on topic_enrolments") || (!tt.sorts && strings.Contains(plan, "Sort")) {
				t.Errorf("plan scans or sorts topic_enrolments:\n%s", plan)
			}
		})
	}
}
