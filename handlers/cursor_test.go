package handlers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// linkPart is one link of a Link header: <url>; rel="name".
var linkPart = regexp.MustCompile(`^<([^>]+)>; rel="(next|first)"$`)

// listLinks returns the next and first URLs of a list answer's Link header
// (next "" when there is none), failing unless the header is exactly those
// links, next first.
func listLinks(t *testing.T, w interface{ Header() http.Header }) (next, first string) {
	t.Helper()
	header := w.Header().Values("Link")
	if len(header) != 1 {
		t.Fatalf("Link headers %q, want one", header)
	}
	parts := strings.Split(header[0], ", ")
	for i, part := range parts {
		m := linkPart.FindStringSubmatch(part)
		switch {
		case m == nil:
			t.Fatalf("Link %q: part %q is no link", header[0], part)
		case m[2] == "next" && i == 0 && len(parts) == 2:
			next = m[1]
		case m[2] == "first" && i == len(parts)-1:
			first = m[1]
		default:
			t.Fatalf("Link %q: unexpected %q", header[0], part)
		}
	}
	if first == "" {
		t.Fatalf("Link %q has no first", header[0])
	}
	return next, first
}

// getLink follows a link of ct's lists, which must be an http URL on ct's
// host, and returns the answer and, on a 200, its next and first links.
func (ct catalogTenant) getLink(t *testing.T, link string) (w *httptest.ResponseRecorder, next, first string) {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil || u.Scheme != "http" || u.Host != ct.host {
		t.Fatalf("link %q: not an http URL on %s (%v)", link, ct.host, err)
	}
	w = ct.h.papi(http.MethodGet, ct.host, u.RequestURI(), ct.key, "")
	if w.Code != http.StatusOK {
		return w, "", ""
	}
	next, first = listLinks(t, w)
	return w, next, first
}

// cursorOf is the cursor parameter of a next link.
func cursorOf(t *testing.T, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil || u.Query().Get("cursor") == "" {
		t.Fatalf("link %q has no cursor (%v)", link, err)
	}
	return u.Query().Get("cursor")
}

// assertWalk walks path (whose query sets per_page) by next links and by
// page numbers and checks that both give the same bodies, that every link
// keeps path's filters and per_page, and that the last page has no next.
// It returns the bodies.
func assertWalk(t *testing.T, ct catalogTenant, path string) []string {
	t.Helper()
	base, err := url.Parse("http://" + ct.host + path)
	if err != nil {
		t.Fatal(err)
	}
	base.RawQuery = base.Query().Encode() // links write their query in canonical form
	var env struct {
		TotalPages int `json:"total_pages"`
	}
	first := ct.get(t, path)
	if err := json.Unmarshal([]byte(first), &env); err != nil {
		t.Fatal(err)
	}
	var numbered []string
	for p := 1; p <= max(env.TotalPages, 1); p++ {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		numbered = append(numbered, ct.get(t, fmt.Sprintf("%s%spage=%d", path, sep, p)))
	}

	walked := []string{first}
	w := ct.h.papi(http.MethodGet, ct.host, path, ct.key, "")
	next, firstLink := listLinks(t, w)
	if firstLink != base.String() {
		t.Fatalf("%s: first link %q, want %q", path, firstLink, base.String())
	}
	for next != "" {
		if len(walked) > len(numbered) {
			t.Fatalf("%s: the walk goes past the %d numbered pages", path, len(numbered))
		}
		u, _ := url.Parse(next)
		q := u.Query()
		q.Del("cursor")
		if q.Encode() != base.Query().Encode() || u.Path != base.Path {
			t.Fatalf("%s: next link %q does not keep the filters and per_page", path, next)
		}
		w, n, f := ct.getLink(t, next)
		if w.Code != http.StatusOK || f != firstLink {
			t.Fatalf("%s: following %q: %d %s, first %q", path, next, w.Code, w.Body.String(), f)
		}
		walked = append(walked, w.Body.String())
		next = n
	}
	if strings.Join(walked, "\n") != strings.Join(numbered, "\n") {
		t.Fatalf("%s: walk by links\n%s\nwant the walk by page numbers\n%s", path,
			strings.Join(walked, "\n"), strings.Join(numbered, "\n"))
	}
	return walked
}

