package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// storeDir is the store package's folder, seen from this package's.
const storeDir = "../../store"

// TestCopiedSQLMatchesTheStore fails when the baseline's SQL drifts from
// the store's: the store's SQL changed and store_sql.go or sql.go must be
// re-aligned, or the benchmark compares learngate with different work. It
// reads store/'s source as text (go/parser), so that the store exports
// nothing for the benchmark:
//   - each statement the baseline runs as the store does (store_sql.go)
//     must equal the store's constant of that name, evaluated from its
//     literals, white space aside (the lists' statements it takes from the
//     list engine itself, store/list, so they cannot drift);
//   - each statement the store composes at run time (a WHERE clause or a
//     table name filled in) must still hold the fixed parts sql.go copies.
func TestCopiedSQLMatchesTheStore(t *testing.T) {
	src, err := parseStore(storeDir)
	if err != nil {
		t.Fatal(err)
	}
	for name, copied := range map[string]string{
		"scopeSQL": scopeSQL, "userColumns": userColumns, "topicEnrolmentSelect": topicEnrolmentSelect,
		"topicEnrolmentSkillsSQL": topicEnrolmentSkillsSQL, "topicCategoriesSQL": topicCategoriesSQL,
		"teamLeadersSQL": teamLeadersSQL, "insertKnowledgesSQL": insertKnowledgesSQL,
		"webhookTargetsSQL": webhookTargetsSQL, "userLinksSQL": userLinksSQL, "lookupUsersSQL": lookupUsersSQL,
		"insertKnowledgeSkillsSQL": insertKnowledgeSkillsSQL, "insertKnowledgeCategoriesSQL": insertKnowledgeCategoriesSQL,
		"customFieldsSQL": customFieldsSQL, "customFieldNamesSQL": customFieldNamesSQL,
		"batchUsersSQL": batchUsersSQL, "allocateKnowledgeIDsSQL": allocateKnowledgeIDsSQL,
	} {
		stored, err := src.constant(name)
		if err != nil {
			t.Errorf("%s: %v: re-align bench/baseline/store_sql.go with the store", name, err)
			continue
		}
		if squash(stored) != squash(copied) {
			t.Errorf("%s differs from the store's:\n%s\nstore:\n%s", name, copied, stored)
		}
	}
	storeText := squash(storeFilesText(t))
	for name, copied := range map[string]string{
		// Statements the store composes: their fixed parts.
		"lookupNamesSQL": "`SELECT t.n AS name, c.id FROM unnest($1::text[]) AS t(n) JOIN `+t.table+` c ON lower(c.name) = lower(t.n) FOR KEY SHARE OF c`",
	} {
		if !strings.Contains(storeText, squash(copied)) {
			t.Errorf("%s is no longer in store/: re-align bench/baseline/sql.go with the store's SQL", name)
		}
	}
}

// storeFilesText is the text of store/'s non-test Go files, one after another.
func storeFilesText(t *testing.T) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(storeDir, "*.go"))
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
	return src.String()
}

// squash collapses every run of white space into one space.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }
