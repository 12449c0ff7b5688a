package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"learngate"
	"learngate/store"
	"learngate/store/list"
)

// importEnv is a migrated database with tenant acme (Europe/Berlin), into
// which the tests import, and tenant globex, which must stay empty.
type importEnv struct {
	dir    string
	acme   *store.TenantDB
	globex *store.TenantDB
}

func newImportEnv(t *testing.T) *importEnv {
	t.Helper()
	migratedCLIEnv(t)
	mustRun(t, "migrate", "-q")
	mustRun(t, "tenant", "create", "acme", "--timezone", "Europe/Berlin")
	mustRun(t, "tenant", "create", "globex")
	a, err := openApp(context.Background())
	if err != nil {
		t.Fatalf("open app: %v", err)
	}
	t.Cleanup(a.close)
	e := &importEnv{dir: t.TempDir()}
	e.acme = tenantHandle(t, a, "acme")
	e.globex = tenantHandle(t, a, "globex")
	return e
}

func tenantHandle(t *testing.T, a *app, slug string) *store.TenantDB {
	t.Helper()
	ten, err := a.registry.Show(context.Background(), slug)
	if err != nil {
		t.Fatalf("tenant %s: %v", slug, err)
	}
	tdb, err := a.db.Tenant(ten.Schema)
	if err != nil {
		t.Fatalf("tenant %s: %v", slug, err)
	}
	return tdb
}

// seedCatalog gives acme a role, two groups, a custom field, a skill, a
// category and a topic whose enrolment code is SAFE-1.
func (e *importEnv) seedCatalog(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	for kind, names := range map[learngate.CatalogKind][]string{
		learngate.Roles: {"Manager"}, learngate.Groups: {"Sales", "Berlin"}, learngate.Skills: {"First aid"}, learngate.Categories: {"Safety"},
	} {
		for _, name := range names {
			if _, err := store.CreateCatalogItem(ctx, e.acme, kind, name); err != nil {
				t.Fatalf("create %s %s: %v", kind, name, err)
			}
		}
	}
	if _, err := store.CreateCustomField(ctx, e.acme, learngate.NewCustomField{Name: "City", FieldType: "string"}); err != nil {
		t.Fatalf("create custom field: %v", err)
	}
	title, code := "Safety first", "SAFE-1"
	if _, err := store.CreateTopic(ctx, e.acme, learngate.TopicInput{Title: &title, EnrolmentCode: &code}, time.Now()); err != nil {
		t.Fatalf("create topic: %v", err)
	}
}

// writeFile writes content to name in the test's directory and returns its path.
func (e *importEnv) writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(e.dir, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatalf("write %s: %v", name, err)
	}
	return path
}

// csvLines joins lines into a CSV file's content.
func csvLines(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

// readErrorsFile returns the errors file of the input file at path.
func readErrorsFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path + ".errors.csv")
	if err != nil {
		t.Fatalf("errors file: %v", err)
	}
	return string(b)
}

// assertNoErrorsFile checks that the input file at path has no errors file.
func assertNoErrorsFile(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path + ".errors.csv"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("errors file of %s: %v, want none", path, err)
	}
}

// assertPartial checks that err ends the process with exit code 2 and message msg.
func assertPartial(t *testing.T, err error, msg string) {
	t.Helper()
	var exit *exitError
	if !errors.As(err, &exit) || exit.code != exitPartial || exit.msg != msg {
		t.Fatalf("error = %v, want exit code %d with %q", err, exitPartial, msg)
	}
}

// userNames lists the user names of tdb, newest first.
func userNames(t *testing.T, tdb *store.TenantDB) []string {
	t.Helper()
	var names []string
	for page := 1; ; page++ {
		users, total, err := store.ListUsers(context.Background(), tdb, list.UserFilter{}, list.Page{Number: page, Size: 100})
		if err != nil {
			t.Fatalf("list users: %v", err)
		}
		for _, u := range users {
			names = append(names, u.UserName)
		}
		if int64(len(names)) >= total || len(users) == 0 {
			return names
		}
	}
}

// assertEmptyTenant checks that tdb holds no user and no external knowledge.
func assertEmptyTenant(t *testing.T, tdb *store.TenantDB) {
	t.Helper()
	if names := userNames(t, tdb); len(names) != 0 {
		t.Fatalf("users = %v, want none", names)
	}
	_, total, err := store.ListExternalKnowledges(context.Background(), tdb, list.KnowledgeFilter{}, list.Page{Number: 1, Size: 1})
	if err != nil || total != 0 {
		t.Fatalf("external knowledge: %d records, %v; want none", total, err)
	}
}

// deref shows a nullable string in failure messages.
func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%q", *s)
}

func TestProgressBar(t *testing.T) {
	t.Run("line", func(t *testing.T) {
		p := &progressBar{label: "importing x.csv", unit: "rows", total: 200}
		want := "importing x.csv [#######-----------------------]  25%  50/200 rows  25 rows/s"
		if got := p.line(50, 2*time.Second); got != want {
			t.Fatalf("line = %q, want %q", got, want)
		}
		empty := &progressBar{label: "migrating", unit: "schemas"}
		if got := empty.line(0, 0); got != "migrating [##############################] 100%  0/0 schemas" {
			t.Fatalf("empty line = %q", got)
		}
	})

	t.Run("nothing when not a terminal", func(t *testing.T) {
		var out strings.Builder
		p := newProgressBar(&out, "importing", "rows", 10)
		p.Update(5)
		p.Update(10)
		p.Finish()
		if out.Len() != 0 {
			t.Fatalf("wrote %q to a non-terminal", out.String())
		}
	})

	t.Run("redrawn in place at most every 100 ms", func(t *testing.T) {
		var out strings.Builder
		clock := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		p := &progressBar{w: &out, label: "l", unit: "rows", total: 300, tty: true, start: clock, now: func() time.Time { return clock }}
		clock = clock.Add(time.Second)
		p.Update(100)
		clock = clock.Add(50 * time.Millisecond)
		p.Update(200) // too soon: skipped
		p.Update(300) // the end is always drawn
		p.Finish()
		want := "\r" + p.line(100, time.Second) + "\x1b[K" + "\r" + p.line(300, 1050*time.Millisecond) + "\x1b[K\n"
		if out.String() != want {
			t.Fatalf("output = %q, want %q", out.String(), want)
		}
	})
}

func TestMigrateSummaryLine(t *testing.T) {
	cliEnv(t)
	mustRun(t, "migrate", "-q")
	mustRun(t, "tenant", "create", "acme")
	mustRun(t, "tenant", "create", "globex")
	out, stderr, err := runStreams(t, "migrate")
	if err != nil || out != "migrations applied\n" {
		t.Fatalf("migrate: %q, %v", out, err)
	}
	// tenant create migrated both schemas: none is behind.
	if !regexp.MustCompile(`^migrated the shared schema and 0 tenant schemas in [0-9.]+(ms|s)\n$`).MatchString(stderr) {
		t.Fatalf("stderr = %q, want one summary line", stderr)
	}
	if _, stderr, _ := runStreams(t, "migrate", "--quiet"); stderr != "" {
		t.Fatalf("quiet stderr = %q", stderr)
	}
}
