//go:build slow

package store

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

// TestListQueriesUseIndexes checks with EXPLAIN, on a tenant of 30,000 rows
// in each of the topic enrolment, pathway enrolment and external knowledge
// lists (VACUUM ANALYZEd, anchors maintained), that the unfiltered count
// and a deep page seek on the list's id index from an anchor, with no
// parallel plan; and that each filter's count and page read its own index:
// one topic (topic_ids with one id too), two topics (sorted ids), one user's records, and
// updated_after through the (updated_at, id) indexes. None scans a table.
func TestListQueriesUseIndexes(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 90,000 rows")
	}
	tdb, _ := benchTenant(t)
	ctx := context.Background()
	seedRankedLists(t, tdb, "u", 300, 100)
	for _, l := range rankedLists {
		if _, err := tdb.db.pool.Exec(`VACUUM ANALYZE ` + tdb.schema + `.` + l.table); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := MaintainListRanks(ctx, tdb); err != nil {
		t.Fatal(err)
	}
	anchors := func(l rankedList, offset int64) rankAnchors {
		var a rankAnchors
		if err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error { return tx.Get(&a, l.anchorsSQL(), offset) }); err != nil {
			t.Fatal(err)
		}
		if a.PageRank == 0 || a.NewestRank == 0 {
			t.Fatalf("%s: no anchors %+v", l.table, a)
		}
		return a
	}
	type plan struct {
		name, query string
		args        []any
		want        string
	}
	var plans []plan
	selects := map[string]string{"topic_enrolments": topicEnrolmentSelect, "pathway_enrolments": pathwayEnrolmentSelect,
		"external_knowledges": selectKnowledge}
	aliases := map[string]string{"topic_enrolments": "e", "pathway_enrolments": "e", "external_knowledges": "k"}
	for _, l := range rankedLists {
		a := anchors(l, 20000)
		index := strings.TrimSuffix(l.table, "s") + "s_listed"
		if l.table == "external_knowledges" {
			index = "external_knowledges_pkey"
		}
		plans = append(plans,
			plan{l.table + " count", l.countSQL(), []any{a.NewestID}, index},
			plan{l.table + " deep page", l.pageSQL(selects[l.table], aliases[l.table]), []any{100, 20000 - a.PageRank, a.PageID}, index})
	}
	topicID, userName := int64(40), "u150"
	since := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(29000 * time.Second) // the newest 1,000 rows
	filters := []struct {
		name  string
		f     EnrolmentFilter
		index string
	}{
		{"topic_id", EnrolmentFilter{TargetID: &topicID}, "topic_enrolments_topic"},
		{"topic_ids with one id", EnrolmentFilter{TargetIDs: []int64{topicID}}, "topic_enrolments_topic"},
		// Two topics: each topic's first ids on its index, merged (perTarget), never a walk of the id index.
		{"topic_ids with two ids", EnrolmentFilter{TargetIDs: []int64{topicID, topicID + 1}}, "topic_enrolments_topic"},
		{"user_name", EnrolmentFilter{UserName: &userName}, "topic_enrolments_user"},
		{"updated_after", EnrolmentFilter{UpdatedFilter: UpdatedFilter{UpdatedAfter: &since}}, "topic_enrolments_updated"},
	}
	for _, f := range filters {
		where, args := f.f.sql("topic_id")
		plans = append(plans,
			plan{"topic_enrolments " + f.name + " count", `SELECT count(*) FROM topic_enrolments e WHERE ` + where, args, f.index},
			plan{"topic_enrolments " + f.name + " page", f.f.pageSQL(topicEnrolmentSelect, "topic_enrolments", "topic_id", where, len(args)),
				append(args, 100, 200), f.index})
	}
	plans = append(plans,
		plan{"external_knowledges user_name page", selectKnowledge + ` WHERE k.id IN (SELECT k.id FROM external_knowledges k
			WHERE k.user_id = (SELECT id FROM users WHERE user_name = $1) ORDER BY k.id LIMIT 100 OFFSET 50) ORDER BY k.id`,
			[]any{userName}, "external_knowledges_user"},
		plan{"external_knowledges updated_after page", selectKnowledge + ` WHERE k.id IN (SELECT k.id FROM external_knowledges k
			WHERE k.updated_at > $1 ORDER BY k.id + 0 LIMIT 100 OFFSET 500) ORDER BY k.id`, []any{since}, "external_knowledges_updated"},
		plan{"external_knowledges updated_after count", `SELECT count(*) FROM external_knowledges k WHERE k.updated_at > $1`,
			[]any{since}, "Index Only Scan using external_knowledges_updated"})
	for _, p := range plans {
		t.Run(p.name, func(t *testing.T) {
			got := explain(t, tdb, p.query, p.args...)
			if !strings.Contains(got, p.want) {
				t.Errorf("plan does not use %s:\n%s", p.want, got)
			}
			for _, bad := range []string{"Seq Scan on topic_enrolments", "Seq Scan on pathway_enrolments",
				"Seq Scan on external_knowledges", "Gather"} {
				if strings.Contains(got, bad) {
					t.Errorf("plan has %s:\n%s", bad, got)
				}
			}
		})
	}
}

