package store

import (
	"context"
	"fmt"
	"learngate/store/list"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate"
)

// knowledgeBenchTenant is benchTenant with skills, categories and 100 users
// (user1 .. user100) for external knowledge records.
func knowledgeBenchTenant(tb testing.TB) (*TenantDB, func() int64) {
	tb.Helper()
	tdb, queries := benchTenant(tb)
	seedUsers(tb, tdb, 100)
	err := tdb.Tx(context.Background(), func(tx *sqlx.Tx) error {
		_, err := tx.Exec(`INSERT INTO skills (name) VALUES ('Go'), ('SQL'), ('Docker');
			INSERT INTO categories (name) VALUES ('Safety'), ('Compliance'), ('Leadership')`)
		return err
	})
	if err != nil {
		tb.Fatalf("seed skills and categories: %v", err)
	}
	return tdb, queries
}

// knowledgeRows returns n batch rows, record j for user<j%100+1>, each with
// two skills (one unknown) and three categories.
func knowledgeRows(n int) []learngate.KnowledgeBatchRow {
	rows := make([]learngate.KnowledgeBatchRow, n)
	day := time.Date(2024, 3, 31, 0, 0, 0, 0, time.UTC)
	for j := range rows {
		name := fmt.Sprintf("User%d", j%100+1)
		kt, score, minutes := 1+j%6, 87.5, 30
		in := learngate.KnowledgeInput{
			UserName: &name, KnowledgeType: &kt, Title: strp(fmt.Sprintf("Record %d", j)), Provider: strp("Red Cross"),
			DateObtained: &day, Expires: &day, AssessmentScore: &score, TotalTime: &minutes,
			Skills: []string{"Go", "sql", "Cobol"},
			Categories: []learngate.KnowledgeCategoryInput{
				{Field: "category_1_name", Name: "Safety", Minutes: 30, Points: 1.25},
				{Field: "category_2_name", Name: "compliance", Points: 2},
				{Field: "category_3_name", Name: "Leadership", Minutes: 5},
			},
		}
		rows[j] = learngate.KnowledgeBatchRow{UserName: &name, In: in}
	}
	return rows
}

// TestExternalKnowledgeFixedStatements checks that a batch create, a list
// page and a read cost the same statements (BEGIN and COMMIT aside)
// whatever the number of records.
func TestExternalKnowledgeFixedStatements(t *testing.T) {
	t.Parallel()
	tdb, queries := knowledgeBenchTenant(t)
	ctx := context.Background()
	now := time.Now()
	statements := func(fn func() error) int64 {
		t.Helper()
		start := queries()
		if err := fn(); err != nil {
			t.Fatal(err)
		}
		return queries() - start
	}
	batch := func(n int) func() error {
		return func() error {
			res, err := BatchCreateExternalKnowledges(ctx, tdb, knowledgeRows(n), now)
			if err == nil && res.Created != n {
				err = fmt.Errorf("created %d of %d", res.Created, n)
			}
			return err
		}
	}
	// set_config, the users, skills and categories look-ups, ids, records, skills, categories,
	// the webhook endpoints the events would go to (none here), and the
	// list ranks' due-work mark (new records).
	if one, hundred := statements(batch(1)), statements(batch(100)); one != 10 || hundred != 10 {
		t.Fatalf("statements of a batch of 1 = %d, of 100 = %d, want 10 each", one, hundred)
	}
	page := func(size int) func() error {
		return func() error {
			records, total, err := ListExternalKnowledges(ctx, tdb, list.KnowledgeFilter{}, list.Page{Number: 1, Size: size})
			if err == nil && (len(records) != size || total != 101 || len(records[size-1].Categories) != 3 ||
				len(records[size-1].Skills) != 2) {
				err = fmt.Errorf("page of %d: %d records of %d", size, len(records), total)
			}
			return err
		}
	}
	// set_config, rank anchors, count, page, and the skills and categories.
	if one, hundred := statements(page(1)), statements(page(100)); one != 5 || hundred != 5 {
		t.Fatalf("statements of a page of 1 = %d, of 100 = %d, want 5 each", one, hundred)
	}
	get := func() error {
		k, err := GetExternalKnowledge(ctx, tdb, 101)
		if err == nil && (k.UserName != "user100" || k.Title != "Record 99") {
			err = fmt.Errorf("record 101 = %+v", k)
		}
		return err
	}
	if n := statements(get); n != 3 {
		t.Fatalf("statements of a read = %d, want 3", n)
	}
}

