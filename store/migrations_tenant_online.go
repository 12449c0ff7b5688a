package store

import (
	"context"
	"database/sql"

	"github.com/pressly/goose/v3"

	"learngate/store/list"
)

// The tenant migrations 00020-00022, written as online migrations
// (migrate_online.go) in Go, because their steps run in transactions of
// their own and outside any: a goose SQL migration runs in one
// transaction, which held an exclusive lock on user_custom_values while
// 00021 filled every row (every user list waited 2.9 s at 200,000 values,
// about 40 s at 3M). They end in the schema the SQL versions made:
// tenant_schema.sql and TestTenantSchemaScript hold them to it. A schema
// that applied the SQL versions is already there, and goose does not run
// them again.

// onlineTenantMigrations returns the Go tenant migrations of schema.
func onlineTenantMigrations(schema string) []*goose.Migration {
	step := func(up, down func(ctx context.Context, conn *sql.DB, schema string) error) (*goose.GoFunc, *goose.GoFunc) {
		return &goose.GoFunc{RunDB: func(ctx context.Context, conn *sql.DB) error { return up(ctx, conn, schema) }},
			&goose.GoFunc{RunDB: func(ctx context.Context, conn *sql.DB) error { return down(ctx, conn, schema) }}
	}
	up20, down20 := step(usersUpdatedKeysUp, usersUpdatedKeysDown)
	up21, down21 := step(customValuesUserCreatedUp, customValuesUserCreatedDown)
	up22, down22 := step(customValuesLongUp, customValuesLongDown)
	return []*goose.Migration{
		goose.NewGoMigration(20, up20, down20),
		goose.NewGoMigration(21, up21, down21),
		goose.NewGoMigration(22, up22, down22),
	}
}

// onlineTenantMigrationVersions are the versions of onlineTenantMigrations.
var onlineTenantMigrationVersions = []int64{20, 21, 22}

// usersUpdatedKeysUp (00020): GET /users filtered by updated_after or
// updated_before alone reads the matches' keys (created_at, id) from
// users_updated, index-only, sorts them and reads only the page's rows
// (sortedMatchesPageSQL). Without the keys in the index it would walk
// users_created and test each row.
func usersUpdatedKeysUp(ctx context.Context, conn *sql.DB, schema string) error {
	return swapIndexConcurrently(ctx, conn, schema, "users_updated", "ON users USING btree (updated_at) INCLUDE (created_at, id)")
}

func usersUpdatedKeysDown(ctx context.Context, conn *sql.DB, schema string) error {
	return swapIndexConcurrently(ctx, conn, schema, "users_updated", "ON users USING btree (updated_at)")
}

// customValuesUserCreatedUp (00021): each custom value carries its user's
// created_at, the users list's order key, so that GET /users filtered by
// one x- field reads the page's user ids from the values alone, in list
// order: an exact x-<number|date> value on user_custom_values_value
// (index-only, skipping the entries before the page), an x-<text|list>
// part on the trigram index and a sort of the matches' keys. A trigger
// fills the column on every insert, from the first step on, so rows
// written meanwhile (by any version) are filled; a user's created_at never
// changes (users_key_fixed, 00012). Steps: the column (nullable) and the
// trigger; the existing rows filled in batches of their own transactions;
// NOT NULL proved by a CHECK added NOT VALID and then validated (neither
// blocks reads or writes), so SET NOT NULL scans nothing; the index
// rebuilt concurrently under a new name and swapped.
func customValuesUserCreatedUp(ctx context.Context, conn *sql.DB, schema string) error {
	if err := onlineStep(ctx, conn, schema, func(tx *sql.Tx) error {
		return execEach(ctx, tx, addUserCreatedAtSQL...)
	}); err != nil {
		return err
	}
	if err := fillUserCreatedAt(ctx, conn, schema); err != nil {
		return err
	}
	// One statement per ALTER TABLE: Citus refuses ADD CONSTRAINT beside
	// other subcommands.
	for _, step := range [][]string{
		{`ALTER TABLE user_custom_values DROP CONSTRAINT IF EXISTS user_custom_values_user_created_at_set`,
			`ALTER TABLE user_custom_values ADD CONSTRAINT user_custom_values_user_created_at_set
				CHECK (user_created_at IS NOT NULL) NOT VALID`},
		{`ALTER TABLE user_custom_values VALIDATE CONSTRAINT user_custom_values_user_created_at_set`},
		{`ALTER TABLE user_custom_values ALTER COLUMN user_created_at SET NOT NULL`,
			`ALTER TABLE user_custom_values DROP CONSTRAINT user_custom_values_user_created_at_set`},
	} {
		if err := onlineStep(ctx, conn, schema, func(tx *sql.Tx) error { return execEach(ctx, tx, step...) }); err != nil {
			return err
		}
	}
	// An exact value's users in list order; a probe from a user seeks
	// (field, value, created_at, id).
	return swapIndexConcurrently(ctx, conn, schema, "user_custom_values_value",
		"ON user_custom_values USING btree (field_id, value, user_created_at, user_id) WHERE ("+list.ShortValue("value")+")")
}

