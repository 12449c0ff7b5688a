package jobs_test

import (
	"context"
	"testing"
	"time"

	"learngate/jobs"
)

// TestWebSessionPurgeRunsPeriodically starts the worker and waits for the
// web_session_purge job to delete the expired learner sessions of every
// tenant, and to keep the live ones (which are still found). Expiry is
// judged by Config.Now: the worker's clock is two hours ahead, so a
// session that would live one more hour by the wall clock is expired.
func TestWebSessionPurgeRunsPeriodically(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	acme, _ := newTenant(t, db, "acme", "Acme")
	beta, _ := newTenant(t, db, "beta", "Beta")
	now := time.Now().Add(2 * time.Hour)
	for _, id := range []int64{acme.ID, beta.ID} {
		prefix := map[int64]string{acme.ID: "acme-", beta.ID: "beta-"}[id]
		if err := db.CommitWebSession(ctx, id, 0, prefix+"expired", []byte("x"), now.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := db.CommitWebSession(ctx, id, 0, prefix+"live", []byte("x"), now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	tokens := func() []string {
		var names []string
		if err := db.Pool().Select(&names, `SELECT token FROM public.web_sessions ORDER BY token`); err != nil {
			t.Fatal(err)
		}
		return names
	}
	if got := tokens(); len(got) != 4 {
		t.Fatalf("sessions before the purge: %v", got)
	}
	startWorker(t, jobs.Config{DB: db, Now: func() time.Time { return now }})
	waitFor(t, 20*time.Second, "every tenant's expired sessions purged", func() bool {
		got := tokens()
		return len(got) == 2 && got[0] == "acme-live" && got[1] == "beta-live"
	})
	if _, ok, err := db.FindWebSession(ctx, acme.ID, "acme-live", now); err != nil || !ok {
		t.Fatalf("live session after the purge: found %v, %v", ok, err)
	}
}
