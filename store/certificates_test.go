package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate"
	"learngate/store"
	"learngate/store/storetest"
)

// certTenant is a tenant with one user, ann, whose id it returns.
func certTenant(t *testing.T, db *store.DB, slug string) (*store.TenantDB, int64) {
	t.Helper()
	tdb := catalogTenantDB(t, db, slug)
	in := newUser("ann")
	in.FirstName, in.LastName = ptr("Mereana"), ptr("Tūhoe")
	u, err := store.CreateUser(context.Background(), tdb, in, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return tdb, u.ID
}

var conquered = time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)

// queuedCertificates returns the args of the certificate jobs in River's table.
func queuedCertificates(t *testing.T, db *store.DB) []store.CertificateArgs {
	t.Helper()
	var raws [][]byte
	if err := db.Pool().Select(&raws, `SELECT args FROM public.river_job WHERE kind = $1 ORDER BY id`, store.KindCertificate); err != nil {
		t.Fatal(err)
	}
	out := []store.CertificateArgs{}
	for _, raw := range raws {
		var a store.CertificateArgs
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatal(err)
		}
		out = append(out, a)
	}
	return out
}

func TestRequestCertificateQueuesOneJobPerPendingEnrolment(t *testing.T) {
	t.Parallel()
	db, _ := storetest.NewDB(t)
	ctx := context.Background()
	acme, ann := certTenant(t, db, "acme")
	topic := storetest.SeedConqueredEnrolment(t, acme, ann, "Fire safety", conquered)
	ref := store.EnrolmentRef{Kind: store.TopicCertificate, ID: topic}
	now := time.Date(2025, 6, 2, 10, 0, 0, 0, time.UTC)

	first, err := store.RequestCertificate(ctx, acme, ref, now)
	if err != nil {
		t.Fatalf("request: %v", err)
	}
	if first.Status != store.CertificatePending || len(first.JobID) != 32 || !first.ExpiresAt.Equal(now.Add(24*time.Hour)) ||
		first.BlobKey != acme.Schema()+"/certificates/"+first.JobID+".pdf" {
		t.Fatalf("job = %+v", first)
	}
	if q := queuedCertificates(t, db); len(q) != 1 || q[0] != (store.CertificateArgs{Schema: acme.Schema(), ID: first.ID}) {
		t.Fatalf("queued = %+v", q)
	}
	again, err := store.RequestCertificate(ctx, acme, ref, now.Add(time.Hour))
	if err != nil || again.JobID != first.JobID {
		t.Fatalf("second request = %+v, %v; want job %s", again, err, first.JobID)
	}
	if q := queuedCertificates(t, db); len(q) != 1 {
		t.Fatalf("a second request queued another job: %+v", q)
	}

	// Once the job is done, a request makes a new certificate.
	if ok, err := store.CompleteCertificateJob(ctx, acme, first.ID, now, nil); !ok || err != nil {
		t.Fatalf("complete = %v, %v", ok, err)
	}
	next, err := store.RequestCertificate(ctx, acme, ref, now.Add(2*time.Hour))
	if err != nil || next.JobID == first.JobID || next.CertificateID == first.CertificateID {
		t.Fatalf("request after completion = %+v, %v", next, err)
	}
}

func TestRequestCertificateConcurrentRequestsShareAJob(t *testing.T) {
	t.Parallel()
	db, _ := storetest.NewDB(t)
	acme, ann := certTenant(t, db, "acme")
	ref := store.EnrolmentRef{Kind: store.TopicCertificate, ID: storetest.SeedConqueredEnrolment(t, acme, ann, "Fire", conquered)}
	ids := make([]string, 8)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() {
			job, err := store.RequestCertificate(context.Background(), acme, ref, time.Now())
			if err != nil {
				t.Errorf("request %d: %v", i, err)
			}
			ids[i] = job.JobID
		})
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("concurrent requests got different jobs: %q", ids)
		}
	}
	if q := queuedCertificates(t, db); len(q) != 1 {
		t.Fatalf("%d jobs queued, want 1", len(q))
	}
}

