package handlers

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

// cpr is a Certificate of ann with a value in most fields, for the update tests.
const cpr = `{"user_name":"ann","type":"Certificate","title":"CPR","code":"C-7","provider":"Red Cross",
	"date_obtained":"2024-03-31","certificate_number":"RC-1","country_obtained":"NZ","state_obtained":"AUK",
	"expires":"2026-03-31","qualification_level":"Level 4","assessment_score":87.5,"total_time":90,"notes":"Good",
	"klass":"Health","skills_attained":"Go;SQL","category_1_name":"Safety","category_1_points":12.5,
	"category_1_minutes":30,"category_2_name":"Compliance"}`

// cprFields are cpr's fields as the record shows them.
func cprFields() map[string]any {
	return map[string]any{
		"knowledge_type": 2, "title": "CPR", "code": "C-7", "provider": "Red Cross", "date_obtained": "2024-03-31",
		"certificate_number": "RC-1", "country_obtained": "NZ", "state_obtained": "AUK", "expires": "2026-03-31",
		"qualification_level": "Level 4", "assessment_score": 87.5, "total_time": 90, "notes": "Good", "klass": "Health",
		"skills_attained": []any{skill(skillGo, "Go"), skill(skillSQL, "SQL")},
		"categories":      raws(cat("Safety", 30, "12.5"), cat("Compliance", 0, "0")),
	}
}

func TestUpdateExternalKnowledge(t *testing.T) {
	t.Parallel()
	e := newKnowledgeEnv(t)
	state := cprFields()
	e.acme.call(t, http.MethodPost, "/papi/external_knowledges", cpr, http.StatusCreated, wantKnowledge(1, state))

	steps := []struct {
		name    string
		body    string
		changes map[string]any // nil: nothing changes, updated_at stays
	}{
		{"nothing given", `{}`, nil},
		{
			"the same values in other spellings",
			`{"user_name":" ANN ","type":"certificate","knowledge_type":"2","title":" CPR ","date":"31/03/2024","expires":"31/03/26",
				"assessment_score":"87.50","total_time":"90","skills_attained":["sql","go","Cobol"],"class":"Health",
				"categories":[{"name":"safety","points":"12.5","minutes":30},{"name":"COMPLIANCE","points":0}]}`,
			nil,
		},
		{"one field", `{"provider":"St John"}`, map[string]any{"provider": "St John"}},
		{
			"empty values clear optional fields and reset numbers",
			`{"code":"","expires":"","qualification_level":null,"provider":" ","notes":"","region_obtained":"",
				"assessment_score":"","total_time":null}`,
			map[string]any{"code": nil, "expires": nil, "qualification_level": nil, "provider": "", "notes": "",
				"state_obtained": "", "assessment_score": 0, "total_time": 0},
		},
		{
			"skills replaced; unknown ones ignored; categories kept", `{"skills_attained":"Docker;Unknown"}`,
			map[string]any{"skills_attained": []any{skill(skillDocker, "Docker")}},
		},
		{"empty skills remove them", `{"skills_attained":""}`, map[string]any{"skills_attained": []any{}}},
		{
			"categories replaced by the slots sent", `{"category_2_name":"Leadership","category_2_points":"2.499"}`,
			map[string]any{"categories": raws(cat("Leadership", 0, "2.5"))},
		},
		{"an empty slot removes the categories", `{"category_1_name":""}`, map[string]any{"categories": raws()}},
		{
			"to a Development Plan: title set, stage and focus kept", `{"knowledge_type":6,"development_plan_stage":"initial",
				"development_focus":"at level"}`,
			map[string]any{"knowledge_type": 6, "title": "Development Plan", "code": "Initial", "development_focus": "At Level"},
		},
		{"a Development Plan's title cannot change", `{"title":"Mine"}`, nil},
		{"a stage through code", `{"code":"END REVIEW"}`, map[string]any{"code": "End Review"}},
		{
			"back to a Training: the focus no longer fits", `{"type":"training","title":"Mentoring"}`,
			map[string]any{"knowledge_type": 1, "title": "Mentoring", "development_focus": nil},
		},
		{
			"to a Document with its document type", `{"type":"Document","document_type":"Policy","date_obtained":"01/01/25"}`,
			map[string]any{"knowledge_type": 5, "code": "Policy", "date_obtained": "2025-01-01"},
		},
	}
	for i, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			e.clock.advance(time.Minute)
			if step.changes != nil {
				state = with(state, step.changes)
				for k, v := range step.changes {
					if v == nil {
						state[k] = json.RawMessage("null")
					}
				}
				state["updated_at"] = ts(usersStart.Add(time.Duration(i+1) * time.Minute))
			}
			want := wantKnowledge(1, state)
			e.acme.call(t, http.MethodPut, "/papi/external_knowledges/1", step.body, http.StatusOK, want)
			e.acme.call(t, http.MethodGet, "/papi/external_knowledges/1", "", http.StatusOK, want)
		})
	}
	e.assertKnowledgeCounts(t, [3]int{1, 0, 0})
	e.assertKnowledgeIsolated(t, 1)
}

