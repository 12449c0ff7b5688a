//go:build slow

package handlers

import (
	"bytes"
	"errors"
	"html"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"learngate/handlers/handlertest"
	"learngate/handlers/httpx"
)

// TestReferencePageInBrowser loads /docs in headless Chromium from a server
// on 127.0.0.1 and checks that Redoc rendered every operation of the
// document: each summary must be in the rendered DOM, and the screenshot
// (under the test's temporary folder) must not be blank. The browser's
// requests go through the contract check like the other tests'. The test
// installs nothing: without a browser on PATH it is skipped, visibly, with
// the command that installs one (`make browser-install`, docs/operations.md).
func TestReferencePageInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	t.Parallel()
	s := &Server{Gate: &httpx.Gate{Metrics: httpx.NewMetrics(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}}
	router, err := s.PublicRouter()
	if err != nil {
		t.Fatalf("public router: %v", err)
	}
	srv := httptest.NewServer(checkContract(t, router, publicListener))
	defer srv.Close()

	dir := t.TempDir()
	dom, shot := filepath.Join(dir, "docs.html"), filepath.Join(dir, "docs-screenshot.png")
	out, err := exec.Command("bash", filepath.Join("..", "scripts", "browser-test.sh"), srv.URL+"/docs", dom, shot).CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 3 {
		t.Skipf("no browser, run make browser-install: %s", bytes.TrimSpace(out))
	}
	if err != nil {
		t.Fatalf("browser-test.sh: %v\n%s", err, out)
	}
	t.Logf("%s", bytes.TrimSpace(out))

	raw, err := os.ReadFile(dom)
	if err != nil {
		t.Fatal(err)
	}
	text := html.UnescapeString(string(raw))
	if !strings.Contains(text, "learngate Public API") {
		t.Fatalf("the page did not render the document's title; DOM starts %.500s", text)
	}
	missing := 0
	for path, item := range mustContract(t).doc.Paths.Map() {
		for method, op := range item.Operations() {
			if !strings.Contains(text, op.Summary) {
				t.Errorf("the rendered page lacks %s %s (%q)", method, path, op.Summary)
				missing++
			}
		}
	}
	if missing == 0 && !strings.Contains(text, "Rate limit exceeded") {
		t.Error("the rendered page lacks the response examples")
	}
	if inked := handlertest.InkedShare(t, shot); inked < 0.02 {
		t.Errorf("screenshot %s is blank: %.1f%% of its pixels are not white", shot, inked*100)
	}
}

// TestBrowserTestScriptInstallsNothing runs scripts/browser-test.sh, as
// TestReferencePageInBrowser does, where no browser is on PATH but apt-get
// is (a stand-in that records being called): the script must ask for a skip
// (exit 3, naming make browser-install) and never call apt-get, so that
// `go test` does not install packages.
func TestBrowserTestScriptInstallsNothing(t *testing.T) {
	t.Parallel()
	bin, dir := t.TempDir(), t.TempDir()
	called := filepath.Join(dir, "apt-get-called")
	fake := "#!/bin/sh\necho \"$@\" >>" + called + "\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "apt-get"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	// The tools an install would use besides apt-get, and nothing else: no browser.
	for _, tool := range []string{"id", "mktemp", "tail", "rm", "sh"} {
		path, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("%s not found: %v", tool, err)
		}
		if err := os.Symlink(path, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skipf("bash not found: %v", err)
	}
	cmd := exec.Command(bash, filepath.Join("..", "scripts", "browser-test.sh"), "http://127.0.0.1:1/docs",
		filepath.Join(dir, "docs.html"), filepath.Join(dir, "docs.png"))
	cmd.Env = []string{"PATH=" + bin, "HOME=" + dir}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Errorf("browser-test.sh without a browser: %v, want exit status 3 (skip)\n%s", err, out)
	}
	if !strings.Contains(string(out), "make browser-install") {
		t.Errorf("the skip message does not name make browser-install: %s", out)
	}
	if log, err := os.ReadFile(called); err == nil {
		t.Errorf("browser-test.sh called apt-get %s", bytes.TrimSpace(log))
	}
}
