package handlers

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"learngate/certificate/pdftest"
	"learngate/handlers/handlertest"
	"learngate/store"
	"learngate/store/storetest"
)

// certEnv is a node and a real worker sharing one manual clock, with
// tenants acme and other.
type certEnv struct {
	*usersEnv
}

func newCertEnv(t *testing.T) *certEnv {
	t.Helper()
	e := &certEnv{newUsersEnv(t)}
	startCertificateWorker(t, e.h, e.clock.Now)
	return e
}

// startCertificateWorker runs the real jobs worker (poll interval 50 ms)
// over h's database and blob store until the test ends.
func startCertificateWorker(t *testing.T, h *harness, now func() time.Time) {
	t.Helper()
	handlertest.StartCertificateWorker(t, h.db, h.server.Web.Blobs, now)
}

// tdb is the tenant handle of ct (for seeding enrolments).
func (ct catalogTenant) tdb(t *testing.T) *store.TenantDB {
	t.Helper()
	slug, _, _ := strings.Cut(ct.host, ".")
	tn, err := ct.h.db.TenantBySlug(context.Background(), slug)
	if err != nil {
		t.Fatal(err)
	}
	tdb, err := ct.h.db.Tenant(tn.Schema)
	if err != nil {
		t.Fatal(err)
	}
	return tdb
}

// learner creates a user through the API and returns its internal id.
func (ct catalogTenant) learner(t *testing.T, userName, first, last string) int64 {
	t.Helper()
	ct.call(t, "POST", "/papi/users", `{"user_name":"`+userName+`","first_name":"`+first+`","last_name":"`+last+
		`","email":"`+userName+`@example.com"}`, 200, "")
	u, err := store.GetUser(context.Background(), ct.tdb(t), userName)
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}

// get sends an authenticated GET and decodes a JSON object answer.
func (ct catalogTenant) getJSON(t *testing.T, path string, status int) map[string]any {
	t.Helper()
	w := ct.h.papi("GET", ct.host, path, ct.key, "")
	if w.Code != status {
		t.Fatalf("GET %s = %d %s, want %d", path, w.Code, w.Body.String(), status)
	}
	var out map[string]any
	decode(t, w, &out)
	return out
}

