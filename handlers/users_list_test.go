package handlers

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"
)

// listOf is the exact list envelope of acme's users names (each body as
// GET /papi/users/{name} answers it).
func (e *usersEnv) listOf(t *testing.T, total, page, perPage int, names ...string) string {
	t.Helper()
	records := make([]string, len(names))
	for i, name := range names {
		w := e.h.papi(http.MethodGet, e.acme.host, "/papi/users/"+name, e.acme.key, "")
		assertResponse(t, w, http.StatusOK, "")
		records[i] = w.Body.String()
	}
	return listBody(total, page, perPage, records...)
}

func TestListUsers(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	// amy at 09:30, ben at 09:31, cat at 09:32 (inactive); amy is updated at 09:33.
	for _, u := range []string{
		`{"user_name":"amy","first_name":"Amy","last_name":"A","email":"amy@example.com"}`,
		`{"user_name":"ben","first_name":"Ben","last_name":"B","email":"Ben@Example.com"}`,
		`{"user_name":"cat","first_name":"Cat","last_name":"C","email":"cat@example.com","active":false}`,
	} {
		e.acme.call(t, http.MethodPost, "/papi/users", u, http.StatusOK, "")
		e.clock.advance(time.Minute)
	}
	e.acme.call(t, http.MethodPut, "/papi/users/amy", `{"last_name":"Adams"}`, http.StatusOK, "")

	tests := []struct {
		name  string
		query string
		want  func(t *testing.T) string
	}{
		{"newest first", "", func(t *testing.T) string { return e.listOf(t, 3, 1, 25, "cat", "ben", "amy") }},
		{"first page", "?per_page=2", func(t *testing.T) string { return e.listOf(t, 3, 1, 2, "cat", "ben") }},
		{"second page", "?per_page=2&page=2", func(t *testing.T) string { return e.listOf(t, 3, 2, 2, "amy") }},
		{"past the end", "?per_page=2&page=3", func(t *testing.T) string { return e.listOf(t, 3, 3, 2) }},
		{"page size reduced to 100", "?per_page=500", func(t *testing.T) string { return e.listOf(t, 3, 1, 100, "cat", "ben", "amy") }},
		{"updated strictly after", "?updated_after=2025-06-01T09:31:00", func(t *testing.T) string { return e.listOf(t, 2, 1, 25, "cat", "amy") }},
		{"updated strictly before", "?updated_before=2025-06-01T09:32:00", func(t *testing.T) string { return e.listOf(t, 1, 1, 25, "ben") }},
		{"updated between", "?updated_after=2025-06-01T09:30:00&updated_before=2025-06-01T09:33:00",
			func(t *testing.T) string { return e.listOf(t, 2, 1, 25, "cat", "ben") }},
		{"active", "?active=YES", func(t *testing.T) string { return e.listOf(t, 2, 1, 25, "ben", "amy") }},
		{"inactive", "?active=0", func(t *testing.T) string { return e.listOf(t, 1, 1, 25, "cat") }},
		{"active empty: all", "?active=", func(t *testing.T) string { return e.listOf(t, 3, 1, 25, "cat", "ben", "amy") }},
		{"email ignoring case", "?email=BEN@example.COM", func(t *testing.T) string { return e.listOf(t, 1, 1, 25, "ben") }},
		{"email exact, not partial", "?email=ben@example", func(t *testing.T) string { return e.listOf(t, 0, 1, 25) }},
		{"filters combine", "?active=true&email=amy@example.com", func(t *testing.T) string { return e.listOf(t, 1, 1, 25, "amy") }},
		{"unknown custom field ignored", "?x-planet=mars", func(t *testing.T) string { return e.listOf(t, 3, 1, 25, "cat", "ben", "amy") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.acme.call(t, http.MethodGet, "/papi/users"+tt.query, "", http.StatusOK, tt.want(t))
			e.assertIsolated(t, "amy")
		})
	}
}

func TestListUsersRefused(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	e.seedCatalog(t)
	e.acme.call(t, http.MethodPost, "/papi/users", jsonBody(t, carl), http.StatusOK, "")
	tests := []struct {
		query string
		want  string
	}{
		{"page=x", badRequest("x", "page")},
		{"per_page=1.5", badRequest("1.5", "per_page")},
		{"updated_after=2025-06-01", badRequest("2025-06-01", "updated_after")},
		{"updated_after=2025-06-01T09:31:00Z", badRequest("2025-06-01T09:31:00Z", "updated_after")},
		{"updated_before=2025-06-01 09:31:00", badRequest("2025-06-01 09:31:00", "updated_before")},
		{"updated_before=2025-02-30T00:00:00", badRequest("2025-02-30T00:00:00", "updated_before")},
		{"active=maybe", badRequest("maybe", "active")},
		{"x-age=old", badRequest("old", "x-age")},
		{"X-Start=31/03/2024", badRequest("31/03/2024", "x-Start")},
		{"x-start=2024-02-30", badRequest("2024-02-30", "x-start")},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			q, err := url.ParseQuery(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			e.acme.call(t, http.MethodGet, "/papi/users?"+q.Encode(), "", http.StatusBadRequest, tt.want)
		})
	}
	e.assertIsolated(t, "carl")
}

