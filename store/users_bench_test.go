package store

import (
	"context"
	"fmt"
	"learngate/store/list"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate"
)

// benchTenant creates a database of its own for b, migrated, with one
// tenant, and returns a query-counting store over it and the tenant's handle.
func benchTenant(b testing.TB) (*TenantDB, func() int64) {
	b.Helper()
	db, counter := openCounting(b, migratedDatabase(b))
	ctx := context.Background()
	if err := db.MigrateAll(ctx, nil); err != nil {
		b.Fatalf("migrate: %v", err)
	}
	tn, _, err := db.CreateTenant(ctx, NewTenant{Slug: "bench", Name: "Bench", Timezone: "UTC", APIEnabled: true,
		RateLimitPerMinute: 300}, NewAPIKey{Hash: []byte("bench-key-hash-0123456789abcdef0"), Prefix: "lg_bench"})
	if err != nil {
		b.Fatalf("create tenant: %v", err)
	}
	if err := db.MigrateTenant(ctx, tn.Schema); err != nil {
		b.Fatalf("migrate tenant: %v", err)
	}
	if err := db.SetTenantStatus(ctx, tn.ID, learngate.TenantActive); err != nil {
		b.Fatal(err)
	}
	tdb, err := db.Tenant(tn.Schema)
	if err != nil {
		b.Fatal(err)
	}
	// The catalog every benchmark user refers to.
	err = tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.Exec(`
			INSERT INTO roles (name) VALUES ('Manager'), ('Trainer');
			INSERT INTO groups (name) VALUES ('Sales'), ('Berlin'), ('Oslo');
			INSERT INTO goals (name) VALUES ('Grow');
			INSERT INTO custom_fields (name, field_type, options) VALUES
				('City', 'string', '{}'), ('Age', 'number', '{}'), ('Skills', 'list', '{Go,SQL,Docker}')`)
		return err
	})
	if err != nil {
		b.Fatalf("seed catalog: %v", err)
	}
	return tdb, counter.Load
}

func strp(s string) *string { return &s }

// BenchmarkBatchSaveUsers100 saves a batch of 100 new users, each with two
// groups, one role and three custom fields, and reports the statements one
// batch sends (BEGIN and COMMIT aside).
func BenchmarkBatchSaveUsers100(b *testing.B) {
	tdb, queries := benchTenant(b)
	ctx := context.Background()
	now := time.Now()
	b.ResetTimer()
	start := queries()
	for i := 0; i < b.N; i++ {
		rows := make([]learngate.BatchRow, 100)
		for j := range rows {
			name := fmt.Sprintf("u%d-%d", i, j)
			in := learngate.UserInput{
				UserName: strp(name), FirstName: strp("First"), LastName: strp("Last"), Email: strp(name + "@example.com"),
				Timezone: strp("UTC"), Roles: [5]*string{strp("Trainer")}, Groups: []string{"Sales", "Berlin"},
				CustomFields: map[string]any{"City": "Auckland", "Age": "42", "Skills": "Go;SQL"},
			}
			rows[j] = learngate.BatchRow{UserName: name, New: learngate.ParsedUser{In: in}, Update: learngate.ParsedUser{In: in}}
		}
		res, err := BatchSaveUsers(ctx, tdb, rows, InviteNone, now)
		if err != nil || res.Created != 100 || res.Errors != 0 {
			b.Fatalf("batch: %+v, %v", res, err)
		}
	}
	b.ReportMetric(float64(queries()-start)/float64(b.N), "queries/op")
}

// BenchmarkListUsers100 reads pages of 100 users of a tenant of 10,000
// users (each with a role, two groups, a goal and three custom values) and
// reports the statements one page costs.
func BenchmarkListUsers100(b *testing.B) {
	tdb, queries := benchTenant(b)
	ctx := context.Background()
	seedUsers(b, tdb, 10000)
	for _, pageNumber := range []int{1, 50} {
		b.Run(fmt.Sprintf("page-%d", pageNumber), func(b *testing.B) {
			start := queries()
			for i := 0; i < b.N; i++ {
				users, total, err := ListUsers(ctx, tdb, list.UserFilter{}, list.Page{Number: pageNumber, Size: 100})
				if err != nil || len(users) != 100 || total != 10000 {
					b.Fatalf("list: %d users of %d, %v", len(users), total, err)
				}
			}
			b.ReportMetric(float64(queries()-start)/float64(b.N), "queries/op")
		})
	}
}

// seedUsers inserts n users, set-based, each with role 1, groups 1 and 2,
// goal 1 and three custom values; every tenth user manages the others.
func seedUsers(tb testing.TB, tdb *TenantDB, n int) {
	tb.Helper()
	err := tdb.Tx(context.Background(), func(tx *sqlx.Tx) error {
		_, err := tx.Exec(fmt.Sprintf(`
			INSERT INTO users (user_name, first_name, last_name, email, timezone, manager_email, created_at, updated_at)
			SELECT 'user' || g, 'First', 'Last', 'user' || g || '@example.com', 'UTC',
				'user' || (g / 10 + 1) || '@example.com', now() - g * interval '1 second', now()
			FROM generate_series(1, %d) g;
			INSERT INTO user_roles (user_id, position, role_id) SELECT id, 1, 1 FROM users;
			INSERT INTO user_groups (user_id, group_id) SELECT id, 1 FROM users UNION ALL SELECT id, 2 FROM users;
			INSERT INTO user_goals (user_id, goal_id) SELECT id, 1 FROM users;
			INSERT INTO user_custom_values (user_id, field_id, value)
				SELECT id, 1, 'Auckland' FROM users UNION ALL SELECT id, 2, '42' FROM users
				UNION ALL SELECT id, 3, 'Go;SQL' FROM users;
			ANALYZE`, n))
		return err
	})
	if err != nil {
		tb.Fatalf("seed users: %v", err)
	}
}