func TestUpdateExternalKnowledgeRefused(t *testing.T) {
	t.Parallel()
	e := newKnowledgeEnv(t)
	want := wantKnowledge(1, cprFields())
	e.acme.call(t, http.MethodPost, "/papi/external_knowledges", cpr, http.StatusCreated, want)
	e.clock.advance(time.Hour)
	tests := []struct {
		name   string
		path   string
		body   string
		status int
		want   string
	}{
		{"unknown id", "/papi/external_knowledges/2", `{"title":"X"}`, 404, `"not found"`},
		{"id not a number", "/papi/external_knowledges/one", `{"title":"X"}`, 404, `"not found"`},
		{"id zero", "/papi/external_knowledges/0", `{"title":"X"}`, 404, `"not found"`},
		{"another user", "/papi/external_knowledges/1", `{"user_name":"bob","title":"X"}`, 400,
			errorBody("Bad request: user_name cannot be changed ('bob' given for a record of 'ann')")},
		{"no such user", "/papi/external_knowledges/1", `{"user_name":"Zed"}`, 400,
			errorBody("Bad request: user_name cannot be changed ('Zed' given for a record of 'ann')")},
		{"user_name not a string", "/papi/external_knowledges/1", `{"user_name":1}`, 400, errorBody(illegal("1", "user_name"))},
		{"knowledge_type out of range", "/papi/external_knowledges/1", `{"knowledge_type":9}`, 400, errorBody(illegal("9", "knowledge_type"))},
		{"type emptied", "/papi/external_knowledges/1", `{"type":""}`, 400, errorBody(illegal("", "type"))},
		{"document_type on a Certificate", "/papi/external_knowledges/1", `{"document_type":"Policy"}`, 400,
			errorBody("Bad request: 'document_type' is only allowed for type Document")},
		{"focus on a Certificate", "/papi/external_knowledges/1", `{"development_focus":""}`, 400,
			errorBody("Bad request: 'development_focus' is only allowed for type Development Plan")},
		{"to a Document with a stage", "/papi/external_knowledges/1", `{"knowledge_type":5,"development_plan_stage":"Initial"}`, 400,
			errorBody("Bad request: 'development_plan_stage' is only allowed for type Development Plan")},
		{"to a plan with a code that is no stage", "/papi/external_knowledges/1", `{"knowledge_type":6,"code":"C-8"}`, 400,
			errorBody(illegal("C-8", "code"))},
		{"title emptied", "/papi/external_knowledges/1", `{"title":""}`, 400, errorBody(illegal("", "title"))},
		{"date_obtained emptied", "/papi/external_knowledges/1", `{"date":null}`, 400, errorBody(illegal("", "date"))},
		{"bad expires", "/papi/external_knowledges/1", `{"expires":"2024-13-01"}`, 400, errorBody(illegal("2024-13-01", "expires"))},
		{"unknown category, valid fields before it", "/papi/external_knowledges/1",
			`{"provider":"Other","skills_attained":"Docker","category_1_name":"Nope"}`, 400, errorBody(illegal("Nope", "category_1_name"))},
		{"bad total_time after a good title", "/papi/external_knowledges/1", `{"title":"New","total_time":"x"}`, 400,
			errorBody(illegal("x", "total_time"))},
		{"body not an object", "/papi/external_knowledges/1", `"title"`, 400, errorBody("Bad request: request body must be a JSON object")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.acme.call(t, http.MethodPut, tt.path, tt.body, tt.status, tt.want)
			e.acme.call(t, http.MethodGet, "/papi/external_knowledges/1", "", http.StatusOK, want)
		})
	}
	e.assertKnowledgeCounts(t, [3]int{1, 2, 2})
}
