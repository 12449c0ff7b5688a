package records

import (
	"fmt"
	"reflect"
	"sort"
	"testing"
	"time"

	"learngate"
)

// sameOutcome reports whether two parses gave equal inputs (pointers
// followed) and equal errors.
func sameOutcome(a any, errA error, b any, errB error) bool {
	return reflect.DeepEqual(a, b) && fmt.Sprint(errA) == fmt.Sprint(errB)
}

// sortedKeys lists a set's names in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestUserBatchFieldsAreRead proves that every name IsUserBatchField
// accepts is read by the batch save parser: adding it to a body changes
// the outcome. The table must name exactly the listed fields.
func TestUserBatchFieldsAreRead(t *testing.T) {
	values := map[string]string{
		"user_name": "ann", "first_name": "Ann", "last_name": "Archer", "email": "ann@example.com", "type": "student",
		"manager_email": "m1@example.com", "manager_2_email": "m2@example.com", "manager_3_email": "m3@example.com",
		"manager_4_email": "m4@example.com", "manager_5_email": "m5@example.com", "mentor_email": "me@example.com",
		"language": "fr", "timezone": "Asia/Tokyo", "lms_learner_id": "L1", "lms_reference": "R1", "login": "external",
		"active": "no", "creator": "yes", "user_notifications_enabled": "no", "force_pwd_reset_next_login": "yes",
		"manager_email_report_1st_month": "yes", "manager_email_report_15th_month": "yes", "password": "Secret123",
		"deactivate_scheduled_date": "2099-01-01", "reactivate_scheduled_date": "2099-02-01",
		"team_leader_report_frequency": "every_day", "learner_report_frequency": "every_day",
		"assessor_report_frequency": "every_day", "default_landing_page": "Assess",
		"role_1": "A", "role_2": "B", "role_3": "C", "role_4": "D", "role_5": "E", "groups": "G", "goals": "H",
	}
	if got, want := sortedKeys(values), sortedKeys(userBatchFields); !reflect.DeepEqual(got, want) {
		t.Fatalf("table fields %q, listed fields %q", got, want)
	}
	base := map[string]any{"user_name": "bob", "first_name": "Bob", "last_name": "Brown", "email": "bob@example.com"}
	for field, v := range values {
		body := map[string]any{}
		for k, bv := range base {
			body[k] = bv
		}
		body[field] = v
		with := UserBatchRows([]any{body}, "UTC")[0]
		without := UserBatchRows([]any{base}, "UTC")[0]
		a, errA := with.Input(true)
		b, errB := without.Input(true)
		if field != "password" && sameOutcome(a, errA, b, errB) && with.Email == without.Email {
			t.Errorf("%s is listed but does not change the parsed row", field)
		}
		if field == "password" && (a.PasswordHash == nil || b.PasswordHash != nil) {
			t.Errorf("password is listed but not read")
		}
	}
	for name, want := range map[string]bool{
		"X-City": true, "X-": false, "x-City": false, "enrolment_code_3": true, "enrolment_code_1_skill_attained": true,
		"enrolment_code_1_due": false, "send_invitation": false, "org_admin": false, "categories": false, "": false,
	} {
		if got := IsUserBatchField(name); got != want {
			t.Errorf("IsUserBatchField(%q) = %v, want %v", name, got, want)
		}
	}
	row := UserBatchRows([]any{map[string]any{"user_name": "ann", "enrolment_code_2": "T-1 COMPLETE"}}, "UTC")[0]
	if len(row.Enrolments) != 1 || row.Enrolments[0].Code != "T-1" || row.Enrolments[0].Action != learngate.ActionComplete {
		t.Fatalf("enrolments = %+v", row.Enrolments)
	}
}

// TestKnowledgeFieldsAreRead is TestUserBatchFieldsAreRead for external
// knowledge
func TestKnowledgeFieldsAreRead(t *testing.T) {
	values := map[string]string{
		"user_name": "bob", "knowledge_type": "2", "type": "Certificate", "document_type": "Medical",
		"development_plan_stage": "Initial", "development_focus": "Transition", "title": "Other", "code": "C1",
		"provider": "P", "date_obtained": "2024-01-02", "date": "2024-01-03", "certificate_number": "N1",
		"country_obtained": "NZ", "state_obtained": "AUK", "region_obtained": "WGN", "expires": "2030-01-01",
		"qualification_level": "Diploma", "assessment_score": "9.5", "total_time": "30", "notes": "n",
		"klass": "K", "class": "K2", "skills_attained": "Go",
	}
	if got, want := sortedKeys(values), sortedKeys(knowledgeFields); !reflect.DeepEqual(got, want) {
		t.Fatalf("table fields %q, listed fields %q", got, want)
	}
	today := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	base := map[string]any{"user_name": "ann", "knowledge_type": "1", "title": "Forklift"}
	for field, v := range values {
		body := map[string]any{}
		for k, bv := range base {
			body[k] = bv
		}
		body[field] = v
		a := KnowledgeBatchRows([]any{body}, today)[0]
		b := KnowledgeBatchRows([]any{base}, today)[0]
		if sameOutcome(a.In, a.Err, b.In, b.Err) {
			t.Errorf("%s is listed but does not change the parsed record", field)
		}
	}
	for name, want := range map[string]bool{
		"category_1_name": true, "category_3_minutes": true, "category_9_points": true, "category_1_colour": false,
		"categories": false, "X-City": false, "": false,
	} {
		if got := IsKnowledgeField(name); got != want {
			t.Errorf("IsKnowledgeField(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestTenantToday(t *testing.T) {
	now := time.Date(2025, 6, 1, 20, 30, 0, 0, time.UTC)
	for tz, want := range map[string]string{"Pacific/Auckland": "2025-06-02", "UTC": "2025-06-01", "Mars/Base": "2025-06-01"} {
		if got := TenantToday(tz, now); got.Format(time.RFC3339) != want+"T00:00:00Z" {
			t.Errorf("TenantToday(%s) = %v, want %s", tz, got, want)
		}
	}
}
