package importer

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	_ "github.com/lib/pq"

	"learngate/store"
	"learngate/store/list"
	"learngate/store/storetest"
	"learngate/tenant"
)

// writeFileT writes content to a file of the test's own and returns its path.
func writeFileT(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "in.csv")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// openString writes content to a file and opens it with the users format.
func openString(t *testing.T, content string) (*Source, error) {
	t.Helper()
	src, err := Open(writeFileT(t, content), UsersFormat(0))
	if err == nil {
		t.Cleanup(func() { src.Close() })
	}
	return src, err
}

// readAll returns every row of src.
func readAll(t *testing.T, src *Source) []Row {
	t.Helper()
	var rows []Row
	for {
		row, err := src.Next()
		if errors.Is(err, io.EOF) {
			return rows
		}
		if err != nil {
			t.Fatalf("next: %v", err)
		}
		rows = append(rows, row)
	}
}

func TestSourceRows(t *testing.T) {
	for _, tt := range []struct {
		name, content string
		ignored       []string
		want          []Row
	}{
		{
			name:    "BOM before a quoted header",
			content: "\ufeff\"user_name\",\"email\"\nann,ann@example.com\n",
			want:    []Row{{Number: 2, Fields: map[string]any{"user_name": "ann", "email": "ann@example.com"}}},
		},
		{
			name:    "empty cells are not given, the marker clears, text is kept as written",
			content: "user_name,mentor_email,manager_email,password\r\nann,, [Clear] , Pass word1 \r\n",
			want:    []Row{{Number: 2, Fields: map[string]any{"user_name": "ann", "manager_email": "", "password": " Pass word1 "}}},
		},
		{
			name:    "blank rows are skipped; numbers are lines, a quoted line break included",
			content: "user_name,first_name\n,\nann,\"Ann\nMarie\"\n \t, \nbob,Bob\n",
			want: []Row{
				{Number: 3, Fields: map[string]any{"user_name": "ann", "first_name": "Ann\nMarie"}},
				{Number: 6, Fields: map[string]any{"user_name": "bob", "first_name": "Bob"}},
			},
		},
		{
			name:    "unknown and unnamed columns are ignored; custom and enrolment fields are read",
			content: "user_name,Colour,,x-City,Enrolment_Code_1_Due_Date,send_invitation,org_admin\nann,red,z,Oslo,2030-01-01,yes,true\n",
			ignored: []string{"colour", "column 3 (no name)", "send_invitation", "org_admin"},
			want: []Row{{Number: 2, Fields: map[string]any{"user_name": "ann", "X-City": "Oslo",
				"enrolment_code_1_due_date": "2030-01-01"}}},
		},
		{name: "header only", content: "user_name\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src, err := openString(t, tt.content)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			if !reflect.DeepEqual(src.Ignored(), tt.ignored) {
				t.Fatalf("ignored = %q, want %q", src.Ignored(), tt.ignored)
			}
			if src.Rows() != len(tt.want) {
				t.Fatalf("Rows() = %d, want %d", src.Rows(), len(tt.want))
			}
			if got := readAll(t, src); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("rows = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestColumnName(t *testing.T) {
	for in, want := range map[string]string{
		" User_Name ": "user_name", "X-City": "X-City", "x-City ": "X-City", "x-": "x-", "": "", "ROLE_1": "role_1",
	} {
		if got := ColumnName(in); got != want {
			t.Errorf("ColumnName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestErrorsFile(t *testing.T) {
	input := filepath.Join(t.TempDir(), "people.csv")
	errs := NewErrorsFile(input, UserColumns...)
	if err := errs.Add(2, "=cmd|' /C calc'!A0", "+a@example.com", "Invalid email '+a@example.com'"); err != nil {
		t.Fatal(err)
	}
	if err := errs.Add(3, "bob", "", "line\nbreak, \"quoted\""); err != nil {
		t.Fatal(err)
	}
	if err := errs.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(input + ".errors.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := "row,user_name,email,error_reason\n2,'=cmd|' /C calc'!A0,'+a@example.com,Invalid email '+a@example.com'\n" +
		"3,bob,,\"line\nbreak, \"\"quoted\"\"\"\n"
	if string(b) != want || errs.Count() != 2 {
		t.Fatalf("errors file = %q (%d), want %q", b, errs.Count(), want)
	}

	// A run without problems removes the file of the run before.
	if err := NewErrorsFile(input, UserColumns...).Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(input + ".errors.csv"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stale errors file: %v", err)
	}
	if err := NewErrorsFile(input, UserColumns...).Close(); err != nil {
		t.Fatalf("close without a file to remove: %v", err)
	}
	if !strings.HasSuffix(errs.Path(), "people.csv.errors.csv") {
		t.Fatalf("path = %q", errs.Path())
	}
}

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
	_, total, err := store.ListUsers(ctx, tdb, list.UserFilter{}, list.Page{Number: 1, Size: 1})
	if err != nil || total != 100 {
		t.Fatalf("%d users saved (%v), want 100", total, err)
	}
}
