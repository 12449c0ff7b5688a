package handlers

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"learngate/handlers/httpx"
)

// newWalkEnv is an enrolEnv whose acme has something on every list: five
// topic enrolments, two pathway enrolments, three custom fields, three
// external knowledge records, three webhooks and three deliveries of webhook 1.
func newWalkEnv(t *testing.T) *enrolEnv {
	t.Helper()
	e := newEnrolEnv(t)
	e.assign(t, `{"user_name":"ann","enrolment_code_1":"GO-101","enrolment_code_2":"SQL-101"}`, http.StatusOK, "")
	e.clock.at(time.Hour)
	e.assign(t, `{"user_name":"bob","enrolment_code_1":"GO-101","enrolment_code_2":"DOCKER-1"}`, http.StatusOK, "")
	e.assign(t, `{"user_name":"ann","enrolment_code_1":"SAFE-1","enrolment_code_2":"PATH-BE"}`, http.StatusOK, "")
	e.assign(t, `{"user_name":"bob","enrolment_code_1":"PATH-BE"}`, http.StatusOK, "")
	for i, kind := range []string{"string", "number", "date"} {
		e.acme.call(t, http.MethodPost, "/papi/custom_fields", fmt.Sprintf(`{"name":"F%d","field_type":%q}`, i, kind), http.StatusCreated, "")
	}
	for _, title := range []string{"A", "B", "C"} {
		e.acme.call(t, http.MethodPost, "/papi/external_knowledges",
			fmt.Sprintf(`{"user_name":"ann","knowledge_type":1,"title":%q}`, title), http.StatusCreated, "")
	}
	for i := range 3 {
		w := e.acme.h.papi(http.MethodPost, e.acme.host, "/papi/webhooks", e.acme.key,
			fmt.Sprintf(`{"url":"https://hooks.example.com/%d","events":["*"]}`, i))
		if w.Code != http.StatusCreated {
			t.Fatalf("create webhook: %d %s", w.Code, w.Body.String())
		}
		if w := e.acme.h.papi(http.MethodPost, e.acme.host, "/papi/webhooks/1/test", e.acme.key, "{}"); w.Code >= 300 {
			t.Fatalf("test webhook: %d %s", w.Code, w.Body.String())
		}
	}
	return e
}

func TestListCursorWalksEveryList(t *testing.T) {
	t.Parallel()
	e := newWalkEnv(t)
	for _, path := range []string{
		"/papi/topic_assignments?per_page=2",
		"/papi/topic_assignments?per_page=1&topic_ids=1,3",
		"/papi/topic_assignments?per_page=2&updated_after=2025-06-01T09:00:00&user_name=ANN",
		"/papi/topic_assignments/by_topic/1?per_page=1",
		"/papi/topic_assignments/by_user/1?per_page=2",
		"/papi/topic_assignments/user/Ann?per_page=1",
		"/papi/pathway_assignments?per_page=1",
		"/papi/pathway_assignments/by_pathway/1?per_page=1",
		"/papi/users?per_page=1", // both made at the same instant: the walk keys on (created_at, id)
		"/papi/users?per_page=1&active=true&updated_after=2025-01-01T00:00:00",
		"/papi/topics?per_page=3",
		"/papi/topics?per_page=1&updated_before=2030-01-01T00:00:00",
		"/papi/pathways?per_page=1",
		"/papi/skills?per_page=2",
		"/papi/categories?per_page=1",
		"/papi/custom_fields?per_page=2",
		"/papi/external_knowledges?per_page=2",
		"/papi/webhooks?per_page=2",
		"/papi/webhooks/1/deliveries?per_page=2", // newest first
	} {
		t.Run(path, func(t *testing.T) {
			if bodies := assertWalk(t, e.acme, path); len(bodies) < 2 {
				t.Fatalf("%s: only %d page(s): the walk proves nothing", path, len(bodies))
			}
		})
	}
	// Tenant other has its own, shorter lists.
	assertWalk(t, e.other, "/papi/topics?per_page=1")
	e.other.call(t, http.MethodGet, "/papi/topic_assignments?per_page=2", "", http.StatusOK, listBody(0, 1, 2))
}