func TestRequestCertificateRefusesIneligibleEnrolments(t *testing.T) {
	t.Parallel()
	db, _ := storetest.NewDB(t)
	ctx := context.Background()
	acme, ann := certTenant(t, db, "acme")
	seed := func(s storetest.EnrolmentSeed) int64 {
		s.UserID = ann
		if s.ConqueredAt == nil {
			s.ConqueredAt = &conquered
		}
		return storetest.SeedEnrolment(t, acme, s)
	}
	topic, pathway := store.TopicCertificate, store.PathwayCertificate
	cases := []struct {
		name string
		ref  store.EnrolmentRef
		code learngate.Code
		msg  string
	}{
		{"removed topic enrolment", store.EnrolmentRef{Kind: topic, ID: seed(storetest.EnrolmentSeed{Kind: topic, Title: "A", ShowCertificate: true, Removed: true})},
			learngate.Invalid, "Topic assignment 1 has been removed: only a current enrolment has a certificate"},
		{"topic not conquered", store.EnrolmentRef{Kind: topic, ID: seed(storetest.EnrolmentSeed{Kind: topic, Title: "B", ShowCertificate: true, Status: "Exploring"})},
			learngate.Invalid, "Topic assignment 2 is not conquered (its status is Exploring): only a conquered enrolment has a certificate"},
		{"topic without certificate", store.EnrolmentRef{Kind: topic, ID: seed(storetest.EnrolmentSeed{Kind: topic, Title: "Fire safety"})},
			learngate.Invalid, "The topic 'Fire safety' does not show a certificate (show_certificate is false)"},
		{"pathway recertify", store.EnrolmentRef{Kind: pathway, ID: seed(storetest.EnrolmentSeed{Kind: pathway, Title: "P", ShowCertificate: true, Status: "recertify"})},
			learngate.Invalid, "Pathway assignment 1 is not conquered (its status is recertify): only a conquered enrolment has a certificate"},
		{"pathway without certificate", store.EnrolmentRef{Kind: pathway, ID: seed(storetest.EnrolmentSeed{Kind: pathway, Title: "Induction"})},
			learngate.Invalid, "The pathway 'Induction' does not show a certificate (show_certificate is false)"},
		{"unknown topic enrolment", store.EnrolmentRef{Kind: topic, ID: 999}, learngate.NotFound, "not found"},
		{"unknown pathway enrolment", store.EnrolmentRef{Kind: pathway, ID: 999}, learngate.NotFound, "not found"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := store.RequestCertificate(ctx, acme, c.ref, time.Now())
			if learngate.ErrorCode(err) != c.code || learngate.ErrorMessage(err) != c.msg {
				t.Fatalf("err = %v, want %s %q", err, c.code, c.msg)
			}
		})
	}
	if q := queuedCertificates(t, db); len(q) != 0 {
		t.Fatalf("refused requests queued %d jobs", len(q))
	}
}

