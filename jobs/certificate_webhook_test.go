package jobs_test

import (
	"testing"
	"time"

	"learngate/blob"
	"learngate/jobs"
	"learngate/store"
)

// A worker with no Events of its own records certificate.completed and
// certificate.failed through the webhooks, in the transaction that finishes
// the job; another tenant's endpoint hears nothing.
func TestCertificateEventsReachWebhooks(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	_, acme := newTenant(t, db, "acme", "Acme")
	_, other := newTenant(t, db, "other", "Other")
	blobs, err := blob.NewLocal(t.TempDir(), testSigningKey)
	if err != nil {
		t.Fatal(err)
	}
	rc := newReceiver(t, nil)
	hook := newWebhook(t, acme, rc.URL("/acme"), store.EventCertificateCompleted, store.EventCertificateFailed)
	otherRC := newReceiver(t, nil)
	newWebhook(t, other, otherRC.URL("/other"), "*")
	webhookWorker(t, jobs.Config{DB: db, Blobs: blobs})

	ann := learner(t, acme, "ann", "Ann", "Smith")
	job := requestCertificate(t, acme, ann, "Fire safety", time.Now())
	done := waitFinished(t, acme, job, time.Now())
	if done.Status != store.CertificateComplete {
		t.Fatalf("job = %+v", done)
	}

	d := rc.Wait(t, 1, 20*time.Second)[0]
	if got := verifySignatures(t, d, hook.Secret); len(got) != 1 {
		t.Fatalf("signature %q does not verify", d.Header.Get("webhook-signature"))
	}
	if d.Field(t, "type") != store.EventCertificateCompleted || d.Field(t, "organisation") != "acme" {
		t.Fatalf("event %s", d.Body)
	}
	data := d.Event(t)["data"]
	want := `{"job_id":"` + done.JobID + `","status":"complete","certificate_id":"` + done.CertificateID +
		`","enrolment_kind":"topic","enrolment_id":` + itoa(done.EnrolmentID) + `}`
	if string(data) != want {
		t.Fatalf("data = %s\nwant %s", data, want)
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(otherRC.Requests()); n != 0 {
		t.Fatalf("the other tenant's endpoint received %d requests", n)
	}
}
