package jobs_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"learngate"
	"learngate/jobs"
	"learngate/store"
	"learngate/store/storetest"
)

// blockingMailer holds every Send until release is closed.
type blockingMailer struct {
	entered chan struct{}
	release chan struct{}
	sent    atomic.Int32
}

func newBlockingMailer() *blockingMailer {
	return &blockingMailer{entered: make(chan struct{}, 10), release: make(chan struct{})}
}

func (m *blockingMailer) String() string { return "blocking test mailer" }

func (m *blockingMailer) Send(ctx context.Context, _ jobs.Message) error {
	m.entered <- struct{}{}
	select {
	case <-m.release:
		m.sent.Add(1)
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func TestRunFinishesTheCurrentJobOnShutdown(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	_, acme := newTenant(t, db, "acme", "Acme")
	mailer := newBlockingMailer()
	rw := startWorker(t, jobs.Config{DB: db, Mailer: mailer})
	in := userInput("ann")
	in.SendInvitation = true
	createUser(t, acme, in)
	select {
	case <-mailer.entered:
	case <-time.After(15 * time.Second):
		t.Fatal("the invitation job did not start")
	}

	rw.cancel() // SIGTERM
	select {
	case <-rw.done:
		t.Fatal("Run returned while a job was still running")
	case <-time.After(300 * time.Millisecond):
	}
	close(mailer.release)
	select {
	case <-rw.done:
		if rw.err != nil {
			t.Fatalf("Run: %v", rw.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after the job finished")
	}
	if mailer.sent.Load() != 1 {
		t.Fatalf("sent %d, want 1", mailer.sent.Load())
	}
	if j := jobsOfKind(t, db, store.KindSendInvitation); len(j) != 1 || j[0].State != "completed" {
		t.Fatalf("jobs = %+v, want one completed", j)
	}
}

// TestRunCancelsJobsAfterTheStopTimeout bounds how long Run takes to stop,
// so it is the one test of the package not run in parallel with the others.
func TestRunCancelsJobsAfterTheStopTimeout(t *testing.T) {
	db := newDB(t)
	_, acme := newTenant(t, db, "acme", "Acme")
	mailer := newBlockingMailer() // never released
	rw := startWorker(t, jobs.Config{DB: db, Mailer: mailer, StopTimeout: 200 * time.Millisecond})
	in := userInput("ann")
	in.SendInvitation = true
	createUser(t, acme, in)
	select {
	case <-mailer.entered:
	case <-time.After(15 * time.Second):
		t.Fatal("the invitation job did not start")
	}
	start := time.Now()
	rw.Stop(t)
	if d := time.Since(start); d > 6*time.Second {
		t.Fatalf("Run took %s to stop with a 200ms stop timeout", d)
	}
	// The interrupted job is not lost: it will be retried.
	if j := jobsOfKind(t, db, store.KindSendInvitation); len(j) != 1 || j[0].State != "retryable" && j[0].State != "available" {
		t.Fatalf("jobs = %+v, want one waiting for a retry", j)
	}
}

func TestRunNeedsTheJobTables(t *testing.T) {
	t.Parallel()
	db, err := store.Open(context.Background(), storetest.NewDatabase(t)) // never migrated
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w, err := jobs.New(jobs.Config{DB: db, Links: testLinks, Blobs: localBlobs(t)})
	if err != nil {
		t.Fatal(err)
	}
	err = w.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "run `learngate migrate` first") {
		t.Fatalf("Run = %v, want the job tables missing", err)
	}
}

func TestNewChecksLinks(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	for _, links := range []jobs.Links{{}, {Scheme: "ftp", BaseDomain: "x.test"}, {Scheme: "https"}} {
		if _, err := jobs.New(jobs.Config{DB: db, Links: links, Blobs: localBlobs(t)}); err == nil {
			t.Errorf("New with links %+v succeeded", links)
		}
	}
	if _, err := jobs.New(jobs.Config{DB: db, Links: testLinks}); err == nil {
		t.Error("New without a blob store succeeded")
	}
}

func TestScheduledActivationRunsPeriodically(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	_, acme := newTenant(t, db, "acme", "Acme")
	_, other := newTenant(t, db, "other", "Other")
	paused, pausedDB := newTenant(t, db, "paused", "Paused")
	tomorrow := time.Now().UTC().AddDate(0, 0, 2).Format("2006-01-02")
	day, _ := time.Parse("2006-01-02", tomorrow)
	leaving := func(name string) learngate.UserInput {
		in := userInput(name)
		in.DeactivateScheduledDate = &learngate.ScheduledDate{Day: day, Raw: tomorrow}
		return in
	}
	createUser(t, acme, leaving("ann"))
	createUser(t, other, leaving("olga"))
	stays := createUser(t, other, userInput("sam"))
	createUser(t, pausedDB, leaving("pat"))
	if err := db.SetTenantStatus(ctx, paused.ID, learngate.TenantSuspended); err != nil {
		t.Fatal(err)
	}

	later := day.Add(time.Hour) // the worker's clock: the date is due
	startWorker(t, jobs.Config{DB: db, Now: func() time.Time { return later }})

	active := func(tdb *store.TenantDB, name string) learngate.User {
		u, err := store.GetUser(ctx, tdb, name)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	waitFor(t, 20*time.Second, "ann and olga to be deactivated", func() bool {
		return !active(acme, "ann").Active && !active(other, "olga").Active
	})
	ann := active(acme, "ann")
	if ann.DeactivateScheduledDate != nil || !ann.UpdatedAt.Equal(later) {
		t.Errorf("ann: date %v, updated_at %s; want no date, updated at %s", ann.DeactivateScheduledDate, ann.UpdatedAt, later)
	}
	if sam := active(other, "sam"); !sam.Active || !sam.UpdatedAt.Equal(stays.UpdatedAt) {
		t.Errorf("sam changed: active %v, updated_at %s (was %s)", sam.Active, sam.UpdatedAt, stays.UpdatedAt)
	}
	// A suspended tenant is not swept.
	if pat := active(pausedDB, "pat"); !pat.Active || pat.DeactivateScheduledDate == nil {
		t.Errorf("pat of a suspended tenant changed: active %v, date %v", pat.Active, pat.DeactivateScheduledDate)
	}
	waitFor(t, 5*time.Second, "the scheduled activation job to complete", func() bool {
		j := jobsOfKind(t, db, store.KindScheduledActivation)
		return len(j) > 0 && j[0].State == "completed"
	})
}