// seedKnowledge creates 10,000 records (100 batches of knowledgeRows(100))
// and analyzes the tables, as autovacuum does on a live tenant: until then
// PostgreSQL plans the foreign-key checks for empty tables and every batch
// gets slower as the tables grow.
func seedKnowledge(tb testing.TB, tdb *TenantDB) {
	tb.Helper()
	ctx := context.Background()
	rows := knowledgeRows(100)
	for i := 0; i < 100; i++ {
		if _, err := BatchCreateExternalKnowledges(ctx, tdb, rows, time.Now()); err != nil {
			tb.Fatal(err)
		}
	}
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.Exec(`ANALYZE`)
		return err
	})
	if err != nil {
		tb.Fatalf("analyze: %v", err)
	}
}

// BenchmarkBatchCreateExternalKnowledges100 creates batches of 100 records,
// each with two skills and three categories, in a tenant that holds 10,000,
// and reports the statements one batch sends (BEGIN and COMMIT aside).
func BenchmarkBatchCreateExternalKnowledges100(b *testing.B) {
	tdb, queries := knowledgeBenchTenant(b)
	seedKnowledge(b, tdb)
	ctx := context.Background()
	now := time.Now()
	rows := knowledgeRows(100)
	b.ResetTimer()
	start := queries()
	for i := 0; i < b.N; i++ {
		res, err := BatchCreateExternalKnowledges(ctx, tdb, rows, now)
		if err != nil || res.Created != 100 {
			b.Fatalf("batch: %+v, %v", res, err)
		}
	}
	b.ReportMetric(float64(queries()-start)/float64(b.N), "queries/op")
}

// BenchmarkListExternalKnowledges100 reads the first page of 100 records of
// a tenant of 10,000 and reports the statements a page costs.
func BenchmarkListExternalKnowledges100(b *testing.B) {
	tdb, queries := knowledgeBenchTenant(b)
	seedKnowledge(b, tdb)
	ctx := context.Background()
	b.ResetTimer()
	start := queries()
	for i := 0; i < b.N; i++ {
		records, total, err := ListExternalKnowledges(ctx, tdb, list.KnowledgeFilter{}, list.Page{Number: 1, Size: 100})
		if err != nil || len(records) != 100 || total != 10000 {
			b.Fatalf("list: %d of %d, %v", len(records), total, err)
		}
	}
	b.ReportMetric(float64(queries()-start)/float64(b.N), "queries/op")
}

// TestLookupNamesHoldsEntries checks that a skill looked up for a record
// cannot be deleted until the record's transaction ends, so the record's
// links never name a skill that is gone.
func TestLookupNamesHoldsEntries(t *testing.T) {
	t.Parallel()
	tdb, _ := knowledgeBenchTenant(t)
	ctx := context.Background()
	looked, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- tdb.Tx(ctx, func(tx *sqlx.Tx) error {
			found, err := lookupNames(ctx, tx, learngate.Skills, []string{"go"})
			if err != nil || found["go"] != 1 {
				return fmt.Errorf("look up go: %v, %v", found, err)
			}
			close(looked)
			<-release
			return nil
		})
	}()
	<-looked
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if err := DeleteCatalogItem(short, tdb, learngate.Skills, 1); err == nil {
		t.Fatal("a looked-up skill was deleted while the look-up's transaction was open")
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := DeleteCatalogItem(ctx, tdb, learngate.Skills, 1); err != nil {
		t.Fatalf("delete after the transaction ended: %v", err)
	}
}