func TestListLinksExact(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	roles := make([]string, 5)
	for i := range roles {
		roles[i] = fmt.Sprintf(`{"id":%d,"name":"R%d"}`, i+1, i+1)
		e.acme.call(t, http.MethodPost, "/papi/roles", fmt.Sprintf(`{"name":"R%d"}`, i+1), http.StatusCreated, roles[i])
	}
	first := `<http://acme.learngate.localhost/papi/roles?per_page=2>; rel="first"`
	nextRe := regexp.MustCompile(`^<http://acme\.learngate\.localhost/papi/roles\?cursor=[A-Za-z0-9_-]{40,100}&per_page=2>; rel="next", ` +
		regexp.QuoteMeta(first) + `$`)

	w := e.acme.h.papi(http.MethodGet, e.acme.host, "/papi/roles?per_page=2", e.acme.key, "")
	assertResponse(t, w, http.StatusOK, listBody(5, 1, 2, roles[0], roles[1]))
	if !nextRe.MatchString(w.Header().Get("Link")) {
		t.Fatalf("page 1 Link %q", w.Header().Get("Link"))
	}
	next, _ := listLinks(t, w)
	w, next, _ = e.acme.getLink(t, next)
	assertResponse(t, w, http.StatusOK, listBody(5, 2, 2, roles[2], roles[3]))
	w, next, _ = e.acme.getLink(t, next)
	assertResponse(t, w, http.StatusOK, listBody(5, 3, 2, roles[4]))
	if next != "" {
		t.Fatalf("the last page links to %q", next)
	}

	// The last page by number, a page past the end and a one-page list: first only.
	for _, tt := range []struct{ path, link string }{
		{"/papi/roles?per_page=2&page=3", first},
		{"/papi/roles?per_page=2&page=9", first},
		{"/papi/roles", `<http://acme.learngate.localhost/papi/roles?per_page=25>; rel="first"`},
		{"/papi/roles?per_page=500", `<http://acme.learngate.localhost/papi/roles?per_page=100>; rel="first"`},
	} {
		w := e.acme.h.papi(http.MethodGet, e.acme.host, tt.path, e.acme.key, "")
		if w.Code != http.StatusOK || w.Header().Get("Link") != tt.link {
			t.Fatalf("%s: %d Link %q, want %q", tt.path, w.Code, w.Header().Get("Link"), tt.link)
		}
	}
	// A numbered page links to the page after it; the key in api_key never appears in a link.
	w = do(e.acme.h.public, request{host: e.acme.host, path: "/papi/roles?page=2&per_page=2&api_key=" + url.QueryEscape(e.acme.key)})
	assertResponse(t, w, http.StatusOK, listBody(5, 2, 2, roles[2], roles[3]))
	if link := w.Header().Get("Link"); strings.Contains(link, "api_key") || strings.Contains(link, e.acme.key) {
		t.Fatalf("Link %q shows the key", link)
	}
	next, _ = listLinks(t, w)
	w, _, _ = e.acme.getLink(t, next)
	assertResponse(t, w, http.StatusOK, listBody(5, 3, 2, roles[4]))

	// Tenant other sees none of it: its own empty list, and its own links.
	w = e.other.h.papi(http.MethodGet, e.other.host, "/papi/roles?per_page=2", e.other.key, "")
	assertResponse(t, w, http.StatusOK, listBody(0, 1, 2))
	if link := w.Header().Get("Link"); link != `<http://other.learngate.localhost/papi/roles?per_page=2>; rel="first"` {
		t.Fatalf("other's Link %q", link)
	}
}
