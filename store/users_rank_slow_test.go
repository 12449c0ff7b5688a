//go:build slow

package store

import (
	"context"
	"learngate/store/list"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

// TestListUsersRankedPagesExact proves the anchored pages and totals equal
// the plain count and OFFSET, page by page, before the job has run, after
// it, after newer and older users are stored behind its back, with
// filters, and that another tenant's users never count.
func TestListUsersRankedPagesExact(t *testing.T) {
	tdb, _ := benchTenant(t)
	other := secondTenant(t, tdb, "other")
	addRankUsers(t, other, "o", 500, 0)
	maintainRanks(t, other, 5, 50)
	addRankUsers(t, tdb, "a", 1500, 100)

	checkUserPages(t, tdb, list.UserFilter{}, "true", 100)
	// Anchors every 7 users, built 200 users a transaction.
	if added := maintainRanks(t, tdb, 7, 200); added != (1500+6)/7 {
		t.Fatalf("added %d anchors, want %d", added, (1500+6)/7)
	}
	for _, size := range []int{100, 7, 33} {
		checkUserPages(t, tdb, list.UserFilter{}, "true", size)
	}
	// Newer users (the tail after the newest anchor) and then older ones,
	// stored after the job ran: the older ones mark their key dirty.
	yes := true
	addRankUsers(t, tdb, "b", 300, 2000)
	if _, dirty := rankState(t, tdb); dirty != 0 {
		t.Fatalf("newer users left %d dirty keys, want 0", dirty)
	}
	checkUserPages(t, tdb, list.UserFilter{}, "true", 100)
	addRankUsers(t, tdb, "c", 200, 50)
	if _, dirty := rankState(t, tdb); dirty != 1 {
		t.Fatalf("older users left %d dirty keys, want 1", dirty)
	}
	checkUserPages(t, tdb, list.UserFilter{}, "true", 100)
	checkUserPages(t, tdb, list.UserFilter{Active: &yes}, "active = $1", 100, true)
	checkUserPages(t, tdb, list.UserFilter{}, "true", 9)
	maintainRanks(t, tdb, 7, 200)
	if anchors, dirty := rankState(t, tdb); dirty != 0 || anchors != (2000+6)/7 {
		t.Fatalf("after the job: %d anchors, %d dirty keys; want %d, 0", anchors, dirty, (2000+6)/7)
	}
	checkUserPages(t, tdb, list.UserFilter{}, "true", 100)
	checkUserPages(t, tdb, list.UserFilter{}, "true", 11)

	// Filters fall back to count and the nearer end; active=true alone
	// counts all users minus the inactive ones.
	no := false
	checkUserPages(t, tdb, list.UserFilter{Active: &no}, "active = $1", 13, false)
	checkUserPages(t, tdb, list.UserFilter{Active: &yes}, "active = $1", 100, true)
	after := rankBase.Add(700 * time.Second)
	checkUserPages(t, tdb, list.UserFilter{Active: &no, UpdatedFilter: list.UpdatedFilter{UpdatedAfter: &after}},
		"updated_at > $1 AND active = $2", 10, after, false)
	checkUserPages(t, tdb, list.UserFilter{Email: "A77@example.com"}, "lower(email) = 'a77@example.com'", 10)
	// updated_at alone: the matches' keys sorted (sortedMatchesPageSQL), every page from both ends.
	before := rankBase.Add(1200 * time.Second)
	checkUserPages(t, tdb, list.UserFilter{UpdatedFilter: list.UpdatedFilter{UpdatedAfter: &after}}, "updated_at > $1", 17, after)
	checkUserPages(t, tdb, list.UserFilter{UpdatedFilter: list.UpdatedFilter{UpdatedBefore: &before}}, "updated_at < $1", 100, before)
	checkUserPages(t, tdb, list.UserFilter{UpdatedFilter: list.UpdatedFilter{UpdatedAfter: &after, UpdatedBefore: &before}},
		"updated_at > $1 AND updated_at < $2", 9, after, before)
	// One x- field alone pages its values in list order (valuesPageSQL);
	// with another filter it probes from the users. Users created at the
	// same instant (pairs of "a" and "c" users) order by id.
	execTenant(t, tdb, `INSERT INTO custom_fields (name, field_type) VALUES ('level', 'number'), ('dept', 'string');
		INSERT INTO user_custom_values (user_id, field_id, value)
			SELECT id, (SELECT id FROM custom_fields WHERE name = 'level'), (id % 3)::text FROM users WHERE id % 5 <> 0;
		INSERT INTO user_custom_values (user_id, field_id, value)
			SELECT id, (SELECT id FROM custom_fields WHERE name = 'dept'), 'Dept ' || (id % 7) FROM users`)
	level := `EXISTS (SELECT 1 FROM user_custom_values v JOIN custom_fields f ON f.id = v.field_id
		WHERE v.user_id = users.id AND f.name = 'level' AND v.value = '2')`
	dept := `EXISTS (SELECT 1 FROM user_custom_values v JOIN custom_fields f ON f.id = v.field_id
		WHERE v.user_id = users.id AND f.name = 'dept' AND v.value = 'Dept 4')`
	checkUserPages(t, tdb, list.UserFilter{CustomFields: map[string]string{"level": "2"}}, level, 100)
	checkUserPages(t, tdb, list.UserFilter{CustomFields: map[string]string{"LEVEL": "2.0"}}, level, 13)
	checkUserPages(t, tdb, list.UserFilter{CustomFields: map[string]string{"dept": "dept 4"}}, dept, 17)
	checkUserPages(t, tdb, list.UserFilter{Active: &no, CustomFields: map[string]string{"level": "2"}}, level+" AND NOT active", 7)
	execTenant(t, tdb, `INSERT INTO custom_fields (name, field_type, options) VALUES ('regions', 'list', '{East,North,South,West}');
		INSERT INTO user_custom_values (user_id, field_id, value)
			SELECT id, (SELECT id FROM custom_fields WHERE name = 'regions'),
				(ARRAY['East', 'East;West', 'North', 'South;West'])[1 + id % 4] FROM users`)
	regions := `EXISTS (SELECT 1 FROM user_custom_values v JOIN custom_fields f ON f.id = v.field_id
		WHERE v.user_id = users.id AND f.name = 'regions' AND (v.value LIKE '%East%' OR v.value LIKE '%South%'))`
	checkUserPages(t, tdb, list.UserFilter{CustomFields: map[string]string{"regions": "east, sou"}}, regions, 100)
	// A value too long for the value index sends text and list filters to the trigram index.
	execTenant(t, tdb, `UPDATE user_custom_values SET value = value || repeat(' long', 20)
		WHERE user_id = (SELECT min(id) FROM users) AND field_id IN (SELECT id FROM custom_fields WHERE name IN ('dept', 'regions'))`)
	deptLong := `EXISTS (SELECT 1 FROM user_custom_values v JOIN custom_fields f ON f.id = v.field_id
		WHERE v.user_id = users.id AND f.name = 'dept' AND v.value LIKE 'Dept 4%')`
	checkUserPages(t, tdb, list.UserFilter{CustomFields: map[string]string{"dept": "dept 4"}}, deptLong, 17)
	checkUserPages(t, tdb, list.UserFilter{CustomFields: map[string]string{"regions": "east, sou"}}, regions, 100)

	// (De)activations move users between the active lists only.
	err := tdb.Tx(context.Background(), func(tx *sqlx.Tx) error {
		_, err := tx.Exec(`UPDATE users SET active = NOT active WHERE id % 5 = 0`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	checkUserPages(t, tdb, list.UserFilter{Active: &yes}, "active = $1", 100, true)
	checkUserPages(t, tdb, list.UserFilter{Active: &no}, "active = $1", 100, false)
	checkUserPages(t, tdb, list.UserFilter{}, "true", 100)

	// The other tenant's users and anchors are its own.
	checkUserPages(t, other, list.UserFilter{}, "true", 7)
	_, total, err := ListUsers(context.Background(), other, list.UserFilter{}, list.Page{Number: 1, Size: 1})
	if err != nil || total != 500 {
		t.Fatalf("other tenant total = %d, %v; want 500", total, err)
	}
	_, total, err = ListUsers(context.Background(), other, list.UserFilter{Active: &yes}, list.Page{Number: 1, Size: 1})
	if err != nil || total != 334 {
		t.Fatalf("other tenant active total = %d, %v; want 334", total, err)
	}
	_, total, err = ListUsers(context.Background(), other, list.UserFilter{}, list.Page{Number: 1, Size: 1})
	if err != nil || total != 500 {
		t.Fatalf("other tenant total = %d, %v; want 500", total, err)
	}
	if anchors, _ := rankState(t, other); anchors != 100 {
		t.Fatalf("other tenant has %d anchors, want its own 100", anchors)
	}
}
