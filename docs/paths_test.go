package docs

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is the repository's root, seen from this package's folder
// (go test runs in it).
const repoRoot = ".."

// backticked matches inline code spans of Markdown.
var backticked = regexp.MustCompile("`([^`\n]+)`")

// pathLike matches a relative path as architecture.md writes one: folders
// end in "/", files may use * as in a glob.
var pathLike = regexp.MustCompile(`^[A-Za-z0-9_.*-]+(/[A-Za-z0-9_.*-]+)*/?$`)

// fileLike matches a bare file name with an extension the repository uses.
var fileLike = regexp.MustCompile(`^[A-Za-z0-9_-]+\.(go|sql|md|sh|yaml|yml|json|mod)$`)

// proseLines returns the lines of a Markdown file outside fenced code blocks.
func proseLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	fenced := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			lines = append(lines, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// namedPaths returns the paths architecture.md names in backticks: every
// code span with a "/" that does not start with one (a URL path), and
// every bare file name (which must then be at the repository's root).
func namedPaths(t *testing.T) []string {
	t.Helper()
	var paths []string
	for _, line := range proseLines(t, "architecture.md") {
		for _, m := range backticked.FindAllStringSubmatch(line, -1) {
			span := m[1]
			switch {
			case strings.HasPrefix(span, "/"):
			case strings.Contains(span, "/") && pathLike.MatchString(span):
				paths = append(paths, span)
			case fileLike.MatchString(span):
				paths = append(paths, span)
			}
		}
	}
	return paths
}

// TestArchitecturePathsExist: every file, folder or glob architecture.md
// names in backticks exists in the repository.
func TestArchitecturePathsExist(t *testing.T) {
	paths := namedPaths(t)
	if len(paths) < 100 {
		t.Fatalf("architecture.md names %d paths; the check reads it wrong", len(paths))
	}
	for _, p := range paths {
		matches, err := filepath.Glob(filepath.Join(repoRoot, filepath.FromSlash(strings.TrimSuffix(p, "/"))))
		if err != nil {
			t.Errorf("architecture.md: %q: %v", p, err)
			continue
		}
		if len(matches) == 0 {
			t.Errorf("architecture.md names `%s`, which does not exist", p)
		}
	}
}

// TestArchitectureNamesEveryPackage: architecture.md names every package of
// the module (folders with a go.mod of their own are other modules) (as `dir/`, the root package by `errors.go`) and every file of
// store/ and handlers/, so that a package or file added or moved makes the
// page change with it.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	paths := namedPaths(t)
	named := func(p string) bool {
		for _, n := range paths {
			if ok, _ := filepath.Match(n, p); ok || n == p {
				return true
			}
		}
		return false
	}
	reported := map[string]bool{}
	skip := map[string]bool{".data": true, ".git": true, "node_modules": true, "testdata": true}
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "." {
				return nil
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil || skip[d.Name()] {
				return filepath.SkipDir // another module (bench/, clients/go/, ...), or no code
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		switch {
		case dir == ".":
			if !named(rel) {
				t.Errorf("architecture.md does not name the root package's `%s`", rel)
			}
		case dir == "store" || dir == "handlers":
			if !named(rel) {
				t.Errorf("architecture.md does not name `%s`", rel)
			}
		}
		if dir != "." && !named(dir+"/") && !reported[dir] {
			reported[dir] = true
			t.Errorf("architecture.md does not name the package `%s/`", dir)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
