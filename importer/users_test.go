package importer

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	_ "github.com/lib/pq"

	"learngate/store"
	"learngate/store/storetest"
	"learngate/tenant"
)

// TestImportUsersStopsAtADatabaseFailure: when the database fails in the
// middle, the import stops with an error naming the chunk not saved, and
// the chunks before it stay saved and counted.
func TestImportUsersStopsAtADatabaseFailure(t *testing.T) {
	db, dbURL := storetest.NewDB(t)
	ten, tdb := benchTenant(t, tenant.NewRegistry(db, tenant.Options{}), db, "acme")
	raw, err := sql.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var lines []string
	for i := 1; i <= 250; i++ {
		lines = append(lines, fmt.Sprintf("u%d,First,Last,u%d@example.com", i, i))
	}
	path := writeFileT(t, "user_name,first_name,last_name,email\n"+strings.Join(lines, "\n")+"\n")
	src, err := Open(path, UsersFormat(0))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	ctx := context.Background()
	rename := func(from, to string) {
		if _, err := raw.ExecContext(ctx, fmt.Sprintf(`ALTER TABLE %s.%s RENAME TO %s`, ten.Schema, from, to)); err != nil {
			t.Fatal(err)
		}
	}
	// After the first chunk, the users table goes away.
	progress := func(done int) {
		if done == 100 {
			rename("users", "users_gone")
		}
	}
	rep, err := ImportUsers(ctx, tdb, ten, src, NewErrorsFile(path, UserColumns...), Options{Progress: progress})
	if err == nil || !strings.HasPrefix(err.Error(), "the rows at lines 102 to 201 were not saved: ") {
		t.Fatalf("error = %v", err)
	}
	if rep.Rows != 100 || rep.Chunks != 1 || rep.Created != 100 || rep.Errors != 0 {
		t.Fatalf("report = %+v, want the first chunk only", rep)
	}
	rename("users_gone", "users")
	_, total, err := store.ListUsers(ctx, tdb, store.UserFilter{}, store.Page{Number: 1, Size: 1})
	if err != nil || total != 100 {
		t.Fatalf("%d users saved (%v), want 100", total, err)
	}
}