// withQuery returns link with its query parameter name set to value.
func withQuery(t *testing.T, link, name, value string) string {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set(name, value)
	u.RawQuery = q.Encode()
	return u.RequestURI()
}

func TestListCursorRefused(t *testing.T) {
	t.Parallel()
	e := newWalkEnv(t)
	nextOf := func(path string) string {
		t.Helper()
		next, _ := listLinks(t, e.acme.h.papi(http.MethodGet, e.acme.host, path, e.acme.key, ""))
		if next == "" {
			t.Fatalf("%s has no next link", path)
		}
		return next
	}
	bad := func(v string) string { return fmt.Sprintf(`"Bad request: Illegal value '%s' for 'cursor'"`, v) }

	next := nextOf("/papi/topic_assignments?per_page=1&topic_ids=1,3")
	cursor := cursorOf(t, next)
	// Every single character changed (tampering anywhere) is refused.
	for i := range len(cursor) {
		c := []byte(cursor)
		c[i] = "AB"[map[bool]int{true: 1}[c[i] == 'A']]
		e.acme.call(t, http.MethodGet, withQuery(t, next, "cursor", string(c)), "", http.StatusBadRequest, bad(string(c)))
	}
	for _, v := range []string{"x", "AQ", cursor + "A", cursor[:len(cursor)-1], "%", strings.Repeat("A", 200)} {
		want := bad(v)
		if len(v) > 100 {
			want = bad(v[:100] + "…")
		}
		e.acme.call(t, http.MethodGet, withQuery(t, next, "cursor", v), "", http.StatusBadRequest, want)
	}
	e.acme.call(t, http.MethodGet, "/papi/topic_assignments?cursor=a%00b", "", http.StatusBadRequest, bad("a\\u0000b"))

	// Other filters, another per_page, another endpoint: 400, never another list's page.
	for _, uri := range []string{
		withQuery(t, next, "topic_ids", "1"),
		withQuery(t, next, "topic_ids", "1,3,4"),
		withQuery(t, next, "user_id", "1"),
		withQuery(t, next, "per_page", "2"),
		"/papi/topic_assignments?per_page=1&cursor=" + cursor,
		"/papi/pathway_assignments?per_page=1&topic_ids=1,3&cursor=" + cursor,
		"/papi/topic_assignments/by_topic/1?per_page=1&topic_ids=1,3&cursor=" + cursor,
	} {
		e.acme.call(t, http.MethodGet, uri, "", http.StatusBadRequest, bad(cursor))
	}
	// The same link works, and page is ignored beside a cursor.
	e.acme.call(t, http.MethodGet, withQuery(t, next, "page", "7"), "", http.StatusOK,
		e.acme.get(t, "/papi/topic_assignments?per_page=1&topic_ids=1,3&page=2"))

	// Each list answers its own 400 shape: the users, webhooks and deliveries lists too.
	for _, path := range []string{"/papi/users?per_page=1", "/papi/webhooks?per_page=1", "/papi/webhooks/1/deliveries?per_page=1",
		"/papi/external_knowledges?per_page=1", "/papi/custom_fields?per_page=1"} {
		link := nextOf(path)
		c := cursorOf(t, link)
		e.acme.call(t, http.MethodGet, withQuery(t, link, "cursor", c+"A"), "", http.StatusBadRequest, bad(c+"A"))
		e.acme.call(t, http.MethodGet, withQuery(t, link, "email", "ann@example.com"), "", http.StatusBadRequest, bad(c))
	}

	// acme's cursor on other's host, with other's key: 400, nothing of acme's shown.
	for _, path := range []string{"/papi/topic_assignments?per_page=1&topic_ids=1,3", "/papi/users?per_page=1", "/papi/topics?per_page=1"} {
		link := nextOf(path)
		u, _ := url.Parse(link)
		e.other.call(t, http.MethodGet, u.RequestURI(), "", http.StatusBadRequest, bad(cursorOf(t, link)))
	}
}

