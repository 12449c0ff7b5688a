package store_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	osexec "os/exec"
	"regexp"
	"strings"
	"testing"

	"learngate/store/storetest"
)

var updateTenantSchema = flag.Bool("update", false, "rewrite store/migrations/tenant_schema.sql from the tenant migrations")

// The schemas the test makes: one by the migrations, one by the script.
const (
	migratedSchema = "tenant_999999001"
	scriptedSchema = "tenant_999999002"
	// placeholder is store's tenantSchemaPlaceholder.
	placeholder = "tenant_schema_placeholder"
)

// TestTenantSchemaScript proves that a new tenant's schema, made by the
// one script at the current version (store.CreateTenantSchema), is exactly
// the schema the tenant migrations give: pg_dump's account of the two is
// the same, and so are goose's records of applied migrations. It also
// proves the embedded script is pg_dump's account of a migrated schema
// (with -update it rewrites the script instead: after a new tenant
// migration, `go test ./store -run TestTenantSchemaScript -update`).
func TestTenantSchemaScript(t *testing.T) {
	t.Parallel()
	if storetest.Citus(t) {
		t.Skip("the script is pg_dump's account of a plain PostgreSQL schema; on Citus the coordinator's catalog holds Citus's own objects too (the creation path itself runs in every Citus test)")
	}
	ctx := context.Background()
	db, url := storetest.NewDB(t)
	if err := db.MigrateTenant(ctx, migratedSchema); err != nil {
		t.Fatal(err)
	}
	migrated := dumpSchema(t, url, migratedSchema)
	version := count(t, db, `SELECT max(version_id) FROM `+migratedSchema+`.goose_db_version WHERE is_applied`)
	// The script leaves goose's version table to goose.
	want := fmt.Sprintf("-- learngate tenant schema at migration %d\n", version) +
		dumpSchema(t, url, migratedSchema, "--exclude-table="+migratedSchema+".goose_db_version")
	const path = "migrations/tenant_schema.sql"
	if *updateTenantSchema {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Skipf("wrote %s: build again (it is embedded) and run the test without -update", path)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("%s is not what the tenant migrations give (first difference at line %d): "+
			"run go test ./store -run TestTenantSchemaScript -update", path, firstDifference(string(got), want))
	}

	if err := db.CreateTenantSchema(ctx, scriptedSchema); err != nil {
		t.Fatalf("CreateTenantSchema: %v", err)
	}
	if scripted := dumpSchema(t, url, scriptedSchema); scripted != migrated {
		t.Errorf("the scripted schema differs from the migrated one at line %d", firstDifference(scripted, migrated))
	}
	applied := func(schema string) string {
		var s string
		if err := db.Pool().Get(&s, `SELECT string_agg(version_id::text, ',' ORDER BY version_id) FROM `+schema+
			`.goose_db_version WHERE is_applied`); err != nil {
			t.Fatal(err)
		}
		return s
	}
	if a, b := applied(scriptedSchema), applied(migratedSchema); a != b {
		t.Errorf("goose records of the scripted schema %s, of the migrated one %s", a, b)
	}
	// A migration run after the script finds nothing to do.
	if err := db.MigrateTenant(ctx, scriptedSchema); err != nil {
		t.Fatalf("MigrateTenant after the script: %v", err)
	}
	if a, b := applied(scriptedSchema), applied(migratedSchema); a != b {
		t.Errorf("after MigrateTenant, goose records of the scripted schema %s, of the migrated one %s", a, b)
	}
}

// dumpSchema is pg_dump's account of schema (no owners, no privileges),
// without its header, settings and comments, the schema's name replaced by
// the placeholder.
func dumpSchema(t *testing.T, url, schema string, options ...string) string {
	t.Helper()
	args := append([]string{"--schema-only", "--no-owner", "--no-privileges", "--schema=" + schema}, options...)
	out, err := osexec.Command("pg_dump", append(args, url)...).Output()
	if err != nil {
		t.Fatalf("pg_dump (PostgreSQL's client tools, installed with the server): %v", err)
	}
	var kept []string
	blank := false
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasPrefix(line, "--"), strings.HasPrefix(line, `\restrict`), strings.HasPrefix(line, `\unrestrict`),
			strings.HasPrefix(line, "SET "), strings.HasPrefix(line, "SELECT pg_catalog.set_config('search_path'"),
			strings.HasPrefix(line, "CREATE SCHEMA "):
			continue
		case strings.TrimSpace(line) == "":
			if !blank && len(kept) > 0 {
				kept = append(kept, "")
			}
			blank = true
			continue
		}
		blank = false
		kept = append(kept, schemaName.ReplaceAllString(line, placeholder))
	}
	return strings.TrimSpace(strings.Join(kept, "\n")) + "\n"
}

// schemaName matches the test's schema names.
var schemaName = regexp.MustCompile(`\btenant_99999900[12]\b`)

// firstDifference is the line number where a and b first differ.
func firstDifference(a, b string) int {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return i + 1
		}
	}
	return min(len(al), len(bl)) + 1
}
