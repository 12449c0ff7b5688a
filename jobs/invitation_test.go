package jobs_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"mime"
	"mime/quotedprintable"
	"net/mail"
	"strings"
	"testing"
	"time"

	"learngate"
	"learngate/jobs"
	"learngate/jobs/jobstest"
	"learngate/store"
)

func mailAddress(addr string) mail.Address { return mail.Address{Address: addr} }

// parsedMail is a received message's headers (decoded) and body.
type parsedMail struct {
	From, To, Subject, ContentType string
	Body                           string
}

func parseMail(t *testing.T, m jobstest.ReceivedMail) parsedMail {
	t.Helper()
	msg, err := mail.ReadMessage(strings.NewReader(m.Data))
	if err != nil {
		t.Fatalf("received message does not parse: %v\n%s", err, m.Data)
	}
	dec := new(mime.WordDecoder)
	subject, err := dec.DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		t.Fatalf("subject %q: %v", msg.Header.Get("Subject"), err)
	}
	if msg.Header.Get("Content-Transfer-Encoding") != "quoted-printable" {
		t.Fatalf("Content-Transfer-Encoding = %q", msg.Header.Get("Content-Transfer-Encoding"))
	}
	body, err := io.ReadAll(quotedprintable.NewReader(msg.Body))
	if err != nil {
		t.Fatalf("body: %v", err)
	}
	for _, h := range []string{"Date", "Message-Id", "Mime-Version"} {
		if msg.Header.Get(h) == "" {
			t.Errorf("message has no %s header", h)
		}
	}
	return parsedMail{From: msg.Header.Get("From"), To: msg.Header.Get("To"), Subject: subject,
		ContentType: msg.Header.Get("Content-Type"), Body: strings.ReplaceAll(string(body), "\r\n", "\n")}
}

func TestInvitationDeliveredOverSMTP(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	srv := jobstest.StartSMTPServer(t)
	srv.RequireAuth("mailer", "s3cret:pw")
	_, acme := newTenant(t, db, "acme", "Acme Café")
	_, other := newTenant(t, db, "other", "Other Ltd", "learn.other.test")
	startWorker(t, jobs.Config{DB: db, Mailer: smtpMailer(srv, "mailer", "s3cret:pw")})

	in := userInput("ann")
	in.SendInvitation = true
	createUser(t, acme, in)
	createUser(t, other, userInput("ann")) // same name, not invited
	inactive := userInput("ivan")
	inactive.Active = ptr(false)
	inactive.SendInvitation = true
	createUser(t, acme, inactive)

	mails := srv.WaitMails(1, 15*time.Second)
	if mails[0].From != "noreply@learngate.test" || len(mails[0].To) != 1 || mails[0].To[0] != "ann@example.com" {
		t.Fatalf("envelope from %q to %q, want noreply@learngate.test to [ann@example.com]", mails[0].From, mails[0].To)
	}
	got := parseMail(t, mails[0])
	want := parsedMail{
		From:        "<noreply@learngate.test>",
		To:          `"First ann Last" <ann@example.com>`,
		Subject:     "You are invited to Acme Café",
		ContentType: `text/plain; charset="utf-8"`,
		Body: "Hello First ann,\n\nAcme Café has invited you to its learning platform.\n\n" +
			"Sign in at http://acme.learngate.test/login with your user name: ann\n\n" +
			"If you did not expect this invitation, you can ignore this email.\n",
	}
	if got != want {
		t.Fatalf("mail =\n%+v\nwant\n%+v", got, want)
	}
	waitFor(t, 5*time.Second, "the job to complete", func() bool {
		j := jobsOfKind(t, db, store.KindSendInvitation)
		return len(j) == 1 && j[0].State == "completed"
	})

	// The other tenant's user is invited to the other tenant's own domain.
	theirs := userInput("bob")
	theirs.SendInvitation = true
	createUser(t, other, theirs)
	mails = srv.WaitMails(2, 15*time.Second)
	if got := parseMail(t, mails[1]); mails[1].To[0] != "bob@example.com" ||
		!strings.Contains(got.Body, "Sign in at http://learn.other.test/login with your user name: bob") ||
		got.Subject != "You are invited to Other Ltd" {
		t.Fatalf("other tenant's mail to %v: %+v", mails[1].To, got)
	}
	time.Sleep(300 * time.Millisecond) // several polls: nothing else may arrive
	if n := len(srv.Mails()); n != 2 {
		t.Fatalf("%d mails arrived, want 2 (the inactive user and other's ann are not invited)", n)
	}
}

