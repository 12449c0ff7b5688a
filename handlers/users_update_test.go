package handlers

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// dana is a user with a value in most fields, for the update tests.
const dana = `{"user_name":"dana","first_name":"Dana","last_name":"Dale","email":"dana@example.com",
	"manager_email":"boss@example.com","mentor_email":"m@example.com","lms_learner_id":"L9","lms_reference":"R9",
	"role_1":"Manager","role_2":"Trainer","groups":"sales;Berlin","goals":"Grow","X-City":"Rome","X-Skills":"Go",
	"X-Age":"3","team_leader_report_frequency":"every_day","default_landing_page":"Profile",
	"deactivate_scheduled_date":"2026-01-01","type":"Lead","language":"de","timezone":"Europe/Berlin","creator":true,
	"password":"Secret123"}`

// danaFields are dana's fields as the user object shows them.
func danaFields(changes map[string]any) map[string]any {
	return with(map[string]any{
		"user_name": "dana", "first_name": "Dana", "last_name": "Dale", "email": "dana@example.com",
		"manager_email": "boss@example.com", "mentor_email": "m@example.com", "lms_learner_id": "L9", "lms_reference": "R9",
		"role_1": "Manager", "role_2": "Trainer", "groups": "Berlin;sales", "goals": "Grow",
		"X-City": "Rome", "X-Skills": "Go", "X-Age": "3", "team_leader_report_frequency": "every_day",
		"default_landing_page": "Profile", "deactivate_scheduled_date": "2025-12-31T23:00:00+00:00",
		"type": "Lead", "language": "de", "timezone": "Europe/Berlin", "creator": true,
	}, changes)
}

func TestUpdateUser(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	e.seedCatalog(t)
	e.acme.call(t, http.MethodPost, "/papi/users", dana, http.StatusOK, wantUser(seededCustom, danaFields(nil)))
	e.acme.call(t, http.MethodPost, "/papi/users", jsonBody(t, carl), http.StatusOK, "")
	t1 := usersStart.Add(time.Hour)
	t2 := usersStart.Add(2 * time.Hour)
	e.clock.advance(time.Hour)

	steps := []struct {
		name string
		path string
		body string
		want map[string]any
	}{
		{"nothing given: updated_at stays", "/papi/users/dana", `{}`, danaFields(nil)},
		{
			"the same values in other spellings: updated_at stays", "/papi/users/DANA",
			`{"user_name":"DANA","first_name":" Dana ","type":"lead","groups":["berlin","SALES"],"role_1":"manager",
				"language":"DE","deactivate_scheduled_date":"01/01/2026","X-city":"Rome","X-Skills":["go"],"X-Age":3.0,
				"default_landing_page":"profile","creator":"yes","active":"true","org_admin":true,"admin_type":1}`,
			danaFields(nil),
		},
		{"one field", "/papi/users/dana", `{"first_name":"Dee"}`,
			danaFields(map[string]any{"first_name": "Dee", "updated_at": ts(t1)})},
		{
			"empty values clear optional fields and restore defaults", "/papi/users/Dana",
			`{"manager_email":"","mentor_email":"","lms_learner_id":"","lms_reference":null,"role_1":"","groups":"",
				"goals":[],"X-City":"","X-Skills":"","X-Age":null,"team_leader_report_frequency":"none",
				"default_landing_page":"","deactivate_scheduled_date":"","type":"","language":"","timezone":"","creator":false}`,
			danaFields(map[string]any{
				"first_name": "Dee", "updated_at": ts(t2), "manager_email": nil, "mentor_email": "", "lms_learner_id": "",
				"lms_reference": "", "role_1": nil, "groups": "", "goals": "", "X-City": nil, "X-Skills": nil, "X-Age": nil,
				"team_leader_report_frequency": nil, "default_landing_page": "Default", "deactivate_scheduled_date": nil,
				"type": "Staff", "language": "en", "timezone": "Pacific/Auckland", "creator": false,
			}),
		},
		{
			"replaces groups, goals and list values", "/papi/users/dana",
			`{"groups":["alpha"],"goals":"learn go","X-Skills":"sql;Docker","role_5":"Auditor","active":"no","email":"DANA@example.com"}`,
			danaFields(map[string]any{
				"first_name": "Dee", "updated_at": ts(t2.Add(time.Hour)), "manager_email": nil, "mentor_email": "",
				"lms_learner_id": "", "lms_reference": "", "role_1": nil, "role_5": "Auditor", "groups": "Alpha", "goals": "Learn Go",
				"X-City": nil, "X-Skills": "Docker;SQL", "X-Age": nil, "team_leader_report_frequency": nil,
				"default_landing_page": "Default", "deactivate_scheduled_date": nil, "type": "Staff", "language": "en",
				"timezone": "Pacific/Auckland", "creator": false, "active": false, "email": "DANA@example.com",
			}),
		},
	}
	for i, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			if i == 3 || i == 4 {
				e.clock.advance(time.Hour)
			}
			want := wantUser(seededCustom, step.want)
			e.acme.call(t, http.MethodPut, step.path, step.body, http.StatusOK, want)
			e.acme.call(t, http.MethodGet, "/papi/users/dana", "", http.StatusOK, want)
			e.assertIsolated(t, "dana")
		})
	}
}

