package jobs_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate/blob"
	"learngate/certificate/pdftest"
	"learngate/jobs"
	"learngate/store"
	"learngate/store/storetest"
)

// learner creates a user with the given names and returns its id.
func learner(t *testing.T, tdb *store.TenantDB, userName, first, last string) int64 {
	t.Helper()
	in := userInput(userName)
	in.FirstName, in.LastName = ptr(first), ptr(last)
	return createUser(t, tdb, in).ID
}

// requestCertificate seeds a conquered enrolment of user and requests its certificate.
func requestCertificate(t *testing.T, tdb *store.TenantDB, userID int64, title string, at time.Time) store.CertificateJob {
	t.Helper()
	id := storetest.SeedConqueredEnrolment(t, tdb, userID, title, time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC))
	job, err := store.RequestCertificate(context.Background(), tdb, store.EnrolmentRef{Kind: store.TopicCertificate, ID: id}, at)
	if err != nil {
		t.Fatalf("request certificate: %v", err)
	}
	return job
}

// waitFinished waits until the job is no longer pending and returns it.
func waitFinished(t *testing.T, tdb *store.TenantDB, job store.CertificateJob, now time.Time) store.CertificateJob {
	t.Helper()
	var got store.CertificateJob
	waitFor(t, 20*time.Second, "certificate job "+job.JobID+" to finish", func() bool {
		var err error
		got, err = store.GetCertificateJob(context.Background(), tdb, job.JobID, now)
		if err != nil {
			t.Fatalf("get job: %v", err)
		}
		return got.Status != store.CertificatePending
	})
	return got
}

// eventLog is an EventRecorder that keeps the events' types.
type eventLog struct {
	mu    sync.Mutex
	types []string
}

func (l *eventLog) RecordEvent(_ context.Context, _ *sqlx.Tx, _ string, ev store.Event) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.types = append(l.types, ev.Type)
	return nil
}

func (l *eventLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.types)
}

func TestCertificateJobRendersAndStoresThePDF(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	_, acme := newTenant(t, db, "acme", "Te Whare Ako")
	dir := t.TempDir()
	blobs, err := blob.NewLocal(dir, testSigningKey)
	if err != nil {
		t.Fatal(err)
	}
	events := &eventLog{}
	startWorker(t, jobsConfig(db, blobs, events))

	// first name, last name, language; the wording's first line follows the language.
	learners := map[string][4]string{
		"latin":    {"Ann", "Smith", "en", "CERTIFICATE OF ACHIEVEMENT"},
		"german":   {"Jürgen", "Weiß", "de", "ZERTIFIKAT"},
		"maori":    {"Mereana", "Tūhoe-Ōtaki", "mi", "CERTIFICATE OF ACHIEVEMENT"},
		"samoan":   {"Faʻafetai", "Sāmoa", "sm", "CERTIFICATE OF ACHIEVEMENT"},
		"japanese": {"太郎", "山田", "ja", "修了証"},
		"hindi":    {"अनुराधा", "शर्मा", "hi-IN", "उपलब्धि प्रमाणपत्र"},
		"punjabi":  {"ਗੁਰਪ੍ਰੀਤ", "ਸਿੰਘ", "pa-IN", "ਪ੍ਰਾਪਤੀ ਸਰਟੀਫਿਕੇਟ"},
		"thai":     {"สมชาย", "ใจดี", "th", "ประกาศนียบัตรแสดงความสำเร็จ"},
		"korean":   {"김민준", " ", "ko", "수료증"}, // a single name: the last name blank
	}
	requested := map[string]store.CertificateJob{}
	for key, l := range learners {
		in := userInput(key)
		in.FirstName, in.LastName, in.Language = ptr(l[0]), ptr(l[1]), ptr(l[2])
		requested[key] = requestCertificate(t, acme, createUser(t, acme, in).ID, "Fire safety", time.Now())
	}
	for key, l := range learners {
		job := waitFinished(t, acme, requested[key], time.Now())
		if job.Status != store.CertificateComplete || job.Error != nil || job.FinishedAt == nil {
			t.Fatalf("%s: job = %+v", key, job)
		}
		pdf, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(job.BlobKey)))
		if err != nil {
			t.Fatalf("%s: stored file: %v", key, err)
		}
		if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
			t.Fatalf("%s: the stored file is not a PDF", key)
		}
		info, err := pdftest.Info(pdf)
		if err != nil {
			t.Fatal(err)
		}
		// A single name has no dangling space.
		want := strings.TrimSpace(l[0]+" "+l[1]) + ": Fire safety"
		if info["Title"] != "Certificate "+job.CertificateID || info["Subject"] != want || info["Author"] != "Te Whare Ako" {
			t.Errorf("%s: info = %q", key, info)
		}
		lines, err := pdftest.Text(pdf)
		if err != nil || len(lines) < 3 || lines[0].Text != l[3] || lines[2].Text != strings.TrimSpace(l[0]+" "+l[1]) {
			t.Errorf("%s: lines %+v, %v; want the heading %q and the name", key, lines, err, l[3])
		}
		t.Logf("%s: %d bytes", key, len(pdf))
	}
	if got := events.list(); len(got) != len(learners) || slices.ContainsFunc(got, func(s string) bool { return s != store.EventCertificateCompleted }) {
		t.Errorf("events = %q, want %d certificate.completed", got, len(learners))
	}
}

