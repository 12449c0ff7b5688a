package handlers

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestCreateExternalKnowledge(t *testing.T) {
	t.Parallel()
	e := newKnowledgeEnv(t)
	tests := []struct {
		name string
		body string
		want map[string]any
	}{
		{
			name: "required fields only: date_obtained is acme's today",
			body: `{"user_name":"ann","knowledge_type":1,"title":"First aid"}`,
		},
		{
			name: "every field",
			body: `{"user_name":" ANN ","knowledge_type":"2","title":" CPR ","code":"C-7","provider":"Red Cross",
				"date_obtained":"2024-03-31","certificate_number":"RC-1","country_obtained":"NZ","state_obtained":"AUK",
				"expires":"31/03/2026","qualification_level":"Level 4","assessment_score":"87.5","total_time":90,
				"notes":"Passed first time","klass":"Health","skills_attained":"go; sql ;Cobol;GO",
				"category_1_name":"safety","category_1_points":"12.345","category_1_minutes":"30",
				"category_2_name":"Compliance","category_2_points":3,"category_3_name":"","org_admin":true,"id":99}`,
			want: map[string]any{
				"knowledge_type": 2, "title": "CPR", "code": "C-7", "provider": "Red Cross", "date_obtained": "2024-03-31",
				"certificate_number": "RC-1", "country_obtained": "NZ", "state_obtained": "AUK", "expires": "2026-03-31",
				"qualification_level": "Level 4", "assessment_score": 87.5, "total_time": 90, "notes": "Passed first time",
				"klass": "Health", "skills_attained": []any{skill(skillGo, "Go"), skill(skillSQL, "SQL")},
				"categories": raws(cat("Safety", 30, "12.35"), cat("Compliance", 0, "3")),
			},
		},
		{
			name: "type as text in any case; aliases date, class and region_obtained",
			body: `{"user_name":"bob","type":"qualification","title":"BSc","date":"01/02/24","class":"Degree",
				"region_obtained":"WGN","assessment_score":-1.25,"total_time":"2.0","skills_attained":["Docker"]}`,
			want: map[string]any{"knowledge_type": 3, "title": "BSc", "date_obtained": "2024-02-01", "klass": "Degree",
				"state_obtained": "WGN", "assessment_score": -1.25, "total_time": 2, "user_name": "bob",
				"skills_attained": []any{skill(skillDocker, "Docker")}},
		},
		{
			name: "knowledge_type and type may both be sent when they agree",
			body: `{"user_name":"ann","knowledge_type":4,"type":"LICENSE","title":"Forklift","date_obtained":"2023-12-01"}`,
			want: map[string]any{"knowledge_type": 4, "title": "Forklift", "date_obtained": "2023-12-01"},
		},
		{
			name: "a Document keeps its document_type in code",
			body: `{"user_name":"ann","type":"Document","document_type":"Medical","title":"Vaccination record"}`,
			want: map[string]any{"knowledge_type": 5, "title": "Vaccination record", "code": "Medical"},
		},
		{
			name: "document_type wins over code",
			body: `{"user_name":"ann","knowledge_type":5,"code":"X","document_type":"Travel","title":"Visa"}`,
			want: map[string]any{"knowledge_type": 5, "title": "Visa", "code": "Travel"},
		},
		{
			name: "a Development Plan: title set, stage in code, focus, provider and dates kept",
			body: `{"user_name":"ann","type":"development plan","title":"Ignored","development_plan_stage":"mid review",
				"development_focus":"PROGRESSION","provider":"HR","date_obtained":"2025-01-15","expires":"2025-12-31"}`,
			want: map[string]any{"knowledge_type": 6, "title": "Development Plan", "code": "Mid Review",
				"development_focus": "Progression", "provider": "HR", "date_obtained": "2025-01-15", "expires": "2025-12-31"},
		},
		{
			name: "a Development Plan's code must be a stage, in any case",
			body: `{"user_name":"ann","knowledge_type":6,"code":"end review"}`,
			want: map[string]any{"knowledge_type": 6, "title": "Development Plan", "code": "End Review"},
		},
		{
			name: "empty optional values store nothing; null numbers are 0",
			body: `{"user_name":"ann","knowledge_type":1,"title":"First aid","code":"","expires":"","qualification_level":null,
				"provider":"  ","assessment_score":"","total_time":null,"skills_attained":"","category_1_name":""}`,
		},
		{
			name: "extreme numbers",
			body: `{"user_name":"ann","knowledge_type":1,"title":"First aid","assessment_score":1e308,"total_time":2147483647,
				"category_1_name":"Safety","category_1_points":"9999999999.994","category_1_minutes":2147483647}`,
			want: map[string]any{"assessment_score": 1e308, "total_time": 2147483647,
				"categories": raws(cat("Safety", 2147483647, "9999999999.99"))},
		},
		{
			name: "a tiny score",
			body: `{"user_name":"ann","knowledge_type":1,"title":"First aid","assessment_score":"-5e-324"}`,
			want: map[string]any{"assessment_score": -5e-324},
		},
		{
			name: "categories as an array of objects",
			body: `{"user_name":"ann","knowledge_type":1,"title":"First aid",
				"categories":[{"name":"LEADERSHIP","points":1.005,"minutes":15},{"name":"Safety"}]}`,
			want: map[string]any{"categories": raws(cat("Leadership", 15, "1.01"), cat("Safety", 0, "0"))},
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := i + 1
			want := wantKnowledge(id, tt.want)
			e.acme.call(t, http.MethodPost, "/papi/external_knowledges", tt.body, http.StatusCreated, want)
			e.acme.call(t, http.MethodGet, fmt.Sprintf("/papi/external_knowledges/%d", id), "", http.StatusOK, want)
			e.assertKnowledgeIsolated(t, id)
		})
	}
	e.assertKnowledgeCounts(t, [3]int{len(tests), 3, 5})
}

