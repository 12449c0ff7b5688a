package handlers

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
	"time"
)

// knowledgePage is a list envelope reduced to the record ids.
type knowledgePage struct {
	TotalRecords int     `json:"total_records"`
	MaxPerPage   int     `json:"max_per_page"`
	CurrentPage  int     `json:"current_page"`
	TotalPages   int     `json:"total_pages"`
	IDs          []int64 `json:"-"`
}

// listKnowledge reads GET /papi/external_knowledges<query> of ct.
func listKnowledge(t *testing.T, ct catalogTenant, query string) knowledgePage {
	t.Helper()
	w := ct.h.papi(http.MethodGet, ct.host, "/papi/external_knowledges"+query, ct.key, "")
	assertResponse(t, w, http.StatusOK, "")
	var page knowledgePage
	decode(t, w, &page)
	var body struct {
		Records []struct {
			ID int64 `json:"id"`
		} `json:"records"`
	}
	decode(t, w, &body)
	page.IDs = []int64{}
	for _, r := range body.Records {
		page.IDs = append(page.IDs, r.ID)
	}
	return page
}

func TestListExternalKnowledge(t *testing.T) {
	t.Parallel()
	e := newKnowledgeEnv(t)
	// 1-3 at 09:30, 4 and 5 at 10:30, 1 updated at 11:30.
	e.acme.call(t, http.MethodPost, "/papi/external_knowledges/batch_save", batchOf(
		`{"user_name":"ann","knowledge_type":1,"title":"A"}`, `{"user_name":"bob","knowledge_type":1,"title":"B"}`,
		`{"user_name":"ann","knowledge_type":1,"title":"C"}`), http.StatusOK, "")
	e.clock.advance(time.Hour)
	for _, body := range []string{`{"user_name":"bob","knowledge_type":2,"title":"D"}`, `{"user_name":"ann","knowledge_type":3,"title":"E"}`} {
		e.acme.call(t, http.MethodPost, "/papi/external_knowledges", body, http.StatusCreated, "")
	}
	e.clock.advance(time.Hour)
	e.acme.call(t, http.MethodPut, "/papi/external_knowledges/1", `{"title":"A2"}`, http.StatusOK, "")

	tests := []struct {
		query string
		want  knowledgePage
	}{
		{"", knowledgePage{5, 25, 1, 1, []int64{1, 2, 3, 4, 5}}},
		{"?per_page=2&page=2", knowledgePage{5, 2, 2, 3, []int64{3, 4}}},
		{"?per_page=2&page=3", knowledgePage{5, 2, 3, 3, []int64{5}}},
		{"?per_page=2&page=4", knowledgePage{5, 2, 4, 3, []int64{}}},
		{"?per_page=1000", knowledgePage{5, 100, 1, 1, []int64{1, 2, 3, 4, 5}}},
		{"?per_page=0&page=-1", knowledgePage{5, 25, 1, 1, []int64{1, 2, 3, 4, 5}}},
		{"?updated_after=2025-06-01T09:30:00", knowledgePage{3, 25, 1, 1, []int64{1, 4, 5}}},
		{"?updated_after=2025-06-01T09:29:59", knowledgePage{5, 25, 1, 1, []int64{1, 2, 3, 4, 5}}},
		{"?updated_before=2025-06-01T10:30:00", knowledgePage{2, 25, 1, 1, []int64{2, 3}}},
		{"?updated_after=2025-06-01T09:30:00&updated_before=2025-06-01T11:30:00", knowledgePage{2, 25, 1, 1, []int64{4, 5}}},
		{"?updated_after=&updated_before=%20", knowledgePage{5, 25, 1, 1, []int64{1, 2, 3, 4, 5}}},
		{"?user_name=BOB", knowledgePage{2, 25, 1, 1, []int64{2, 4}}},
		{"?user_name=ann&per_page=1&page=3", knowledgePage{3, 1, 3, 3, []int64{5}}},
		{"?user_name=zed", knowledgePage{0, 25, 1, 0, []int64{}}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			if got := listKnowledge(t, e.acme, tt.query); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("GET %s = %+v, want %+v", tt.query, got, tt.want)
			}
		})
	}

	refused := []struct{ query, want string }{
		{"?page=x", "Bad request: Illegal value 'x' for 'page'"},
		{"?per_page=1.5", "Bad request: Illegal value '1.5' for 'per_page'"},
		{"?updated_after=2025-06-01", "Bad request: Illegal value '2025-06-01' for 'updated_after'"},
		{"?updated_before=2025-06-01T10:30:00Z", "Bad request: Illegal value '2025-06-01T10:30:00Z' for 'updated_before'"},
		{"?user_name=a%00b", "Bad request: Illegal value 'a\x00b' for 'user_name'"},
	}
	for _, tt := range refused {
		t.Run(tt.query, func(t *testing.T) {
			want, _ := json.Marshal(tt.want)
			e.acme.call(t, http.MethodGet, "/papi/external_knowledges"+tt.query, "", http.StatusBadRequest, string(want))
		})
	}
	e.assertKnowledgeIsolated(t, 1)
	if got := listKnowledge(t, e.other, "?user_name=ann"); len(got.IDs) != 0 {
		t.Fatalf("other's list for its own ann = %+v, want empty", got)
	}
}

func TestDeletingSkillsAndCategoriesLeavesRecords(t *testing.T) {
	t.Parallel()
	e := newKnowledgeEnv(t)
	e.acme.call(t, http.MethodPost, "/papi/external_knowledges", `{"user_name":"ann","knowledge_type":1,"title":"First aid",
		"skills_attained":"Go;SQL","category_1_name":"Safety","category_1_minutes":5,"category_2_name":"Compliance",
		"category_3_name":"Leadership","category_3_points":1}`, http.StatusCreated, "")
	e.clock.advance(time.Hour)
	e.acme.call(t, http.MethodDelete, "/papi/skills/1", "", http.StatusNoContent, "")
	e.acme.call(t, http.MethodDelete, "/papi/categories/2", "", http.StatusNoContent, "")
	// updated_at does not move: the record itself was not changed.
	e.acme.call(t, http.MethodGet, "/papi/external_knowledges/1", "", http.StatusOK, wantKnowledge(1, map[string]any{
		"skills_attained": []any{skill(skillSQL, "SQL")},
		"categories":      raws(cat("Safety", 5, "0"), cat("Leadership", 0, "1")),
	}))
	e.assertKnowledgeCounts(t, [3]int{1, 1, 2})
	// The same categories in the same order change nothing; a re-sent third one still fits.
	e.acme.call(t, http.MethodPut, "/papi/external_knowledges/1", `{"category_1_name":"Safety","category_1_minutes":5,
		"category_2_name":"Leadership","category_2_points":1}`, http.StatusOK, wantKnowledge(1, map[string]any{
		"skills_attained": []any{skill(skillSQL, "SQL")},
		"categories":      raws(cat("Safety", 5, "0"), cat("Leadership", 0, "1")),
	}))
	e.acme.call(t, http.MethodPut, "/papi/external_knowledges/1", `{"category_3_name":"Safety"}`, http.StatusOK,
		wantKnowledge(1, map[string]any{
			"skills_attained": []any{skill(skillSQL, "SQL")},
			"categories":      raws(cat("Safety", 0, "0")),
			"updated_at":      ts(usersStart.Add(time.Hour)),
		}))
}
