package main

// The SQL the baseline composes. The statements learngate runs as they are
// are copied in store_sql.go. What this file holds is of two kinds: copies
// of the statements the store composes at run time (a WHERE clause or a
// table name filled in), each naming the store function it copies, whose
// fixed parts TestCopiedSQLMatchesTheStore finds in store/; and, for the
// batch writes, the least set-based SQL doing the same work. Every
// statement runs in a transaction that begins with scopeSQL, as
// store.TenantDB.run does.

// lookupNamesSQL: store.lookupNames, for table roles, groups, goals,
// skills or categories (a constant of the caller).
func lookupNamesSQL(table string) string {
	return `SELECT t.n AS name, c.id FROM unnest($1::text[]) AS t(n)
		JOIN ` + table + ` c ON lower(c.name) = lower(t.n) FOR KEY SHARE OF c`
}

// takenSQL is store.checkTaken for the whole batch at once: the users
// holding one of the batch's user_names or emails.
const takenSQL = `SELECT user_name, email FROM users WHERE user_name = ANY($1) OR lower(email) = ANY($2)`

// insertUsersSQL inserts a batch's new users (store.saveUser's
// insertUserSQL, set-based); the other columns keep their defaults, as
// they do in learngate for a user created with these fields.
const insertUsersSQL = `INSERT INTO users (user_name, first_name, last_name, email, timezone, created_at, updated_at)
	SELECT n, f, l, e, tz, $6, $6 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS t(n, f, l, e, tz)
	RETURNING id, user_name`

// The link inserts of a batch's new users (store.writeLinks, set-based).
const (
	insertUserRolesSQL  = `INSERT INTO user_roles (user_id, position, role_id) SELECT * FROM unnest($1::bigint[], $2::smallint[], $3::bigint[])`
	insertUserGroupsSQL = `INSERT INTO user_groups (user_id, group_id) SELECT * FROM unnest($1::bigint[], $2::bigint[])`
	insertUserGoalsSQL  = `INSERT INTO user_goals (user_id, goal_id) SELECT * FROM unnest($1::bigint[], $2::bigint[])`
	insertUserValuesSQL = `INSERT INTO user_custom_values (user_id, field_id, value) SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[])`
)
