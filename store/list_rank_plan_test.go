//go:build slow

package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate"
	"learngate/store/list"
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
		if _, err := tdb.db.pool.Exec(`VACUUM ANALYZE ` + tdb.schema + `.` + l.Table); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := MaintainListRanks(ctx, tdb); err != nil {
		t.Fatal(err)
	}
	anchors := func(l list.Spec, offset int64) rankAnchors {
		var a rankAnchors
		st := l.AnchorsStatement(offset)
		if err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error { return tx.Get(&a, st.SQL, st.Args...) }); err != nil {
			t.Fatal(err)
		}
		if a.PageRank == 0 || a.NewestRank == 0 {
			t.Fatalf("%s: no anchors %+v", l.Table, a)
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
	for _, l := range rankedLists {
		a := anchors(l, 20000)
		index := strings.TrimSuffix(l.Table, "s") + "s_listed"
		if l.Table == "external_knowledges" {
			index = "external_knowledges_pkey"
		}
		count := l.CountSinceStatement(learngate.Key{ID: a.NewestID}, true)
		deep := l.PageStatement(selects[l.Table], list.NewQuery(list.Plan{Count: list.CountAnchored}),
			list.Window{Size: 100, Skip: 20000 - a.PageRank, From: &learngate.Key{ID: a.PageID}})
		plans = append(plans,
			plan{l.Table + " count", count.SQL, count.Args, index},
			plan{l.Table + " deep page", deep.SQL, deep.Args, index})
	}
	topicID, userName := int64(40), "u150"
	since := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(29000 * time.Second) // the newest 1,000 rows
	filters := []struct {
		name  string
		f     list.EnrolmentFilter
		index string
	}{
		{"topic_id", list.EnrolmentFilter{TargetID: &topicID}, "topic_enrolments_topic"},
		{"topic_ids with one id", list.EnrolmentFilter{TargetIDs: []int64{topicID}}, "topic_enrolments_topic"},
		// Two topics: each topic's first ids on its index, merged (perTarget), never a walk of the id index.
		{"topic_ids with two ids", list.EnrolmentFilter{TargetIDs: []int64{topicID, topicID + 1}}, "topic_enrolments_topic"},
		{"user_name", list.EnrolmentFilter{UserName: &userName}, "topic_enrolments_user"},
		{"updated_after", list.EnrolmentFilter{UpdatedFilter: list.UpdatedFilter{UpdatedAfter: &since}}, "topic_enrolments_updated"},
	}
	for _, f := range filters {
		q := f.f.Query(list.TopicEnrolments)
		count := list.TopicEnrolments.CountStatement(q)
		page := list.TopicEnrolments.PageStatement(topicEnrolmentSelect, q, list.Window{Size: 100, Skip: 200})
		plans = append(plans,
			plan{"topic_enrolments " + f.name + " count", count.SQL, count.Args, f.index},
			plan{"topic_enrolments " + f.name + " page", page.SQL, page.Args, f.index})
	}
	byUser := list.Knowledge.PageStatement(selectKnowledge, list.KnowledgeFilter{UserName: userName}.Query(), list.Window{Size: 100, Skip: 50})
	updated := list.KnowledgeFilter{UpdatedFilter: list.UpdatedFilter{UpdatedAfter: &since}}.Query()
	updatedPage := list.Knowledge.PageStatement(selectKnowledge, updated, list.Window{Size: 100, Skip: 500})
	updatedCount := list.Knowledge.CountStatement(updated)
	plans = append(plans,
		plan{"external_knowledges user_name page", byUser.SQL, byUser.Args, "external_knowledges_user"},
		plan{"external_knowledges updated_after page", updatedPage.SQL, updatedPage.Args, "external_knowledges_updated"},
		plan{"external_knowledges updated_after count", updatedCount.SQL, updatedCount.Args,
			"Index Only Scan using external_knowledges_updated"})
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
	// The newest 1,000 users were updated after newest; the oldest 1,000 before oldest.
	newest := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Add(99000 * time.Second)
	oldest := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Add(1001 * time.Second)
	for _, c := range []struct {
		name      string
		f         list.UserFilter
		offset    int
		wantCount string
		wantPage  string
	}{
		{"x-number", list.UserFilter{CustomFields: map[string]string{"level": "500"}}, 0,
			"user_custom_values_value", "user_custom_values_value"},
		// 1,000 users (1%: "Dept 42" only); the page before the oldest 100 of them.
		{"x-text", list.UserFilter{CustomFields: map[string]string{"dept": "DEPT 42"}}, 800,
			"Index Only Scan using user_custom_values_value", "Index Only Scan Backward using user_custom_values_value"},
		// "Dept 4" and "Dept 40" to "Dept 49": 11 values, each read in order and merged; the page before the oldest 100 of 11,000.
		{"x-text matching several values", list.UserFilter{CustomFields: map[string]string{"dept": "dept 4"}}, 10800,
			"Index Only Scan using user_custom_values_value", "Index Only Scan Backward using user_custom_values_value"},
		{"x-text matching nothing", list.UserFilter{CustomFields: map[string]string{"dept": "50%_off"}}, 0,
			"Index Only Scan using user_custom_values_value", "user_custom_values_value"},
		// 100,000 distinct codes: past valueSetLimit, so on the trigram index (1,111 users hold "code 42").
		{"x-text of many values", list.UserFilter{CustomFields: map[string]string{"code": "code 42"}}, 900,
			"user_custom_values_lower_trgm", "user_custom_values_lower_trgm"},
		// 1,990 users hold Opt42 (2%); no option holds "zzz".
		{"x-list", list.UserFilter{CustomFields: map[string]string{"options": "opt42, zzz"}}, 1800,
			"user_custom_values_lower_trgm", "user_custom_values_lower_trgm"},
		{"active=false", list.UserFilter{Active: &no}, 1500, "users_inactive", "Index Only Scan using users_inactive"},
		// active=true counts from the anchors minus the inactive users; its page skips on users_active.
		{"active=true", list.UserFilter{Active: &yes}, 9000, "", "Index Only Scan using users_active"},
		// The first page of the newest 1% newest first, and the last page
		// of the oldest 1%: in users_created order, one of them would read
		// 99,000 rows before the first match.
		{"updated_after", list.UserFilter{UpdatedFilter: list.UpdatedFilter{UpdatedAfter: &newest}}, 0,
			"Index Only Scan using users_updated", "Index Only Scan using users_updated"},
		{"updated_before", list.UserFilter{UpdatedFilter: list.UpdatedFilter{UpdatedBefore: &oldest}}, 900,
			"Index Only Scan using users_updated", "Index Only Scan using users_updated"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var uq *list.Query
			if err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
				fields, err := customFieldsByName(ctx, tx)
				if err != nil {
					return err
				}
				uq, err = c.f.Query(ctx, tx, fields)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			// The statements ListUsers sends: the count, and the page
			// 100 rows after offset, newest first.
			count := list.Users.CountStatement(uq).SQL
			page := list.Users.PageStatement(usersSelect, uq, list.Window{Size: 100, Skip: int64(c.offset)})
			// A sole x- filter counts its values alone, never joining users.
			if len(c.f.CustomFields) == 1 && !strings.HasPrefix(count, "SELECT count(*) FROM user_custom_values") {
				t.Errorf("a sole x- filter counts with %s", count)
			}
			for _, q := range []struct{ query, want string }{
				{count, c.wantCount},
				{page.SQL, c.wantPage},
			} {
				if q.want == "" {
					continue
				}
				qargs := uq.Args()
				if strings.Contains(q.query, "LIMIT") {
					qargs = page.Args
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
