package store

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate"

	"learngate/store/list"
)

// sqlTxRepeatableRead begins a REPEATABLE READ transaction.
var sqlTxRepeatableRead = sql.TxOptions{Isolation: sql.LevelRepeatableRead}

// rankBase is the created_at of the oldest test users.
var rankBase = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// secondTenant adds a tenant to tdb's database and returns its handle.
func secondTenant(t testing.TB, tdb *TenantDB, slug string) *TenantDB {
	t.Helper()
	ctx := context.Background()
	tn, _, err := tdb.db.CreateTenant(ctx, NewTenant{Slug: slug, Name: slug, Timezone: "UTC", APIEnabled: true,
		RateLimitPerMinute: 300}, NewAPIKey{Hash: []byte(slug + "-key-hash-0123456789abcdef0123456"), Prefix: "lg_" + slug})
	if err != nil {
		t.Fatalf("create tenant: %v", err)
	}
	if err := tdb.db.MigrateTenant(ctx, tn.Schema); err != nil {
		t.Fatalf("migrate tenant: %v", err)
	}
	if err := tdb.db.SetTenantStatus(ctx, tn.ID, learngate.TenantActive); err != nil {
		t.Fatal(err)
	}
	other, err := tdb.db.Tenant(tn.Schema)
	if err != nil {
		t.Fatal(err)
	}
	return other
}

// addRankUsers stores n users named prefix<g> in one statement. Their
// created_at seconds are scrambled and shared by three users each (so the
// id breaks ties) and lie from startSecond on; every third is inactive.
func addRankUsers(t *testing.T, tdb *TenantDB, prefix string, n, startSecond int) {
	t.Helper()
	err := tdb.Tx(context.Background(), func(tx *sqlx.Tx) error {
		_, err := tx.Exec(`
			INSERT INTO users (user_name, first_name, last_name, email, timezone, active, created_at, updated_at)
			SELECT $1 || g, 'F', 'L', $1 || g || '@example.com', 'UTC', g % 3 <> 0,
				$2::timestamptz + ($3 + (g * 7919 % $4) / 3) * interval '1 second', $2::timestamptz + g * interval '1 second'
			FROM generate_series(1, $4) g`, prefix, rankBase, startSecond, n)
		return err
	})
	if err != nil {
		t.Fatalf("add users: %v", err)
	}
}

// plainUserPage is the reference: count and OFFSET over the whole list.
func plainUserPage(t *testing.T, tdb *TenantDB, where string, page list.Page, args ...any) ([]int64, int64) {
	t.Helper()
	ids := []int64{}
	var total int64
	err := tdb.SnapshotTx(context.Background(), func(tx *sqlx.Tx) error {
		if err := tx.Get(&total, `SELECT count(*) FROM users WHERE `+where, args...); err != nil {
			return err
		}
		n := len(args)
		return tx.Select(&ids, fmt.Sprintf(`SELECT id FROM users WHERE %s ORDER BY created_at DESC, id DESC LIMIT $%d OFFSET $%d`,
			where, n+1, n+2), append(args, page.Size, pageOffset(page))...)
	})
	if err != nil {
		t.Fatalf("plain page: %v", err)
	}
	return ids, total
}

// checkUserPages compares every page of size (and the one past the end)
// of ListUsers with f against the plain count and OFFSET with where.
func checkUserPages(t *testing.T, tdb *TenantDB, f list.UserFilter, where string, size int, args ...any) {
	t.Helper()
	for number := 1; ; number++ {
		page := list.Page{Number: number, Size: size}
		users, total, err := ListUsers(context.Background(), tdb, f, page)
		if err != nil {
			t.Fatalf("list page %d: %v", number, err)
		}
		got := []int64{}
		for _, u := range users {
			got = append(got, u.ID)
		}
		want, wantTotal := plainUserPage(t, tdb, where, page, args...)
		if total != wantTotal || !slices.Equal(got, want) {
			t.Fatalf("%s page %d of %d: total %d, ids %v; want total %d, ids %v", where, number, size, total, got, wantTotal, want)
		}
		if len(want) == 0 {
			return
		}
	}
}

