package main

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"learngate"
	"learngate/store"
	"learngate/store/list"
)

func TestUsersImport(t *testing.T) {
	e := newImportEnv(t)
	e.seedCatalog(t)
	ctx := context.Background()

	first := e.writeFile(t, "first.csv", csvLines(
		"user_name,first_name,last_name,email,manager_email",
		"bob,Bob,Brown,bob@example.com,boss@example.com",
	))
	out := mustRun(t, "users", "import", "--tenant", "acme", first)
	want := "rows: 1 (1 chunk)\ncreated: 1\nupdated: 0\nunchanged: 0\nenrolled: 0\ninvitations sent: 0\ninvitations failed: 0\nerrors: 0\n"
	if out != want {
		t.Fatalf("report = %q, want %q", out, want)
	}
	assertNoErrorsFile(t, first)

	// A BOM, header names in any case and with spaces, an unknown column,
	// a clearing cell, a blank row, and rows that fail in several ways.
	path := e.writeFile(t, "people.csv", "\ufeff"+csvLines(
		`User_Name,first_name,last_name,email,role_1,groups,x-City,enrolment_code_1,enrolment_code_1_due_date, Manager_Email ,Favourite colour`,
		`ann,Ann,Archer,ann@example.com,Manager,Sales;Berlin,Oslo,SAFE-1,31/01/2030,,blue`,
		`BOB,,,,,,,,,[CLEAR],`,
		`cat,"Cat, ""the"" Cole",Cole,cat@example.com,,,,,,,`,
		`dan,Dan,Dye,not-an-email,,,,,,,`,
		`eve,Eve,Ek,eve@example.com,,Nowhere,,,,,`,
		`fay,Fay,Fox,fay@example.com,,,,NOPE-9,,,`,
		`bob,,,,,,,,,,`,
		`,Nameless,,x@example.com,,,,,,,`,
		`,,,,,,,,,,`,
	))
	out, stderr, err := runStreams(t, "users", "import", "--tenant", "acme", path)
	assertPartial(t, err, "4 problems not saved; see "+path+".errors.csv")
	want = "rows: 8 (1 chunk)\ncreated: 5\nupdated: 1\nunchanged: 1\nenrolled: 1\ninvitations sent: 0\ninvitations failed: 0\n" +
		"errors: 4 (listed in " + path + ".errors.csv)\n"
	if out != want {
		t.Fatalf("report = %q, want %q", out, want)
	}
	if want := "learngate: " + path + ": ignoring column favourite colour: not a user field\n"; stderr != want {
		t.Fatalf("stderr = %q, want %q", stderr, want)
	}
	wantErrors := csvLines(
		"row,user_name,email,error_reason",
		"5,dan,not-an-email,Invalid email 'not-an-email'",
		"6,eve,eve@example.com,Illegal value 'Nowhere' for 'groups'",
		"7,fay,fay@example.com,Enrolment code 'NOPE-9' for user 'fay' was not applied: Unknown enrolment code 'NOPE-9' for 'enrolment_code_1'",
		"9,,x@example.com,Illegal value '' for 'user_name'",
	)
	if got := readErrorsFile(t, path); got != wantErrors {
		t.Fatalf("errors file:\n%s\nwant:\n%s", got, wantErrors)
	}

	t.Run("saved", func(t *testing.T) {
		ann, err := store.GetUser(ctx, e.acme, "ann")
		if err != nil {
			t.Fatalf("ann: %v", err)
		}
		if ann.FirstName != "Ann" || deref(ann.Roles[0]) != `"Manager"` || !reflect.DeepEqual(ann.Groups, []string{"Berlin", "Sales"}) ||
			ann.Timezone != "Europe/Berlin" || len(ann.CustomValues) != 1 || deref(ann.CustomValues[0].Value) != `"Oslo"` {
			t.Fatalf("ann = %+v", ann)
		}
		enrolments, _, err := store.ListUserTopicEnrolments(ctx, e.acme, "ann", list.EnrolmentFilter{}, list.Page{Number: 1, Size: 10})
		if err != nil || len(enrolments) != 1 || enrolments[0].DueDate == nil || enrolments[0].DueDate.Format("2006-01-02") != "2030-01-31" {
			t.Fatalf("ann's enrolments = %+v, %v", enrolments, err)
		}
		bob, err := store.GetUser(ctx, e.acme, "bob")
		if err != nil || bob.ManagerEmails[0] != nil || bob.FirstName != "Bob" {
			t.Fatalf("bob = %+v, %v; want manager_email cleared, names kept", bob, err)
		}
		cat, err := store.GetUser(ctx, e.acme, "cat")
		if err != nil || cat.FirstName != `Cat, "the" Cole` {
			t.Fatalf("cat = %+v, %v", cat, err)
		}
		if got := userNames(t, e.acme); len(got) != 4 {
			t.Fatalf("acme users = %v, want ann, bob, cat, fay", got)
		}
		for _, name := range []string{"dan", "eve"} {
			if _, err := store.GetUser(ctx, e.acme, name); !learngate.IsCode(err, learngate.NotFound) {
				t.Fatalf("%s: %v, want not found", name, err)
			}
		}
		assertEmptyTenant(t, e.globex)
	})

	t.Run("a run without problems removes the stale errors file", func(t *testing.T) {
		fixed := e.writeFile(t, "people.csv", csvLines("user_name,email", "dan,dan@example.com"))
		_, _, err := runStreams(t, "users", "import", "--tenant", "acme", fixed)
		assertPartial(t, err, "1 problem not saved; see "+fixed+".errors.csv")
		if got := readErrorsFile(t, fixed); !strings.Contains(got, "Illegal value '' for 'first_name'") {
			t.Fatalf("errors file = %q", got)
		}
		e.writeFile(t, "people.csv", csvLines("user_name,first_name,last_name,email", "dan,Dan,Dye,dan@example.com"))
		mustRun(t, "users", "import", "--tenant", "acme", fixed)
		assertNoErrorsFile(t, fixed)
	})
}