func TestCertificateJobsAreTenantScoped(t *testing.T) {
	t.Parallel()
	db, _ := storetest.NewDB(t)
	ctx := context.Background()
	acme, ann := certTenant(t, db, "acme")
	globex, _ := certTenant(t, db, "globex")
	id := storetest.SeedConqueredEnrolment(t, acme, ann, "Fire", conquered)
	job, err := store.RequestCertificate(ctx, acme, store.EnrolmentRef{Kind: store.TopicCertificate, ID: id}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	// globex has no enrolment with acme's id, and cannot see acme's job.
	_, err = store.RequestCertificate(ctx, globex, store.EnrolmentRef{Kind: store.TopicCertificate, ID: id}, time.Now())
	assertCode(t, err, learngate.NotFound, "not found")
	_, err = store.GetCertificateJob(ctx, globex, job.JobID, time.Now())
	assertCode(t, err, learngate.NotFound, "not found")
}

func TestGetCertificateJobExpiresAfter24Hours(t *testing.T) {
	t.Parallel()
	db, _ := storetest.NewDB(t)
	ctx := context.Background()
	acme, ann := certTenant(t, db, "acme")
	ref := store.EnrolmentRef{Kind: store.TopicCertificate, ID: storetest.SeedConqueredEnrolment(t, acme, ann, "Fire", conquered)}
	requested := time.Date(2025, 6, 2, 10, 0, 0, 0, time.UTC)
	job, err := store.RequestCertificate(ctx, acme, ref, requested)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := store.GetCertificateJob(ctx, acme, job.JobID, requested.Add(24*time.Hour-time.Second)); err != nil || got.ID != job.ID {
		t.Fatalf("just before expiry: %+v, %v", got, err)
	}
	_, err = store.GetCertificateJob(ctx, acme, job.JobID, requested.Add(24*time.Hour))
	assertCode(t, err, learngate.NotFound, "not found")
	for _, bad := range []string{"", "nope", job.JobID + "0", "' OR 1=1 --"} {
		_, err = store.GetCertificateJob(ctx, acme, bad, requested)
		assertCode(t, err, learngate.NotFound, "not found")
	}

	// A job still pending at its expiry is failed by the next request, which queues a new one.
	next, err := store.RequestCertificate(ctx, acme, ref, requested.Add(25*time.Hour))
	if err != nil || next.JobID == job.JobID {
		t.Fatalf("request after expiry = %+v, %v", next, err)
	}
	var status, message string
	if err := db.Pool().QueryRow(`SELECT status, error FROM `+acme.Schema()+`.certificate_jobs WHERE id = $1`, job.ID).
		Scan(&status, &message); err != nil || status != "failed" || message != "The job expired before it could be worked." {
		t.Fatalf("expired job: %s %q %v", status, message, err)
	}

	expired, err := store.ExpiredCertificateJobs(ctx, acme, requested.Add(25*time.Hour), 10)
	if err != nil || len(expired) != 1 || expired[0].ID != job.ID {
		t.Fatalf("expired = %+v, %v", expired, err)
	}
	if err := store.DeleteCertificateJobs(ctx, acme, []int64{job.ID}); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT count(*) FROM `+acme.Schema()+`.certificate_jobs`); n != 1 {
		t.Fatalf("%d jobs left, want the new one", n)
	}
}

// recorder is an EventRecorder that keeps what it is given and sees the job
// from inside the transaction.
type recorder struct {
	events   []store.Event
	statuses []string
	fail     error
}

func (r *recorder) RecordEvent(ctx context.Context, tx *sqlx.Tx, schema string, ev store.Event) error {
	var status string
	data := ev.Data.(learngate.CertificateEventData)
	if err := tx.GetContext(ctx, &status, `SELECT status FROM `+schema+`.certificate_jobs WHERE job_id = $1`, data.JobID); err != nil {
		return err
	}
	r.statuses = append(r.statuses, status)
	r.events = append(r.events, ev)
	return r.fail
}

func TestFinishingAJobRecordsItsEventInTheSameTransaction(t *testing.T) {
	t.Parallel()
	db, _ := storetest.NewDB(t)
	ctx := context.Background()
	acme, ann := certTenant(t, db, "acme")
	request := func(title string) store.CertificateJob {
		id := storetest.SeedConqueredEnrolment(t, acme, ann, title, conquered)
		job, err := store.RequestCertificate(ctx, acme, store.EnrolmentRef{Kind: store.TopicCertificate, ID: id}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return job
	}
	done, failed := request("A"), request("B")
	rec := &recorder{}
	if ok, err := store.CompleteCertificateJob(ctx, acme, done.ID, time.Now(), rec); !ok || err != nil {
		t.Fatalf("complete = %v, %v", ok, err)
	}
	if ok, err := store.FailCertificateJob(ctx, acme, failed.ID, "The font is broken.", time.Now(), rec); !ok || err != nil {
		t.Fatalf("fail = %v, %v", ok, err)
	}
	if len(rec.events) != 2 || rec.events[0].Type != store.EventCertificateCompleted || rec.events[1].Type != store.EventCertificateFailed {
		t.Fatalf("events = %+v", rec.events)
	}
	if d := rec.events[1].Data.(learngate.CertificateEventData); d.Error == nil || *d.Error != "The font is broken." || d.JobID != failed.JobID {
		t.Fatalf("failed event data = %+v", d)
	}
	if rec.statuses[0] != "complete" || rec.statuses[1] != "failed" {
		t.Fatalf("statuses seen inside the transaction = %q", rec.statuses)
	}
	// A finished job is not finished again, and records nothing.
	if ok, err := store.FailCertificateJob(ctx, acme, done.ID, "late", time.Now(), rec); ok || err != nil || len(rec.events) != 2 {
		t.Fatalf("failing a complete job = %v, %v (%d events)", ok, err, len(rec.events))
	}

	// A recorder that fails rolls the change back.
	third := request("C")
	boom := errors.New("boom")
	if _, err := store.CompleteCertificateJob(ctx, acme, third.ID, time.Now(), &recorder{fail: boom}); !errors.Is(err, boom) {
		t.Fatalf("complete with a failing recorder = %v", err)
	}
	if got, _ := store.GetCertificateJob(ctx, acme, third.JobID, time.Now()); got.Status != store.CertificatePending {
		t.Fatalf("status after a failed recording = %s, want pending", got.Status)
	}
}

func TestLoadCertificateWork(t *testing.T) {
	t.Parallel()
	db, _ := storetest.NewDB(t)
	ctx := context.Background()
	acme, ann := certTenant(t, db, "acme")
	until := conquered.AddDate(2, 0, 0)
	id := storetest.SeedEnrolment(t, acme, storetest.EnrolmentSeed{Kind: store.PathwayCertificate, UserID: ann,
		Title: "Induction", ShowCertificate: true, ConqueredAt: &conquered, CertifiedDate: &until})
	job, err := store.RequestCertificate(ctx, acme, store.EnrolmentRef{Kind: store.PathwayCertificate, ID: id}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	// The certificate's wording follows the learner's language.
	if _, err := db.Pool().Exec(`UPDATE `+acme.Schema()+`.users SET language = 'mi' WHERE id = $1`, ann); err != nil {
		t.Fatal(err)
	}
	w, err := store.LoadCertificateWork(ctx, acme, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	if w.Learner != "Mereana Tūhoe" || w.Language != "mi" || w.Title != "Induction" || w.Ineligible != nil ||
		!w.ConqueredAt.Equal(conquered) || !w.CertifiedDate.Equal(until) || w.Job.JobID != job.JobID {
		t.Fatalf("work = %+v", w)
	}
	// Unenrolled since the request: the work says why it cannot be done.
	if _, err := db.Pool().Exec(`UPDATE `+acme.Schema()+`.pathway_enrolments SET removed_at = now() WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	w, err = store.LoadCertificateWork(ctx, acme, job.ID)
	if err != nil || learngate.ErrorMessage(w.Ineligible) != "Pathway assignment 1 has been removed: only a current enrolment has a certificate" {
		t.Fatalf("work after unenrolment = %+v, %v", w, err)
	}
	_, err = store.LoadCertificateWork(ctx, acme, 999)
	assertCode(t, err, learngate.NotFound, "not found")
}
