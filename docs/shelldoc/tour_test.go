package shelldoc

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// tourDocs are the documents whose ```sh tour blocks make the tour, in the
// order a newcomer follows them: the README's quick start, then
// docs/operations.md from the top.
var tourDocs = []string{"README.md", "docs/operations.md"}

// repoRoot is the repository's root, from this package's folder.
const repoRoot = "../.."

// tourCommands reads the tour's commands from the documents.
func tourCommands(t *testing.T) []Command {
	t.Helper()
	var cmds []Command
	for _, f := range tourDocs {
		md, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		c, err := Extract(f, md, "tour")
		if err != nil {
			t.Fatal(err)
		}
		if len(c) == 0 {
			t.Fatalf("%s has no ```sh tour block", f)
		}
		cmds = append(cmds, c...)
	}
	return cmds
}

// TestTourIsRunnable checks, without a server, what makes the tour paste
// as written: no placeholder to fill in (<job_id>, "<url>"), the CLI
// through scripts/learngate (learngate is not on PATH after make run), the
// quick start first, and most answers shown.
func TestTourIsRunnable(t *testing.T) {
	cmds := tourCommands(t)
	placeholder := regexp.MustCompile(`<[a-z_]+>|"<|…`)
	bareCLI := regexp.MustCompile(`(^|[;&|(]\s*|\$\()learngate\s`)
	shown := 0
	for _, c := range cmds {
		if p := placeholder.FindString(c.Text); p != "" {
			t.Errorf("%s: placeholder %q in a command to paste: %s", c.Where(), p, c.Text)
		}
		if bareCLI.MatchString(c.Text) {
			t.Errorf("%s: run the CLI as scripts/learngate: %s", c.Where(), c.Text)
		}
		if c.Want != nil {
			shown++
		}
	}
	if cmds[0].File != "README.md" || !strings.HasPrefix(cmds[0].Text, "KEY=$(cat .data/demo.key)") {
		t.Errorf("the tour does not start with the README's quick start: %s %s", cmds[0].Where(), cmds[0].Text)
	}
	if shown < len(cmds)*2/3 {
		t.Errorf("only %d of %d commands show their answer", shown, len(cmds))
	}
}

// TestDocsTour runs the quick start and the tour against make run's server
// and checks each answer the documents show. make docs-test
// (scripts/docs-test.sh) starts the server, resets the demo tenant and sets
// LEARNGATE_DOCS_TEST=1; without it the test is skipped.
func TestDocsTour(t *testing.T) {
	if os.Getenv("LEARNGATE_DOCS_TEST") != "1" {
		t.Skip("needs make run's server with a fresh demo tenant: run make docs-test")
	}
	cmds := tourCommands(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	results, err := Run(ctx, cmds, repoRoot, os.Environ())
	for _, p := range Problems(results) {
		t.Error(p)
	}
	if err != nil {
		t.Fatal(err)
	}
	shown := 0
	for _, c := range cmds {
		if c.Want != nil {
			shown++
		}
	}
	t.Logf("%d commands of %s run in %s, %d answers checked", len(cmds), strings.Join(tourDocs, " and "),
		time.Since(start).Round(time.Millisecond), shown)
}