// rankState returns the tenant's anchor and dirty row counts.
func rankState(t *testing.T, tdb *TenantDB) (anchors, dirty int) {
	t.Helper()
	err := tdb.ReadTx(context.Background(), func(tx *sqlx.Tx) error {
		return tx.QueryRow(`SELECT (SELECT count(*) FROM user_rank_anchors), (SELECT count(*) FROM user_rank_dirty)`).
			Scan(&anchors, &dirty)
	})
	if err != nil {
		t.Fatal(err)
	}
	return anchors, dirty
}

func maintainRanks(t *testing.T, tdb *TenantDB, spacing, batch int64) int64 {
	t.Helper()
	n, err := maintainUserRanks(context.Background(), tdb, spacing, batch)
	if err != nil {
		t.Fatalf("maintain: %v", err)
	}
	return n
}

// TestUserRanksOutOfOrderCommit stores an old-keyed user in a transaction
// that commits after the job: the job gives up on its lock while the writer
// is open, and a page read right after the commit is still exact. It
// bounds how long the job waits, so it does not run in parallel.
func TestUserRanksOutOfOrderCommit(t *testing.T) {
	tdb, _ := benchTenant(t)
	ctx := context.Background()
	addRankUsers(t, tdb, "a", 600, 100)
	maintainRanks(t, tdb, 10, 1000)

	tx, err := tdb.db.pool.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`SELECT set_config('search_path', $1, true)`, tdb.schema); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO users (user_name, first_name, last_name, email, timezone, created_at)
		VALUES ('late', 'F', 'L', 'late@example.com', 'UTC', $1)`, rankBase); err != nil {
		t.Fatal(err)
	}
	// Newer users commit meanwhile; the job cannot take its lock.
	addRankUsers(t, tdb, "b", 50, 5000)
	start := time.Now()
	if added := maintainRanks(t, tdb, 10, 1000); added != 0 {
		t.Fatalf("job added %d anchors past an open writer, want 0", added)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Fatalf("job waited %v for the open writer", waited)
	}
	checkUserPages(t, tdb, list.UserFilter{}, "true", 100)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	checkUserPages(t, tdb, list.UserFilter{}, "true", 100)
	checkUserPages(t, tdb, list.UserFilter{}, "true", 7)
	maintainRanks(t, tdb, 10, 1000)
	checkUserPages(t, tdb, list.UserFilter{}, "true", 100)
	if anchors, dirty := rankState(t, tdb); anchors != 66 || dirty != 0 {
		t.Fatalf("%d anchors, %d dirty keys; want 66, 0", anchors, dirty)
	}
}

// TestUserRanksGuards checks the triggers' other cases: a writer in
// REPEATABLE READ always marks its key, a deleted user marks its key, and a
// user's created_at cannot change.
func TestUserRanksGuards(t *testing.T) {
	t.Parallel()
	tdb, _ := benchTenant(t)
	ctx := context.Background()
	addRankUsers(t, tdb, "a", 100, 100)
	maintainRanks(t, tdb, 10, 1000)

	tx, err := tdb.db.pool.BeginTxx(ctx, &sqlTxRepeatableRead)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tx.Exec(`SELECT set_config('search_path', $1, true)`, tdb.schema)
	if err == nil {
		_, err = tx.Exec(`INSERT INTO users (user_name, first_name, last_name, email, timezone, created_at)
			VALUES ('rr', 'F', 'L', 'rr@example.com', 'UTC', $1)`, rankBase.Add(time.Hour))
	}
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		t.Fatalf("insert in repeatable read: %v", err)
	}
	if _, dirty := rankState(t, tdb); dirty != 1 {
		t.Fatalf("repeatable read insert left %d dirty keys, want 1", dirty)
	}
	maintainRanks(t, tdb, 10, 1000)
	err = tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.Exec(`DELETE FROM users WHERE user_name = 'a5'`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, dirty := rankState(t, tdb); dirty != 1 {
		t.Fatalf("delete left %d dirty keys, want 1", dirty)
	}
	checkUserPages(t, tdb, list.UserFilter{}, "true", 3)
	maintainRanks(t, tdb, 10, 1000)
	checkUserPages(t, tdb, list.UserFilter{}, "true", 3)

	err = tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.Exec(`UPDATE users SET created_at = created_at + interval '1 second' WHERE user_name = 'a7'`)
		return err
	})
	if err == nil {
		t.Fatal("created_at changed")
	}
}

// TestUserRanksConcurrentWriters runs writers that store users with random
// (often old) created_at, in transactions that overlap the job's runs,
// while readers compare anchored pages with the plain count and OFFSET in
// the same snapshot; at the end every page is compared again.
func TestUserRanksConcurrentWriters(t *testing.T) {
	t.Parallel()
	tdb, _ := benchTenant(t)
	ctx := context.Background()
	addRankUsers(t, tdb, "a", 400, 0)
	maintainRanks(t, tdb, 5, 60)
	done := make(chan struct{})
	errs := make(chan error, 16)
	var writers, others sync.WaitGroup
	for w := 0; w < 3; w++ {
		writers.Add(1)
		go func() {
			defer writers.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			for i := 0; i < 40; i++ {
				err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
					for j := 0; j < 1+rng.IntN(3); j++ {
						_, err := tx.Exec(`INSERT INTO users (user_name, first_name, last_name, email, timezone, created_at)
							VALUES ($1, 'F', 'L', $1 || '@example.com', 'UTC', $2)`,
							fmt.Sprintf("w%d-%d-%d", w, i, j), rankBase.Add(time.Duration(rng.IntN(600))*time.Second))
						if err != nil {
							return err
						}
					}
					time.Sleep(time.Duration(rng.IntN(5)) * time.Millisecond)
					return nil
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	others.Add(2)
	go func() { // the job
		defer others.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			if _, err := maintainUserRanks(ctx, tdb, 5, 60); err != nil {
				errs <- err
				return
			}
		}
	}()
	go func() { // a reader checking within one snapshot
		defer others.Done()
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			page := list.Page{Number: 1 + i%90, Size: 7}
			err := tdb.SnapshotTx(ctx, func(tx *sqlx.Tx) error {
				var rows []userRow
				total, err := list.Select(ctx, tx, &rows, list.Users, usersSelect, list.NewQuery(list.Plan{Count: list.CountAnchored}), page)
				if err != nil {
					return err
				}
				var want []int64
				var wantTotal int64
				if err := tx.Get(&wantTotal, `SELECT count(*) FROM users`); err != nil {
					return err
				}
				if err := tx.Select(&want, `SELECT id FROM users ORDER BY created_at DESC, id DESC LIMIT 7 OFFSET $1`,
					pageOffset(page)); err != nil {
					return err
				}
				got := []int64{}
				for _, r := range rows {
					got = append(got, r.ID)
				}
				if total != wantTotal || !slices.Equal(got, want) {
					return fmt.Errorf("page %d: total %d ids %v; want %d %v", page.Number, total, got, wantTotal, want)
				}
				return nil
			})
			if err != nil {
				errs <- err
				return
			}
		}
	}()
	writers.Wait()
	close(done)
	others.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	checkUserPages(t, tdb, list.UserFilter{}, "true", 13)
	maintainRanks(t, tdb, 5, 60)
	checkUserPages(t, tdb, list.UserFilter{}, "true", 13)
	if _, dirty := rankState(t, tdb); dirty != 0 {
		t.Fatalf("%d dirty keys after the last run", dirty)
	}
}

// TestUserRankQueriesUseIndexes checks with EXPLAIN, on a tenant of 5,000
// anchored users, that the anchor lookup, the tail count, the seek from an
// anchor and the inactive count read indexes, never scanning users.
func TestUserRankQueriesUseIndexes(t *testing.T) {
	t.Parallel()
	tdb, _ := benchTenant(t)
	addRankUsers(t, tdb, "a", 5000, 0)
	maintainRanks(t, tdb, 100, 100000)
	vacuumAllVisible(t, tdb, "users")
	key := learngate.Key{CreatedAt: rankBase.Add(500 * time.Second), ID: 1234}
	anchor := list.Users.AnchorsStatement(2500)
	tail := list.Users.CountSinceStatement(key, true)
	// The seek: 100 users from the anchor on, oldest first (the reverse of
	// the list's order), as a deep page reads them.
	seek := list.Users.PageStatement(usersSelect, list.NewQuery(list.Plan{Count: list.CountAnchored}),
		list.Window{Size: 100, Skip: 50, Backward: true, From: &key})
	inactive := list.UserFilter{Active: new(bool)}
	inactiveQuery, err := inactive.Query(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	inactiveQuery.Plan = list.Plan{} // the rows themselves in order, as a combined filter reads them
	inactivePage := list.Users.PageStatement(usersSelect, inactiveQuery, list.Window{Size: 100})
	yes := true
	active, err := list.UserFilter{Active: &yes}.Query(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, query string
		args        []any
		want        string
	}{
		{"anchor", anchor.SQL, anchor.Args, "Index Scan Backward using user_rank_anchors_pkey"},
		{"tail count", tail.SQL, tail.Args, "Index Only Scan using users_created"},
		{"seek", seek.SQL, seek.Args, "Index Scan Backward using users_created"},
		{"inactive count", list.Users.ExceptStatement(active).SQL, nil, "users_inactive"},
		{"inactive page", inactivePage.SQL, inactivePage.Args, "users_inactive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := explain(t, tdb, tt.query, tt.args...)
			if !strings.Contains(plan, tt.want) || strings.Contains(plan, "Seq Scan on users") || strings.Contains(plan, "Sort") {
				t.Errorf("plan does not use %s alone:\n%s", tt.want, plan)
			}
		})
	}
}

// vacuumAllVisible runs VACUUM ANALYZE on table until its every page is
// marked all-visible (an index-only plan depends on it), for at most 5 s. A
// page stays unmarked while a transaction older than its rows is open on the
// server; the test then fails naming what holds the horizon, rather than
// with a plan that only looks wrong.
func vacuumAllVisible(t *testing.T, tdb *TenantDB, table string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := tdb.db.pool.Exec(`VACUUM ANALYZE ` + tdb.schema + `.` + table); err != nil {
			t.Fatal(err)
		}
		var pages, visible int
		err := tdb.db.pool.QueryRow(`SELECT relpages, relallvisible FROM pg_class WHERE oid = $1::regclass`,
			tdb.schema+"."+table).Scan(&pages, &visible)
		if err != nil {
			t.Fatal(err)
		}
		if visible >= pages {
			return
		}
		if time.Now().After(deadline) {
			var holders []string
			err := tdb.db.pool.Select(&holders, `
				SELECT format('backend %s (%s, %s) xmin %s', pid, datname, state, backend_xmin)
				  FROM pg_stat_activity WHERE backend_xmin IS NOT NULL AND pid <> pg_backend_pid()
				UNION ALL SELECT format('prepared %s (%s)', gid, database) FROM pg_prepared_xacts
				UNION ALL SELECT format('slot %s xmin %s', slot_name, xmin) FROM pg_replication_slots
				  WHERE xmin IS NOT NULL`)
			if err != nil {
				t.Fatal(err)
			}
			t.Fatalf("%s: %d of %d pages all-visible after VACUUM for 5 s; the horizon is held by: %v",
				table, visible, pages, holders)
		}
		time.Sleep(250 * time.Millisecond)
	}
}