func TestCreateExternalKnowledgeDefaultDate(t *testing.T) {
	t.Parallel()
	e := newKnowledgeEnv(t)
	// 22:30 UTC on 1 June is already 2 June in Auckland (acme); other is on UTC.
	e.clock.advance(13 * time.Hour)
	e.acme.call(t, http.MethodPost, "/papi/external_knowledges", `{"user_name":"ann","knowledge_type":1,"title":"First aid"}`,
		http.StatusCreated, "")
	w := e.h.papi(http.MethodGet, e.acme.host, "/papi/external_knowledges/1", e.acme.key, "")
	var got struct {
		DateObtained string `json:"date_obtained"`
	}
	decode(t, w, &got)
	if got.DateObtained != "2025-06-02" {
		t.Fatalf("date_obtained = %q, want acme's today 2025-06-02", got.DateObtained)
	}
	e.other.call(t, http.MethodPost, "/papi/external_knowledges", `{"user_name":"ann","knowledge_type":1,"title":"First aid"}`,
		http.StatusCreated, "")
	w = e.h.papi(http.MethodGet, e.other.host, "/papi/external_knowledges/1", e.other.key, "")
	decode(t, w, &got)
	if got.DateObtained != "2025-06-01" {
		t.Fatalf("date_obtained = %q, want other's (UTC) today 2025-06-01", got.DateObtained)
	}
}

