package handlers

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// batchErr is the exact 400 body of a failed batch; index -1 is null, and
// so is a nil userName.
func batchErr(msg string, index int, userName any) string {
	var idx any
	if index >= 0 {
		idx = index
	}
	return kv{{"error", msg}, {"index", idx}, {"user_name", userName}}.String()
}

// batchOf wraps records (JSON objects) in a batch body.
func batchOf(records ...string) string {
	return `{"external_knowledges":[` + strings.Join(records, ",") + `]}`
}

func TestBatchSaveExternalKnowledge(t *testing.T) {
	t.Parallel()
	e := newKnowledgeEnv(t)
	body := batchOf(
		`{"user_name":"ann","knowledge_type":1,"title":"First aid","skills_attained":"Go;Nope","category_1_name":"Safety","category_1_minutes":"45"}`,
		`{"user_name":"BOB","type":"development plan","development_plan_stage":"Initial","development_focus":"Transition","expires":"31/12/25"}`,
		`{"user_name":"ann","type":"Document","document_type":"Travel","title":"Passport","date":"2020-05-05","skills_attained":["SQL","go"]}`,
	)
	e.acme.call(t, http.MethodPost, "/papi/external_knowledges/batch_save", body, http.StatusOK,
		`{"created":3,"updated":0,"unchanged":0}`)
	records := []string{
		wantKnowledge(1, map[string]any{"skills_attained": []any{skill(skillGo, "Go")}, "categories": raws(cat("Safety", 45, "0"))}),
		wantKnowledge(2, map[string]any{"user_name": "bob", "knowledge_type": 6, "title": "Development Plan", "code": "Initial",
			"development_focus": "Transition", "expires": "2025-12-31"}),
		wantKnowledge(3, map[string]any{"knowledge_type": 5, "title": "Passport", "code": "Travel", "date_obtained": "2020-05-05",
			"skills_attained": []any{skill(skillGo, "Go"), skill(skillSQL, "SQL")}}),
	}
	e.acme.call(t, http.MethodGet, "/papi/external_knowledges", "", http.StatusOK, listBody(3, 1, 25, records...))
	e.acme.call(t, http.MethodGet, "/papi/external_knowledges/2", "", http.StatusOK, records[1])
	e.assertKnowledgeCounts(t, [3]int{3, 3, 1})
	e.assertKnowledgeIsolated(t, 1)

	// A full batch of 100, each record with two skills and three categories.
	items := make([]string, 100)
	for i := range items {
		items[i] = fmt.Sprintf(`{"user_name":"bob","knowledge_type":%d,"title":"T%d","skills_attained":"Go;Docker",
			"category_1_name":"Safety","category_1_points":%d,"category_2_name":"Compliance","category_3_name":"Leadership"}`,
			1+i%5, i, i)
	}
	e.acme.call(t, http.MethodPost, "/papi/external_knowledges/batch_save", batchOf(items...), http.StatusOK,
		`{"created":100,"updated":0,"unchanged":0}`)
	e.assertKnowledgeCounts(t, [3]int{103, 203, 301})
	w := e.h.papi(http.MethodGet, e.acme.host, "/papi/external_knowledges/103", e.acme.key, "")
	var last struct {
		Title      string `json:"title"`
		Categories []struct {
			Points float64 `json:"points"`
		} `json:"categories"`
	}
	decode(t, w, &last)
	if last.Title != "T99" || len(last.Categories) != 3 || last.Categories[0].Points != 99 {
		t.Fatalf("record 103 = %s, want the 100th of the batch", w.Body.String())
	}
}

