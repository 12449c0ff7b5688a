package docs

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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

// mdLink matches a Markdown link to a local Markdown file, with or without
// an anchor, or to an anchor of the same file.
var mdLink = regexp.MustCompile(`\]\(((?:[A-Za-z0-9_./-]+\.md)?)(?:#([A-Za-z0-9_-]+))?\)`)

// headingSlugs returns the anchors GitHub gives the headings of a Markdown
// file: lower case, punctuation dropped, spaces as hyphens, and -1, -2 ...
// after a repeated one.
func headingSlugs(t *testing.T, path string) map[string]bool {
	t.Helper()
	slugs := map[string]bool{}
	seen := map[string]int{}
	for _, line := range proseLines(t, path) {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && r != '→' && r != '—' && r != '–':
				b.WriteRune(r)
			}
		}
		slug := b.String()
		if n := seen[slug]; n > 0 {
			slugs[slug+"-"+strconv.Itoa(n)] = true
		} else {
			slugs[slug] = true
		}
		seen[slug]++
	}
	return slugs
}

// TestMarkdownLinksResolve: every link between the repository's Markdown
// files reaches a file that exists, and an anchor that one of its headings
// gives.
func TestMarkdownLinksResolve(t *testing.T) {
	var files []string
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".data" || d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slugs := map[string]map[string]bool{}
	anchored := 0
	for _, f := range files {
		for _, line := range proseLines(t, f) {
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target, anchor := f, m[2]
				if m[1] != "" {
					target = filepath.Join(filepath.Dir(f), filepath.FromSlash(m[1]))
				}
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s links to %s, which does not exist", f, m[1])
					continue
				}
				if anchor == "" {
					continue
				}
				if slugs[target] == nil {
					slugs[target] = headingSlugs(t, target)
				}
				anchored++
				if !slugs[target][anchor] {
					t.Errorf("%s links to %s#%s: no such heading", f, filepath.Base(target), anchor)
				}
			}
		}
	}
	if anchored < 100 {
		t.Errorf("checked %d links with an anchor; the check reads the files wrong", anchored)
	}
}

// decisionsRef matches a reference to headings of decisions.md as code
// comments and documents write it: decisions.md, "Heading" (or several
// quoted headings joined by commas, "and" or "or"), once comment markers
// and line breaks are folded into spaces.
var decisionsRef = regexp.MustCompile(`decisions\.md[,:]?\s*(?:section \d+,?\s*)?\(?((?:"[^"]{2,80}"(?:\s*(?:,|and|or)\s*)?)+)`)

// quoted matches one quoted heading inside a decisionsRef match.
var quoted = regexp.MustCompile(`"([^"]+)"`)

// commentBreak matches a line break with the comment marker of the next line.
var commentBreak = regexp.MustCompile(`\s*\n\s*(?://|--|#)?\s*`)

// staleDecisionsRefs are references that name no heading, in files this
// check's author may not change; each says what it should say.
var staleDecisionsRefs = map[string]string{}

// TestCodeReferencesNameDecisionsHeadings: every heading of decisions.md
// that a file of the repository names, as in (docs/decisions.md, "Error
// bodies"), exists, so that reorganising decisions.md cannot leave a
// comment pointing nowhere.
func TestCodeReferencesNameDecisionsHeadings(t *testing.T) {
	headings := map[string]bool{}
	for _, line := range proseLines(t, "decisions.md") {
		if strings.HasPrefix(line, "#") {
			headings[strings.TrimSpace(strings.TrimLeft(line, "#"))] = true
		}
	}
	refs := 0
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".data", "node_modules", "redoc", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		if filepath.Base(path) == "paths_test.go" {
			return nil // this file's own examples
		}
		switch filepath.Ext(path) {
		case ".go", ".sql", ".sh", ".md", ".yaml", ".yml":
		default:
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := commentBreak.ReplaceAllString(string(b), " ")
		for _, m := range decisionsRef.FindAllStringSubmatch(text, -1) {
			for _, q := range quoted.FindAllStringSubmatch(m[1], -1) {
				refs++
				if !headings[q[1]] && staleDecisionsRefs[q[1]] == "" {
					t.Errorf("%s refers to decisions.md, %q: no such heading", path, q[1])
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if refs < 100 {
		t.Errorf("found %d references to decisions.md headings; the check reads the files wrong", refs)
	}
}
