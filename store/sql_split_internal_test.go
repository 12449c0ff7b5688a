package store

import (
	"slices"
	"testing"
)

func TestSplitStatements(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		want         []string
	}{
		{"plain", "CREATE TABLE a (x int);\nCREATE INDEX a_x ON a (x);\n", []string{"CREATE TABLE a (x int)", "CREATE INDEX a_x ON a (x)"}},
		{"no final semicolon", "SELECT 1; SELECT 2", []string{"SELECT 1", "SELECT 2"}},
		{"semicolon in a string", "SELECT 'a;b'; SELECT 'it''s;'", []string{"SELECT 'a;b'", "SELECT 'it''s;'"}},
		{"semicolon in an identifier", `CREATE TABLE "a;b" (x int);`, []string{`CREATE TABLE "a;b" (x int)`}},
		{"dollar quotes", "CREATE FUNCTION f() RETURNS int AS $$ BEGIN RETURN 1; END $$ LANGUAGE plpgsql;\nSELECT 1;",
			[]string{"CREATE FUNCTION f() RETURNS int AS $$ BEGIN RETURN 1; END $$ LANGUAGE plpgsql", "SELECT 1"}},
		{"tagged dollar quotes holding $$", "AS $_$ x; $$ y; $_$; SELECT 2;", []string{"AS $_$ x; $$ y; $_$", "SELECT 2"}},
		{"comments", "-- a; comment\nSELECT 1; /* b; */ SELECT 2;", []string{"-- a; comment\nSELECT 1", "/* b; */ SELECT 2"}},
		{"positional parameter is no quote", "SELECT $1; SELECT 2;", []string{"SELECT $1", "SELECT 2"}},
		{"empty", " ;\n; ", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := splitStatements(tc.script); !slices.Equal(got, tc.want) {
				t.Errorf("splitStatements(%q) = %q, want %q", tc.script, got, tc.want)
			}
		})
	}
}

// TestTenantSchemaScriptSplits checks the embedded script splits into
// statements that each end where pg_dump ended one (a line ending in ;).
func TestTenantSchemaScriptSplits(t *testing.T) {
	stmts := splitStatements(tenantSchemaScript)
	if len(stmts) < 100 {
		t.Fatalf("the tenant schema script split into %d statements, want over 100", len(stmts))
	}
	for _, s := range stmts {
		if s == "" || s[len(s)-1] == ';' {
			t.Errorf("statement %q", s)
		}
	}
}
