//go:build slow

package store

import (
	"context"
	"testing"

	"github.com/jmoiron/sqlx"

	"learngate/store/list"
)

// TestListRanksPagesExact proves, for the topic enrolment, pathway
// enrolment and external knowledge lists, that the anchored pages and
// totals equal the plain count and OFFSET page by page: before the job has
// run, after it, after rows below the anchors were removed, restored,
// deleted or committed late behind its back, and after the job rebuilt
// them; and that another tenant's rows and writes never touch them.
func TestListRanksPagesExact(t *testing.T) {
	tdb, _ := benchTenant(t)
	other := secondTenant(t, tdb, "other")
	seedRankedLists(t, tdb, "u", 40, 9)   // 360 topic enrolments (some removed), 80 pathway, 120 records
	seedRankedLists(t, other, "o", 17, 5) // the other tenant's rows must never count
	const spacing, batch = 10, 45         // several anchors and several job transactions per list
	maintain := func(tdb *TenantDB, l list.Spec) int64 {
		t.Helper()
		n, err := maintainListRanks(context.Background(), tdb, l, spacing, batch)
		if err != nil {
			t.Fatalf("maintain %s: %v", l.Table, err)
		}
		return n
	}
	for _, l := range rankedLists {
		t.Run(l.Table, func(t *testing.T) {
			checkRankedPages(t, tdb, l, 7) // no anchor yet: plain counts
			var rows int
			if err := tdb.ReadTx(context.Background(), func(tx *sqlx.Tx) error {
				return tx.Get(&rows, `SELECT count(*) FROM `+l.Table+` WHERE `+listed(l))
			}); err != nil {
				t.Fatal(err)
			}
			if added := maintain(tdb, l); added != int64((rows+spacing-1)/spacing) {
				t.Fatalf("first run added %d anchors for %d rows, want %d", added, rows, (rows+spacing-1)/spacing)
			}
			if added := maintain(tdb, l); added != 0 {
				t.Fatalf("second run added %d anchors, want 0", added)
			}
			checkRankedPages(t, tdb, l, 7)
			checkRankedPages(t, tdb, l, 100)
			if a, _ := listRankState(t, other, l); a != 0 {
				t.Fatalf("the other tenant has %d %s anchors; its job never ran", a, l.Table)
			}

			// The other tenant's writes mark nothing here.
			execTenant(t, other, `DELETE FROM `+l.Table+` WHERE id = (SELECT min(id) FROM `+l.Table+`)`)
			if _, d := listRankState(t, tdb, l); d != 0 {
				t.Fatalf("another tenant's delete left %d dirty ids here", d)
			}

			// Writes below the anchors: a removal or a delete, a late commit.
			if listed(l) == "removed_at IS NULL" {
				execTenant(t, tdb, `UPDATE `+l.Table+` SET removed_at = now() WHERE id IN (
					SELECT id FROM `+l.Table+` WHERE removed_at IS NULL ORDER BY id OFFSET 23 LIMIT 2)`)
				if _, d := listRankState(t, tdb, l); d != 1 {
					t.Fatalf("a removal below the anchors left %d dirty ids, want 1", d)
				}
				checkRankedPages(t, tdb, l, 7)
				// Progress on a current enrolment changes no rank.
				execTenant(t, tdb, `UPDATE `+l.Table+` SET updated_at = now() WHERE id = (SELECT min(id) FROM `+l.Table+`)`)
				if _, d := listRankState(t, tdb, l); d != 1 {
					t.Fatalf("an update of a listed row marked a key: %d dirty ids", d)
				}
				maintain(tdb, l)
				checkRankedPages(t, tdb, l, 7)
				// An enrolment that comes back (removed_at cleared) below them.
				execTenant(t, tdb, `UPDATE `+l.Table+` SET removed_at = NULL WHERE id = (
					SELECT id FROM `+l.Table+` WHERE removed_at IS NOT NULL ORDER BY id LIMIT 1)`)
				if _, d := listRankState(t, tdb, l); d != 1 {
					t.Fatalf("a restore below the anchors left %d dirty ids, want 1", d)
				}
				checkRankedPages(t, tdb, l, 7)
				maintain(tdb, l)
			}
			execTenant(t, tdb, `DELETE FROM `+l.Table+` WHERE id IN (
				SELECT id FROM `+l.Table+` WHERE `+listed(l)+` ORDER BY id OFFSET 41 LIMIT 3)`)
			checkRankedPages(t, tdb, l, 7)
			maintain(tdb, l)
			if _, d := listRankState(t, tdb, l); d != 0 {
				t.Fatalf("after the job: %d dirty ids, want 0", d)
			}
			checkRankedPages(t, tdb, l, 7)
			checkRankedPages(t, tdb, l, 30)
			// Rows stored after the job lie above every anchor: counted from the newest.
			execTenant(t, tdb, `INSERT INTO users (user_name, first_name, last_name, email, timezone)
				VALUES ('new-`+l.Table+`', 'F', 'L', 'new-`+l.Table+`@example.com', 'UTC');
				INSERT INTO `+l.Table+` SELECT (jsonb_populate_record(NULL::`+l.Table+`, to_jsonb(x) - 'id' - 'user_id' ||
					jsonb_build_object('id', nextval(pg_get_serial_sequence('`+l.Table+`', 'id')), 'user_id', (SELECT max(id) FROM users)))).*
				FROM `+l.Table+` x WHERE `+listed(l)+` ORDER BY id DESC LIMIT 1`)
			if _, d := listRankState(t, tdb, l); d != 0 {
				t.Fatalf("a new row above the anchors marked %d dirty ids", d)
			}
			checkRankedPages(t, tdb, l, 7)
			checkRankedPages(t, other, l, 4)
		})
	}
}
