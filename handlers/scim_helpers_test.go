package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"
)

// scimCall sends a SCIM request for ct with its key as the Bearer token
// and, with a body, Content-Type application/scim+json.
func scimCall(ct catalogTenant, method, path, body string) *httptest.ResponseRecorder {
	headers := map[string]string{"Authorization": "Bearer " + ct.key}
	if body != "" {
		headers["Content-Type"] = "application/scim+json"
	}
	return do(ct.h.public, request{method: method, host: ct.host, path: path, body: body, headers: headers})
}

// scimExpect sends a SCIM request and checks the status, the exact body
// (when want is not empty) and that an answer with a body is
// application/scim+json.
func scimExpect(t *testing.T, ct catalogTenant, method, path, body string, status int, want string) *httptest.ResponseRecorder {
	t.Helper()
	w := scimCall(ct, method, path, body)
	assertResponse(t, w, status, want)
	if w.Body.Len() > 0 {
		if got := w.Header().Get("Content-Type"); got != "application/scim+json" {
			t.Fatalf("Content-Type = %q, want application/scim+json", got)
		}
	}
	return w
}

// filterPath is path with the filter query parameter set to f.
func filterPath(path, f string) string {
	return path + "?filter=" + url.QueryEscape(f)
}

// scimErr is SCIM's error body.
func scimErr(status, scimType, detail string) string {
	b, _ := json.Marshal(map[string]any{"detail": detail})
	body := `{"schemas":["urn:ietf:params:scim:api:messages:2.0:Error"],"status":"` + status + `"`
	if scimType != "" {
		body += `,"scimType":"` + scimType + `"`
	}
	return body + `,` + strings.TrimPrefix(string(b), "{")
}

// scimEmptyList is a ListResponse without results.
const scimEmptyList = `{"schemas":["urn:ietf:params:scim:api:messages:2.0:ListResponse"],"totalResults":0,"startIndex":1,"itemsPerPage":0,"Resources":[]}`

// scimListOf is a ListResponse of the given resources (JSON), from startIndex 1.
func scimListOf(total int, resources ...string) string {
	return `{"schemas":["urn:ietf:params:scim:api:messages:2.0:ListResponse"],"totalResults":` + itoa(int64(total)) +
		`,"startIndex":1,"itemsPerPage":` + itoa(int64(len(resources))) + `,"Resources":[` + strings.Join(resources, ",") + `]}`
}

// wantSCIMUser describes an expected SCIM User of tenant acme.
type wantSCIMUser struct {
	id, externalID, userName, given, family, email string
	active                                         bool
	userType, lang, tz                             string
	employeeNumber, manager                        string
	groups                                         string // the groups array as JSON, "" for none
	created, modified                              string
}

// json is the user as learngate renders it, written out by hand.
func (u wantSCIMUser) json() string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	ext := u.employeeNumber != "" || u.manager != ""
	s := `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"`
	if ext {
		s += `,"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"`
	}
	s += `],"id":` + q(u.id)
	if u.externalID != "" {
		s += `,"externalId":` + q(u.externalID)
	}
	display := u.given + " " + u.family
	s += `,"userName":` + q(u.userName) + `,"name":{"formatted":` + q(display) + `,"familyName":` + q(u.family) +
		`,"givenName":` + q(u.given) + `},"displayName":` + q(display) + `,"emails":[{"value":` + q(u.email) +
		`,"type":"work","primary":true}],"active":` + itoa0(u.active) + `,"userType":` + q(u.userType) +
		`,"preferredLanguage":` + q(u.lang) + `,"timezone":` + q(u.tz)
	if u.groups != "" {
		s += `,"groups":` + u.groups
	}
	if ext {
		s += `,"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User":{`
		var parts []string
		if u.employeeNumber != "" {
			parts = append(parts, `"employeeNumber":`+q(u.employeeNumber))
		}
		if u.manager != "" {
			parts = append(parts, `"manager":{"value":`+q(u.manager)+`}`)
		}
		s += strings.Join(parts, ",") + `}`
	}
	return s + `,"meta":{"resourceType":"User","created":` + q(u.created) + `,"lastModified":` + q(u.modified) +
		`,"location":"http://acme.learngate.localhost/scim/v2/Users/` + u.id + `"}}`
}

func itoa0(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// registerUserHook subscribes acme to every user event, so that events are recorded.
func (e *usersEnv) registerUserHook(t *testing.T) {
	t.Helper()
	register(t, e.acme, `{"url":"https://hooks.example.com/learngate","events":["user.created","user.updated","user.deactivated","user.reactivated"]}`)
}

// eventTypes returns the types of acme's recorded events, oldest first.
func (e *usersEnv) eventTypes(t *testing.T) []string {
	t.Helper()
	ctx := context.Background()
	var types []string
	err := e.tenantHandle(t, "acme").ReadTx(ctx, func(tx *sqlx.Tx) error {
		return tx.SelectContext(ctx, &types, `SELECT e.type FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id ORDER BY d.id`)
	})
	if err != nil {
		t.Fatalf("read events: %v", err)
	}
	return types
}

// assertEvents checks acme's recorded event types.
func (e *usersEnv) assertEvents(t *testing.T, want ...string) {
	t.Helper()
	got := e.eventTypes(t)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("events = %v, want %v", got, want)
	}
}

// assertSCIMIsolated checks that tenant other sees no SCIM user or group,
// and not user or group id.
func (e *usersEnv) assertSCIMIsolated(t *testing.T, userID, groupID string) {
	t.Helper()
	scimExpect(t, e.other, http.MethodGet, "/scim/v2/Users", "", http.StatusOK, scimEmptyList)
	scimExpect(t, e.other, http.MethodGet, "/scim/v2/Groups", "", http.StatusOK, scimEmptyList)
	if userID != "" {
		scimExpect(t, e.other, http.MethodGet, "/scim/v2/Users/"+userID, "", http.StatusNotFound, scimErr("404", "", "not found"))
	}
	if groupID != "" {
		scimExpect(t, e.other, http.MethodGet, "/scim/v2/Groups/"+groupID, "", http.StatusNotFound, scimErr("404", "", "not found"))
	}
}
