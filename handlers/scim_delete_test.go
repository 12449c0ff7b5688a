package handlers

import (
	"net/http"
	"testing"
	"time"
)

// DELETE through SCIM deactivates and hides; a later POST brings the user
// back (201); a reactivation through /papi makes it visible again.
func TestSCIMDeleteAndRevive(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	e.registerUserHook(t)
	body := `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"ada@example.com","externalId":"ext-1",
		"name":{"givenName":"Ada","familyName":"Lovelace"},"emails":[{"value":"ada@example.com","type":"work","primary":true}],"active":true}`
	ada := wantSCIMUser{id: "1", externalID: "ext-1", userName: "ada@example.com", given: "Ada", family: "Lovelace", email: "ada@example.com",
		active: true, userType: "Staff", lang: "en", tz: "Pacific/Auckland", created: "2025-06-01T09:30:00Z", modified: "2025-06-01T09:30:00Z"}
	scimExpect(t, e.acme, http.MethodPost, "/scim/v2/Users", body, http.StatusCreated, ada.json())
	scimExpect(t, e.acme, http.MethodPost, "/scim/v2/Users", body, http.StatusConflict,
		scimErr("409", "uniqueness", "userName 'ada@example.com' is already taken"))

	e.clock.advance(time.Minute)
	scimExpect(t, e.acme, http.MethodDelete, "/scim/v2/Users/1", "", http.StatusNoContent, "")
	scimExpect(t, e.acme, http.MethodGet, "/scim/v2/Users/1", "", http.StatusNotFound, scimErr("404", "", "not found"))
	scimExpect(t, e.acme, http.MethodGet, filterPath("/scim/v2/Users", `userName eq "ada@example.com"`), "", http.StatusOK, scimEmptyList)
	scimExpect(t, e.acme, http.MethodDelete, "/scim/v2/Users/1", "", http.StatusNotFound, scimErr("404", "", "not found"))
	// Kept, deactivated, through /papi.
	if got := e.acme.getJSON(t, "/papi/users/ada@example.com", http.StatusOK)["active"]; got != false {
		t.Fatalf("/papi active = %v after a SCIM DELETE", got)
	}

	// POST again: back, active, with the posted attributes.
	e.clock.advance(time.Minute)
	back := ada
	back.given, back.modified = "Augusta", "2025-06-01T09:32:00Z"
	scimExpect(t, e.acme, http.MethodPost, "/scim/v2/Users",
		`{"userName":"ADA@example.com","externalId":"ext-1","name":{"givenName":"Augusta","familyName":"Lovelace"},"emails":[{"value":"ada@example.com"}]}`,
		http.StatusCreated, back.json())

	// Deleted again, then reactivated through /papi: SCIM sees it again.
	scimExpect(t, e.acme, http.MethodDelete, "/scim/v2/Users/1", "", http.StatusNoContent, "")
	e.clock.advance(time.Minute)
	e.acme.call(t, http.MethodPut, "/papi/users/ada@example.com", `{"active":true}`, http.StatusOK, "")
	back.modified = "2025-06-01T09:33:00Z"
	scimExpect(t, e.acme, http.MethodGet, "/scim/v2/Users/1", "", http.StatusOK, back.json())

	e.assertSCIMIsolated(t, "1", "")
	e.assertEvents(t, "user.created", "user.deactivated", "user.reactivated", "user.deactivated", "user.reactivated")
}

// A PATCH whose last operation fails changes nothing: the row and the
// events stay as they were.
func TestSCIMPatchIsAtomic(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	e.registerUserHook(t)
	scimExpect(t, e.acme, http.MethodPost, "/scim/v2/Users",
		`{"userName":"bob","name":{"givenName":"Bob","familyName":"B"},"emails":[{"value":"bob@example.com"}]}`, http.StatusCreated, "")
	before := e.acme.get(t, "/papi/users/bob")
	e.clock.advance(time.Minute)
	for _, c := range []struct{ ops, want string }{
		{`[{"op":"replace","path":"name.givenName","value":"Robert"},{"op":"replace","path":"nickname.bogus","value":"x"}]`,
			scimErr("400", "invalidPath", `the path "nickname.bogus" names no attribute of this resource`)},
		{`[{"op":"replace","path":"active","value":false},{"op":"remove","path":"emails[type eq \"home\"]"}]`,
			scimErr("400", "noTarget", `no value of emails matches type eq "home"`)},
		{`[{"op":"replace","path":"name.familyName","value":"X"},{"op":"add","path":"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager","value":"999"}]`,
			scimErr("400", "invalidValue", "manager '999' is no user")},
		{`[{"op":"replace","path":"displayName","value":"x"},{"op":"replace","path":"groups","value":[]}]`,
			scimErr("400", "mutability", "groups is read-only")},
		{`[{"op":"Remove","path":"emails[type eq \"work\""}]`, scimErr("400", "invalidPath", `the path "emails[type eq \"work\"" is not valid`)},
		{`[{"op":"move","path":"active","value":true}]`, scimErr("400", "invalidSyntax", "operation 1: op must be add, replace or remove")},
	} {
		scimExpect(t, e.acme, http.MethodPatch, "/scim/v2/Users/1",
			`{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":`+c.ops+`}`, http.StatusBadRequest, c.want)
	}
	if after := e.acme.get(t, "/papi/users/bob"); after != before {
		t.Fatalf("user changed by failed PATCHes:\n%s\n%s", before, after)
	}
	e.assertEvents(t, "user.created")
}