func TestListUsersByCustomField(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	e.seedCatalog(t)
	for i, values := range []string{
		`"X-City":"Berlin Mitte","X-Age":7,"X-Start":"31/03/2024","X-Skills":"Go;Docker"`,
		`"X-City":"Rome","X-Age":"7.5","X-Start":"2024-04-01","X-Skills":"SQL"`,
		`"X-City":"berlin"`,
	} {
		name := fmt.Sprintf("u%d", i+1)
		e.acme.call(t, http.MethodPost, "/papi/users", fmt.Sprintf(
			`{"user_name":%q,"first_name":"F","last_name":"L","email":"%s@example.com",%s}`, name, name, values), http.StatusOK, "")
		e.clock.advance(time.Minute)
	}
	tests := []struct {
		query string
		names []string
	}{
		{"x-city=BERLIN", []string{"u3", "u1"}},
		{"X-CITY=mitte", []string{"u1"}},
		{"x-city=", []string{"u3", "u2", "u1"}},
		{"x-city=%25", nil},
		{"x-age=7", []string{"u1"}},
		{"x-age=7.0", []string{"u1"}},
		{"x-age=7.50", []string{"u2"}},
		{"x-age=70", nil},
		{"x-start=2024-03-31", []string{"u1"}},
		{"x-skills=doc,cobol", []string{"u1"}},
		{"x-skills=q", []string{"u2"}},
		{"x-skills=go,sql", []string{"u2", "u1"}},
		{"x-skills=cob", nil},
		{"x-skills=,", []string{"u3", "u2", "u1"}},
		{"x-city=berlin&x-skills=go", []string{"u1"}},
		{"x-city=rome&x-planet=mars", []string{"u2"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			e.acme.call(t, http.MethodGet, "/papi/users?"+tt.query, "", http.StatusOK, e.listOf(t, len(tt.names), 1, 25, tt.names...))
		})
	}
	e.assertIsolated(t, "u1")
	e.other.call(t, http.MethodGet, "/papi/users?x-city=berlin", "", http.StatusOK, catalogEmptyList)
}

// TestListUsersByCustomFieldLiterally checks that x-<text> and x-<list>
// filters, served by the trigram index (lower(value) LIKE '%part%'), keep
// their meaning: `%`, `_` and `\` are plain characters, non-ASCII letters
// match in any case, and a list filter matches a part of one item, not of
// the items joined by ';'. Tenant other holds a user with the same value.
func TestListUsersByCustomFieldLiterally(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	e.seedCatalog(t)
	for i, values := range []string{
		`"X-City":"100% Cotton","X-Skills":"Go;Docker"`,
		`"X-City":"a_b\\c"`,
		`"X-City":"ÉCOLE Süd"`,
		`"X-City":"abc","X-Skills":"SQL"`,
	} {
		name := fmt.Sprintf("u%d", i+1)
		e.acme.call(t, http.MethodPost, "/papi/users", fmt.Sprintf(
			`{"user_name":%q,"first_name":"F","last_name":"L","email":"%s@example.com",%s}`, name, name, values), http.StatusOK, "")
		e.clock.advance(time.Minute)
	}
	e.other.call(t, http.MethodPost, "/papi/custom_fields", `{"name":"City","field_type":"string"}`, http.StatusCreated, "")
	e.other.call(t, http.MethodPost, "/papi/users",
		`{"user_name":"o1","first_name":"F","last_name":"L","email":"o1@example.com","X-City":"100% Cotton"}`, http.StatusOK, "")
	tests := []struct {
		query string
		names []string
	}{
		{"x-city=%25", []string{"u1"}},
		{"x-city=0%25%20C", []string{"u1"}},
		{"x-city=%25%25", nil},
		{"x-city=a_b", []string{"u2"}},
		{"x-city=_", []string{"u2"}},
		{"x-city=b%5Cc", []string{"u2"}},
		{"x-city=%5C", []string{"u2"}},
		{"x-city=%5C%5C", nil},
		{"x-city=%C3%A9cole", []string{"u3"}}, // école
		{"x-city=S%C3%9CD", []string{"u3"}},   // SÜD
		{"x-city=ab", []string{"u4"}},
		{"x-city=E%20s", []string{"u3"}},
		{"x-skills=ker", []string{"u1"}},
		{"x-skills=r%3Bg", nil}, // in "docker;go", but in no item
		{"x-skills=r%3Bg,oc", []string{"u1"}},
		{"x-skills=%25,_", nil},
		{"x-skills=GO,s", []string{"u4", "u1"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			e.acme.call(t, http.MethodGet, "/papi/users?"+tt.query, "", http.StatusOK, e.listOf(t, len(tt.names), 1, 25, tt.names...))
		})
	}
	w := e.h.papi(http.MethodGet, e.other.host, "/papi/users/o1", e.other.key, "")
	assertResponse(t, w, http.StatusOK, "")
	e.other.call(t, http.MethodGet, "/papi/users?x-city=%25", "", http.StatusOK, listBody(1, 1, 25, w.Body.String()))
	e.other.call(t, http.MethodGet, "/papi/users?x-city=a_b", "", http.StatusOK, catalogEmptyList)
}
