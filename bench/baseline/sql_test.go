package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCopiedSQLMatchesTheStore fails when a statement the baseline copies
// from store/ (one the store composes at run time, so that it cannot be
// imported as a constant) is no longer there, word for word (whitespace
// aside): the store's SQL changed and sql.go must be re-aligned, or the
// benchmark compares learngate with different work.
func TestCopiedSQLMatchesTheStore(t *testing.T) {
	files, err := filepath.Glob("../../store/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("store sources: %v (%d files)", err, len(files))
	}
	var src strings.Builder
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
	}
	storeSrc := squash(src.String())
	for name, copied := range map[string]string{
		// Statements the store composes: their fixed parts.
		"pageUsersSQL":            "`SELECT %s FROM users WHERE %s\n\t\t\tORDER BY created_at DESC, id DESC LIMIT $%d OFFSET $%d`",
		"lookupNamesSQL":          "`SELECT t.n AS name, c.id FROM unnest($1::text[]) AS t(n) JOIN `+t.table+` c ON lower(c.name) = lower(t.n) FOR KEY SHARE OF c`",
		"enrolment filter (none)": `unfilteredEnrolments = "e.removed_at IS NULL"`,
		"afterMarker":             `const afterMarker = "/*after*/ true"`,
		"users filter (none)":     `where := []string{"true"}`,
	} {
		if !strings.Contains(storeSrc, squash(copied)) {
			t.Errorf("%s is no longer in store/: re-align bench/baseline/sql.go with the store's SQL", name)
		}
	}
}

// squash collapses every run of white space into one space.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }
