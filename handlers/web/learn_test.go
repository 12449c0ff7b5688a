package web

import (
	"context"
	"learngate"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"learngate/store"
	"learngate/store/storetest"
)

var certificateJobPath = regexp.MustCompile(`^/learn/certificates/[0-9a-f]{32}$`)

// TestMyLearning: the learner sees their own enrolments, in their
// language, and may request only their own certificates.
func TestMyLearning(t *testing.T) {
	t.Parallel()
	h, _, b := signInFixture(t)
	tdb := tenantHandle(t, h, "ssoa")
	alice, err := store.UserForSignIn(context.Background(), tdb, store.MatchEmail, "ALICE@example.test")
	if err != nil {
		t.Fatal(err)
	}
	other := seedLearner(t, h, "ssoa", "dave@example.test", true)
	mine := storetest.SeedConqueredEnrolment(t, tdb, alice.ID, "Fire safety", time.Now().Add(-time.Hour))
	theirs := storetest.SeedConqueredEnrolment(t, tdb, other.ID, "Dave's secret topic", time.Now().Add(-time.Hour))
	knowledge := func(user, title string) {
		t.Helper()
		typ, day := learngate.KnowledgeLicense, time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
		if _, err := store.CreateExternalKnowledge(context.Background(), tdb, learngate.KnowledgeInput{UserName: &user,
			KnowledgeType: &typ, Title: &title, DateObtained: &day}, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	knowledge("alice", "Forklift licence")
	knowledge(other.UserName, "Dave's secret licence")
	de := "de"
	if _, err := store.UpdateUser(context.Background(), tdb, "alice", learngate.UserInput{Language: &de}, time.Now()); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, b.signIn(acmeHost, "alice@example.test"), http.StatusSeeOther, "/learn")

	page := wantStatus(t, b.do(http.MethodGet, acmeHost, "/learn", nil), http.StatusOK, "<h1>Mein Lernen</h1>")
	for _, want := range []string{`<html lang="de">`, "Fire safety", "Conquered", "Zertifikat herunterladen", `<main id="main">`,
		"<h2 id=\"knowledge\">Externes Wissen</h2>", ">Forklift licence</td>", ">Lizenz</td>", ">2024-03-01</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "Dave") {
		t.Error("page shows another learner's enrolment")
	}
	token := csrf(t, page)
	t.Run("own certificate", func(t *testing.T) {
		w := b.do(http.MethodPost, acmeHost, "/learn/certificates", url.Values{"csrf": {token}, "kind": {"topic"}, "id": {strconv.FormatInt(mine, 10)}})
		if w.Code != http.StatusSeeOther || !certificateJobPath.MatchString(w.Header().Get("Location")) {
			t.Fatalf("request = %d to %q: %s", w.Code, w.Header().Get("Location"), w.Body.String())
		}
		// Pending: no timed refresh (WCAG 2.2.1, axe-core's meta-refresh), a link to check again.
		pending := wantStatus(t, b.do(http.MethodGet, acmeHost, w.Header().Get("Location"), nil), http.StatusOK,
			`<a class="button" href="`+w.Header().Get("Location")+`">Erneut prüfen</a>`)
		if strings.Contains(pending, "http-equiv") {
			t.Errorf("the pending certificate page refreshes by itself: %s", pending)
		}
	})
	t.Run("another learner's certificate", func(t *testing.T) {
		wantStatus(t, b.do(http.MethodPost, acmeHost, "/learn/certificates", url.Values{"csrf": {token}, "kind": {"topic"},
			"id": {strconv.FormatInt(theirs, 10)}}), http.StatusNotFound, "This certificate was not found.")
		job, err := store.RequestCertificate(context.Background(), tdb, store.EnrolmentRef{Kind: store.TopicCertificate, ID: theirs}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, b.do(http.MethodGet, acmeHost, "/learn/certificates/"+job.JobID, nil), http.StatusNotFound, "This certificate was not found.")
	})
	t.Run("certificate form needs the CSRF token", func(t *testing.T) {
		wantStatus(t, b.do(http.MethodPost, acmeHost, "/learn/certificates", url.Values{"kind": {"topic"},
			"id": {strconv.FormatInt(mine, 10)}}), http.StatusForbidden, "This form has expired")
	})
	t.Run("bad form", func(t *testing.T) {
		wantStatus(t, b.do(http.MethodPost, acmeHost, "/learn/certificates", url.Values{"csrf": {token}, "kind": {"x"}, "id": {"1"}}),
			http.StatusBadRequest, "This certificate was not found.")
	})
	t.Run("unknown host is a page", func(t *testing.T) {
		w := b.do(http.MethodGet, "nosuch.learngate.localhost", "/login", nil)
		if w.Code != http.StatusNotFound || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/html") {
			t.Fatalf("unknown host = %d %s", w.Code, w.Header().Get("Content-Type"))
		}
	})
}
