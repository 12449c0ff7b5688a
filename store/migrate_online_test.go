package store_test

import (
	"context"
	"testing"
	"time"

	"learngate/store"
	"learngate/store/storetest"
)

// olderTenantSchema makes schema as a binary before the online migrations
// left it (tenant migration 00019, the last one of release bb18b49), with
// two users far enough apart that their values fall in different batches
// of the back-fill, and a value for each.
func olderTenantSchema(t *testing.T, db *store.DB, schema string) {
	t.Helper()
	if err := db.MigrateTenantTo(context.Background(), schema, 19); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO ` + schema + `.users (id, user_name, first_name, last_name, email, timezone, created_at)
			VALUES (1, 'ann', 'Ann', 'A', 'ann@example.com', 'UTC', '2020-01-02T03:04:05Z'),
			       (4500, 'bob', 'Bob', 'B', 'bob@example.com', 'UTC', '2021-06-07T08:09:10Z')`,
		`INSERT INTO ` + schema + `.custom_fields (id, name, field_type) VALUES (1, 'site', 'string')`,
		`INSERT INTO ` + schema + `.user_custom_values (user_id, field_id, value) VALUES (1, 1, 'north'), (4500, 1, 'south')`,
	} {
		if _, err := db.Pool().Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// TestOnlineMigrationsFillExistingRows: migrations 00020-00022 run as steps
// of their own (store/migrations_tenant_online.go). On a schema an older
// binary made, with rows, they fill user_created_at of every existing
// value in batches, end with the column NOT NULL and no helper constraint
// or half-built index left, and build the indexes valid. Another tenant's
// schema, still at the older version, is left as it was.
func TestOnlineMigrationsFillExistingRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := storetest.NewDB(t)
	const schema, other = "tenant_900001", "tenant_900002"
	olderTenantSchema(t, db, schema)
	olderTenantSchema(t, db, other)

	if err := db.MigrateTenant(ctx, schema); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT count(*) FROM `+schema+`.user_custom_values v JOIN `+schema+`.users u ON u.id = v.user_id
		WHERE v.user_created_at = u.created_at`); n != 2 {
		t.Errorf("%d of 2 values carry their user's created_at", n)
	}
	if n := count(t, db, `SELECT count(*) FROM pg_attribute WHERE attrelid = $1::regclass AND attname = 'user_created_at' AND attnotnull`,
		schema+".user_custom_values"); n != 1 {
		t.Error("user_created_at is not NOT NULL")
	}
	if n := count(t, db, `SELECT count(*) FROM pg_constraint WHERE conrelid = $1::regclass AND conname = 'user_custom_values_user_created_at_set'`,
		schema+".user_custom_values"); n != 0 {
		t.Error("the helper CHECK constraint is left")
	}
	var indexes []string
	if err := db.Pool().Select(&indexes, `SELECT c.relname || CASE WHEN i.indisvalid THEN '' ELSE ' (invalid)' END
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relname IN ('users_updated', 'user_custom_values_value', 'user_custom_values_long')
			OR n.nspname = $1 AND (c.relname LIKE '%\_new' OR NOT i.indisvalid)
		ORDER BY 1`, schema); err != nil {
		t.Fatal(err)
	}
	if want := "[user_custom_values_long user_custom_values_value users_updated]"; indexesString(indexes) != want {
		t.Errorf("indexes %v, want %s, all valid, none left as _new", indexes, want)
	}
	// A value written after the migration gets its user's created_at from the trigger.
	if _, err := db.Pool().Exec(`INSERT INTO ` + schema + `.user_custom_values (user_id, field_id, value) VALUES (4500, 1, 'east')
		ON CONFLICT (user_id, field_id) DO UPDATE SET value = EXCLUDED.value`); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT count(*) FROM `+schema+`.user_custom_values WHERE user_created_at = '2021-06-07T08:09:10Z'`); n != 1 {
		t.Errorf("bob's value: %d rows with his created_at, want 1", n)
	}
	if n := count(t, db, `SELECT count(*) FROM information_schema.columns WHERE table_schema = $1
		AND table_name = 'user_custom_values' AND column_name = 'user_created_at'`, other); n != 0 {
		t.Errorf("migrating %s changed %s too", schema, other)
	}
}

// TestMigrationBehindALongReadDoesNotBlockReaders: a migration that needs
// an exclusive lock on user_custom_values while a long read holds the
// table gives up waiting after a short lock_timeout and tries again,
// instead of queueing every later reader behind it. A reader that starts
// after the migration began answers within its 3 s statement_timeout
// although the long read lasts 5 s; the migration completes once the long
// read ends.
func TestMigrationBehindALongReadDoesNotBlockReaders(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := storetest.NewDB(t)
	const schema = "tenant_900003"
	olderTenantSchema(t, db, schema)

	long, err := db.Pool().BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer long.Rollback()
	if _, err := long.Exec(`SELECT count(*) FROM ` + schema + `.user_custom_values`); err != nil {
		t.Fatal(err)
	}
	migrated := make(chan error, 1)
	go func() { migrated <- db.MigrateTenant(ctx, schema) }()
	time.Sleep(time.Second) // the migration is now trying for its lock

	reader, err := db.Pool().BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Rollback()
	if _, err := reader.Exec(`SET LOCAL statement_timeout = '3s'`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := reader.Get(&n, `SELECT count(*) FROM `+schema+`.user_custom_values`); err != nil || n != 2 {
		t.Fatalf("a reader during the migration: %d rows, %v; want 2 rows within its statement_timeout", n, err)
	}
	reader.Rollback()
	select {
	case err := <-migrated:
		t.Fatalf("the migration ended (%v) while the long read still held the table", err)
	case <-time.After(4 * time.Second):
	}
	long.Rollback()
	select {
	case err := <-migrated:
		if err != nil {
			t.Fatalf("the migration after the long read: %v", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the migration did not complete within 2 minutes of the long read's end")
	}
	if n := count(t, db, `SELECT count(*) FROM `+schema+`.user_custom_values WHERE user_created_at IS NOT NULL`); n != 2 {
		t.Errorf("%d of 2 values filled after the migration", n)
	}
}

// indexesString formats index names as fmt does a slice.
func indexesString(names []string) string {
	s := "["
	for i, n := range names {
		if i > 0 {
			s += " "
		}
		s += n
	}
	return s + "]"
}
