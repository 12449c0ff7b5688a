package shelldoc

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestExtract(t *testing.T) {
	md := "# Title\n" +
		"```sh\nnot tagged # => no\n```\n" +
		"```sh tour\n" +
		"A=1; f() { echo \"$1\"; }   # a note, not output\n" +
		"f $A                        # => 1\n" +
		"\n" +
		"# a note between commands\n" +
		"printf 'a\\nb\\n'\n" +
		"# => a\n" +
		"# => b\n" +
		"echo '{\"x\":[\n" +
		"  1, # not a comment\n" +
		"  2]}' | tr -d ' \\n'\n" +
		"# => {\"x\":[1,#notacomment2]}\n" +
		"echo one \\\n" +
		"  two                       # => one two\n" +
		"echo \"it's\" # => it's\n" +
		"```\n" +
		"~~~ and text\n" +
		"```go\nfmt.Println() # => not sh\n```\n" +
		"```sh tour\nsleep 0 &\n```\n"
	got, err := Extract("doc.md", []byte(md), "tour")
	if err != nil {
		t.Fatal(err)
	}
	want := []Command{
		{File: "doc.md", Line: 6, Text: "A=1; f() { echo \"$1\"; }   # a note, not output"},
		{File: "doc.md", Line: 7, Text: "f $A                        # => 1", Want: []string{"1"}},
		{File: "doc.md", Line: 10, Text: "printf 'a\\nb\\n'", Want: []string{"a", "b"}},
		{File: "doc.md", Line: 13, Text: "echo '{\"x\":[\n  1, # not a comment\n  2]}' | tr -d ' \\n'",
			Want: []string{`{"x":[1,#notacomment2]}`}},
		{File: "doc.md", Line: 17, Text: "echo one \\\n  two                       # => one two", Want: []string{"one two"}},
		{File: "doc.md", Line: 19, Text: "echo \"it's\" # => it's", Want: []string{"it's"}},
		{File: "doc.md", Line: 26, Text: "sleep 0 &"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Extract =\n%#v\nwant\n%#v", got, want)
	}
}

func TestExtractRefuses(t *testing.T) {
	for name, md := range map[string]string{
		"output before any command": "```sh tour\n# => 1\n```\n",
		"output after a note":       "```sh tour\necho 1\n# note\n# => 1\n```\n",
		"quote left open":           "```sh tour\necho 'a\n```\n",
		"block not closed":          "```sh tour\necho a\n",
	} {
		t.Run(name, func(t *testing.T) {
			if cmds, err := Extract("doc.md", []byte(md), "tour"); err == nil {
				t.Fatalf("Extract = %v, want an error", cmds)
			}
		})
	}
}

func TestMatch(t *testing.T) {
	for _, tt := range []struct {
		want, got string
		ok        bool
	}{
		{`{"a":1}`, `{"a":1}`, true},
		{`{"a":1}`, `{"a":2}`, false},
		{`{"a":1}`, `{"a":1}x`, false},
		{`{"id":...,"name":"x"}`, `{"id":12,"name":"x"}`, true},
		{`{"id":...,"name":"x"}`, `{"id":12,"name":"y"}`, false},
		{`{"total":1,...,"user_name":"dan",...}`, `{"total":1,"r":[{"id":1,"user_name":"dan","a":1}]}`, true},
		{`{"total":1,...,"user_name":"dan",...}`, `{"total":2,"r":[{"id":1,"user_name":"dan","a":1}]}`, false},
		{`{"total":1,...,"user_name":"dan",...}`, `{"total":1,"r":[{"id":1,"user_name":"ann","a":1}]}`, false},
		{`a...b...c`, "a\nxb\nyc", true},
		{`a...b...c`, "acb", false},
		{`...`, "", true},
		{`x...`, "", false},
	} {
		if got := Match(tt.want, tt.got); got != tt.ok {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.want, tt.got, got, tt.ok)
		}
	}
}

// TestRun: the commands share one shell (variables, functions, a job in
// the background and wait); each command's output is its own; a failing
// command and a wrong output are reported, and the commands after them
// still run.
func TestRun(t *testing.T) {
	md := "```sh tour\n" +
		"X=hello; say() { echo \"$1 $X\"; }\n" +
		"say to                          # => to hello\n" +
		"(sleep 0.2; echo late) &\n" +
		"# => late\n" +
		"echo now                        # => now\n" +
		"wait\n" +
		"echo oops >&2; false\n" +
		"echo 42                         # => 41\n" +
		"echo '{\"id\":7}'                 # => {\"id\":...}\n" +
		"sleep 30 &\n" +
		"```\n"
	cmds, err := Extract("doc.md", []byte(md), "tour")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	results, err := Run(ctx, cmds, t.TempDir(), os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Run took %s: the job left in the background was not stopped", d)
	}
	problems := Problems(results)
	if len(problems) != 2 ||
		problems[0] != "doc.md:8: exit status 1: echo oops >&2; false\nstdout: \nstderr: oops\n" ||
		!strings.HasPrefix(problems[1], "doc.md:9: echo 42") || !strings.Contains(problems[1], "printed: 42\nthe document shows: 41") {
		t.Fatalf("problems:\n%s", strings.Join(problems, "\n---\n"))
	}
	if results[2].Stdout != "late\n" || results[3].Stdout != "now\n" {
		t.Fatalf("background output %q, next command's %q", results[2].Stdout, results[3].Stdout)
	}
}

// TestRunStopsAtTheDeadline: a command that never ends is killed with the
// shell, and the commands after it are reported as not run.
func TestRunStopsAtTheDeadline(t *testing.T) {
	cmds := []Command{{File: "d", Line: 1, Text: "echo a"}, {File: "d", Line: 2, Text: "sleep 60"}, {File: "d", Line: 3, Text: "echo b"}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	results, err := Run(ctx, cmds, t.TempDir(), os.Environ())
	if err == nil || !results[0].Ran || results[1].Ran || results[2].Ran {
		t.Fatalf("err %v, results %+v", err, results)
	}
	if p := Problems(results); len(p) != 2 || p[0] != "d:2: did not run: sleep 60" {
		t.Fatalf("problems %q", p)
	}
}