func TestCreateExternalKnowledgeRefused(t *testing.T) {
	t.Parallel()
	e := newKnowledgeEnv(t)
	const base = `"user_name":"ann","knowledge_type":1,"title":"First aid"`
	tests := []struct {
		name   string
		body   string
		status int
		want   string
	}{
		{"unknown user", `{"user_name":"zed","knowledge_type":1,"title":"T"}`, 404, `"not found"`},
		{"missing user_name", `{"knowledge_type":1,"title":"T"}`, 400, errorBody("Bad request: Missing parameter 'user_name'")},
		{"blank user_name", `{"user_name":" ","knowledge_type":1,"title":"T"}`, 400, errorBody("Bad request: Missing parameter 'user_name'")},
		{"user_name not a string", `{"user_name":7,"knowledge_type":1,"title":"T"}`, 400, errorBody(illegal("7", "user_name"))},
		{"no type", `{"user_name":"ann","title":"T"}`, 400, errorBody("Bad request: Missing parameter 'knowledge_type' or 'type'")},
		{"knowledge_type 0", `{"user_name":"ann","knowledge_type":0,"title":"T"}`, 400, errorBody(illegal("0", "knowledge_type"))},
		{"knowledge_type 7", `{"user_name":"ann","knowledge_type":"7","title":"T"}`, 400, errorBody(illegal("7", "knowledge_type"))},
		{"knowledge_type 1.5", `{"user_name":"ann","knowledge_type":1.5,"title":"T"}`, 400, errorBody(illegal("1.5", "knowledge_type"))},
		{"knowledge_type a name", `{"user_name":"ann","knowledge_type":"Training","title":"T"}`, 400, errorBody(illegal("Training", "knowledge_type"))},
		{"knowledge_type null", `{"user_name":"ann","knowledge_type":null,"title":"T"}`, 400, errorBody(illegal("", "knowledge_type"))},
		{"unknown type", `{"user_name":"ann","type":"Course","title":"T"}`, 400, errorBody(illegal("Course", "type"))},
		{"type a number", `{"user_name":"ann","type":1,"title":"T"}`, 400, errorBody(illegal("1", "type"))},
		{"types disagree", `{"user_name":"ann","knowledge_type":1,"type":"Document","title":"T"}`, 400,
			errorBody("Bad request: 'knowledge_type' 1 and 'type' 'Document' name different types")},
		{"document_type on a Training", `{` + base + `,"document_type":"Medical"}`, 400,
			errorBody("Bad request: 'document_type' is only allowed for type Document")},
		{"empty document_type on a Training", `{` + base + `,"document_type":""}`, 400,
			errorBody("Bad request: 'document_type' is only allowed for type Document")},
		{"stage on a Certificate", `{"user_name":"ann","knowledge_type":2,"title":"T","development_plan_stage":"Initial"}`, 400,
			errorBody("Bad request: 'development_plan_stage' is only allowed for type Development Plan")},
		{"focus on a Document", `{"user_name":"ann","type":"Document","title":"T","development_focus":"Transition"}`, 400,
			errorBody("Bad request: 'development_focus' is only allowed for type Development Plan")},
		{"unknown stage", `{"user_name":"ann","knowledge_type":6,"development_plan_stage":"Final"}`, 400,
			errorBody(illegal("Final", "development_plan_stage"))},
		{"unknown focus", `{"user_name":"ann","knowledge_type":6,"development_focus":"Sideways"}`, 400,
			errorBody(illegal("Sideways", "development_focus"))},
		{"plan code not a stage", `{"user_name":"ann","knowledge_type":6,"code":"Q3"}`, 400, errorBody(illegal("Q3", "code"))},
		{"missing title", `{"user_name":"ann","knowledge_type":3}`, 400, errorBody("Bad request: Missing parameter 'title'")},
		{"blank title", `{"user_name":"ann","knowledge_type":3,"title":"  "}`, 400, errorBody(illegal("  ", "title"))},
		{"title not a string", `{"user_name":"ann","knowledge_type":3,"title":["T"]}`, 400, errorBody(illegal(`["T"]`, "title"))},
		{"title too long", `{"user_name":"ann","knowledge_type":3,"title":"` + strings.Repeat("é", 256) + `"}`, 400,
			errorBody("Bad request: 'title' is too long (at most 255 characters)")},
		{"title with NUL", `{"user_name":"ann","knowledge_type":3,"title":"a\u0000b"}`, 400, errorBody(illegal("a\x00b", "title"))},
		{"notes too long", `{` + base + `,"notes":"` + strings.Repeat("n", 10001) + `"}`, 400,
			errorBody("Bad request: 'notes' is too long (at most 10000 characters)")},
		{"provider a number", `{` + base + `,"provider":5}`, 400, errorBody(illegal("5", "provider"))},
		{"class alias not a string", `{` + base + `,"class":true}`, 400, errorBody(illegal("true", "class"))},
		{"region alias too long", `{` + base + `,"region_obtained":"` + strings.Repeat("r", 256) + `"}`, 400,
			errorBody("Bad request: 'region_obtained' is too long (at most 255 characters)")},
		{"bad date_obtained", `{` + base + `,"date_obtained":"31/02/2024"}`, 400, errorBody(illegal("31/02/2024", "date_obtained"))},
		{"bad date alias", `{` + base + `,"date":"2024-1-1"}`, 400, errorBody(illegal("2024-1-1", "date"))},
		{"empty date_obtained", `{` + base + `,"date_obtained":""}`, 400, errorBody(illegal("", "date_obtained"))},
		{"bad expires", `{` + base + `,"expires":"tomorrow"}`, 400, errorBody(illegal("tomorrow", "expires"))},
		{"expires a number", `{` + base + `,"expires":20240101}`, 400, errorBody(illegal("20240101", "expires"))},
		{"bad assessment_score", `{` + base + `,"assessment_score":"high"}`, 400, errorBody(illegal("high", "assessment_score"))},
		{"total_time a fraction", `{` + base + `,"total_time":1.5}`, 400, errorBody(illegal("1.5", "total_time"))},
		{"negative total_time", `{` + base + `,"total_time":"-1"}`, 400, errorBody(illegal("-1", "total_time"))},
		{"total_time too big", `{` + base + `,"total_time":2147483648}`, 400, errorBody(illegal("2147483648", "total_time"))},
		{"skills_attained a number", `{` + base + `,"skills_attained":3}`, 400, errorBody(illegal("3", "skills_attained"))},
		{"skills_attained objects", `{` + base + `,"skills_attained":[{"id":1,"name":"Go"}]}`, 400,
			errorBody(illegal(`[{"id":1,"name":"Go"}]`, "skills_attained"))},
		{"unknown category", `{` + base + `,"category_1_name":"Safety","category_2_name":"Cooking"}`, 400,
			errorBody(illegal("Cooking", "category_2_name"))},
		{"category given twice", `{` + base + `,"category_1_name":"Safety","category_3_name":"SAFETY"}`, 400,
			errorBody("Bad request: category 'SAFETY' is given more than once")},
		{"category points without a name", `{` + base + `,"category_2_points":5}`, 400,
			errorBody("Bad request: Missing parameter 'category_2_name'")},
		{"category name not a string", `{` + base + `,"category_1_name":1}`, 400, errorBody(illegal("1", "category_1_name"))},
		{"category points not a number", `{` + base + `,"category_1_name":"Safety","category_1_points":"lots"}`, 400,
			errorBody(illegal("lots", "category_1_points"))},
		{"negative category points", `{` + base + `,"category_1_name":"Safety","category_1_points":-1}`, 400,
			errorBody(illegal("-1", "category_1_points"))},
		{"category points too big", `{` + base + `,"category_1_name":"Safety","category_1_points":1e10}`, 400,
			errorBody(illegal("1e10", "category_1_points"))},
		{"category minutes a fraction", `{` + base + `,"category_1_name":"Safety","category_1_minutes":"2.5"}`, 400,
			errorBody(illegal("2.5", "category_1_minutes"))},
		{"a fourth category", `{` + base + `,"category_4_name":"Safety"}`, 400,
			errorBody("Bad request: Unknown parameter 'category_4_name': a record has at most 3 categories (category_1 to category_3)")},
		{"categories in both forms", `{` + base + `,"category_1_name":"Safety","categories":[]}`, 400,
			errorBody("Bad request: send categories either as 'categories' or as 'category_N_...' fields, not both")},
		{"categories not an array", `{` + base + `,"categories":"Safety"}`, 400, errorBody(illegal("Safety", "categories"))},
		{"four categories", `{` + base + `,"categories":[{"name":"Safety"},{},{},{}]}`, 400,
			errorBody("Bad request: 'categories' may hold at most 3 categories, 4 given")},
		{"category item not an object", `{` + base + `,"categories":["Safety"]}`, 400, errorBody(illegal("Safety", "categories[0]"))},
		{"category item without a name", `{` + base + `,"categories":[{"name":"Safety"},{"points":1}]}`, 400,
			errorBody("Bad request: Missing parameter 'categories[1].name'")},
		{"unknown category item", `{` + base + `,"categories":[{"name":"Nope"}]}`, 400, errorBody(illegal("Nope", "categories[0].name"))},
		{"category item bad minutes", `{` + base + `,"categories":[{"name":"Safety","minutes":-3}]}`, 400,
			errorBody(illegal("-3", "categories[0].minutes"))},
		{"malformed JSON", `{"user_name":`, 400, errorBody("Bad request: malformed JSON")},
		{"not an object", `[{"user_name":"ann"}]`, 400, errorBody("Bad request: request body must be a JSON object")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.acme.call(t, http.MethodPost, "/papi/external_knowledges", tt.body, tt.status, tt.want)
			e.assertKnowledgeCounts(t, [3]int{0, 0, 0})
		})
	}
	// bob is acme's user: on other's host the name names nobody.
	e.other.call(t, http.MethodPost, "/papi/external_knowledges", `{"user_name":"bob","knowledge_type":1,"title":"T"}`,
		http.StatusNotFound, `"not found"`)
	// Wrong Content-Type and an empty body.
	w := do(e.h.public, request{method: http.MethodPost, host: e.acme.host, path: "/papi/external_knowledges",
		body: `{}`, headers: map[string]string{"Authorization": e.acme.key, "Content-Type": "text/plain"}})
	assertResponse(t, w, http.StatusNotAcceptable, `{"error":"Content-Type must be application/json"}`)
	w = do(e.h.public, request{method: http.MethodPost, host: e.acme.host, path: "/papi/external_knowledges",
		headers: map[string]string{"Authorization": e.acme.key, "Content-Type": "application/json"}})
	assertResponse(t, w, http.StatusBadRequest, errorBody("Bad request: request body must be a JSON object"))
	e.other.call(t, http.MethodGet, "/papi/external_knowledges", "", http.StatusOK, catalogEmptyList)
}
