package handlers

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// The provisioning sequence Microsoft Entra ID documents for its SCIM
// client ("Develop and plan provisioning for a SCIM endpoint"), request by
// request, with the changes checked through /papi and tenant other.
func TestSCIMEntraUserSequence(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	e.registerUserHook(t)
	// The manager-to-be, made through the Public API: SCIM sees it too.
	e.acme.call(t, http.MethodPost, "/papi/users", `{"user_name":"boss","first_name":"Bo","last_name":"Ss","email":"boss@example.com"}`, http.StatusOK, "")

	const userName = "Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1"
	scimExpect(t, e.acme, http.MethodGet, filterPath("/scim/v2/Users", `userName eq "`+userName+`"`), "", http.StatusOK, scimEmptyList)

	created := wantSCIMUser{id: "2", externalID: "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef", userName: strings.ToLower(userName),
		given: "givenName", family: "familyName", email: "Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com",
		active: true, userType: "Staff", lang: "en", tz: "Pacific/Auckland", employeeNumber: "701984",
		created: "2025-06-01T09:30:00Z", modified: "2025-06-01T09:30:00Z"}
	w := scimExpect(t, e.acme, http.MethodPost, "/scim/v2/Users", `{
		"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User", "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
		"externalId": "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef",
		"userName": "`+userName+`",
		"active": true,
		"emails": [{"primary": true, "type": "work", "value": "Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com"}],
		"meta": {"resourceType": "User"},
		"name": {"formatted": "givenName familyName", "familyName": "familyName", "givenName": "givenName"},
		"roles": [],
		"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": {"employeeNumber": "701984", "department": "Tour Operations"}
	}`, http.StatusCreated, created.json())
	if got := w.Header().Get("Location"); got != "http://acme.learngate.localhost/scim/v2/Users/2" {
		t.Fatalf("Location = %q", got)
	}
	if w.Header().Get("X-RateLimit-Limit") == "" {
		t.Fatal("no X-RateLimit-Limit on a SCIM answer")
	}
	// The same user through /papi: created_by scim, login external.
	papiUser := e.acme.getJSON(t, "/papi/users/"+strings.ToLower(userName), http.StatusOK)
	if papiUser["created_by"] != "scim" || papiUser["login"] != "external" || papiUser["lms_learner_id"] != "701984" {
		t.Fatalf("/papi user = %v", papiUser)
	}

	scimExpect(t, e.acme, http.MethodGet, "/scim/v2/Users/2", "", http.StatusOK, created.json())
	scimExpect(t, e.acme, http.MethodGet, filterPath("/scim/v2/Users", `userName eq "`+userName+`"`), "", http.StatusOK, scimListOf(1, created.json()))

	// Update User [Multi-valued properties]: Replace with capitalised op names.
	e.clock.advance(time.Minute)
	changed := created
	changed.email, changed.family, changed.modified = "updatedEmail@microsoft.com", "updatedFamilyName", "2025-06-01T09:31:00Z"
	scimExpect(t, e.acme, http.MethodPatch, "/scim/v2/Users/2", `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
		"Operations":[{"op":"Replace","path":"emails[type eq \"work\"].value","value":"updatedEmail@microsoft.com"},
		{"op":"Replace","path":"name.familyName","value":"updatedFamilyName"}]}`, http.StatusOK, changed.json())
	scimExpect(t, e.acme, http.MethodGet, filterPath("/scim/v2/Users", `emails[type eq "work"].value eq "UPDATEDemail@microsoft.com"`), "", http.StatusOK, scimListOf(1, changed.json()))

	// Manager by id, with the extension's URN as the path.
	changed.manager = "1"
	scimExpect(t, e.acme, http.MethodPatch, "/scim/v2/Users/2", `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
		"Operations":[{"op":"Add","path":"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager","value":"1"}]}`,
		http.StatusOK, changed.json())
	if got := e.acme.getJSON(t, "/papi/users/"+strings.ToLower(userName), http.StatusOK)["manager_email"]; got != "boss@example.com" {
		t.Fatalf("manager_email = %v", got)
	}

	// Disable User with a string boolean, then enable again.
	changed.active = false
	scimExpect(t, e.acme, http.MethodPatch, "/scim/v2/Users/2", `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
		"Operations":[{"op":"Replace","path":"active","value":"False"}]}`, http.StatusOK, changed.json())
	if got := e.acme.getJSON(t, "/papi/users/"+strings.ToLower(userName), http.StatusOK)["active"]; got != false {
		t.Fatalf("/papi active = %v after active False", got)
	}
	changed.active = true
	scimExpect(t, e.acme, http.MethodPatch, "/scim/v2/Users/2", `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
		"Operations":[{"op":"Replace","path":"active","value":"True"}]}`, http.StatusOK, changed.json())

	// Remove the manager.
	changed.manager = ""
	scimExpect(t, e.acme, http.MethodPatch, "/scim/v2/Users/2", `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
		"Operations":[{"op":"Remove","path":"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager"}]}`,
		http.StatusOK, changed.json())
	if got := e.acme.getJSON(t, "/papi/users/"+strings.ToLower(userName), http.StatusOK)["manager_email"]; got != nil {
		t.Fatalf("manager_email = %v after the manager was removed", got)
	}

	e.assertSCIMIsolated(t, "2", "")
	e.assertEvents(t, "user.created", "user.created", "user.updated", "user.updated", "user.deactivated", "user.reactivated", "user.updated")
}