func TestUsersImportInvitations(t *testing.T) {
	e := newImportEnv(t)
	path := e.writeFile(t, "people.csv", csvLines(
		"user_name,first_name,last_name,email,active",
		"ann,Ann,Archer,ann@example.com,",
		"bob,Bob,Brown,bob@example.com,no",
	))
	out := mustRun(t, "users", "import", "--tenant", "acme", "--send-invitations", "NEW", path)
	if !strings.Contains(out, "created: 2\n") || !strings.Contains(out, "invitations sent: 1\ninvitations failed: 1\n") {
		t.Fatalf("report = %q", out)
	}
	out = mustRun(t, "users", "import", "--tenant", "acme", "--send-invitations", "new", path)
	if !strings.Contains(out, "unchanged: 2\n") || !strings.Contains(out, "invitations sent: 0\ninvitations failed: 0\n") {
		t.Fatalf("second report = %q", out)
	}
	out = mustRun(t, "users", "import", "--tenant", "acme", "--send-invitations", "all", path)
	if !strings.Contains(out, "invitations sent: 1\ninvitations failed: 1\n") {
		t.Fatalf("third report = %q", out)
	}

	// An operator may load a suspended tenant before activating it.
	mustRun(t, "tenant", "update", "globex", "--status", "suspended")
	if out := mustRun(t, "users", "import", "--tenant", "globex", path); !strings.Contains(out, "created: 2\n") {
		t.Fatalf("suspended tenant report = %q", out)
	}
	if got := userNames(t, e.globex); len(got) != 2 {
		t.Fatalf("globex users = %v", got)
	}
}

func TestUsersImportChunks(t *testing.T) {
	e := newImportEnv(t)
	lines := []string{"user_name,first_name,last_name,email"}
	for i := 1; i <= 250; i++ {
		email := fmt.Sprintf("u%d@example.com", i)
		if i == 150 {
			email = "broken@"
		}
		lines = append(lines, fmt.Sprintf("u%d,First%d,Last%d,%s", i, i, i, email))
	}
	path := e.writeFile(t, "many.csv", csvLines(lines...))
	out, _, err := runStreams(t, "users", "import", "--tenant", "acme", path)
	assertPartial(t, err, "1 problem not saved; see "+path+".errors.csv")
	if !strings.HasPrefix(out, "rows: 250 (3 chunks)\ncreated: 250\nupdated: 0\nunchanged: 0\n") {
		t.Fatalf("report = %q", out)
	}
	if got, want := readErrorsFile(t, path), csvLines("row,user_name,email,error_reason", "151,u150,broken@,Invalid email 'broken@'"); got != want {
		t.Fatalf("errors file = %q, want %q", got, want)
	}
	if got := userNames(t, e.acme); len(got) != 249 {
		t.Fatalf("%d users saved, want 249", len(got))
	}
	assertEmptyTenant(t, e.globex)
}

