package datagen

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"learngate/store/storetest"
	"learngate/tenant"
)

// pathwayRuleSQL counts the current pathway enrolments of a tenant that
// break the store's rules (docs/decisions.md, "Enrolments"): a topic of the
// pathway without a current enrolment of the user, or a status other than
// the one the store's updatePathwayStatuses gives (Conquered with the last
// required topic's completion when every required topic is conquered,
// Exploring once any topic is past Unexplored, else Unexplored).
const pathwayRuleSQL = `WITH progress AS (
	SELECT pe.id, pe.status, pe.conquered_at,
		count(te.id) AS held, count(*) AS topics,
		bool_or(te.status <> 'Unexplored') AS started,
		bool_and(coalesce(te.status = 'Conquered', false)) FILTER (WHERE pt.mandatory) AS done,
		max(te.completed_topic_at) FILTER (WHERE pt.mandatory) AS done_at
	FROM pathway_enrolments pe
	JOIN pathway_topics pt ON pt.pathway_id = pe.pathway_id
	LEFT JOIN topic_enrolments te ON te.user_id = pe.user_id AND te.topic_id = pt.topic_id AND te.removed_at IS NULL
	WHERE pe.removed_at IS NULL
	GROUP BY pe.id)
SELECT count(*) FROM progress WHERE held <> topics
	OR status <> CASE WHEN done THEN 'Conquered' WHEN started THEN 'Exploring' ELSE 'Unexplored' END
	OR conquered_at IS DISTINCT FROM CASE WHEN done THEN done_at END`

func TestGeneratedEnrolmentsFollowTheStoreRulesAndSpreadUpdatedAt(t *testing.T) {
	ctx := context.Background()
	db, _ := storetest.NewDB(t)
	reg := tenant.NewRegistry(db, tenant.Options{BaseDomains: []string{"learngate.localhost"},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	spec := Spec{Tenants: []TenantSpec{
		{Slug: "rules-a", Users: 300, TopicEnrolments: 2_000, Knowledge: 10, PathwayEnrolments: 120},
		{Slug: "rules-b", Users: 3, TopicEnrolments: 100, Knowledge: 0, PathwayEnrolments: 20},
	}}
	ts, err := Ensure(ctx, db, reg, spec, io.Discard)
	if err != nil {
		t.Fatalf("ensure: %v", err)
	}
	for _, tt := range ts {
		tx, err := db.Pool().BeginTxx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, `SELECT set_config('search_path', $1, true)`, tt.Schema); err != nil {
			t.Fatal(err)
		}
		var got struct {
			Broken      int `db:"broken"`
			Conquered   int `db:"conquered"`
			Exploring   int `db:"exploring"`
			DirectClash int `db:"direct_clash"`
		}
		err = tx.GetContext(ctx, &got, `SELECT
			(`+pathwayRuleSQL+`) AS broken,
			(SELECT count(*) FROM pathway_enrolments WHERE status = 'Conquered') AS conquered,
			(SELECT count(*) FROM pathway_enrolments WHERE status = 'Exploring') AS exploring,
			(SELECT count(*) FROM topic_enrolments te JOIN pathway_topics pt ON pt.topic_id = te.topic_id
				WHERE te.relationship = 'direct') AS direct_clash`)
		if err != nil {
			tx.Rollback()
			t.Fatalf("check %s: %v", tt.Slug, err)
		}
		// Every class of pathway status is there, and none breaks the rules.
		if got.Broken != 0 || got.Conquered != tt.PathwayEnrolments/4 || got.Exploring != tt.PathwayEnrolments/2 ||
			got.DirectClash != 0 {
			t.Errorf("%s: %+v", tt.Slug, got)
		}
		tx.Rollback()
	}

	// updated_after = UpdatedAfter(1%, n) selects exactly n-1-floor(0.99(n-1))
	// rows, and not just the newest ids.
	a := ts[0]
	for _, c := range []struct {
		table string
		n     int
	}{{"topic_enrolments", a.TopicEnrolments}, {"pathway_enrolments", a.PathwayEnrolments}} {
		var sel struct {
			N     int   `db:"n"`
			MinID int64 `db:"min_id"`
		}
		err := db.Pool().GetContext(ctx, &sel, `SELECT count(*) AS n, coalesce(min(id), 0) AS min_id
			FROM `+a.Schema+`.`+c.table+` WHERE removed_at IS NULL AND updated_at > $1`, UpdatedAfter(0.01, c.n))
		if err != nil {
			t.Fatal(err)
		}
		want := c.n - 1 - int(float64(c.n-1)*0.99)
		if sel.N != want || sel.MinID > int64(c.n/2) {
			t.Errorf("%s updated_after 1%%: %d rows from id %d, want %d rows spread over the ids", c.table, sel.N, sel.MinID, want)
		}
	}
	// Another tenant's rows are not counted: rules-b's schema holds its own.
	var other int
	if err := db.Pool().GetContext(ctx, &other, `SELECT count(*) FROM `+ts[1].Schema+`.pathway_enrolments`); err != nil || other != 20 {
		t.Errorf("rules-b pathway enrolments = %d, %v", other, err)
	}
}