func TestInvitationRetriedWhenSMTPFails(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	srv := jobstest.StartSMTPServer(t)
	srv.FailRcpt("451 4.3.0 Mailbox temporarily unavailable", 2)
	_, acme := newTenant(t, db, "acme", "Acme")
	startWorker(t, jobs.Config{DB: db, Mailer: smtpMailer(srv, "", "")})

	in := userInput("ann")
	in.SendInvitation = true
	createUser(t, acme, in)

	mails := srv.WaitMails(1, 20*time.Second)
	if mails[0].To[0] != "ann@example.com" {
		t.Fatalf("mail to %v", mails[0].To)
	}
	if n := srv.Conversations(); n != 3 {
		t.Errorf("%d SMTP conversations, want 3 (two refused, one delivered)", n)
	}
	waitFor(t, 5*time.Second, "the job to complete", func() bool {
		j := jobsOfKind(t, db, store.KindSendInvitation)
		return len(j) == 1 && j[0].State == "completed"
	})
	j := jobsOfKind(t, db, store.KindSendInvitation)[0]
	if j.Attempt != 3 || j.Errors != 2 {
		t.Fatalf("job attempt %d with %d errors, want attempt 3 with 2 errors", j.Attempt, j.Errors)
	}
}

func TestInvitationToARefusedRecipientIsCancelled(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	srv := jobstest.StartSMTPServer(t)
	srv.FailRcpt("550 5.1.1 No such user", 1)
	_, acme := newTenant(t, db, "acme", "Acme")
	startWorker(t, jobs.Config{DB: db, Mailer: smtpMailer(srv, "", "")})

	in := userInput("ann")
	in.SendInvitation = true
	createUser(t, acme, in)
	waitFor(t, 15*time.Second, "the job to be cancelled", func() bool {
		j := jobsOfKind(t, db, store.KindSendInvitation)
		return len(j) == 1 && j[0].State == "cancelled"
	})
	time.Sleep(300 * time.Millisecond)
	if j := jobsOfKind(t, db, store.KindSendInvitation)[0]; j.Attempt != 1 || len(srv.Mails()) != 0 {
		t.Fatalf("job attempt %d, %d mails; want one attempt and no mail", j.Attempt, len(srv.Mails()))
	}
}

func TestInvitationOfAUserDeactivatedBeforeDelivery(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	srv := jobstest.StartSMTPServer(t)
	_, acme := newTenant(t, db, "acme", "Acme")
	in := userInput("ann")
	in.SendInvitation = true
	createUser(t, acme, in)
	if _, err := store.UpdateUser(context.Background(), acme, "ann", learngate.UserInput{Active: ptr(false)}, time.Now()); err != nil {
		t.Fatal(err)
	}
	startWorker(t, jobs.Config{DB: db, Mailer: smtpMailer(srv, "", "")})
	waitFor(t, 15*time.Second, "the job to be cancelled", func() bool {
		j := jobsOfKind(t, db, store.KindSendInvitation)
		return len(j) == 1 && j[0].State == "cancelled"
	})
	if n := len(srv.Mails()); n != 0 {
		t.Fatalf("%d mails sent to a deactivated user", n)
	}
}

func TestInvitationWrittenToTheLogWithoutSMTP(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	_, acme := newTenant(t, db, "acme", "Acme")
	var logs lockedBuffer
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	startWorker(t, jobs.Config{DB: db, Logger: logger}) // no Mailer: the log

	in := userInput("ann")
	in.SendInvitation = true
	in.PasswordHash = ptr("$2a$10$abcdefghijklmnopqrstuuJzMrtCNVBVxYmWQr2jEG3z7b9vRdGGe")
	createUser(t, acme, in)
	waitFor(t, 15*time.Second, "the job to complete", func() bool {
		j := jobsOfKind(t, db, store.KindSendInvitation)
		return len(j) == 1 && j[0].State == "completed"
	})
	var line map[string]any
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "email not sent") {
			if err := json.Unmarshal([]byte(l), &line); err != nil {
				t.Fatal(err)
			}
		}
	}
	if line == nil {
		t.Fatalf("no email log line in:\n%s", logs.String())
	}
	if line["to"] != "ann@example.com" || line["subject"] != "You are invited to Acme" ||
		!strings.Contains(line["body"].(string), "http://acme.learngate.test/") {
		t.Fatalf("log line = %v", line)
	}
	if strings.Contains(logs.String(), "$2a$") {
		t.Fatal("the log holds the password hash")
	}
}
