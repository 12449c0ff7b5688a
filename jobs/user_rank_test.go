package jobs_test

import (
	"fmt"
	"testing"
	"time"

	"learngate/jobs"
)

// TestUserRankRunsPeriodically starts the worker and waits for the
// user_rank job to anchor the users of each active tenant, each in its
// own schema.
func TestUserRankRunsPeriodically(t *testing.T) {
	db := newDB(t)
	_, acme := newTenant(t, db, "acme", "Acme")
	_, beta := newTenant(t, db, "beta", "Beta")
	for i := 0; i < 3; i++ {
		createUser(t, acme, userInput(fmt.Sprintf("ann%d", i)))
	}
	createUser(t, beta, userInput("bob"))
	startWorker(t, jobs.Config{DB: db})
	anchors := func(schema string) int {
		var n int
		if err := db.Pool().Get(&n, `SELECT count(*) FROM `+schema+`.user_rank_anchors`); err != nil {
			t.Fatal(err)
		}
		return n
	}
	waitFor(t, 20*time.Second, "both tenants' first anchors", func() bool {
		return anchors(acme.Schema()) == 1 && anchors(beta.Schema()) == 1
	})
	var rank int64
	var name string
	err := db.Pool().QueryRow(`SELECT a.rank, u.user_name FROM `+acme.Schema()+`.user_rank_anchors a
		JOIN `+acme.Schema()+`.users u USING (id)`).Scan(&rank, &name)
	if err != nil || rank != 0 || name != "ann0" {
		t.Fatalf("acme anchor = rank %d of %q, %v; want rank 0 of ann0", rank, name, err)
	}
}
