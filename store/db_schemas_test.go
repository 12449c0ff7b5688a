package store

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

// TestConnMaxSchemasReplacesTheConnection: a pooled connection serves up
// to ConnMaxSchemas distinct tenant schemas, any number of times each, and
// is replaced (a new backend) once it served one more.
func TestConnMaxSchemasReplacesTheConnection(t *testing.T) {
	t.Parallel()
	url := os.Getenv("LEARNGATE_TEST_DATABASE_URL")
	if url == "" {
		url = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	ctx := context.Background()
	db, err := OpenWith(ctx, url, Options{ConnMaxSchemas: 3, ConnMaxLifetime: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	// backendIn is the backend pid of a transaction scoped to schema (which
	// need not exist: search_path may name a missing schema).
	backendIn := func(schema string) int {
		t.Helper()
		tdb, err := db.Tenant(schema)
		if err != nil {
			t.Fatal(err)
		}
		var pid int
		if err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error { return tx.Get(&pid, `SELECT pg_backend_pid()`) }); err != nil {
			t.Fatal(err)
		}
		return pid
	}
	first := backendIn("tenant_900001")
	for _, schema := range []string{"tenant_900002", "tenant_900001", "tenant_900003", "tenant_900002", "tenant_900003"} {
		if pid := backendIn(schema); pid != first {
			t.Fatalf("%s ran on backend %d, want %d: three schemas are within the limit", schema, pid, first)
		}
	}
	backendIn("tenant_900004") // the fourth: the connection goes when returned
	if pid := backendIn("tenant_900001"); pid == first {
		t.Fatalf("backend %d kept after serving four schemas with a limit of three", pid)
	}
}