// jobsConfig is a worker configuration with blobs and events.
func jobsConfig(db *store.DB, blobs blob.Store, events store.EventRecorder) jobs.Config {
	return jobs.Config{DB: db, Blobs: blobs, Events: events}
}

func TestCertificateJobFailsWhenTheEnrolmentChangedOrRenderingFails(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	_, acme := newTenant(t, db, "acme", "Acme")
	ann := learner(t, acme, "ann", "Ann", "Smith")
	nameless := learner(t, acme, "nobody", "Nobody", "Here")
	smiley := learner(t, acme, "smiley", "Ann", "🙂 Smith")
	removed := requestCertificate(t, acme, ann, "Fire safety", time.Now())
	unrenderable := requestCertificate(t, acme, nameless, "First aid", time.Now())
	unprintable := requestCertificate(t, acme, smiley, "First aid", time.Now())
	// Before the worker runs: ann is unenrolled, and the other learner's name
	// is blanked (the API never allows that; the renderer refuses it).
	for _, q := range []string{
		`UPDATE ` + acme.Schema() + `.topic_enrolments SET removed_at = now() WHERE id = ` + itoa(removed.EnrolmentID),
		`UPDATE ` + acme.Schema() + `.users SET first_name = ' ', last_name = '' WHERE id = ` + itoa(nameless),
	} {
		if _, err := db.Pool().Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	events := &eventLog{}
	logs := &lockedBuffer{}
	cfg := jobsConfig(db, localBlobs(t), events)
	cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	startWorker(t, cfg)

	cases := []struct {
		job  store.CertificateJob
		want string
	}{
		{removed, "Topic assignment 1 has been removed: only a current enrolment has a certificate"},
		// A fixed reason for the tenant; the renderer's error is logged.
		{unrenderable, "The certificate could not be rendered."},
		// Characters that no font has: the reason names them (never a "?" on the certificate).
		{unprintable, "The learner name has characters that no certificate font has: 🙂 (U+1F642)"},
	}
	for _, c := range cases {
		job := waitFinished(t, acme, c.job, time.Now())
		if job.Status != store.CertificateFailed || job.Error == nil || *job.Error != c.want {
			t.Errorf("job = %s %v, want failed %q", job.Status, strOf(job.Error), c.want)
		}
	}
	waitFor(t, 5*time.Second, "the three River jobs to be cancelled", func() bool {
		j := jobsOfKind(t, db, store.KindCertificate)
		return len(j) == 3 && j[0].State == "cancelled" && j[1].State == "cancelled" && j[2].State == "cancelled"
	})
	failed := store.EventCertificateFailed
	if got := events.list(); !slices.Equal(got, []string{failed, failed, failed}) {
		t.Errorf("events = %q", got)
	}
	if out := logs.String(); !strings.Contains(out, "learner name, title and certificate id are required") ||
		!strings.Contains(out, "job_id="+unrenderable.JobID) || !strings.Contains(out, "schema="+acme.Schema()) {
		t.Errorf("log:\n%s", out)
	}
}

// failingBlobs refuses every Put.
type failingBlobs struct {
	blob.Store
	puts sync.Map
}

func (f *failingBlobs) Put(_ context.Context, key string, _ []byte, _ string) error {
	n, _ := f.puts.LoadOrStore(key, new(int))
	*(n.(*int))++
	return errors.New("disk full")
}

func TestCertificateJobRetriesStorageThenFails(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	_, acme := newTenant(t, db, "acme", "Acme")
	job := requestCertificate(t, acme, learner(t, acme, "ann", "Ann", "Smith"), "Fire", time.Now())
	blobs := &failingBlobs{Store: localBlobs(t)}
	startWorker(t, jobsConfig(db, blobs, nil))
	got := waitFinished(t, acme, job, time.Now())
	if got.Status != store.CertificateFailed || strOf(got.Error) != "The certificate could not be stored." {
		t.Fatalf("job = %s %s", got.Status, strOf(got.Error))
	}
	n, _ := blobs.puts.Load(job.BlobKey)
	if tries := *(n.(*int)); tries != 8 {
		t.Fatalf("%d attempts to store, want 8", tries)
	}
}

func TestCertificatePurgeDeletesExpiredJobsAndFiles(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	_, acme := newTenant(t, db, "acme", "Acme")
	_, paused := newTenant(t, db, "paused", "Paused")
	dir := t.TempDir()
	blobs, err := blob.NewLocal(dir, testSigningKey)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	old := requestCertificate(t, acme, learner(t, acme, "ann", "Ann", "Smith"), "Old", now.Add(-25*time.Hour))
	fresh := requestCertificate(t, acme, learner(t, acme, "bob", "Bob", "Jones"), "Fresh", now)
	oldPaused := requestCertificate(t, paused, learner(t, paused, "pat", "Pat", "Lee"), "Old", now.Add(-25*time.Hour))
	for _, j := range []store.CertificateJob{old, oldPaused} { // as if they had been made
		if err := blobs.Put(ctx, j.BlobKey, []byte("%PDF-old"), "application/pdf"); err != nil {
			t.Fatal(err)
		}
	}
	tn, err := db.TenantBySlug(ctx, "paused")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetTenantStatus(ctx, tn.ID, "suspended"); err != nil {
		t.Fatal(err)
	}
	startWorker(t, jobsConfig(db, blobs, nil))

	waitFor(t, 20*time.Second, "the purge", func() bool {
		j := jobsOfKind(t, db, store.KindCertificatePurge)
		return len(j) > 0 && j[0].State == "completed"
	})
	if got := waitFinished(t, acme, fresh, now); got.Status != store.CertificateComplete {
		t.Fatalf("fresh job = %+v", got)
	}
	for _, j := range []struct {
		tdb *store.TenantDB
		job store.CertificateJob
	}{{acme, old}, {paused, oldPaused}} {
		var n int
		if err := db.Pool().Get(&n, `SELECT count(*) FROM `+j.tdb.Schema()+`.certificate_jobs WHERE id = $1`, j.job.ID); err != nil || n != 0 {
			t.Errorf("%s: expired job row still there (%d, %v)", j.tdb.Schema(), n, err)
		}
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(j.job.BlobKey))); !os.IsNotExist(err) {
			t.Errorf("%s: expired file still there: %v", j.tdb.Schema(), err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(fresh.BlobKey))); err != nil {
		t.Errorf("fresh file: %v", err)
	}
}

func strOf(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