func TestListCursorWalkSeesRowsAddedDuringIt(t *testing.T) {
	t.Parallel()
	e := newEnrolEnv(t)
	e.assign(t, `{"user_name":"ann","enrolment_code_1":"GO-101","enrolment_code_2":"SQL-101"}`, http.StatusOK, "")
	e.assign(t, `{"user_name":"bob","enrolment_code_1":"GO-101","enrolment_code_2":"DOCKER-1"}`, http.StatusOK, "")
	e.assign(t, `{"user_name":"ann","enrolment_code_1":"SAFE-1"}`, http.StatusOK, "")
	enrolment := func(id int, user string, topic int) string { return wantTopicEnrolment(id, user, topic, nil) }

	w := e.acme.h.papi(http.MethodGet, e.acme.host, "/papi/topic_assignments?per_page=2", e.acme.key, "")
	assertResponse(t, w, http.StatusOK, listBody(5, 1, 2, enrolment(1, "ann", 1), enrolment(2, "ann", 2)))
	next, _ := listLinks(t, w)

	// Two enrolments arrive during the walk: they come at its end, and the
	// walk keeps the totals of its first page.
	e.assign(t, `{"user_name":"bob","enrolment_code_1":"SAFE-1","enrolment_code_2":"SQL-101"}`, http.StatusOK, "")
	w, next, _ = e.acme.getLink(t, next)
	assertResponse(t, w, http.StatusOK, listBody(5, 2, 2, enrolment(3, "bob", 1), enrolment(4, "bob", 3)))
	w, next, _ = e.acme.getLink(t, next)
	assertResponse(t, w, http.StatusOK, listBody(5, 3, 2, enrolment(5, "ann", 4), enrolment(6, "bob", 4)))
	if next == "" {
		t.Fatal("page 3 has no next link though an enrolment follows")
	}
	w, next, _ = e.acme.getLink(t, next)
	assertResponse(t, w, http.StatusOK, `{"total_records":5,"max_per_page":2,"current_page":4,"total_pages":3,"records":[`+
		enrolment(7, "bob", 2)+`]}`)
	if next != "" {
		t.Fatalf("the last page links to %q", next)
	}
	// A new walk counts them all.
	e.acme.call(t, http.MethodGet, "/papi/topic_assignments?per_page=2&page=4", "", http.StatusOK, listBody(7, 4, 2, enrolment(7, "bob", 2)))
}

func TestListCursorAcrossNodes(t *testing.T) {
	t.Parallel()
	e := newWalkEnv(t)
	next, _ := listLinks(t, e.acme.h.papi(http.MethodGet, e.acme.host, "/papi/users?per_page=1", e.acme.key, ""))
	u, _ := url.Parse(next)
	// A second node with the shared signing key follows the first node's link.
	shared := newHarness(t, harnessOptions{DB: e.h.db, DBURL: e.h.dbURL})
	w := shared.papi(http.MethodGet, e.acme.host, u.RequestURI(), e.acme.key, "")
	want := e.acme.get(t, "/papi/users?per_page=1&page=2")
	if w.Code != http.StatusOK || w.Body.String() != want {
		t.Fatalf("shared-key node: %d %s, want %s", w.Code, w.Body.String(), want)
	}
	// A node with a key of its own (LEARNGATE_SIGNING_KEY unset: random per process) refuses it.
	own := newHarness(t, harnessOptions{DB: e.h.db, DBURL: e.h.dbURL, CursorKey: httpx.SigningKey(nil)})
	w = own.papi(http.MethodGet, e.acme.host, u.RequestURI(), e.acme.key, "")
	assertResponse(t, w, http.StatusBadRequest, fmt.Sprintf(`"Bad request: Illegal value '%s' for 'cursor'"`, cursorOf(t, next)))
}