// waitComplete polls the job's status until it is no longer pending.
func (ct catalogTenant) waitStatus(t *testing.T, jobID string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		body := ct.getJSON(t, "/papi/certificates/status/"+jobID, 200)
		if body["status"] != "pending" {
			return body
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s still pending after 20 s", jobID)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// download GETs a download url on host without an API key.
func (e *certEnv) download(host, rawURL string) (*http.Response, []byte) {
	u, err := url.Parse(rawURL)
	if err != nil {
		panic(err)
	}
	w := do(e.h.public, request{host: host, path: u.Path})
	res := w.Result()
	return res, w.Body.Bytes()
}

func TestCertificateRequestStatusAndDownload(t *testing.T) {
	t.Parallel()
	// The worker starts after the second request: the store hands back
	// only a pending job, so a job worked in between would give a new id.
	e := &certEnv{newUsersEnv(t)}
	ann := e.acme.learner(t, "mereana", "Mereana", "Tūhoe")
	id := storetest.SeedConqueredEnrolment(t, e.acme.tdb(t), ann, "Fire safety", usersStart.Add(-time.Hour))
	path := "/papi/certificates?topic_assignment_id=" + itoa(id)

	first := e.acme.getJSON(t, path, 202)
	jobID, _ := first["job_id"].(string)
	if len(first) != 2 || first["status"] != "pending" || len(jobID) != 32 {
		t.Fatalf("request = %v", first)
	}
	assertResponse(t, e.h.papi("GET", e.acme.host, path, e.acme.key, ""), 202, `{"job_id":"`+jobID+`","status":"pending"}`)

	startCertificateWorker(t, e.h, e.clock.Now)
	done := e.acme.waitStatus(t, jobID)
	link, _ := done["url"].(string)
	if len(done) != 3 || done["status"] != "complete" || done["job_id"] != jobID ||
		!strings.HasPrefix(link, "http://acme.learngate.localhost/papi/certificates/download/") {
		t.Fatalf("status = %v", done)
	}
	job, err := store.GetCertificateJob(context.Background(), e.acme.tdb(t), jobID, usersStart)
	if err != nil {
		t.Fatal(err)
	}

	res, pdf := e.download(e.acme.host, link)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/pdf" ||
		res.Header.Get("Content-Disposition") != `attachment; filename="certificate-`+job.CertificateID+`.pdf"` {
		t.Fatalf("download = %d %v", res.StatusCode, res.Header)
	}
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Fatalf("download is not a PDF: %q", pdf[:min(len(pdf), 20)])
	}
	info, err := pdftest.Info(pdf)
	if err != nil || info["Title"] != "Certificate "+job.CertificateID || info["Subject"] != "Mereana Tūhoe: Fire safety" {
		t.Fatalf("pdf info = %q, %v", info, err)
	}
	if !strings.HasPrefix(job.CertificateID, "LG-") || !bytes.Contains(pdf, []byte("+NotoSans-Bold /Flags")) {
		t.Fatalf("certificate id %q or fonts missing", job.CertificateID)
	}

	// Now done, a new request makes a new job.
	again := e.acme.getJSON(t, path, 202)
	if again["job_id"] == jobID || again["status"] != "pending" {
		t.Fatalf("request after completion = %v", again)
	}
}

func TestCertificateLinkAndJobExpire(t *testing.T) {
	t.Parallel()
	e := newCertEnv(t)
	ann := e.acme.learner(t, "ann", "Ann", "Smith")
	id := storetest.SeedConqueredEnrolment(t, e.acme.tdb(t), ann, "Fire safety", usersStart.Add(-time.Hour))
	jobID := e.acme.getJSON(t, "/papi/certificates?topic_assignment_id="+itoa(id), 202)["job_id"].(string)
	link := e.acme.waitStatus(t, jobID)["url"].(string)

	e.clock.advance(15*time.Minute - time.Second)
	if res, _ := e.download(e.acme.host, link); res.StatusCode != 200 {
		t.Fatalf("download at 14:59 = %d", res.StatusCode)
	}
	e.clock.advance(time.Second)
	w := do(e.h.public, request{host: e.acme.host, path: strings.TrimPrefix(link, "http://acme.learngate.localhost")})
	assertResponse(t, w, 410, `{"error":"This download link has expired: ask for the certificate job's status again for a new link"}`)

	// The status hands out a fresh link, which never outlives the job.
	e.clock.at(24*time.Hour - 5*time.Minute)
	fresh := e.acme.waitStatus(t, jobID)["url"].(string)
	if fresh == link {
		t.Fatal("the status gave the expired link again")
	}
	e.clock.at(24*time.Hour - time.Second)
	if res, _ := e.download(e.acme.host, fresh); res.StatusCode != 200 {
		t.Fatalf("fresh link just before the job expires = %d", res.StatusCode)
	}
	e.clock.at(24 * time.Hour)
	assertResponse(t, e.h.papi("GET", e.acme.host, "/papi/certificates/status/"+jobID, e.acme.key, ""), 404, `{"error":"not found"}`)
	res, body := e.download(e.acme.host, fresh)
	if res.StatusCode != 410 {
		t.Fatalf("link at the job's expiry = %d %s, want 410", res.StatusCode, body)
	}
}

func TestCertificatesAreIsolatedBetweenTenants(t *testing.T) {
	t.Parallel()
	e := newCertEnv(t)
	ann := e.acme.learner(t, "ann", "Ann", "Smith")
	id := storetest.SeedConqueredEnrolment(t, e.acme.tdb(t), ann, "Fire safety", usersStart.Add(-time.Hour))
	jobID := e.acme.getJSON(t, "/papi/certificates?topic_assignment_id="+itoa(id), 202)["job_id"].(string)
	link := e.acme.waitStatus(t, jobID)["url"].(string)
	token := link[strings.LastIndex(link, "/")+1:]

	notFound := `{"error":"not found"}`
	// other has no enrolment 1 and cannot read acme's job.
	e.other.call(t, "GET", "/papi/certificates?topic_assignment_id="+itoa(id), "", 404, notFound)
	e.other.call(t, "GET", "/papi/certificates/status/"+jobID, "", 404, notFound)
	// acme's link on other's host, and mangled tokens on acme's host.
	assertResponse(t, do(e.h.public, request{host: e.other.host, path: "/papi/certificates/download/" + token}), 404, notFound)
	payload, sig, _ := strings.Cut(token, ".")
	for name, bad := range map[string]string{
		"garbage":          "garbage",
		"tampered payload": payload[:len(payload)-2] + "AA." + sig,
		"tampered sig":     payload + "." + sig[:len(sig)-2] + "AA",
		"no sig":           payload,
	} {
		t.Run(name, func(t *testing.T) {
			assertResponse(t, do(e.h.public, request{host: e.acme.host, path: "/papi/certificates/download/" + bad}), 404, notFound)
		})
	}
	// The status needs the API key; the download needs none, but a known host.
	assertResponse(t, do(e.h.public, request{host: e.acme.host, path: "/papi/certificates/status/" + jobID}), 401, `{"error":"unauthorized"}`)
	assertResponse(t, do(e.h.public, request{host: "nobody.learngate.localhost", path: "/papi/certificates/download/" + token}),
		404, `{"error":"unknown organisation"}`)
	// A suspended tenant's links stop working.
	e.h.opsCall("PATCH", "/ops/v1/tenants/acme", `{"status":"suspended"}`)
	waitUntil(t, func() bool {
		return do(e.h.public, request{host: e.acme.host, path: "/papi/certificates/download/" + token}).Code == 401
	})
	assertResponse(t, do(e.h.public, request{host: e.acme.host, path: "/papi/certificates/download/" + token}), 401, `{"error":"unauthorized"}`)
}

// waitUntil polls cond for up to 5 s (registry caches settle within a second).
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestCertificateRequestBadInput(t *testing.T) {
	t.Parallel()
	e := &certEnv{newUsersEnv(t)} // no worker: nothing here is worked
	tdb := e.acme.tdb(t)
	ann := e.acme.learner(t, "ann", "Ann", "Smith")
	conquered := usersStart.Add(-time.Hour)
	seed := func(s storetest.EnrolmentSeed) string {
		s.UserID, s.ConqueredAt = ann, &conquered
		return itoa(storetest.SeedEnrolment(t, tdb, s))
	}
	removed := seed(storetest.EnrolmentSeed{Kind: store.TopicCertificate, Title: "Old", ShowCertificate: true, Removed: true})
	exploring := seed(storetest.EnrolmentSeed{Kind: store.TopicCertificate, Title: "Busy", ShowCertificate: true, Status: "Exploring"})
	hidden := seed(storetest.EnrolmentSeed{Kind: store.TopicCertificate, Title: "Fire safety"})
	pathway := seed(storetest.EnrolmentSeed{Kind: store.PathwayCertificate, Title: "Induction", ShowCertificate: true, Status: "Applying"})

	cases := []struct {
		query  string
		status int
		body   string
	}{
		{"", 400, `{"error":"Missing parameter: give topic_assignment_id or pathway_assignment_id"}`},
		{"?other=1", 400, `{"error":"Missing parameter: give topic_assignment_id or pathway_assignment_id"}`},
		{"?topic_assignment_id=1&pathway_assignment_id=1", 400, `{"error":"Give either topic_assignment_id or pathway_assignment_id, not both"}`},
		{"?topic_assignment_id=abc", 400, `{"error":"Illegal value 'abc' for 'topic_assignment_id': it must be a positive whole number"}`},
		{"?pathway_assignment_id=", 400, `{"error":"Illegal value '' for 'pathway_assignment_id': it must be a positive whole number"}`},
		{"?topic_assignment_id=-3", 400, `{"error":"Illegal value '-3' for 'topic_assignment_id': it must be a positive whole number"}`},
		{"?topic_assignment_id=1.5", 400, `{"error":"Illegal value '1.5' for 'topic_assignment_id': it must be a positive whole number"}`},
		{"?topic_assignment_id=99999999999999999999", 400, `{"error":"Illegal value '99999999999999999999' for 'topic_assignment_id': it must be a positive whole number"}`},
		{"?topic_assignment_id=1&topic_assignment_id=2", 400, `{"error":"Give topic_assignment_id only once"}`},
		{"?topic_assignment_id=999", 404, `{"error":"not found"}`},
		{"?pathway_assignment_id=999", 404, `{"error":"not found"}`},
		{"?topic_assignment_id=" + removed, 400, `{"error":"Topic assignment 1 has been removed: only a current enrolment has a certificate"}`},
		{"?topic_assignment_id=" + exploring, 400, `{"error":"Topic assignment 2 is not conquered (its status is Exploring): only a conquered enrolment has a certificate"}`},
		{"?topic_assignment_id=" + hidden, 400, `{"error":"The topic 'Fire safety' does not show a certificate (show_certificate is false)"}`},
		{"?pathway_assignment_id=" + pathway, 400, `{"error":"Pathway assignment 1 is not conquered (its status is Applying): only a conquered enrolment has a certificate"}`},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			e.acme.call(t, "GET", "/papi/certificates"+c.query, "", c.status, c.body)
		})
	}
	for _, bad := range []string{"x", "00000000000000000000000000000000", strings.Repeat("g", 32), "..%2F..%2Fetc"} {
		e.acme.call(t, "GET", "/papi/certificates/status/"+bad, "", 404, `{"error":"not found"}`)
	}
	e.acme.call(t, "GET", "/papi/certificates/download/whatever", "", 404, `{"error":"not found"}`)
}

