package handlers

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"learngate/store/storetest"
)

// TestCertificateDownloadHead: HEAD on a download link answers as GET does,
// without an API key: 200 with the same headers (Content-Length the PDF's
// size) and no body, through the router and over a real connection. Its
// refusals are GET's: another tenant's host and a tampered token 404, an
// expired link 410, a suspended tenant 401.
func TestCertificateDownloadHead(t *testing.T) {
	t.Parallel()
	e := newCertEnv(t)
	ann := e.acme.learner(t, "ann", "Ann", "Smith")
	id := storetest.SeedConqueredEnrolment(t, e.acme.tdb(t), ann, "Fire safety", usersStart.Add(-time.Hour))
	jobID := e.acme.getJSON(t, "/papi/certificates?topic_assignment_id="+itoa(id), 202)["job_id"].(string)
	link := e.acme.waitStatus(t, jobID)["url"].(string)
	path := strings.TrimPrefix(link, "http://acme.learngate.localhost")
	token := path[strings.LastIndex(path, "/")+1:]

	get := do(e.h.public, request{host: e.acme.host, path: path})
	head := do(e.h.public, request{method: http.MethodHead, host: e.acme.host, path: path})
	if get.Code != 200 || head.Code != 200 {
		t.Fatalf("GET = %d, HEAD = %d; want 200 for both (HEAD body %s)", get.Code, head.Code, head.Body.String())
	}
	if head.Body.Len() != 0 {
		t.Fatalf("HEAD sent a body of %d bytes", head.Body.Len())
	}
	if want := strconv.Itoa(get.Body.Len()); head.Header().Get("Content-Length") != want || get.Header().Get("Content-Length") != want {
		t.Fatalf("Content-Length: HEAD %q, GET %q, want %s", head.Header().Get("Content-Length"), get.Header().Get("Content-Length"), want)
	}
	for _, h := range []string{"Content-Type", "Content-Disposition", "Cache-Control", "X-Content-Type-Options", "X-RateLimit-Limit"} {
		if got, want := head.Header().Get(h), get.Header().Get(h); got != want || want == "" {
			t.Errorf("%s: HEAD %q, GET %q", h, got, want)
		}
	}
	if head.Header().Get("Content-Type") != "application/pdf" {
		t.Errorf("Content-Type %q", head.Header().Get("Content-Type"))
	}

	// Over a connection, as curl -I sees it.
	srv := httptest.NewServer(e.h.public)
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodHead, srv.URL+path, nil)
	req.Host = e.acme.host
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || res.ContentLength != int64(get.Body.Len()) || len(body) != 0 ||
		res.Header.Get("Content-Disposition") != get.Header().Get("Content-Disposition") {
		t.Fatalf("HEAD over HTTP = %d, length %d, %d body bytes, headers %v", res.StatusCode, res.ContentLength, len(body), res.Header)
	}

	headTo := func(host, p string) *httptest.ResponseRecorder {
		return do(e.h.public, request{method: http.MethodHead, host: host, path: p})
	}
	notFound := `{"error":"not found"}`
	assertResponse(t, headTo(e.other.host, path), 404, notFound)
	assertResponse(t, headTo(e.acme.host, "/papi/certificates/download/"+token[:len(token)-2]+"AA"), 404, notFound)
	assertResponse(t, headTo("nobody.learngate.localhost", path), 404, `{"error":"unknown organisation"}`)

	e.clock.advance(15 * time.Minute)
	assertResponse(t, headTo(e.acme.host, path), 410,
		`{"error":"This download link has expired: ask for the certificate job's status again for a new link"}`)

	fresh := strings.TrimPrefix(e.acme.waitStatus(t, jobID)["url"].(string), "http://acme.learngate.localhost")
	assertResponse(t, headTo(e.acme.host, fresh), 200, "")
	e.h.opsCall("PATCH", "/ops/v1/tenants/acme", `{"status":"suspended"}`)
	waitUntil(t, func() bool { return headTo(e.acme.host, fresh).Code == 401 })
	assertResponse(t, headTo(e.acme.host, fresh), 401, `{"error":"unauthorized"}`)
}
