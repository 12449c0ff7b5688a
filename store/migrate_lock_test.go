package store_test

import (
	"context"
	"testing"
	"time"

	"learngate"
	"learngate/store"
	"learngate/store/storetest"
)

// The advisory lock keys of store/migrate.go: migrationLockKey (one key)
// and schemaLockSpace (the first of two keys, hashtext(schema) the second).
const (
	migrationLockKey = 0x6c6e67617465
	schemaLockSpace  = 0x6c6e67
)

// TestMigrateTenantLocks proves that tenant creations run side by side
// (MigrateTenant holds the migration lock shared), never beside a
// MigrateAll (which holds it exclusively), and never two at once for one
// schema. The test's own session stands in for the other party.
func TestMigrateTenantLocks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := storetest.NewDB(t)
	storetest.DropSpareSchemas(t, db) // the test looks for the schemas' creation
	a := newProvisioningTenant(t, db, "alpha")
	b := newProvisioningTenant(t, db, "bravo")
	c := newProvisioningTenant(t, db, "charlie")
	other, err := db.Pool().Connx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	lock := func(q string, args ...any) {
		t.Helper()
		if _, err := other.ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}

	// Another creation in progress (the migration lock shared, alpha's own
	// lock held): bravo migrates meanwhile, alpha waits for its lock.
	lock(`SELECT pg_advisory_lock_shared($1), pg_advisory_lock($2, hashtext($3))`, migrationLockKey, schemaLockSpace, a.Schema)
	if err := migrateWithin(t, db, b.Schema, time.Minute); err != nil {
		t.Fatalf("MigrateTenant(%s) beside another creation: %v", b.Schema, err)
	}
	alpha := migrateLater(db, a.Schema)
	waitForLockWaiter(t, db)
	assertStillWaiting(t, db, alpha, a.Schema)
	lock(`SELECT pg_advisory_unlock($1, hashtext($2))`, schemaLockSpace, a.Schema)
	if err := <-alpha; err != nil {
		t.Fatalf("MigrateTenant(%s) after its lock was freed: %v", a.Schema, err)
	}
	lock(`SELECT pg_advisory_unlock_shared($1)`, migrationLockKey)

	// A MigrateAll in progress (the migration lock exclusive): charlie waits.
	lock(`SELECT pg_advisory_lock($1)`, migrationLockKey)
	charlie := migrateLater(db, c.Schema)
	waitForLockWaiter(t, db)
	assertStillWaiting(t, db, charlie, c.Schema)
	lock(`SELECT pg_advisory_unlock($1)`, migrationLockKey)
	if err := <-charlie; err != nil {
		t.Fatalf("MigrateTenant(%s) after MigrateAll: %v", c.Schema, err)
	}
	for _, s := range []string{a.Schema, b.Schema, c.Schema} {
		if !schemaExists(t, db, s) {
			t.Errorf("schema %s missing", s)
		}
	}
}

// newProvisioningTenant stores a tenant without migrating its schema.
func newProvisioningTenant(t *testing.T, db *store.DB, slug string) learngate.Tenant {
	t.Helper()
	created, _, err := db.CreateTenant(context.Background(), store.NewTenant{Slug: slug, Name: slug, Timezone: "UTC", RateLimitPerMinute: 300}, newKey())
	if err != nil {
		t.Fatal(err)
	}
	return created
}

// migrateWithin runs MigrateTenant bounded by d.
func migrateWithin(t *testing.T, db *store.DB, schema string, d time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return db.MigrateTenant(ctx, schema)
}

// migrateLater runs MigrateTenant in the background (bounded by a minute).
func migrateLater(db *store.DB, schema string) <-chan error {
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		done <- db.MigrateTenant(ctx, schema)
	}()
	return done
}

// waitForLockWaiter waits (at most 30 s) until a session of the database
// polls for an advisory lock (store.pollAdvisoryLock: between two tries it
// sits idle in its transaction after a pg_try_advisory_xact_lock call),
// then half a second more.
func waitForLockWaiter(t *testing.T, db *store.DB) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if count(t, db, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
				AND state = 'idle in transaction' AND query LIKE 'SELECT pg_try_advisory_xact_lock%'`) > 0 {
			time.Sleep(500 * time.Millisecond)
			return
		}
	}
	t.Fatal("no session polls for an advisory lock after 30 s")
}

// assertStillWaiting fails when the migration of schema has ended or
// begun (its first step creates the schema).
func assertStillWaiting(t *testing.T, db *store.DB, done <-chan error, schema string) {
	t.Helper()
	select {
	case err := <-done:
		t.Fatalf("MigrateTenant(%s) ended (%v) while its lock was held elsewhere", schema, err)
	default:
	}
	if schemaExists(t, db, schema) {
		t.Fatalf("MigrateTenant(%s) created its schema while its lock was held elsewhere", schema)
	}
}
