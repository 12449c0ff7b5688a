package handlers

import (
	"net/http"
	"testing"
	"time"
)

// wantGroup is a SCIM Group of acme as learngate renders it.
func wantGroup(id, externalID, name, members, created, modified string) string {
	s := `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:Group"],"id":"` + id + `"`
	if externalID != "" {
		s += `,"externalId":"` + externalID + `"`
	}
	s += `,"displayName":"` + name + `"`
	if members != "-" {
		s += `,"members":` + members
	}
	return s + `,"meta":{"resourceType":"Group","created":"` + created + `","lastModified":"` + modified +
		`","location":"http://acme.learngate.localhost/scim/v2/Groups/` + id + `"}}`
}

// The group sequences Entra ID and Okta document, and RFC 7644 §3.5.2's
// member examples: create, find by displayName without members, rename,
// members added and removed, delete; each checked through /papi.
func TestSCIMGroupSequence(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	e.registerUserHook(t)
	for _, u := range []string{"ann", "ben", "cat"} {
		e.acme.call(t, http.MethodPost, "/papi/users", `{"user_name":"`+u+`","first_name":"F","last_name":"L","email":"`+u+`@example.com"}`, http.StatusOK, "")
	}
	const t0, t1, t2 = "2025-06-01T09:30:00Z", "2025-06-01T09:31:00Z", "2025-06-01T09:32:00Z"

	// Entra ID: Create Group (with one member), then Get Group by displayName without members.
	w := scimExpect(t, e.acme, http.MethodPost, "/scim/v2/Groups", `{"externalId":"8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159",
		"displayName":"displayName","meta":{"resourceType":"Group"},"schemas":["urn:ietf:params:scim:schemas:core:2.0:Group"],
		"members":[{"value":"1"}]}`,
		http.StatusCreated, wantGroup("1", "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159", "displayName", `[{"value":"1","display":"ann"}]`, t0, t0))
	if w.Header().Get("Location") != "http://acme.learngate.localhost/scim/v2/Groups/1" {
		t.Fatalf("Location = %q", w.Header().Get("Location"))
	}
	e.acme.call(t, http.MethodGet, "/papi/groups", "", http.StatusOK,
		`{"total_records":1,"max_per_page":25,"current_page":1,"total_pages":1,"records":[{"id":1,"name":"displayName"}]}`)
	if got := e.acme.getJSON(t, "/papi/users/ann", http.StatusOK)["groups"]; got != "displayName" {
		t.Fatalf("ann's groups = %v", got)
	}
	scimExpect(t, e.acme, http.MethodGet, filterPath("/scim/v2/Groups", `displayName eq "DISPLAYNAME"`)+"&excludedAttributes=members", "", http.StatusOK,
		scimListOf(1, wantGroup("1", "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159", "displayName", "-", t0, t0)))
	scimExpect(t, e.acme, http.MethodGet, "/scim/v2/Groups/1?excludedAttributes=members", "", http.StatusOK,
		wantGroup("1", "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159", "displayName", "-", t0, t0))
	scimExpect(t, e.acme, http.MethodPost, "/scim/v2/Groups", `{"displayName":"DisplayName"}`, http.StatusConflict,
		scimErr("409", "uniqueness", "displayName 'DisplayName' is already taken"))

	// Entra ID: Update Group [Add Members], [Remove Members] with value lists; a rename.
	e.clock.advance(time.Minute)
	scimExpect(t, e.acme, http.MethodPatch, "/scim/v2/Groups/1", `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
		"Operations":[{"op":"Add","path":"members","value":[{"$ref":null,"value":"2"},{"$ref":null,"value":"3"}]},
		{"op":"Replace","path":"displayName","value":"Sales"}]}`, http.StatusOK,
		wantGroup("1", "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159", "Sales", `[{"value":"1","display":"ann"},{"value":"2","display":"ben"},{"value":"3","display":"cat"}]`, t0, t1))
	scimExpect(t, e.acme, http.MethodPatch, "/scim/v2/Groups/1", `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
		"Operations":[{"op":"Remove","path":"members","value":[{"$ref":null,"value":"1"}]}]}`, http.StatusOK,
		wantGroup("1", "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159", "Sales", `[{"value":"2","display":"ben"},{"value":"3","display":"cat"}]`, t0, t1))
	// RFC 7644 §3.5.2.2: remove one member by a value filter; one that is no member is noTarget.
	e.clock.advance(time.Minute)
	scimExpect(t, e.acme, http.MethodPatch, "/scim/v2/Groups/1", `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
		"Operations":[{"op":"remove","path":"members[value eq \"2\"]"}]}`, http.StatusOK,
		wantGroup("1", "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159", "Sales", `[{"value":"3","display":"cat"}]`, t0, t2))
	scimExpect(t, e.acme, http.MethodPatch, "/scim/v2/Groups/1", `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
		"Operations":[{"op":"remove","path":"members[value eq \"2\"]"}]}`, http.StatusBadRequest,
		scimErr("400", "noTarget", "user '2' is no member of the group"))
	scimExpect(t, e.acme, http.MethodPatch, "/scim/v2/Groups/1", `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
		"Operations":[{"op":"add","path":"members","value":[{"value":"99"}]}]}`, http.StatusBadRequest,
		scimErr("400", "invalidValue", "member '99' is no user"))
	// Okta: rename with a value object that repeats the id; RFC 7644 §3.5.2.3: replace all members.
	scimExpect(t, e.acme, http.MethodPatch, "/scim/v2/Groups/1", `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
		"Operations":[{"op":"replace","value":{"id":"1","displayName":"Sales EMEA"}},
		{"op":"replace","path":"members","value":[{"display":"ann","value":"1"},{"display":"ben","value":"2"}]}]}`, http.StatusOK,
		wantGroup("1", "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159", "Sales EMEA", `[{"value":"1","display":"ann"},{"value":"2","display":"ben"}]`, t0, t2))
	scimExpect(t, e.acme, http.MethodGet, filterPath("/scim/v2/Users", `groups.value eq "1"`)+"&attributes=userName", "", http.StatusOK,
		scimListOf(2, `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"id":"1","userName":"ann"}`,
			`{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"id":"2","userName":"ben"}`))
	// RFC 7644 §3.5.2.2: remove all members.
	scimExpect(t, e.acme, http.MethodPatch, "/scim/v2/Groups/1", `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
		"Operations":[{"op":"remove","path":"members"}]}`, http.StatusOK,
		wantGroup("1", "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159", "Sales EMEA", `[]`, t0, t2))
	if got := e.acme.getJSON(t, "/papi/users/ann", http.StatusOK)["groups"]; got != "" {
		t.Fatalf("ann's groups = %v after all members were removed", got)
	}
	e.assertSCIMIsolated(t, "1", "1")

	// Okta's full PUT, then delete.
	scimExpect(t, e.acme, http.MethodPut, "/scim/v2/Groups/1", `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:Group"],"id":"1",
		"displayName":"Test SCIMv2","members":[{"value":"3","display":"cat"}]}`, http.StatusOK,
		wantGroup("1", "", "Test SCIMv2", `[{"value":"3","display":"cat"}]`, t0, t2))
	scimExpect(t, e.acme, http.MethodDelete, "/scim/v2/Groups/1", "", http.StatusNoContent, "")
	scimExpect(t, e.acme, http.MethodGet, "/scim/v2/Groups/1", "", http.StatusNotFound, scimErr("404", "", "not found"))
	e.acme.call(t, http.MethodGet, "/papi/groups", "", http.StatusOK, catalogEmptyList)
	e.assertEvents(t, "user.created", "user.created", "user.created", // the /papi creates
		"user.updated", "user.updated", "user.updated", "user.updated", "user.updated", // ann joins; ben, cat; ann leaves; ben leaves
		"user.updated", "user.updated", "user.updated", // replace all: ann, ben join, cat leaves
		"user.updated", "user.updated", // remove all
		"user.updated") // PUT: cat joins
}
