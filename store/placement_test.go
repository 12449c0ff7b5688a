package store_test

import (
	"context"
	"strings"
	"testing"

	"learngate"
	"learngate/store/storetest"
)

// TestEveryTenantTableHasAReplicaIdentity: a Citus cluster moves a tenant's
// schema online by logical replication, which needs every table to have a
// replica identity (a primary key, or FULL). A new table without one would
// make every move fail: this catches it.
func TestEveryTenantTableHasAReplicaIdentity(t *testing.T) {
	t.Parallel()
	db, _ := storetest.NewDB(t)
	tn, _, _ := createTenant(t, db, "acme")
	var missing []string
	err := db.Pool().Select(&missing, `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')
			AND c.relreplident <> 'f'
			AND NOT (c.relreplident = 'd' AND EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary))
			AND NOT (c.relreplident = 'i' AND EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisreplident))
		ORDER BY 1`, tn.Schema)
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Fatalf("tables of %s without a replica identity: %v", tn.Schema, missing)
	}
	if n := len(tableNames(t, db, tn.Schema)); n < 20 {
		t.Fatalf("%s has %d tables: the check looked at no migrated schema", tn.Schema, n)
	}
}

// TestSchemaPlacement: on a single PostgreSQL no schema has a node and no
// tenant can move; on a Citus cluster each tenant schema is on one worker,
// and MoveSchema moves it to the other, its rows with it, but not while a
// worker commits asynchronously.
func TestSchemaPlacement(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := storetest.NewDB(t)
	tn, _, _ := createTenant(t, db, "acme")
	nodes, err := db.SchemaNodes(ctx, []string{tn.Schema, "public"})
	if err != nil {
		t.Fatal(err)
	}
	workers, err := db.WorkerNodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !storetest.Citus(t) {
		if len(nodes) != 0 || len(workers) != 0 {
			t.Fatalf("single PostgreSQL: nodes %v, workers %v, want none", nodes, workers)
		}
		if _, err := db.ParseNode(ctx, "127.0.0.1:5451"); err == nil {
			t.Fatal("ParseNode on a single PostgreSQL: nil error, want Unprocessable")
		}
		if err := db.CheckMoveSafety(ctx); err != nil {
			t.Fatalf("CheckMoveSafety on a single PostgreSQL: %v, want nil (nothing to move)", err)
		}
		return
	}
	from, ok := nodes[tn.Schema]
	if !ok || len(nodes) != 1 || len(workers) < 2 {
		t.Fatalf("Citus: nodes %v (want %s alone), workers %v (want 2 or more)", nodes, tn.Schema, workers)
	}
	if _, err := db.Pool().Exec(`INSERT INTO ` + tn.Schema + `.groups (name) VALUES ('moved along')`); err != nil {
		t.Fatal(err)
	}
	to := workers[0]
	if to.Addr == from {
		to = workers[1]
	}
	// A worker that commits asynchronously would make the move lose the
	// writes of its last moments: every way to move refuses, and nothing moves.
	onWorkers := func(stmt string) {
		t.Helper()
		var ok bool
		if err := db.Pool().Get(&ok, `SELECT bool_and(success) FROM run_command_on_workers(format($1, current_database()))`, stmt); err != nil || !ok {
			t.Fatalf("%s on the workers: ok %v, err %v", stmt, ok, err)
		}
	}
	onWorkers(`ALTER DATABASE %I SET synchronous_commit = off`)
	for name, move := range map[string]func() error{
		"CheckMoveSafety": func() error { return db.CheckMoveSafety(ctx) },
		"MoveSchema":      func() error { return db.MoveSchema(ctx, tn.Schema, to) },
		"StartRebalance":  func() error { _, err := db.StartRebalance(ctx); return err },
	} {
		if err := move(); !learngate.IsCode(err, learngate.Unprocessable) || !strings.Contains(err.Error(), "synchronous_commit = off") {
			t.Errorf("%s with workers committing asynchronously: %v, want Unprocessable naming synchronous_commit", name, err)
		}
	}
	if nodes, err := db.SchemaNodes(ctx, []string{tn.Schema}); err != nil || nodes[tn.Schema] != from {
		t.Fatalf("after the refused moves: nodes %v, err %v, want %s still on %s", nodes, err, tn.Schema, from)
	}
	onWorkers(`ALTER DATABASE %I RESET synchronous_commit`)
	if err := db.CheckMoveSafety(ctx); err != nil {
		t.Fatalf("CheckMoveSafety with synchronous commits: %v", err)
	}
	if err := db.MoveSchema(ctx, tn.Schema, to); err != nil {
		t.Fatal(err)
	}
	nodes, err = db.SchemaNodes(ctx, []string{tn.Schema})
	if err != nil || nodes[tn.Schema] != to.Addr {
		t.Fatalf("after the move: nodes %v, err %v, want %s on %s", nodes, err, tn.Schema, to.Addr)
	}
	if n := count(t, db, `SELECT count(*) FROM `+tn.Schema+`.groups WHERE name = 'moved along'`); n != 1 {
		t.Fatalf("the moved schema has %d of its 1 group", n)
	}
}
