package main

import (
	"context"
	"mime"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"learngate"
	"learngate/jobs/jobstest"
	"learngate/store"
	"learngate/store/storetest"
)

func TestWorkerCommand(t *testing.T) {
	t.Run("unmigrated database", func(t *testing.T) {
		cliEnv(t)
		mustFail(t, "the job tables (public.river_job) are missing: run `learngate migrate` first", "worker")
	})

	t.Run("bad smtp url", func(t *testing.T) {
		cliEnv(t)
		t.Setenv("LEARNGATE_SMTP_URL", "smtp://mail.example.com")
		mustFail(t, "LEARNGATE_SMTP_URL needs a valid sender address: ?from=noreply@example.com", "worker")
	})

	t.Run("delivers invitations until stopped", func(t *testing.T) {
		migratedCLIEnv(t)
		srv := jobstest.StartSMTPServer(t)
		t.Setenv("LEARNGATE_SMTP_URL", srv.URL("noreply@learngate.test"))
		t.Setenv("LEARNGATE_PUBLIC_SCHEME", "http")
		mustRun(t, "migrate", "-q")
		mustRun(t, "tenant", "create", "acme", "--name", "Acme Ltd")

		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		a, err := openApp(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer a.close()
		tn, err := a.db.TenantBySlug(ctx, "acme")
		if err != nil {
			t.Fatal(err)
		}
		tdb, err := a.db.Tenant(tn.Schema)
		if err != nil {
			t.Fatal(err)
		}
		name := "ann"
		_, err = store.CreateUser(ctx, tdb, learngate.UserInput{UserName: &name, FirstName: &name, LastName: &name,
			Email: ptrTo("ann@example.com"), Timezone: ptrTo("UTC"), SendInvitation: true}, time.Now())
		if err != nil {
			t.Fatal(err)
		}

		done := make(chan error, 1)
		go func() {
			cmd := rootCommand()
			cmd.SetArgs([]string{"worker"})
			done <- cmd.ExecuteContext(ctx)
		}()
		mails := srv.WaitMails(1, 30*time.Second)
		msg, err := mail.ReadMessage(strings.NewReader(mails[0].Data))
		if err != nil {
			t.Fatal(err)
		}
		subject, _ := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
		if mails[0].To[0] != "ann@example.com" || subject != "You are invited to Acme Ltd" {
			t.Fatalf("mail to %v with subject %q", mails[0].To, subject)
		}
		cancel() // SIGTERM
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("learngate worker: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("learngate worker did not stop")
		}
	})
}

func TestWorkerCommandMakesCertificates(t *testing.T) {
	migratedCLIEnv(t)
	dir := t.TempDir()
	t.Setenv("LEARNGATE_BLOB_DIR", dir)
	mustRun(t, "migrate", "-q")
	mustRun(t, "tenant", "create", "acme", "--name", "Acme Ltd")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, err := openApp(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	tn, err := a.db.TenantBySlug(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	tdb, err := a.db.Tenant(tn.Schema)
	if err != nil {
		t.Fatal(err)
	}
	name := "ann"
	u, err := store.CreateUser(ctx, tdb, learngate.UserInput{UserName: &name, FirstName: &name, LastName: &name,
		Email: ptrTo("ann@example.com"), Timezone: ptrTo("UTC")}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	id := storetest.SeedConqueredEnrolment(t, tdb, u.ID, "Fire safety", time.Now().Add(-time.Hour))
	job, err := store.RequestCertificate(ctx, tdb, store.EnrolmentRef{Kind: store.TopicCertificate, ID: id}, time.Now())
	if err != nil {
		t.Fatal(err)
	}

	done := make(chan error, 1)
	go func() {
		cmd := rootCommand()
		cmd.SetArgs([]string{"worker"})
		done <- cmd.ExecuteContext(ctx)
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, err := store.GetCertificateJob(ctx, tdb, job.JobID, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if got.Status == store.CertificateComplete {
			break
		}
		if got.Status == store.CertificateFailed || time.Now().After(deadline) {
			t.Fatalf("job = %+v", got)
		}
		time.Sleep(50 * time.Millisecond)
	}
	pdf, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(job.BlobKey)))
	if err != nil || !strings.HasPrefix(string(pdf), "%PDF-") {
		t.Fatalf("certificate in LEARNGATE_BLOB_DIR: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("learngate worker: %v", err)
	}
}

func ptrTo(s string) *string { return &s }
