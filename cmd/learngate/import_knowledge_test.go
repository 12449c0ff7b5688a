package main

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"learngate/store"
	"learngate/store/list"
)

// knowledgeRecords returns acme's records as "user|type|title|date|categories|skills", oldest first.
func knowledgeRecords(t *testing.T, tdb *store.TenantDB) []string {
	t.Helper()
	var out []string
	for page := 1; ; page++ {
		records, total, err := store.ListExternalKnowledges(context.Background(), tdb, list.KnowledgeFilter{}, list.Page{Number: page, Size: 100})
		if err != nil {
			t.Fatalf("list external knowledge: %v", err)
		}
		for _, k := range records {
			var cats, skills []string
			for _, c := range k.Categories {
				cats = append(cats, fmt.Sprintf("%s:%g:%d", c.Name, c.Points, c.Minutes))
			}
			for _, s := range k.Skills {
				skills = append(skills, s.Name)
			}
			out = append(out, fmt.Sprintf("%s|%d|%s|%s|%s|%s", k.UserName, k.KnowledgeType, k.Title, k.DateObtained,
				strings.Join(cats, ","), strings.Join(skills, ",")))
		}
		if int64(len(out)) >= total || len(records) == 0 {
			return out
		}
	}
}

// importKnowledgeUsers creates ann and bob in acme.
func importKnowledgeUsers(t *testing.T, e *importEnv) {
	t.Helper()
	people := e.writeFile(t, "people.csv", csvLines("user_name,first_name,last_name,email",
		"ann,Ann,Archer,ann@example.com", "bob,Bob,Brown,bob@example.com"))
	mustRun(t, "users", "import", "--tenant", "acme", people)
}

func TestKnowledgeImport(t *testing.T) {
	e := newImportEnv(t)
	e.seedCatalog(t)
	importKnowledgeUsers(t, e)

	// Rows refused by the parser (type, date) and by the store (user,
	// category, a field the type does not take) among good ones.
	path := e.writeFile(t, "knowledge.csv", "\ufeff"+csvLines(
		"user_name,type,title,provider,date_obtained,category_1_name,category_1_points,category_1_minutes,skills_attained,document_type,colour",
		"ann,Training,Forklift,Acme,2024-05-01,Safety,2.5,90,First aid;Unknown skill,,red",
		"BOB,certificate,CPR,,01/02/2024,,,,,,",
		"ann,Spaceship,Moon,,,,,,,,",
		"zed,Training,Ghost,,2024-01-01,,,,,,",
		"bob,Training,Welding,,2024-01-01,Nope,1,,,,",
		"ann,Training,Shelf,,2024-13-01,,,,,,",
		"bob,Training,Paper,,2024-01-01,,,,,Medical,",
		"ann,Document,Passport,,2024-03-03,,,,,Travel,",
		"ann,,No type,,,,,,,,",
	))
	out, stderr, err := runStreams(t, "external-knowledge", "import", "--tenant", "acme", path)
	assertPartial(t, err, "6 problems not saved; see "+path+".errors.csv")
	if want := "rows: 9 (1 chunk)\ncreated: 3\nerrors: 6 (listed in " + path + ".errors.csv)\n"; out != want {
		t.Fatalf("report = %q, want %q", out, want)
	}
	if want := "learngate: " + path + ": ignoring column colour: not an external knowledge field\n"; stderr != want {
		t.Fatalf("stderr = %q, want %q", stderr, want)
	}
	wantErrors := csvLines(
		"row,user_name,error_reason",
		"4,ann,Illegal value 'Spaceship' for 'type'",
		"5,zed,Illegal value 'zed' for 'user_name'",
		"6,bob,Illegal value 'Nope' for 'category_1_name'",
		"7,ann,Illegal value '2024-13-01' for 'date_obtained'",
		"8,bob,'document_type' is only allowed for type Document",
		"10,ann,Missing parameter 'knowledge_type' or 'type'",
	)
	if got := readErrorsFile(t, path); got != wantErrors {
		t.Fatalf("errors file:\n%s\nwant:\n%s", got, wantErrors)
	}
	want := []string{
		"ann|1|Forklift|2024-05-01|Safety:2.5:90|First aid",
		"bob|2|CPR|2024-02-01||",
		"ann|5|Passport|2024-03-03||",
	}
	if got := knowledgeRecords(t, e.acme); !reflect.DeepEqual(got, want) {
		t.Fatalf("records = %q, want %q", got, want)
	}
	assertEmptyTenant(t, e.globex)
}

