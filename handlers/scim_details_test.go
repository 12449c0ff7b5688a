package handlers

import (
	"net/http"
	"testing"
)

// TestSCIMDetailsNameSCIMAttributes: the details of the user rules'
// errors name the SCIM attribute the client sent (name.givenName,
// emails.value, the enterprise employeeNumber), not learngate's field.
func TestSCIMDetailsNameSCIMAttributes(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	scimExpect(t, e.acme, http.MethodPost, "/scim/v2/Users",
		`{"userName":"ann","name":{"givenName":"Ann","familyName":"Lee"},"emails":[{"value":"ann@example.com"}]}`, http.StatusCreated, "")
	for _, c := range []struct {
		name, method, path, body string
		status                   int
		want                     string
	}{
		{"no given name", http.MethodPost, "/scim/v2/Users",
			`{"userName":"bob","name":{"familyName":"Lee"},"emails":[{"value":"bob@example.com"}]}`,
			http.StatusBadRequest, scimErr("400", "invalidValue", "Illegal value '' for 'name.givenName'")},
		{"a bad email", http.MethodPost, "/scim/v2/Users",
			`{"userName":"bob","name":{"givenName":"Bob","familyName":"Lee"},"emails":[{"value":"nope"}]}`,
			http.StatusBadRequest, scimErr("400", "invalidValue", "Invalid emails.value 'nope'")},
		{"an email taken", http.MethodPost, "/scim/v2/Users",
			`{"userName":"bob","name":{"givenName":"Bob","familyName":"Lee"},"emails":[{"value":"ann@example.com"}]}`,
			http.StatusConflict, scimErr("409", "uniqueness", "emails.value 'ann@example.com' is already taken")},
		{"a number for employeeNumber", http.MethodPatch, "/scim/v2/Users/1",
			`{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"add",` +
				`"path":"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber","value":5}]}`,
			http.StatusBadRequest, scimErr("400", "invalidValue", "Illegal value '5' for 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber'")},
		{"an empty family name", http.MethodPatch, "/scim/v2/Users/1",
			`{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"replace","path":"name.familyName","value":""}]}`,
			http.StatusBadRequest, scimErr("400", "invalidValue", "Illegal value '' for 'name.familyName'")},
	} {
		t.Run(c.name, func(t *testing.T) {
			scimExpect(t, e.acme, c.method, c.path, c.body, c.status, c.want)
		})
	}
	// /papi keeps learngate's field names.
	e.acme.call(t, http.MethodPost, "/papi/users", `{"user_name":"bob","last_name":"Lee","email":"bob@example.com"}`,
		http.StatusBadRequest, `"Bad request: Illegal value '' for 'first_name'"`)
	e.assertSCIMIsolated(t, "1", "")
}
