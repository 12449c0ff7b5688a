package handlers

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"
)

// benchKnowledgeTenant is benchUsersTenant with users k0 .. k9, skills and categories.
func benchKnowledgeTenant(b *testing.B) catalogTenant {
	b.Helper()
	ct := benchUsersTenant(b)
	people := make([]string, 10)
	for i := range people {
		people[i] = fmt.Sprintf(`{"user_name":"k%d","first_name":"F","last_name":"L","email":"k%d@example.com"}`, i, i)
	}
	ct.call(b, http.MethodPost, "/papi/users/batch_save", `{"people":[`+strings.Join(people, ",")+`]}`, http.StatusOK, "")
	for _, c := range []struct{ path, name string }{
		{"/papi/skills", "Go"}, {"/papi/skills", "SQL"}, {"/papi/skills", "Docker"},
		{"/papi/categories", "Safety"}, {"/papi/categories", "Compliance"}, {"/papi/categories", "Leadership"},
	} {
		ct.call(b, http.MethodPost, c.path, fmt.Sprintf(`{"name":%q}`, c.name), http.StatusCreated, "")
	}
	return ct
}

// analyzeTenant runs ANALYZE in the bench tenant, as autovacuum does on a
// live tenant: until then PostgreSQL plans the foreign-key checks for empty
// tables and every batch gets slower as the tables grow.
func analyzeTenant(b *testing.B, ct catalogTenant) {
	b.Helper()
	tn, err := ct.h.registry.Show(context.Background(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	tdb, err := ct.h.db.Tenant(tn.Schema)
	if err != nil {
		b.Fatal(err)
	}
	err = tdb.Tx(context.Background(), func(tx *sqlx.Tx) error {
		_, err := tx.Exec(`ANALYZE`)
		return err
	})
	if err != nil {
		b.Fatalf("analyze: %v", err)
	}
}

// knowledgeBatchBody is a batch of 100 records of users k0 .. k9, each with
// two skills and three categories.
func knowledgeBatchBody() string {
	records := make([]string, 100)
	for j := range records {
		records[j] = fmt.Sprintf(`{"user_name":"k%d","knowledge_type":%d,"title":"Record %d","provider":"Red Cross",
			"date_obtained":"31/03/2024","expires":"2026-03-31","assessment_score":"87.5","total_time":90,
			"skills_attained":"Go;SQL","category_1_name":"Safety","category_1_points":"1.25","category_1_minutes":30,
			"category_2_name":"Compliance","category_2_points":2,"category_3_name":"Leadership","category_3_minutes":"5"}`,
			j%10, 1+j%6, j)
	}
	return `{"external_knowledges":[` + strings.Join(records, ",") + `]}`
}

// seedKnowledgeHTTP saves 100 batches (10,000 records) and analyzes.
func seedKnowledgeHTTP(b *testing.B, ct catalogTenant) {
	b.Helper()
	body := knowledgeBatchBody()
	for i := 0; i < 100; i++ {
		ct.call(b, http.MethodPost, "/papi/external_knowledges/batch_save", body, http.StatusOK, "")
	}
	analyzeTenant(b, ct)
}

// BenchmarkBatchSaveExternalKnowledgesHTTP posts batches of 100 records,
// each with two skills and three categories, through the whole router, to
// a tenant that holds 10,000.
func BenchmarkBatchSaveExternalKnowledgesHTTP(b *testing.B) {
	ct := benchKnowledgeTenant(b)
	seedKnowledgeHTTP(b, ct)
	body := knowledgeBatchBody()
	timeRequests(b, ct, func(int) (string, string, string) {
		return http.MethodPost, "/papi/external_knowledges/batch_save", body
	})
}

// BenchmarkListExternalKnowledgesHTTP reads GET
// /papi/external_knowledges?per_page=100 on a tenant of 10,000 records.
func BenchmarkListExternalKnowledgesHTTP(b *testing.B) {
	ct := benchKnowledgeTenant(b)
	seedKnowledgeHTTP(b, ct)
	for _, page := range []int{1, 50} {
		b.Run(fmt.Sprintf("page-%d", page), func(b *testing.B) {
			timeRequests(b, ct, func(int) (string, string, string) {
				return http.MethodGet, fmt.Sprintf("/papi/external_knowledges?per_page=100&page=%d", page), ""
			})
		})
	}
}