func TestKnowledgeImportChunks(t *testing.T) {
	e := newImportEnv(t)
	importKnowledgeUsers(t, e)
	lines := []string{"user_name,knowledge_type,title,date_obtained"}
	for i := 1; i <= 250; i++ {
		user := "ann"
		if i == 120 {
			user = "nobody"
		}
		lines = append(lines, fmt.Sprintf("%s,1,Course %d,2024-01-01", user, i))
	}
	path := e.writeFile(t, "many.csv", csvLines(lines...))
	out, _, err := runStreams(t, "external-knowledge", "import", "--tenant", "acme", path)
	assertPartial(t, err, "1 problem not saved; see "+path+".errors.csv")
	if want := "rows: 250 (3 chunks)\ncreated: 249\nerrors: 1 (listed in " + path + ".errors.csv)\n"; out != want {
		t.Fatalf("report = %q, want %q", out, want)
	}
	if got, want := readErrorsFile(t, path), csvLines("row,user_name,error_reason", "121,nobody,Illegal value 'nobody' for 'user_name'"); got != want {
		t.Fatalf("errors file = %q, want %q", got, want)
	}
	records := knowledgeRecords(t, e.acme)
	if len(records) != 249 || records[0] != "ann|1|Course 1|2024-01-01||" || records[248] != "ann|1|Course 250|2024-01-01||" {
		t.Fatalf("%d records, first %q, last %q", len(records), records[0], records[len(records)-1])
	}
	assertEmptyTenant(t, e.globex)
}

func TestKnowledgeImportBadFiles(t *testing.T) {
	e := newImportEnv(t)
	importKnowledgeUsers(t, e)
	for _, tt := range []struct{ name, content, want string }{
		{"missing user_name", csvLines("type,title", "Training,Forklift"), "{path}: missing column user_name"},
		{"duplicate column", csvLines("user_name,class,Class", "ann,a,b"), "{path}: column class appears twice (columns 2 and 3)"},
		{"malformed", csvLines("user_name,title", `ann,"Fork"lift`), "{path}: line 2: malformed CSV: extraneous or missing \" in quoted-field"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := e.writeFile(t, "bad.csv", tt.content)
			mustFail(t, strings.ReplaceAll(tt.want, "{path}", path), "external-knowledge", "import", "--tenant", "acme", path)
			if got := knowledgeRecords(t, e.acme); len(got) != 0 {
				t.Fatalf("records = %q, want none", got)
			}
		})
	}
	good := e.writeFile(t, "good.csv", csvLines("user_name,type,title", "ann,Training,Forklift"))
	mustFail(t, "tenant nope not found", "external-knowledge", "import", "--tenant", "nope", good)
	mustFail(t, "open "+e.dir+"/none.csv: no such file or directory", "external-knowledge", "import", "--tenant", "acme", e.dir+"/none.csv")

	// globex has no user ann: the one row is refused and nothing is saved.
	out, _, err := runStreams(t, "external-knowledge", "import", "--tenant", "globex", good)
	assertPartial(t, err, "1 problem not saved; see "+good+".errors.csv")
	if want := "rows: 1 (1 chunk)\ncreated: 0\nerrors: 1 (listed in " + good + ".errors.csv)\n"; out != want {
		t.Fatalf("report = %q, want %q", out, want)
	}
	assertEmptyTenant(t, e.globex)
	if got := knowledgeRecords(t, e.acme); len(got) != 0 {
		t.Fatalf("acme records = %q, want none", got)
	}
}
