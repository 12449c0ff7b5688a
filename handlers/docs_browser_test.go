package handlers

import (
	"bytes"
	"errors"
	"html"
	"image/png"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReferencePageInBrowser loads /docs in headless Chromium
// (scripts/browser-test.sh installs it when missing) from a server on
// 127.0.0.1 and checks that Redoc rendered every operation of the document:
// each summary must be in the rendered DOM. The screenshot is kept at
// .data/docs-screenshot.png. The browser's requests go through the contract
// check like the other tests'. Skipped, visibly, when no browser can be had.
func TestReferencePageInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	t.Parallel()
	s := &Server{Metrics: NewMetrics(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	router, err := s.PublicRouter()
	if err != nil {
		t.Fatalf("public router: %v", err)
	}
	srv := httptest.NewServer(checkContract(t, router, publicListener))
	defer srv.Close()

	shot, err := filepath.Abs(filepath.Join("..", ".data", "docs-screenshot.png"))
	if err != nil {
		t.Fatal(err)
	}
	dom := filepath.Join(t.TempDir(), "docs.html")
	out, err := exec.Command("bash", filepath.Join("..", "scripts", "browser-test.sh"), srv.URL+"/docs", dom, shot).CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 3 {
		t.Skipf("no browser: %s", out)
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
	if inked := inkedShare(t, shot); inked < 0.02 {
		t.Errorf("screenshot %s is blank: %.1f%% of its pixels are not white", shot, inked*100)
	}
}

// inkedShare is the share of a PNG's pixels that are not (nearly) white: a
// page that rendered nothing is all white.
func inkedShare(t *testing.T, path string) float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", path, err)
	}
	b := img.Bounds()
	inked := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				inked++
			}
		}
	}
	return float64(inked) / float64(b.Dx()*b.Dy())
}