func TestUsersImportBadFiles(t *testing.T) {
	e := newImportEnv(t)
	good := e.writeFile(t, "good.csv", csvLines("user_name,first_name,last_name,email", "ann,Ann,Archer,ann@example.com"))
	for _, tt := range []struct {
		name, file, content string
		args                []string
		want                string
	}{
		{name: "missing user_name", file: "a.csv", content: csvLines("first_name,email", "Ann,ann@example.com"),
			want: "{path}: missing column user_name"},
		{name: "semicolons", file: "b.csv", content: csvLines("user_name;email", "ann;ann@example.com"),
			want: "{path}: missing column user_name (the header holds ';': is the file separated by semicolons? use --delimiter ';')"},
		{name: "duplicate column", file: "c.csv", content: csvLines("user_name,email, Email", "ann,a@example.com,b@example.com"),
			want: "{path}: column email appears twice (columns 2 and 3)"},
		{name: "unterminated quote", file: "d.csv", content: csvLines("user_name,email", "ann,a@example.com", `bob,"b@example.com`),
			want: "{path}: line 3: malformed CSV: extraneous or missing \" in quoted-field"},
		{name: "bare quote", file: "e.csv", content: csvLines("user_name,email", `an"n,a@example.com`),
			want: "{path}: line 2: malformed CSV: bare \" in non-quoted-field"},
		{name: "cell count", file: "f.csv", content: csvLines("user_name,email", "ann,a@example.com", "bob", "cat,c@example.com"),
			want: "{path}: line 3: the row does not have as many cells as the header has columns (2)"},
		{name: "not UTF-8", file: "g.csv", content: csvLines("user_name,first_name", "ann,Ren\xe9e"),
			want: "{path}: line 2: the text is not UTF-8: save the file as \"CSV UTF-8\""},
		{name: "empty", file: "h.csv", content: "", want: "{path}: the file is empty: the first line must name the columns"},
		{name: "missing file", file: "", args: []string{"--tenant", "acme", "{dir}/nope.csv"},
			want: "open {dir}/nope.csv: no such file or directory"},
		{name: "errors file not writable", args: []string{"--tenant", "acme", "/proc/self/status"},
			want: "cannot write the errors file: open /proc/self/status.errors.csv: no such file or directory"},
		{name: "unknown tenant", args: []string{"--tenant", "nope", "{good}"}, want: "tenant nope not found"},
		{name: "no tenant", args: []string{"{good}"}, want: `required flag(s) "tenant" not set`},
		{name: "bad invitation policy", args: []string{"--tenant", "acme", "--send-invitations", "some", "{good}"},
			want: `--send-invitations must be new, all or no, got "some"`},
		{name: "bad delimiter", args: []string{"--tenant", "acme", "--delimiter", ";;", "{good}"},
			want: `--delimiter must be one character (or "tab"), got ";;"`},
		{name: "no file", args: []string{"--tenant", "acme"}, want: "accepts 1 arg(s), received 0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := ""
			if tt.file != "" {
				path = e.writeFile(t, tt.file, tt.content)
			}
			args := tt.args
			if args == nil {
				args = []string{"--tenant", "acme", path}
			}
			expand := strings.NewReplacer("{path}", path, "{dir}", e.dir, "{good}", good)
			for i := range args {
				args[i] = expand.Replace(args[i])
			}
			mustFail(t, expand.Replace(tt.want), append([]string{"users", "import"}, args...)...)
			if path != "" {
				assertNoErrorsFile(t, path)
			}
			assertEmptyTenant(t, e.acme)
		})
	}
}

func TestUsersImportDelimiterAndClearing(t *testing.T) {
	e := newImportEnv(t)
	path := e.writeFile(t, "semi.csv", csvLines(
		"user_name;first_name;last_name;email;mentor_email;lms_learner_id",
		"ann;Ann;Archer;ann@example.com;mentor@example.com;L-1",
	))
	mustRun(t, "users", "import", "--tenant", "acme", "--delimiter", ";", path)
	tabs := e.writeFile(t, "tabs.tsv", csvLines("user_name\tmentor_email\tlms_learner_id", "ANN\t[clear]\t"))
	out := mustRun(t, "users", "import", "--tenant", "acme", "--delimiter", "tab", tabs)
	if !strings.Contains(out, "updated: 1\n") {
		t.Fatalf("report = %q", out)
	}
	ann, err := store.GetUser(context.Background(), e.acme, "ann")
	if err != nil || ann.MentorEmail != "" || ann.LMSLearnerID != "L-1" || ann.Email != "ann@example.com" {
		t.Fatalf("ann = %+v, %v; want mentor_email cleared, lms_learner_id and email kept", ann, err)
	}
}
