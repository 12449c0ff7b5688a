package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/mail"
	"strconv"
	"strings"

	"github.com/riverqueue/river"

	"learngate"
	"learngate/store"
)

// Links builds the address of a tenant's platform for emails
// (LEARNGATE_PUBLIC_SCHEME and the first of LEARNGATE_BASE_DOMAINS).
type Links struct {
	// Scheme is https or http.
	Scheme string
	// BaseDomain names a tenant without a custom domain: <slug>.<BaseDomain>.
	BaseDomain string
	// Port is the public port (LEARNGATE_PUBLIC_PORT) when it is not the
	// scheme's default (a local node, make run); 0 leaves it out.
	Port int
}

func (l Links) validate() error {
	if l.Scheme != "https" && l.Scheme != "http" {
		return fmt.Errorf("jobs: link scheme must be https or http, got %q", l.Scheme)
	}
	if l.BaseDomain == "" {
		return errors.New("jobs: no base domain for links")
	}
	return nil
}

// TenantURL is the root address of the tenant's platform: its first custom
// domain when it has one, its subdomain of the base domain otherwise, with
// the public port when it is not the scheme's default.
func (l Links) TenantURL(t learngate.Tenant) string {
	host := t.Slug + "." + l.BaseDomain
	if len(t.Domains) > 0 {
		host = t.Domains[0]
	}
	if l.Port > 0 && !(l.Scheme == "https" && l.Port == 443) && !(l.Scheme == "http" && l.Port == 80) {
		host = net.JoinHostPort(host, strconv.Itoa(l.Port))
	}
	return l.Scheme + "://" + host + "/"
}

// SignInURL is the tenant's sign-in page (GET /login), where an invited
// learner starts.
func (l Links) SignInURL(t learngate.Tenant) string {
	return l.TenantURL(t) + "login"
}

// invitationWorker delivers send_invitation jobs.
type invitationWorker struct {
	river.WorkerDefaults[store.InvitationArgs]
	db     *store.DB
	mailer Mailer
	links  Links
	logger *slog.Logger
}

// Work loads the tenant and the user and sends the invitation. A job whose
// tenant or user is gone, whose tenant is not active, whose user was
// deactivated since, or whose recipient the server refuses for good is
// cancelled (no retry); any other failure is retried with backoff.
func (w *invitationWorker) Work(ctx context.Context, job *river.Job[store.InvitationArgs]) error {
	tn, tdb, run, err := jobTenant(ctx, w.db, job.Args.Schema, cancelIfInactive, nil)
	if !run {
		return err
	}
	who, err := store.GetInvitee(ctx, tdb, job.Args.UserID)
	if learngate.IsCode(err, learngate.NotFound) {
		return river.JobCancel(fmt.Errorf("user %d of %s no longer exists", job.Args.UserID, tn.Slug))
	}
	if err != nil {
		return err
	}
	if !who.Active {
		return river.JobCancel(fmt.Errorf("user %s of %s is inactive", who.UserName, tn.Slug))
	}
	msg := invitationMessage(tn, who, w.links.SignInURL(tn))
	if err := w.mailer.Send(ctx, msg); err != nil {
		if errors.Is(err, ErrRejected) {
			return river.JobCancel(fmt.Errorf("invitation of %s of %s: %w", who.UserName, tn.Slug, err))
		}
		return fmt.Errorf("invitation of %s of %s: %w", who.UserName, tn.Slug, err)
	}
	w.logger.InfoContext(ctx, "invitation sent", "tenant", tn.Slug, "user_name", who.UserName,
		"attempt", job.Attempt, "job_id", job.ID)
	return nil
}

// invitationMessage is the invitation email of who to tenant t's platform
// at url. It carries no password or key: the user signs in as the platform
// lets them (their password, single sign-on or a reset).
func invitationMessage(t learngate.Tenant, who store.Invitee, url string) Message {
	name := strings.TrimSpace(who.FirstName + " " + who.LastName)
	greeting := strings.TrimSpace(who.FirstName)
	if greeting == "" {
		greeting = who.UserName
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Hello %s,\n\n", greeting)
	fmt.Fprintf(&b, "%s has invited you to its learning platform.\n\n", t.Name)
	fmt.Fprintf(&b, "Sign in at %s with your user name: %s\n\n", url, who.UserName)
	b.WriteString("If you did not expect this invitation, you can ignore this email.\n")
	return Message{
		To:      mail.Address{Name: name, Address: who.Email},
		Subject: fmt.Sprintf("You are invited to %s", t.Name),
		Body:    b.String(),
	}
}