func TestCertificateFailedJobShowsItsError(t *testing.T) {
	t.Parallel()
	e := &certEnv{newUsersEnv(t)}
	tdb := e.acme.tdb(t)
	ann := e.acme.learner(t, "ann", "Ann", "Smith")
	id := storetest.SeedConqueredEnrolment(t, tdb, ann, "Fire safety", usersStart.Add(-time.Hour))
	jobID := e.acme.getJSON(t, "/papi/certificates?topic_assignment_id="+itoa(id), 202)["job_id"].(string)
	// Unenrolled before the worker gets to it.
	if _, err := e.h.db.Pool().Exec(`UPDATE `+tdb.Schema()+`.topic_enrolments SET removed_at = now() WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	startCertificateWorker(t, e.h, e.clock.Now)
	got := e.acme.waitStatus(t, jobID)
	want := `{"job_id":"` + jobID + `","status":"failed","error":"Topic assignment 1 has been removed: only a current enrolment has a certificate"}`
	assertResponse(t, e.h.papi("GET", e.acme.host, "/papi/certificates/status/"+jobID, e.acme.key, ""), 200, want)
	if _, ok := got["url"]; ok {
		t.Fatal("a failed job has a url")
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// The whole path through the public API, with no seeding: a topic that
// shows certificates, a COMPLETE code, then the certificate of that topic
// assignment and of the pathway assignment the same learner conquers.
func TestCertificateOfAnEnrolmentMadeThroughTheAPI(t *testing.T) {
	t.Parallel()
	e := newCertEnv(t)
	e.acme.learner(t, "ann", "Ann", "Smith")
	topic := e.acme.getJSONBody(t, "POST", "/papi/topics",
		`{"title":"Fire safety","show_certificate":true,"enrolment_code":"FIRE-1"}`, 201)
	e.acme.getJSONBody(t, "POST", "/papi/pathways",
		`{"title":"Induction","show_certificate":true,"enrolment_code":"IND-1","topics":[{"topic_id":`+
			fmt.Sprint(topic["id"])+`}]}`, 201)
	assigned := e.acme.getJSONBody(t, "POST", "/papi/topic_assignments",
		`{"user_name":"ann","enrolment_code_1":"IND-1","enrolment_code_2":"FIRE-1 COMPLETE"}`, 200)
	list, _ := assigned["assignments"].([]any)
	if len(list) != 2 {
		t.Fatalf("assignments = %v", assigned)
	}
	pathway, _ := list[0].(map[string]any)
	topicEnrolment, _ := list[1].(map[string]any)
	for _, c := range []struct{ param, status string }{
		{"topic_assignment_id=" + fmt.Sprint(topicEnrolment["id"]), fmt.Sprint(topicEnrolment["status"])},
		{"pathway_assignment_id=" + fmt.Sprint(pathway["id"]), fmt.Sprint(pathway["status"])},
	} {
		if c.status != "Conquered" {
			t.Fatalf("%s is %s, want Conquered: %v", c.param, c.status, assigned)
		}
		job := e.acme.getJSON(t, "/papi/certificates?"+c.param, 202)
		done := e.acme.waitStatus(t, job["job_id"].(string))
		link, _ := done["url"].(string)
		res, pdf := e.download(e.acme.host, link)
		if done["status"] != "complete" || res.StatusCode != 200 || !bytes.HasPrefix(pdf, []byte("%PDF-")) {
			t.Fatalf("%s: status %v, download %d", c.param, done, res.StatusCode)
		}
		// The other tenant cannot request it.
		assertResponse(t, e.other.h.papi("GET", e.other.host, "/papi/certificates?"+c.param, e.other.key, ""),
			404, `{"error":"not found"}`)
	}
}

// getJSONBody sends an authenticated request with body and decodes the JSON object answer.
func (ct catalogTenant) getJSONBody(t *testing.T, method, path, body string, status int) map[string]any {
	t.Helper()
	w := ct.h.papi(method, ct.host, path, ct.key, body)
	if w.Code != status {
		t.Fatalf("%s %s = %d %s, want %d", method, path, w.Code, w.Body.String(), status)
	}
	var out map[string]any
	decode(t, w, &out)
	return out
}