// TestUserFiltersUseIndexes checks with EXPLAIN, on a tenant of 100,000
// users (every tenth inactive) with a number field holding 1,000 distinct
// values, that x-<number field> and x-<text field> of few distinct values
// (100 values 'Dept N', matched among them first) count and page through
// user_custom_values_value without scanning users or the values, that an
// x-<text field> of 100,000 distinct values and x-<list field> (one or two
// of 100 options: 5,000 combinations) count and page a deep page on
// user_custom_values_lower_trgm, and that
// a deep page of active=false (active=true) skips its rows on
// users_inactive (users_active) alone (activeUserPageSQL).
func TestUserFiltersUseIndexes(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 100,000 users")
	}
	tdb, _ := benchTenant(t)
	ctx := context.Background()
	seedScaleUsers(t, tdb, 100000)
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.Exec(`INSERT INTO custom_fields (name, field_type) VALUES ('level', 'number'), ('dept', 'string');
			INSERT INTO custom_fields (name, field_type, options)
				SELECT 'options', 'list', array_agg('Opt' || lpad(g::text, 2, '0') ORDER BY g) FROM generate_series(0, 99) g;
			INSERT INTO user_custom_values (user_id, field_id, value) SELECT id, (SELECT id FROM custom_fields WHERE name = 'level'), (id % 1000)::text FROM users;
			INSERT INTO user_custom_values (user_id, field_id, value) SELECT id, (SELECT id FROM custom_fields WHERE name = 'dept'), 'Dept ' || (id % 100) FROM users;
			INSERT INTO custom_fields (name, field_type) VALUES ('code', 'string');
			INSERT INTO user_custom_values (user_id, field_id, value) SELECT id, (SELECT id FROM custom_fields WHERE name = 'code'), 'Code ' || id FROM users;
			INSERT INTO user_custom_values (user_id, field_id, value)
			SELECT id, f, CASE WHEN a = b THEN a ELSE least(a, b) || ';' || greatest(a, b) END
			FROM (SELECT id, f, o[1 + id % 100] AS a, o[1 + (id / 100) % 100] AS b
				FROM users, (SELECT id AS f, options AS o FROM custom_fields WHERE name = 'options') f) v`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"users", "user_custom_values"} {
		if _, err := tdb.db.pool.Exec(`VACUUM ANALYZE ` + tdb.schema + `.` + table); err != nil {
			t.Fatal(err)
		}
	}
	no, yes := false, true
	// The page as selectUserPage composes it for a filter (newest first).
	page := func(uq userQuery) string {
		order := "created_at DESC, id DESC"
		plain := fmt.Sprintf(`SELECT %s FROM users WHERE %s ORDER BY %s LIMIT $%d OFFSET $%d`, userColumns, uq.where, order,
			len(uq.args)+1, len(uq.args)+2)
		return filteredUserPageSQL(plain, uq, order)
	}
	// The newest 1,000 users were updated after newest; the oldest 1,000 before oldest.
	newest := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Add(99000 * time.Second)
	oldest := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Add(1001 * time.Second)
	for _, c := range []struct {
		name      string
		f         UserFilter
		offset    int
		wantCount string
		wantPage  string
	}{
		{"x-number", UserFilter{CustomFields: map[string]string{"level": "500"}}, 0,
			"user_custom_values_value", "user_custom_values_value"},
		// 1,000 users (1%: "Dept 42" only); the page before the oldest 100 of them.
		{"x-text", UserFilter{CustomFields: map[string]string{"dept": "DEPT 42"}}, 800,
			"Index Only Scan using user_custom_values_value", "Index Only Scan Backward using user_custom_values_value"},
		// "Dept 4" and "Dept 40" to "Dept 49": 11 values, each read in order and merged; the page before the oldest 100 of 11,000.
		{"x-text matching several values", UserFilter{CustomFields: map[string]string{"dept": "dept 4"}}, 10800,
			"Index Only Scan using user_custom_values_value", "Index Only Scan Backward using user_custom_values_value"},
		{"x-text matching nothing", UserFilter{CustomFields: map[string]string{"dept": "50%_off"}}, 0,
			"Index Only Scan using user_custom_values_value", "user_custom_values_value"},
		// 100,000 distinct codes: past valueSetLimit, so on the trigram index (1,111 users hold "code 42").
		{"x-text of many values", UserFilter{CustomFields: map[string]string{"code": "code 42"}}, 900,
			"user_custom_values_lower_trgm", "user_custom_values_lower_trgm"},
		// 1,990 users hold Opt42 (2%); no option holds "zzz".
		{"x-list", UserFilter{CustomFields: map[string]string{"options": "opt42, zzz"}}, 1800,
			"user_custom_values_lower_trgm", "user_custom_values_lower_trgm"},
		{"active=false", UserFilter{Active: &no}, 1500, "users_inactive", "Index Only Scan using users_inactive"},
		// active=true counts from the anchors minus the inactive users; its page skips on users_active.
		{"active=true", UserFilter{Active: &yes}, 9000, "", "Index Only Scan using users_active"},
		// The first page of the newest 1% newest first, and the last page
		// of the oldest 1%: in users_created order, one of them would read
		// 99,000 rows before the first match.
		{"updated_after", UserFilter{UpdatedFilter: UpdatedFilter{UpdatedAfter: &newest}}, 0,
			"Index Only Scan using users_updated", "Index Only Scan using users_updated"},
		{"updated_before", UserFilter{UpdatedFilter: UpdatedFilter{UpdatedBefore: &oldest}}, 900,
			"Index Only Scan using users_updated", "Index Only Scan using users_updated"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var uq userQuery
			if err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
				var err error
				uq, err = userFilterSQL(ctx, tx, c.f)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			args, count := uq.args, `SELECT count(*) FROM users WHERE `+uq.where
			if uq.custom != nil {
				count = `SELECT count(*) FROM user_custom_values v WHERE ` + uq.custom.values
			}
			// A sole x- filter counts its values alone, never joining users.
			if len(c.f.CustomFields) == 1 && !strings.HasPrefix(count, "SELECT count(*) FROM user_custom_values") {
				t.Errorf("a sole x- filter counts with %s", count)
			}
			for _, q := range []struct{ query, want string }{
				{count, c.wantCount},
				{page(uq), c.wantPage},
			} {
				if q.want == "" {
					continue
				}
				qargs := args
				if strings.Contains(q.query, "LIMIT") {
					qargs = append(args[:len(args):len(args)], 100, c.offset)
				}
				plan := explain(t, tdb, q.query, qargs...)
				if !strings.Contains(plan, q.want) {
					t.Errorf("plan does not use %s:\n%s", q.want, plan)
				}
				if strings.Contains(plan, "Seq Scan on users") || strings.Contains(plan, "Seq Scan on user_custom_values") {
					t.Errorf("plan scans a table:\n%s", plan)
				}
			}
		})
	}
}
