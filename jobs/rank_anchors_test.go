package jobs_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"learngate/jobs"
	"learngate/store"
	"learngate/store/list"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
)

// TestRankAnchorsRunPeriodically starts the worker and waits for the
// rank_anchors job to anchor the users of each active tenant, each in its
// own schema, and acme's topic enrolments, pathway enrolments and external
// knowledge records (store.MaintainListRanks); beta, which has none, gets
// no such anchor.
func TestRankAnchorsRunPeriodically(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	_, acme := newTenant(t, db, "acme", "Acme")
	_, beta := newTenant(t, db, "beta", "Beta")
	for i := 0; i < 3; i++ {
		createUser(t, acme, userInput(fmt.Sprintf("ann%d", i)))
	}
	createUser(t, beta, userInput("bob"))
	s := acme.Schema()
	if _, err := db.Pool().Exec(`INSERT INTO ` + s + `.topics (title) VALUES ('Go');
		INSERT INTO ` + s + `.pathways (title) VALUES ('Backend');
		INSERT INTO ` + s + `.topic_enrolments (user_id, topic_id) SELECT id, 1 FROM ` + s + `.users;
		INSERT INTO ` + s + `.pathway_enrolments (user_id, pathway_id) SELECT id, 1 FROM ` + s + `.users;
		INSERT INTO ` + s + `.external_knowledges (user_id, knowledge_type, title, date_obtained)
			SELECT id, 1, 'Course', date '2026-01-01' FROM ` + s + `.users`); err != nil {
		t.Fatal(err)
	}
	startWorker(t, jobs.Config{DB: db})
	count := func(schema, table string) int {
		var n int
		if err := db.Pool().Get(&n, `SELECT count(*) FROM `+schema+`.`+table); err != nil {
			t.Fatal(err)
		}
		return n
	}
	anchors := func(schema string) int { return count(schema, "user_rank_anchors") }
	waitFor(t, 20*time.Second, "both tenants' first anchors", func() bool {
		return anchors(acme.Schema()) == 1 && anchors(beta.Schema()) == 1 &&
			count(s, "topic_enrolment_rank_anchors") == 1 && count(s, "pathway_enrolment_rank_anchors") == 1 &&
			count(s, "knowledge_rank_anchors") == 1
	})
	for _, table := range []string{"topic_enrolment_rank_anchors", "pathway_enrolment_rank_anchors", "knowledge_rank_anchors"} {
		if n := count(beta.Schema(), table); n != 0 {
			t.Fatalf("beta has %d rows in %s; it has no such rows to anchor", n, table)
		}
	}
	var rank int64
	var name string
	err := db.Pool().QueryRow(`SELECT a.rank, u.user_name FROM `+acme.Schema()+`.user_rank_anchors a
		JOIN `+acme.Schema()+`.users u USING (id)`).Scan(&rank, &name)
	if err != nil || rank != 0 || name != "ann0" {
		t.Fatalf("acme anchor = rank %d of %q, %v; want rank 0 of ann0", rank, name, err)
	}
}

// TestUserRankJobStillWorked: a job of kind user_rank, the job's name
// before the list engine, which a node of the earlier release still
// schedules during a rolling upgrade, is worked to completion by this
// release's worker (an unknown kind would fail and be discarded), and
// anchors the tenant's users as rank_anchors does.
func TestUserRankJobStillWorked(t *testing.T) {
	db := newDB(t)
	_, acme := newTenant(t, db, "acme", "Acme")
	createUser(t, acme, userInput("ann"))
	inserter, err := river.NewClient(riverdatabasesql.New(db.Pool().DB), &river.Config{Schema: store.JobSchema})
	if err != nil {
		t.Fatal(err)
	}
	res, err := inserter.Insert(context.Background(), list.UserRankArgs{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	startWorker(t, jobs.Config{DB: db})
	state := func() string {
		var s string
		if err := db.Pool().Get(&s, `SELECT state FROM `+store.JobSchema+`.river_job WHERE id = $1`, res.Job.ID); err != nil {
			t.Fatal(err)
		}
		return s
	}
	waitFor(t, 20*time.Second, "the user_rank job completed", func() bool { return state() == "completed" })
	var anchors int
	if err := db.Pool().Get(&anchors, `SELECT count(*) FROM `+acme.Schema()+`.user_rank_anchors`); err != nil || anchors != 1 {
		t.Fatalf("acme has %d user anchors after the job, %v; want 1", anchors, err)
	}
}