func TestBatchSaveExternalKnowledgeRefused(t *testing.T) {
	t.Parallel()
	e := newKnowledgeEnv(t)
	good := `{"user_name":"ann","knowledge_type":1,"title":"First aid","skills_attained":"Go","category_1_name":"Safety"}`
	tooMany := make([]string, 101)
	for i := range tooMany {
		tooMany[i] = good
	}
	tests := []struct {
		name string
		body string
		want string
	}{
		{"no external_knowledges", `{"people":[]}`, batchErr("Bad request: Missing parameter 'external_knowledges'", -1, nil)},
		{"external_knowledges null", `{"external_knowledges":null}`,
			batchErr("Bad request: Missing parameter 'external_knowledges'", -1, nil)},
		{"not an array", `{"external_knowledges":{"user_name":"ann"}}`,
			batchErr(illegal(`{"user_name":"ann"}`, "external_knowledges"), -1, nil)},
		{"empty array", `{"external_knowledges":[]}`,
			batchErr("Bad request: 'external_knowledges' must hold at least one record", -1, nil)},
		{"101 records", batchOf(tooMany...),
			batchErr("Bad request: 'external_knowledges' may hold at most 100 records, 101 given", -1, nil)},
		{"malformed JSON", `{"external_knowledges":[`, batchErr("Bad request: malformed JSON", -1, nil)},
		{"body an array", `[]`, batchErr("Bad request: request body must be a JSON object", -1, nil)},
		{"the last record fails", batchOf(good, good, `{"user_name":" Bob ","knowledge_type":1,"title":"T","category_1_name":"Nope"}`),
			batchErr(illegal("Nope", "category_1_name"), 2, " Bob ")},
		{"the first failing record by index is named", batchOf(good, `{"user_name":"zed","knowledge_type":1,"title":"T"}`,
			`{"user_name":"ann","knowledge_type":"x"}`), batchErr(illegal("zed", "user_name"), 1, "zed")},
		{"a parse fault before a lookup fault", batchOf(`{"user_name":"ann","knowledge_type":"x"}`,
			`{"user_name":"zed","knowledge_type":1,"title":"T"}`), batchErr(illegal("x", "knowledge_type"), 0, "ann")},
		{"a record that is not an object", batchOf(good, `"ann"`),
			batchErr("Bad request: each external knowledge must be a JSON object", 1, nil)},
		{"a record without user_name", batchOf(`{"knowledge_type":1,"title":"T"}`),
			batchErr("Bad request: Missing parameter 'user_name'", 0, nil)},
		{"a user_name that is not a string", batchOf(good, `{"user_name":["ann"],"knowledge_type":1,"title":"T"}`),
			batchErr(illegal(`["ann"]`, "user_name"), 1, nil)},
		{"a type rule", batchOf(good, good, good, `{"user_name":"bob","knowledge_type":2,"title":"T","document_type":"Policy"}`),
			batchErr("Bad request: 'document_type' is only allowed for type Document", 3, "bob")},
		{"a category twice", batchOf(`{"user_name":"ann","type":"training","title":"T","categories":[{"name":"Safety"},{"name":"safety"}]}`),
			batchErr("Bad request: category 'safety' is given more than once", 0, "ann")},
		{"a missing title", batchOf(good, `{"user_name":"bob","knowledge_type":3}`),
			batchErr("Bad request: Missing parameter 'title'", 1, "bob")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.acme.call(t, http.MethodPost, "/papi/external_knowledges/batch_save", tt.body, http.StatusBadRequest, tt.want)
			e.assertKnowledgeCounts(t, [3]int{0, 0, 0})
		})
	}
	// acme's users are nobody on other's host; other's own ann is somebody.
	e.other.call(t, http.MethodPost, "/papi/external_knowledges/batch_save",
		batchOf(`{"user_name":"ann","knowledge_type":1,"title":"T"}`, `{"user_name":"bob","knowledge_type":1,"title":"T"}`),
		http.StatusBadRequest, batchErr(illegal("bob", "user_name"), 1, "bob"))
	e.other.call(t, http.MethodGet, "/papi/external_knowledges", "", http.StatusOK, catalogEmptyList)
	e.acme.call(t, http.MethodGet, "/papi/external_knowledges", "", http.StatusOK, catalogEmptyList)
	// The refusals left nothing behind that stops a good batch.
	e.acme.call(t, http.MethodPost, "/papi/external_knowledges/batch_save", batchOf(good), http.StatusOK,
		`{"created":1,"updated":0,"unchanged":0}`)
	e.assertKnowledgeCounts(t, [3]int{1, 1, 1})
}
