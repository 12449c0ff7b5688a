package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/jmoiron/sqlx"

	"learngate"
	"learngate/store"
	"learngate/store/storetest"
)

// defaultSearchPath is PostgreSQL's search_path of a fresh session.
const defaultSearchPath = `"$user", public`

// txView is what one tenant transaction sees.
type txView struct {
	searchPath string
	backendPID int
	probe      []string
}

func TestTenantDBSearchPathIsTransactionLocal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := storetest.NewDB(t)
	alpha, _, _ := createTenant(t, db, "alpha")
	beta, _, _ := createTenant(t, db, "beta")
	tenants := []struct {
		tdb   *store.TenantDB
		probe string
	}{
		{mustTenantDB(t, db, alpha.Schema), "alpha's row"},
		{mustTenantDB(t, db, beta.Schema), "beta's row"},
	}
	// Unqualified names resolve in the tenant's schema: each gets its own probe table.
	for _, tn := range tenants {
		err := tn.tdb.Tx(ctx, func(tx *sqlx.Tx) error {
			if _, err := tx.ExecContext(ctx, `CREATE TABLE probe (v text NOT NULL)`); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO probe (v) VALUES ($1)`, tn.probe)
			return err
		})
		if err != nil {
			t.Fatalf("create probe in %s: %v", tn.tdb.Schema(), err)
		}
	}
	if tables := tableNames(t, db, "public"); slices.Contains(tables, "probe") {
		t.Fatalf("probe table created in public: %v", tables)
	}

	// One connection: every transaction below runs on the same PostgreSQL session.
	db.SetMaxOpenConns(1)
	pid := pooledBackendPID(t, db)

	for i := range 50 {
		for _, tn := range tenants {
			var v txView
			read := func(tx *sqlx.Tx) error {
				if err := tx.GetContext(ctx, &v.searchPath, `SHOW search_path`); err != nil {
					return err
				}
				if err := tx.GetContext(ctx, &v.backendPID, `SELECT pg_backend_pid()`); err != nil {
					return err
				}
				return tx.SelectContext(ctx, &v.probe, `SELECT v FROM probe ORDER BY v`)
			}
			var err error
			if i%2 == 0 {
				err = tn.tdb.Tx(ctx, read)
			} else {
				err = tn.tdb.ReadTx(ctx, read)
			}
			if err != nil {
				t.Fatalf("round %d, %s: %v", i, tn.tdb.Schema(), err)
			}
			if v.searchPath != tn.tdb.Schema() {
				t.Fatalf("round %d: search_path in %s's tx = %q", i, tn.tdb.Schema(), v.searchPath)
			}
			if v.backendPID != pid {
				t.Fatalf("round %d: tx ran on backend %d, want the single pooled backend %d", i, v.backendPID, pid)
			}
			if !slices.Equal(v.probe, []string{tn.probe}) {
				t.Fatalf("round %d: %s's tx sees probe rows %q, want only %q", i, tn.tdb.Schema(), v.probe, tn.probe)
			}
			// After the transaction the same session is back to the default.
			var path string
			if err := db.Pool().GetContext(ctx, &path, `SHOW search_path`); err != nil {
				t.Fatalf("show search_path: %v", err)
			}
			if path != defaultSearchPath {
				t.Fatalf("round %d: after %s's tx the pooled connection has search_path %q, want %q",
					i, tn.tdb.Schema(), path, defaultSearchPath)
			}
			if got := pooledBackendPID(t, db); got != pid {
				t.Fatalf("round %d: pool switched backend %d → %d; the test no longer proves reuse", i, pid, got)
			}
		}
	}
}

func TestTenantDBRollsBackFailedTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := storetest.NewDB(t)
	tn, _, _ := createTenant(t, db, "alpha")
	tdb := mustTenantDB(t, db, tn.Schema)
	boom := errors.New("boom")

	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO roles (name) VALUES ('Teacher')`); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Tx error = %v, want fn's error", err)
	}
	if n := count(t, db, `SELECT count(*) FROM `+tn.Schema+`.roles`); n != 0 {
		t.Fatalf("%d roles after a failed transaction, want 0", n)
	}

	err = tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO roles (name) VALUES ('Teacher')`)
		return err
	})
	if err == nil {
		t.Fatal("ReadTx allowed an INSERT")
	}
	if n := count(t, db, `SELECT count(*) FROM `+tn.Schema+`.roles`); n != 0 {
		t.Fatalf("%d roles after a write in ReadTx, want 0", n)
	}
}

func TestTenantDBTranslatesErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := storetest.NewDB(t)
	tn, _, _ := createTenant(t, db, "alpha")
	tdb := mustTenantDB(t, db, tn.Schema)

	tests := []struct {
		name string
		fn   func(tx *sqlx.Tx) error
		want learngate.Code
	}{
		{"no rows is NotFound", func(tx *sqlx.Tx) error {
			var name string
			return tx.GetContext(ctx, &name, `SELECT name FROM roles WHERE id = -1`)
		}, learngate.NotFound},
		{"unique violation is Conflict", func(tx *sqlx.Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO roles (name) VALUES ('Teacher'), ('teacher')`)
			return err
		}, learngate.Conflict},
		{"learngate error passes through", func(tx *sqlx.Tx) error {
			return learngate.Errorf(learngate.Invalid, "bad input")
		}, learngate.Invalid},
		{"other SQL error stays internal", func(tx *sqlx.Tx) error {
			_, err := tx.ExecContext(ctx, `SELECT no_such_column FROM roles`)
			return err
		}, learngate.Internal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tdb.Tx(ctx, tt.fn)
			if err == nil {
				t.Fatal("Tx returned nil")
			}
			if got := learngate.ErrorCode(err); got != tt.want {
				t.Fatalf("code = %s, want %s (err: %v)", got, tt.want, err)
			}
		})
	}

	t.Run("conflict names the constraint", func(t *testing.T) {
		err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO groups (name) VALUES ('A'), ('a')`)
			return err
		})
		if got := store.ConstraintName(err); got != "groups_name" {
			t.Fatalf("ConstraintName = %q, want groups_name (err: %v)", got, err)
		}
	})
}

func TestTenantRefusesNonTenantSchemas(t *testing.T) {
	t.Parallel()
	db, _ := storetest.NewDB(t)
	for _, schema := range []string{
		"public", "", "tenant_", "tenant_x", "TENANT_1", "tenant_1 ", " tenant_1", "tenant_-1",
		"pg_catalog", "information_schema", "tenant_1; DROP SCHEMA public", "tenant_1,public", `"tenant_1"`,
	} {
		t.Run(schema, func(t *testing.T) {
			tdb, err := db.Tenant(schema)
			if err == nil {
				t.Fatalf("Tenant(%q) = %v, want an error", schema, tdb.Schema())
			}
			if tdb != nil {
				t.Fatalf("Tenant(%q) returned a handle with its error", schema)
			}
		})
	}
	t.Run("tenant_42 is accepted", func(t *testing.T) {
		tdb, err := db.Tenant("tenant_42")
		if err != nil {
			t.Fatalf("Tenant(tenant_42): %v", err)
		}
		if tdb.Schema() != "tenant_42" {
			t.Fatalf("Schema() = %q", tdb.Schema())
		}
	})
}

func mustTenantDB(tb testing.TB, db *store.DB, schema string) *store.TenantDB {
	tb.Helper()
	tdb, err := db.Tenant(schema)
	if err != nil {
		tb.Fatalf("Tenant(%s): %v", schema, err)
	}
	return tdb
}

func pooledBackendPID(tb testing.TB, db *store.DB) int {
	tb.Helper()
	var pid int
	if err := db.Pool().Get(&pid, `SELECT pg_backend_pid()`); err != nil {
		tb.Fatalf("backend pid: %v", err)
	}
	return pid
}