// addUserCreatedAtSQL is 00021's first step: the column, nullable, and
// the trigger that fills it.
var addUserCreatedAtSQL = []string{
	`ALTER TABLE user_custom_values ADD COLUMN IF NOT EXISTS user_created_at timestamptz`,
	`CREATE OR REPLACE FUNCTION user_custom_values_user_created() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
    NEW.user_created_at := (SELECT created_at FROM users WHERE id = NEW.user_id);
    RETURN NEW;
END $$`,
	`CREATE OR REPLACE TRIGGER user_custom_values_user_created BEFORE INSERT OR UPDATE OF user_id ON user_custom_values
    FOR EACH ROW EXECUTE FUNCTION user_custom_values_user_created()`,
}

// execEach runs each statement in tx, one at a time (a statement of
// several commands is refused where statements are prepared, as on Citus).
func execEach(ctx context.Context, tx *sql.Tx, statements ...string) error {
	for _, s := range statements {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// userCreatedAtBatch is how many users' values one transaction of
// fillUserCreatedAt fills.
const userCreatedAtBatch = 2000

// fillUserCreatedAtSQL fills user_created_at for the values of the users
// with an id in ($1, $2] (the primary key's range, a short walk of it).
const fillUserCreatedAtSQL = `UPDATE user_custom_values v SET user_created_at = u.created_at FROM users u
	WHERE u.id = v.user_id AND v.user_id > $1 AND v.user_id <= $2 AND v.user_created_at IS DISTINCT FROM u.created_at`

// fillUserCreatedAt fills user_created_at of every existing value, the
// values of userCreatedAtBatch users per transaction. Users created after
// it read the highest id have theirs filled by the trigger.
func fillUserCreatedAt(ctx context.Context, conn *sql.DB, schema string) error {
	var last int64
	if err := onlineStep(ctx, conn, schema, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, `SELECT coalesce(max(user_id), 0) FROM user_custom_values`).Scan(&last)
	}); err != nil {
		return err
	}
	for from := int64(0); from < last; from += userCreatedAtBatch {
		if err := onlineStep(ctx, conn, schema, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, fillUserCreatedAtSQL, from, from+userCreatedAtBatch)
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

func customValuesUserCreatedDown(ctx context.Context, conn *sql.DB, schema string) error {
	if err := swapIndexConcurrently(ctx, conn, schema, "user_custom_values_value",
		"ON user_custom_values USING btree (field_id, value, user_id) WHERE ("+list.ShortValue("value")+")"); err != nil {
		return err
	}
	return onlineStep(ctx, conn, schema, func(tx *sql.Tx) error {
		return execEach(ctx, tx, `DROP TRIGGER IF EXISTS user_custom_values_user_created ON user_custom_values`,
			`DROP FUNCTION IF EXISTS user_custom_values_user_created()`,
			`ALTER TABLE user_custom_values DROP COLUMN IF EXISTS user_created_at`)
	})
}

// The partial predicates of user_custom_values_value and
// user_custom_values_long are list.ShortValue and list.LongValue: the
// users list's x- filters repeat them, and these migrations build the
// indexes from the same functions.

// customValuesLongUp (00022): which fields hold a value too long for
// user_custom_values_value (over 64 bytes). An x-<text|list> filter
// matches a field's distinct values first only when none is
// (users_custom_filter.go, valueSetSQL); this index answers that without
// reading the field's values.
func customValuesLongUp(ctx context.Context, conn *sql.DB, schema string) error {
	return swapIndexConcurrently(ctx, conn, schema, "user_custom_values_long",
		"ON user_custom_values USING btree (field_id) WHERE ("+list.LongValue("value")+")")
}

func customValuesLongDown(ctx context.Context, conn *sql.DB, schema string) error {
	return onlineExec(ctx, conn, `DROP INDEX CONCURRENTLY IF EXISTS `+schema+`.user_custom_values_long`)
}
