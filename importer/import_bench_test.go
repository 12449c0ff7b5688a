package importer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"learngate"
	"learngate/store"
	"learngate/store/storetest"
	"learngate/tenant"
)

// benchRows is the size of the benchmark files.
const benchRows = 10000

// writeBenchFile writes a header and benchRows rows made by line(i).
func writeBenchFile(b testing.TB, header string, line func(i int) string) string {
	b.Helper()
	var sb strings.Builder
	sb.WriteString(header + "\n")
	for i := 1; i <= benchRows; i++ {
		sb.WriteString(line(i) + "\n")
	}
	path := filepath.Join(b.TempDir(), "bench.csv")
	if err := os.WriteFile(path, []byte(sb.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	return path
}

// benchTenant onboards a fresh tenant with a group and a custom field.
func benchTenant(b testing.TB, reg *tenant.Registry, db *store.DB, slug string) (learngate.Tenant, *store.TenantDB) {
	b.Helper()
	ctx := context.Background()
	t, _, err := reg.Create(ctx, tenant.NewTenantInput{Slug: slug, Timezone: "Europe/Berlin"})
	if err != nil {
		b.Fatal(err)
	}
	tdb, err := db.Tenant(t.Schema)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := store.CreateCatalogItem(ctx, tdb, learngate.Groups, "Sales"); err != nil {
		b.Fatal(err)
	}
	if _, err := store.CreateCustomField(ctx, tdb, learngate.NewCustomField{Name: "City", FieldType: "string"}); err != nil {
		b.Fatal(err)
	}
	return t, tdb
}

// BenchmarkImportUsers10000 imports a 10,000-row users file into a fresh
// tenant per iteration (every row creates a user with a group and a custom
// field) and reports rows per second. Not run by make test:
//
//	go test -run '^$' -bench ImportUsers10000 -benchtime 3x ./importer/
func BenchmarkImportUsers10000(b *testing.B) {
	db, _ := storetest.NewDB(b)
	reg := tenant.NewRegistry(db, tenant.Options{})
	path := writeBenchFile(b, "user_name,first_name,last_name,email,type,groups,X-City", func(i int) string {
		return fmt.Sprintf("user%05d,First %d,Last %d,user%05d@example.com,Student,Sales,Oslo", i, i, i, i)
	})
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		t, tdb := benchTenant(b, reg, db, fmt.Sprintf("bench-%d", i))
		b.StartTimer()
		src, err := Open(path, UsersFormat(0))
		if err != nil {
			b.Fatal(err)
		}
		rep, err := ImportUsers(context.Background(), tdb, t, src, NewErrorsFile(path, UserColumns...), Options{})
		src.Close()
		if err != nil || rep.Created != benchRows || rep.Errors != 0 || rep.Chunks != benchRows/ChunkSize {
			b.Fatalf("report %+v, %v", rep, err)
		}
	}
	b.ReportMetric(float64(benchRows*b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkImportKnowledge10000 imports a 10,000-row external knowledge
// file (100 users, 100 records each) and reports rows per second.
func BenchmarkImportKnowledge10000(b *testing.B) {
	db, _ := storetest.NewDB(b)
	reg := tenant.NewRegistry(db, tenant.Options{})
	ctx := context.Background()
	t, tdb := benchTenant(b, reg, db, "bench")
	people := writeBenchFile(b, "user_name,first_name,last_name,email", func(i int) string {
		return fmt.Sprintf("user%05d,First,Last,user%05d@example.com", i%100, i%100)
	})
	src, err := Open(people, UsersFormat(0))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := ImportUsers(ctx, tdb, t, src, NewErrorsFile(people, UserColumns...), Options{}); err != nil {
		b.Fatal(err)
	}
	src.Close()
	path := writeBenchFile(b, "user_name,type,title,provider,date_obtained,total_time", func(i int) string {
		return fmt.Sprintf("user%05d,Training,Course %d,Acme,2024-05-01,90", i%100, i)
	})
	for b.Loop() {
		src, err := Open(path, KnowledgeFormat(0))
		if err != nil {
			b.Fatal(err)
		}
		rep, err := ImportKnowledge(ctx, tdb, t, src, NewErrorsFile(path, KnowledgeColumns...), Options{})
		src.Close()
		if err != nil || rep.Created != benchRows || rep.Errors != 0 {
			b.Fatalf("report %+v, %v", rep, err)
		}
	}
	b.ReportMetric(float64(benchRows*b.N)/b.Elapsed().Seconds(), "rows/s")
}
