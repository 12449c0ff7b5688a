package jobs_test

import (
	"context"
	"testing"
	"time"

	"learngate"
	"learngate/jobs"
	"learngate/store"
)

// conquerPathway gives tdb a pathway certified for 10 days, with
// recertification allowed or not, and enrols user name in it as conquered
// on day; it returns the pathway enrolment's id.
func conquerPathway(t *testing.T, tdb *store.TenantDB, name, code string, recertify bool, day time.Time) int64 {
	t.Helper()
	ctx := context.Background()
	_, err := store.CreatePathway(ctx, tdb, learngate.PathwayInput{Title: ptr("Pathway " + code), CertifyDays: ptr(10),
		RecertificationAllowed: ptr(recertify), EnrolmentCode: ptr(code)}, day)
	if err != nil {
		t.Fatalf("create pathway: %v", err)
	}
	got, err := store.AssignEnrolments(ctx, tdb, learngate.UserRef{UserName: ptr(name)}, []learngate.EnrolmentRequest{{
		N: 1, Raw: code + " COMPLETE", Code: code, Action: learngate.ActionComplete,
		ConqueredDate: &learngate.EnrolmentDate{Day: day, Raw: day.Format("2006-01-02")},
	}}, day)
	if err != nil {
		t.Fatalf("enrol %s in %s: %v", name, code, err)
	}
	return got[0].Pathway.ID
}

func TestRecertifyRunsPeriodically(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	_, acme := newTenant(t, db, "acme", "Acme")
	paused, pausedDB := newTenant(t, db, "paused", "Paused")
	day := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -20)
	for _, tdb := range []*store.TenantDB{acme, pausedDB} {
		createUser(t, tdb, userInput("ann"))
	}
	expired := conquerPathway(t, acme, "ann", "PW-RE", true, day)
	final := conquerPathway(t, acme, "ann", "PW-FINAL", false, day)
	pausedID := conquerPathway(t, pausedDB, "ann", "PW-RE", true, day)
	if err := db.SetTenantStatus(ctx, paused.ID, learngate.TenantSuspended); err != nil {
		t.Fatal(err)
	}

	now := time.Now().UTC().Truncate(time.Second)
	startWorker(t, jobs.Config{DB: db, Now: func() time.Time { return now }})
	status := func(tdb *store.TenantDB, id int64) learngate.PathwayEnrolment {
		pe, err := store.GetPathwayEnrolment(ctx, tdb, id)
		if err != nil {
			t.Fatal(err)
		}
		return pe
	}
	waitFor(t, 20*time.Second, "the expired certification to need recertifying", func() bool {
		return status(acme, expired).Status == learngate.StatusRecertify
	})
	if pe := status(acme, expired); !pe.UpdatedAt.Equal(now) {
		t.Errorf("updated_at %s, want %s", pe.UpdatedAt, now)
	}
	// Without recertification allowed, or in a suspended tenant, nothing moves.
	if pe := status(acme, final); pe.Status != learngate.StatusConquered {
		t.Errorf("pathway without recertification: status %s", pe.Status)
	}
	if pe := status(pausedDB, pausedID); pe.Status != learngate.StatusConquered {
		t.Errorf("suspended tenant's enrolment: status %s", pe.Status)
	}
	waitFor(t, 5*time.Second, "the recertify job to complete", func() bool {
		j := jobsOfKind(t, db, store.KindRecertify)
		return len(j) > 0 && j[0].State == "completed"
	})
}