func TestUpdateUserRefused(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	e.seedCatalog(t)
	e.acme.call(t, http.MethodPost, "/papi/users", dana, http.StatusOK, "")
	e.acme.call(t, http.MethodPost, "/papi/users", jsonBody(t, carl), http.StatusOK, "")
	e.clock.advance(time.Hour)
	before := wantUser(seededCustom, danaFields(nil))
	counts := e.userTableCounts(t)

	type refusal struct {
		name   string
		path   string
		body   string
		status int
		want   string
	}
	taken := map[string]any{"email": "CARL@example.com", "lms_learner_id": "L9"}
	rename := map[string]any{"user_name": "eve"}
	tests := []refusal{
		{"unknown user", "/papi/users/ghost", `{"first_name":"G"}`, 404, `"not found"`},
		{"malformed JSON", "/papi/users/dana", `{"first_name"`, 400, `"Bad request: malformed JSON"`},
		{"email of another user", "/papi/users/dana", jsonBody(t, taken), 422, want422(taken, "email 'CARL@example.com' is already taken")},
		{"user_name changed", "/papi/users/dana", jsonBody(t, rename), 422,
			want422(rename, "user_name cannot be changed ('eve' given for user 'dana')")},
	}
	for _, r := range userRefusals {
		want := r.want
		if r.status == http.StatusUnprocessableEntity {
			want = want422(r.fields, strings.Split(r.want, "|")...)
		}
		tests = append(tests, refusal{r.name, "/papi/users/dana", jsonBody(t, r.fields), r.status, want})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.acme.call(t, http.MethodPut, tt.path, tt.body, tt.status, tt.want)
			e.acme.call(t, http.MethodGet, "/papi/users/dana", "", http.StatusOK, before)
			e.assertUserCounts(t, counts)
		})
	}
	// Another tenant can neither change nor see dana.
	e.other.call(t, http.MethodPut, "/papi/users/dana", `{"first_name":"Mallory"}`, http.StatusNotFound, `"not found"`)
	e.assertIsolated(t, "dana")
	e.acme.call(t, http.MethodGet, "/papi/users/dana", "", http.StatusOK, before)
}

func TestUserTeamLeader(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	leader := func(name string, isLeader bool) string {
		return wantUser(nil, map[string]any{"user_name": name, "first_name": "F", "last_name": "L",
			"email": name + "@example.com", "team_leader": isLeader})
	}
	create := func(name, fields string) {
		t.Helper()
		e.acme.call(t, http.MethodPost, "/papi/users",
			`{"user_name":"`+name+`","first_name":"F","last_name":"L","email":"`+name+`@example.com"`+fields+`}`, http.StatusOK, "")
	}
	create("lead", "")
	e.acme.call(t, http.MethodGet, "/papi/users/lead", "", http.StatusOK, leader("lead", false))
	// A user naming themself as manager does not make them a team leader.
	create("self", `,"manager_email":"self@example.com"`)
	e.acme.call(t, http.MethodGet, "/papi/users/self", "", http.StatusOK,
		wantUser(nil, map[string]any{"user_name": "self", "first_name": "F", "last_name": "L",
			"email": "self@example.com", "manager_email": "self@example.com"}))
	create("member", `,"manager_4_email":"LEAD@Example.com"`)
	e.acme.call(t, http.MethodGet, "/papi/users/lead", "", http.StatusOK, leader("lead", true))
	// Another tenant's users do not count.
	e.other.call(t, http.MethodPost, "/papi/users",
		`{"user_name":"x","first_name":"F","last_name":"L","email":"x@example.com","manager_email":"self@example.com"}`, http.StatusOK, "")
	e.acme.call(t, http.MethodGet, "/papi/users/self", "", http.StatusOK,
		wantUser(nil, map[string]any{"user_name": "self", "first_name": "F", "last_name": "L",
			"email": "self@example.com", "manager_email": "self@example.com"}))
	e.acme.call(t, http.MethodPut, "/papi/users/member", `{"manager_4_email":""}`, http.StatusOK, "")
	e.acme.call(t, http.MethodGet, "/papi/users/lead", "", http.StatusOK, leader("lead", false))
	e.other.call(t, http.MethodGet, "/papi/users/lead", "", http.StatusNotFound, `"not found"`)
	e.other.call(t, http.MethodGet, "/papi/users?email=lead@example.com", "", http.StatusOK, catalogEmptyList)
}

func TestCatalogDeleteRemovesFromUsers(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	e.seedCatalog(t)
	e.acme.call(t, http.MethodPost, "/papi/users", dana, http.StatusOK, "")
	// Manager is role 1, sales group 1, Grow goal 1, City custom field 1.
	for _, path := range []string{"/papi/roles/1", "/papi/groups/1", "/papi/goals/1", "/papi/custom_fields/1"} {
		e.acme.call(t, http.MethodDelete, path, "", http.StatusNoContent, "")
	}
	fields := danaFields(map[string]any{"role_1": nil, "groups": "Berlin", "goals": ""})
	delete(fields, "X-City")
	e.acme.call(t, http.MethodGet, "/papi/users/dana", "", http.StatusOK, wantUser(seededCustom[1:], fields))
	e.assertIsolated(t, "dana")
}
